//! [`AcceptStatus`]: which HTTP statuses count as a working link (`--accept 200..=299,429`).
//! Pure: parsing and a lookup.

use std::fmt;
use std::ops::RangeInclusive;

use crate::model::outcome::Outcome;

/// A set of accepted HTTP statuses. Defaults to `100..=399`: every final status below 400, as
/// LinkChecker judges it (redirects are followed, so a final 3xx is a 300 or 304).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptStatus {
    ranges: Vec<RangeInclusive<u16>>,
}

/// The statuses that count as valid unless told otherwise: every status below 400.
pub const DEFAULT_ACCEPT: &str = "100..=399";

impl Default for AcceptStatus {
    fn default() -> Self {
        AcceptStatus::parse(DEFAULT_ACCEPT).expect("a valid default")
    }
}

impl AcceptStatus {
    /// Parses a comma-separated list of codes (`429`) and ranges (`200..=299` inclusive,
    /// `200..300` exclusive, `500..` from 500 up, `..=299` up to 299). Every code must be from
    /// 100 to 999.
    ///
    /// ```
    /// use linkpatrol::AcceptStatus;
    /// let a = AcceptStatus::parse("200..=299, 429").unwrap();
    /// assert!(a.contains(204) && a.contains(429) && !a.contains(404));
    /// assert!(AcceptStatus::parse("300..=200").is_err());
    /// ```
    ///
    /// # Errors
    /// A message naming the part that is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut ranges = Vec::new();
        for part in text.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(format!("`{text}' has an empty item"));
            }
            // An open start is 100, an open end (`500..`) 999, as lychee reads them.
            let start = |a: &str| {
                if a.trim().is_empty() {
                    Ok(100)
                } else {
                    code(a, part)
                }
            };
            let range = if let Some((a, b)) = part.split_once("..=") {
                start(a)?..=code(b, part)?
            } else if let Some((a, b)) = part.split_once("..") {
                let end = if b.trim().is_empty() {
                    999
                } else {
                    code(b, part)?.saturating_sub(1)
                };
                start(a)?..=end
            } else {
                let c = code(part, part)?;
                c..=c
            };
            if range.is_empty() {
                return Err(format!("`{part}' is an empty range"));
            }
            ranges.push(range);
        }
        Ok(AcceptStatus { ranges })
    }

    /// `true` for the default set (`100..=399`), which the user did not choose.
    fn is_default(&self) -> bool {
        *self == AcceptStatus::default()
    }

    /// `true` when `status` is accepted.
    pub fn contains(&self, status: u16) -> bool {
        self.ranges.iter().any(|r| r.contains(&status))
    }

    /// The verdict for a final HTTP status under this set: an accepted status is `Ok`, any
    /// other is `Broken`; a `Blocked` status a set the user chose accepts is `Ok`. Other
    /// outcomes pass through unchanged.
    pub(crate) fn judge(&self, outcome: Outcome) -> Outcome {
        match outcome {
            // A status the user accepts is fine, even from bot protection; the default set
            // accepts the 202 of an AWS WAF challenge only because it accepts every 2xx.
            Outcome::Blocked { status: s, .. } if self.contains(s) && !self.is_default() => {
                Outcome::Ok { status: Some(s) }
            }
            Outcome::Ok { status: Some(s) } | Outcome::Broken { status: s } => {
                if self.contains(s) {
                    Outcome::Ok { status: Some(s) }
                } else {
                    Outcome::Broken { status: s }
                }
            }
            other => other,
        }
    }
}

fn code(s: &str, part: &str) -> Result<u16, String> {
    match s.trim().parse::<u16>() {
        Ok(c) if (100..=999).contains(&c) => Ok(c),
        _ => Err(format!(
            "`{part}' is not a status code or range (like 200..=299 or 429)"
        )),
    }
}

impl fmt::Display for AcceptStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if r.start() == r.end() {
                write!(f, "{}", r.start())?;
            } else {
                write!(f, "{}..={}", r.start(), r.end())?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_ranges() {
        let a = AcceptStatus::parse("200..=299,429, 500..502").unwrap();
        assert!(a.contains(200) && a.contains(299) && a.contains(429));
        assert!(a.contains(501) && !a.contains(502) && !a.contains(404));
        assert_eq!(a.to_string(), "200..=299,429,500..=501");
        assert_eq!(AcceptStatus::default().to_string(), "100..=399");
        // Open ends, as lychee writes them.
        let open = AcceptStatus::parse("500..,..=199, ..300").unwrap();
        assert_eq!(open.to_string(), "500..=999,100..=199,100..=299");
    }

    #[test]
    fn bad_ranges_are_named() {
        for bad in [
            "",
            "abc",
            "200..=",
            "99",
            "1000",
            "300..=200",
            "200..200",
            "200,,300",
        ] {
            assert!(AcceptStatus::parse(bad).is_err(), "{bad}");
        }
        let e = AcceptStatus::parse("200..=299,4o4").unwrap_err();
        assert!(e.contains("`4o4'"), "{e}");
    }

    #[test]
    fn judge_turns_statuses_into_verdicts() {
        let a = AcceptStatus::parse("200..=299,429").unwrap();
        assert_eq!(
            a.judge(Outcome::Broken { status: 429 }),
            Outcome::Ok { status: Some(429) }
        );
        assert_eq!(
            a.judge(Outcome::Ok { status: Some(204) }),
            Outcome::Ok { status: Some(204) }
        );
        let only_200 = AcceptStatus::parse("200").unwrap();
        assert_eq!(
            only_200.judge(Outcome::Ok { status: Some(204) }),
            Outcome::Broken { status: 204 }
        );
        assert_eq!(
            a.judge(Outcome::Ok { status: None }),
            Outcome::Ok { status: None }
        );
    }
}
