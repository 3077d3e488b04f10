//! Values the flags and the config file share: the parsers of flag values (both read a
//! timeout, a header or a `-F` output the same way) and the sections only the config file has
//! (`[[hosts]]`, `[[auth]]`), which the flags' `Args` carries too. The flags (`args`) and the
//! config file (`config_file`) both depend on this module, never on each other's parsers.

use std::collections::BTreeMap;

use linkpatrol::report::Format;
use serde::{Deserialize, Serialize};

/// `-F TYPE[/FILE]`: a report format written to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOutput {
    /// The format.
    pub format: Format,
    /// The file; the format's default name when not given.
    pub path: String,
}

/// `[[hosts]]`: settings for the hosts whose `host:port` matches `pattern` (a regex).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HostSection {
    pub pattern: String,
    /// Request starts per second for these hosts (0 = no limit).
    pub rate: Option<f64>,
    /// Requests in flight for each of these hosts (0 = no limit).
    pub max_concurrency: Option<usize>,
    /// Headers sent to these hosts only.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// `[[auth]]`: HTTP basic auth for the URLs matching `pattern` (a regex on the whole URL; a URL
/// with a `user:password@` of its own never matches).
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AuthSection {
    pub pattern: String,
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for AuthSection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthSection")
            .field("pattern", &self.pattern)
            .field("username", &self.username)
            .field("password", &"***")
            .finish()
    }
}

/// `-o TYPE`: a report format, its names declared so that `--help` and the completions list
/// them with what each holds and its `-F` file (the argument reads them in any case).
pub fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Format::ALL.iter().map(|f| {
        let help = format!("{} (-F: {})", f.summary(), f.default_file_name());
        PossibleValue::new(f.name()).help(help)
    }))
    .map(|name| format_name(&name).expect("a format's own name"))
}

pub fn format_name(s: &str) -> Result<Format, String> {
    Format::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown report type `{s}' (one of: {})", names.join(", "))
    })
}

/// `--color`: `auto`, `always` or `never`.
pub fn color_when(s: &str) -> Result<String, String> {
    one_of(s, &["auto", "always", "never"])
}

/// `--group-by`: `page` or `url`.
pub fn group_by(s: &str) -> Result<String, String> {
    one_of(s, &["page", "url"])
}

fn one_of(s: &str, allowed: &[&str]) -> Result<String, String> {
    if allowed.contains(&s) {
        Ok(s.to_owned())
    } else {
        Err(format!("`{s}' is not one of: {}", allowed.join(", ")))
    }
}

pub fn file_output(s: &str) -> Result<FileOutput, String> {
    let (name, path) = match s.split_once('/') {
        Some((name, path)) if !path.is_empty() => (name, Some(path)),
        _ => (s.trim_end_matches('/'), None),
    };
    let format = format_name(name)?;
    Ok(FileOutput {
        format,
        path: path.map_or_else(|| format.default_file_name().to_owned(), str::to_owned),
    })
}

/// `--user-agent`: sent as a header, so free of control characters (CR, LF, …).
pub fn user_agent(s: &str) -> Result<String, String> {
    linkpatrol::parse_header(&format!("User-Agent: {s}")).map(|(_, v)| v)
}

/// `NAME: VALUE` (`--header`), read as every front end reads it.
pub fn header(s: &str) -> Result<(String, String), String> {
    linkpatrol::parse_header(s)
}

/// `REGEX=N` (`--host-rate`, `--host-max-concurrency`), read as every front end reads it.
pub use linkpatrol::parse_pattern_number as pattern_number;

pub fn host_header(s: &str) -> Result<(String, (String, String)), String> {
    let (pattern, h) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}' is not REGEX=NAME: VALUE"))?;
    Ok((pattern.to_owned(), header(h)?))
}

pub fn thread_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!("`{s}' is not a thread count from 1 to 1024")),
    }
}

pub fn shard(s: &str) -> Result<linkpatrol::Shard, String> {
    s.parse().map_err(|e: linkpatrol::Error| e.to_string())
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

/// Seconds: a number (`30`, `2.5`) or a number with a unit of [`unit_secs`] (`5s`, `1.5m`,
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

/// `--abort-timeout`, `--max-retry-wait`: seconds >= 0, with or without a unit.
pub fn non_negative_secs(s: &str) -> Result<f64, String> {
    match seconds(s) {
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}' is not a number of seconds >= 0 or a duration such as 5s, 2m or 1h"
        )),
    }
}

pub fn non_negative(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}' is not a number >= 0")),
    }
}

/// Seconds in the config file: a number (`timeout = 30`) or a duration as on the command line
/// (`timeout = "5s"`). Written back as a number.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Secs(pub f64);

impl<'de> Deserialize<'de> for Secs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Secs;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of seconds or a duration such as \"5s\" or \"2m\"")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Secs, E> {
                Ok(Secs(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Secs, E> {
                Ok(Secs(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Secs, E> {
                Ok(Secs(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Secs, E> {
                seconds(v).map(Secs).ok_or_else(|| {
                    E::custom(format!(
                        "`{v}' is not a number of seconds or a duration such as 5s, 2m or 1h"
                    ))
                })
            }
        }
        d.deserialize_any(Visit)
    }
}

impl std::fmt::Display for Secs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
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
        .filter(|&secs| secs <= linkpatrol::MAX_DURATION.as_secs())
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
        let secs: std::collections::BTreeMap<String, Secs> =
            toml::from_str("a = 30\nb = 2.5\nc = \"5s\"").unwrap();
        assert_eq!(
            secs.values().map(|s| s.0).collect::<Vec<_>>(),
            [30.0, 2.5, 5.0]
        );
    }
}
