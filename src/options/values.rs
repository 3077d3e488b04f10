//! The values of check options as every front door reads them: thread counts, seconds with
//! or without a unit, rates, headers, `REGEX=N` host rules, shards and cache ages. The flags'
//! parsers, the config file and Python all call these, so a value means the same everywhere.

/// `--user-agent`: sent as a header, so free of control characters (CR, LF, …).
pub fn user_agent(s: &str) -> Result<String, String> {
    crate::config::setting_syntax::parse_header(&format!("User-Agent: {s}")).map(|(_, v)| v)
}

/// One of `--fallback-extensions`: an extension, never a path (`/`, `\`, `..`, NUL).
pub fn fallback_extension(s: &str) -> Result<String, String> {
    crate::config::setting_syntax::fallback_extension(s)
}

/// One of `--index-files`: a file name of the linked folder, or `.` (never a path).
pub fn index_file(s: &str) -> Result<String, String> {
    crate::config::setting_syntax::index_file(s)
}

/// `NAME: VALUE` (`--header`), read as every front end reads it.
pub fn header(s: &str) -> Result<(String, String), String> {
    crate::config::setting_syntax::parse_header(s)
}

/// `REGEX=N` (`--host-rate`, `--host-max-concurrency`), read as every front end reads it.
pub use crate::config::setting_syntax::parse_pattern_number as pattern_number;

/// `REGEX=NAME: VALUE` (`--host-header`).
pub fn host_header(s: &str) -> Result<(String, (String, String)), String> {
    let (pattern, h) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}' is not REGEX=NAME: VALUE"))?;
    Ok((pattern.to_owned(), header(h)?))
}

/// The methods of links that are only checked (`--method`, `--host-method`, the `method` of
/// a `[[hosts]]` section).
pub const METHODS: [&str; 2] = ["head", "get"];

/// `head` or `get` (see [`METHODS`]).
pub fn method(s: &str) -> Result<String, String> {
    if METHODS.contains(&s) {
        Ok(s.to_owned())
    } else {
        Err(format!("`{s}' is not head or get"))
    }
}

/// `REGEX=METHOD` (`--host-method`): the pattern is before the last `=`.
pub fn host_method(s: &str) -> Result<(String, String), String> {
    let (pattern, m) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("`{s}' is not REGEX=METHOD"))?;
    Ok((pattern.to_owned(), method(m)?))
}

/// `--threads`: 1 to 1024.
pub fn thread_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!("`{s}' is not a thread count from 1 to 1024")),
    }
}

/// `I/N` (`--shard`): shard I of N, 0-based.
pub fn shard(s: &str) -> Result<crate::config::shard::Shard, String> {
    s.parse()
        .map_err(|e: crate::model::error::Error| e.to_string())
}

/// The units of a duration (`--max-cache-age`, `--timeout`, …): seconds, minutes, hours, days.
fn unit_secs(unit: char) -> Option<u64> {
    match unit {
        's' => Some(1),
        'm' => Some(60),
        'h' => Some(3600),
        'd' => Some(86_400),
        _ => None,
    }
}

/// Seconds: a number (`30`, `2.5`) or a number with a unit (`s`, `m`, `h`, `d`) (`5s`, `1.5m`,
/// `2h`, `1d`). `None` for anything else; the caller checks the range.
pub fn seconds(s: &str) -> Option<f64> {
    let t = s.trim();
    if let Ok(v) = t.parse::<f64>() {
        return Some(v);
    }
    let unit = t.chars().last()?;
    let scale = unit_secs(unit)?;
    // The unit is ASCII: one byte.
    let n: f64 = t[..t.len() - 1].trim_end().parse().ok()?;
    Some(n * scale as f64)
}

/// `--timeout`: seconds > 0, with or without a unit.
pub fn positive_secs(s: &str) -> Result<f64, String> {
    match seconds(s) {
        Some(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}': the value must be a positive number of seconds, or a duration such as \
             5s, 2m or 1h"
        )),
    }
}

/// A size in bytes, as given (`--max-memory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

/// A size in bytes (`--max-memory`): a whole number, or one with a binary unit, `64K`, `512M`,
/// `2G` (`KiB`, `MB` and the like are read the same way: powers of 1024).
pub fn byte_size(s: &str) -> Result<ByteSize, String> {
    let bad = || format!("`{s}' is not a size such as 1048576, 512M or 2G");
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: u64 = number.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let shift = match unit.trim_end_matches('b').trim_end_matches('i') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(bad()),
    };
    number.checked_mul(1 << shift).map(ByteSize).ok_or_else(bad)
}

/// `--abort-timeout`, `--max-retry-wait`: seconds >= 0, with or without a unit.
pub fn non_negative_secs(s: &str) -> Result<f64, String> {
    match seconds(s) {
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}' is not a number of seconds >= 0 or a duration such as 5s, 2m or 1h"
        )),
    }
}

/// A number >= 0 (`--max-requests-per-second`).
pub fn non_negative(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}' is not a number >= 0")),
    }
}

/// A cache age: a whole number with a unit, `90s`, `30m`, `12h` or `7d`.
pub fn cache_age(s: &str) -> Result<std::time::Duration, String> {
    let bad = || format!("`{s}' is not a duration such as 30m, 12h or 7d");
    let t = s.trim();
    let unit = t.chars().last().ok_or_else(bad)?;
    let scale = unit_secs(unit).ok_or_else(bad)?;
    let n: u64 = t[..t.len() - 1].parse().map_err(|_| bad())?;
    n.checked_mul(scale)
        .filter(|&secs| secs <= crate::config::MAX_DURATION.as_secs())
        .map(std::time::Duration::from_secs)
        .ok_or_else(bad)
}

/// A cache age as [`cache_age`] reads it back, in the largest unit that divides it.
pub fn format_cache_age(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    [(86_400, 'd'), (3600, 'h'), (60, 'm')]
        .into_iter()
        .find(|(unit, _)| secs > 0 && secs.is_multiple_of(*unit))
        .map_or_else(
            || format!("{secs}s"),
            |(unit, c)| format!("{}{c}", secs / unit),
        )
}

#[cfg(test)]
mod cache_age_tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn cache_ages_read_and_print_back() {
        assert_eq!(cache_age("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(cache_age("7d"), Ok(Duration::from_secs(7 * 86_400)));
        assert!(cache_age("12").is_err());
        assert!(cache_age("h").is_err());
        assert!(cache_age("99999999999d").is_err());
        for text in ["1d", "12h", "30m", "90s", "0s"] {
            assert_eq!(format_cache_age(cache_age(text).unwrap()), text);
        }
    }

    #[test]
    fn seconds_take_the_units_of_a_cache_age() {
        assert_eq!(positive_secs("5s"), Ok(5.0));
        assert_eq!(positive_secs("2.5"), Ok(2.5));
        assert_eq!(positive_secs("1.5m"), Ok(90.0));
        assert_eq!(non_negative_secs("1h"), Ok(3600.0));
        assert_eq!(non_negative_secs("0"), Ok(0.0));
        for bad in ["", "s", "5x", "-1s", "0s", "infs", "NaN"] {
            assert!(positive_secs(bad).is_err(), "{bad}");
        }
    }
}
