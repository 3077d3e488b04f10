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

pub fn header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}' is not a header: use `NAME: VALUE'"))?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b))
    {
        return Err(format!("`{name}' is not a valid header name"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

pub fn pattern_number<T: std::str::FromStr>(s: &str) -> Result<(String, T), String> {
    let (pattern, n) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("`{s}' is not REGEX=N"))?;
    let n = n
        .trim()
        .parse()
        .map_err(|_| format!("`{n}' is not a valid number"))?;
    Ok((pattern.to_owned(), n))
}

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

pub fn positive_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}': the value must be a positive number of seconds"
        )),
    }
}

pub fn non_negative(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}' is not a number >= 0")),
    }
}
