//! Just enough DER to read a certificate's `notAfter` (RFC 5280: Certificate → tbsCertificate →
//! validity), with no dependency.

/// One DER element: its tag and contents.
struct Element<'a> {
    tag: u8,
    contents: &'a [u8],
}

/// Reads the element at the start of `input`; returns it and what follows.
fn element(input: &[u8]) -> Option<(Element<'_>, &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| acc << 8 | usize::from(*b));
        (len, &rest[n..])
    };
    if rest.len() < len {
        return None;
    }
    Some((
        Element {
            tag,
            contents: &rest[..len],
        },
        &rest[len..],
    ))
}

const SEQUENCE: u8 = 0x30;
const UTC_TIME: u8 = 0x17;
const GENERALIZED_TIME: u8 = 0x18;
/// `[0] EXPLICIT Version`, present in v2 and v3 certificates.
const VERSION: u8 = 0xa0;

/// The certificate's `notAfter`, as seconds since the Unix epoch.
pub fn not_after(der: &[u8]) -> Option<i64> {
    let (cert, _) = element(der)?;
    if cert.tag != SEQUENCE {
        return None;
    }
    let (tbs, _) = element(cert.contents)?;
    if tbs.tag != SEQUENCE {
        return None;
    }
    let mut fields = tbs.contents;
    let (first, rest) = element(fields)?;
    if first.tag == VERSION {
        fields = rest;
    }
    // serialNumber, signature, issuer: skipped.
    for _ in 0..3 {
        fields = element(fields)?.1;
    }
    let (validity, _) = element(fields)?;
    if validity.tag != SEQUENCE {
        return None;
    }
    let (_not_before, rest) = element(validity.contents)?;
    let (not_after, _) = element(rest)?;
    let text = std::str::from_utf8(not_after.contents).ok()?;
    match not_after.tag {
        UTC_TIME => parse_time(text, false),
        GENERALIZED_TIME => parse_time(text, true),
        _ => None,
    }
}

/// `YYMMDDHHMMSSZ` (UTCTime: 50–99 are 19xx) or `YYYYMMDDHHMMSSZ` (GeneralizedTime).
fn parse_time(text: &str, four_digit_year: bool) -> Option<i64> {
    let digits = text.strip_suffix('Z')?;
    let year_len = if four_digit_year { 4 } else { 2 };
    if digits.len() != year_len + 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let num = |from: usize, len: usize| digits[from..from + len].parse::<i64>().ok();
    let mut year = num(0, year_len)?;
    if !four_digit_year {
        year += if year >= 50 { 1900 } else { 2000 };
    }
    let at = year_len;
    let (month, day) = (num(at, 2)?, num(at + 2, 2)?);
    let (h, m, s) = (num(at + 4, 2)?, num(at + 6, 2)?, num(at + 8, 2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_convert_to_unix_time() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(parse_time("491231235959Z", false), Some(2_524_607_999));
        assert_eq!(parse_time("500101000000Z", false), Some(-631_152_000));
        assert_eq!(parse_time("20380119031408Z", true), Some(2_147_483_648));
        assert_eq!(parse_time("2038011903140Z", true), None);
        assert_eq!(parse_time("20381319031408Z", true), None);
    }

    #[test]
    fn garbage_is_refused_without_panicking() {
        for bad in [
            &b""[..],
            b"\x30",
            b"\x30\x85\x01",
            b"\x30\x02\x30\x00",
            b"\x04\x00",
        ] {
            assert_eq!(not_after(bad), None);
        }
    }
}
