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

pub use linkpatrol::options::values::*;

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
