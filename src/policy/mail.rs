//! `mailto:` links: a syntax check of every address — the comma-separated addresses of the
//! path and those of the `to`, `cc` and `bcc` query fields — with no network. The optional MX
//! lookup of the domains is `mail_mx`.

use url::Url;

/// Checks the addresses of a `mailto:` URL and returns their domains (each once, address
/// literals such as `[192.0.2.1]` left out). `Err` says what is wrong.
pub(crate) fn check_mailto(url: &Url) -> Result<Vec<String>, String> {
    let mut fields = vec![percent_decode(url.path())];
    // `query_pairs` decodes `%xx` and `+`; `+` is literal in mailto, so decode by hand.
    for pair in url.query().unwrap_or("").split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if ["to", "cc", "bcc"]
            .iter()
            .any(|k| key.eq_ignore_ascii_case(k))
        {
            fields.push(percent_decode(value));
        }
    }
    // An empty mailto is legal (the mail client asks), as are `subject` and `body` alone.
    let mut domains: Vec<String> = Vec::new();
    for field in &fields {
        for a in field.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            check_address(a)?;
            let domain = a
                .rsplit_once('@')
                .map_or("", |(_, d)| d)
                .to_ascii_lowercase();
            if !domain.starts_with('[') && !domains.contains(&domain) {
                domains.push(domain);
            }
        }
    }
    Ok(domains)
}

fn check_address(a: &str) -> Result<(), String> {
    let Some((local, domain)) = a.rsplit_once('@') else {
        return Err(format!("mail address `{a}' has no @"));
    };
    if local.is_empty() || local.len() > 64 {
        return Err(format!(
            "mail address `{a}' has an empty or too long local part"
        ));
    }
    let local_ok = if local.starts_with('"') {
        is_quoted_string(local)
    } else {
        local.split('.').all(|atom| {
            !atom.is_empty()
                && atom
                    .chars()
                    .all(|c| c.is_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c))
        })
    };
    if !local_ok {
        return Err(format!("mail address `{a}' has an invalid local part"));
    }
    if domain.starts_with('[') && domain.ends_with(']') {
        return Ok(()); // address literal
    }
    let domain_ok = !domain.is_empty()
        && domain.len() <= 255
        && domain.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
        // RFC 3696 section 2: a top-level domain is never all-numeric.
        && !domain
            .rsplit('.')
            .next()
            .is_some_and(|tld| tld.chars().all(|c| c.is_ascii_digit()));
    if !domain_ok {
        return Err(format!("mail address `{a}' has an invalid domain"));
    }
    Ok(())
}

/// Whether `local` is exactly one quoted string (RFC 5321 `Quoted-string`): `"`, then
/// printable characters other than `"` and `\` (space included, and non-ASCII as RFC 6531
/// allows) or `\` followed by a printable character, then a closing `"` that ends `local`.
fn is_quoted_string(local: &str) -> bool {
    let Some(inner) = local.strip_prefix('"') else {
        return false;
    };
    let printable = |c: char| c == ' ' || c.is_ascii_graphic() || !c.is_ascii();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return chars.next().is_none(),
            '\\' => {
                if !chars.next().is_some_and(printable) {
                    return false;
                }
            }
            c if printable(c) && !c.is_control() => {}
            _ => return false,
        }
    }
    false // no closing quote
}

/// `s` with every `%XX` decoded (bytes that are no UTF-8 as U+FFFD); a `%` without two hex
/// digits stays as written.
pub(crate) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (
                (b[i + 1] as char).to_digit(16),
                (b[i + 2] as char).to_digit(16),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> bool {
        check_mailto(&Url::parse(s).unwrap()).is_ok()
    }

    #[test]
    fn mail_syntax() {
        assert!(ok("mailto:webmaster@example.invalid"));
        assert!(ok("mailto:a@b.test,c.d@e.test?subject=hi"));
        assert!(!ok("mailto:first%20last%40x@y.test"));
        assert!(ok("mailto:?to=a@b.test"));
        assert!(!ok("mailto:nobody"));
        assert!(!ok("mailto:a@-bad-.test"));
        assert!(!ok("mailto:a..b@c.test"));
        assert!(ok("mailto:user+tag@sub.example.test"));
        // the query's to, cc and bcc are addresses too; subject and body are not
        assert!(ok(
            "mailto:a@b.test?cc=c@d.test,e@f.test&bcc=g@h.test&subject=a,b"
        ));
        assert!(ok("mailto:?to=a%2Bb@c.test&body=no@"));
        assert!(!ok("mailto:a@b.test?cc=broken"));
        assert!(!ok("mailto:?to=x@y.test&BCC=nobody"));
        assert!(ok("mailto:"));
        // a quoted local part: `"`, quoted text or `\`-escaped pairs, `"`, then only the `@`
        assert!(ok(r#"mailto:"a b"@example.com"#));
        assert!(ok(r#"mailto:"a\"b"@example.com"#));
        assert!(ok(r#"mailto:"a@b"@example.com"#));
        assert!(ok("mailto:%22a%20b%22@example.com"));
        assert!(!ok(r#"mailto:"a""@example.com"#));
        assert!(!ok(r#"mailto:""a"@example.com"#));
        assert!(!ok(r#"mailto:"a\"@example.com"#));
        assert!(!ok("mailto:%22a%5C%22@example.com"));
        assert!(!ok(r#"mailto:"@example.com"#));
        assert!(!ok("mailto:%22a%09b%22@example.com"));
        // RFC 3696 section 2: an all-numeric top-level domain is not a domain
        assert!(!ok("mailto:a@example.com.111"));
        assert!(!ok("mailto:a@192.0.2.1"));
        assert!(ok("mailto:a@example.c0m"));
        assert!(ok("mailto:a@[192.0.2.1]"));
        let domains = |s: &str| check_mailto(&Url::parse(s).unwrap()).unwrap();
        assert_eq!(
            domains("mailto:a@X.test,b@x.test?cc=c@y.test&bcc=d@[192.0.2.1]"),
            ["x.test", "y.test"]
        );
        // an escape cut by a multi-byte character is kept as written, without a panic
        assert_eq!(percent_decode("%aé%41"), "%aéA");
    }
}
