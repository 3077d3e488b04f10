//! Values of the command's own flags (`-o`, `-F`) and the sections only the config file has
//! (`[[hosts]]`, `[[auth]]`), which the flags' `Args` carries too. The check options' values
//! are read in the library (`linkpatrol::options::values`).

use std::collections::BTreeMap;

use linkpatrol::options::Local;
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
    /// The method of links on these hosts that are only checked, as `--method` takes it
    /// (`get` for a host whose HEAD says 200 where GET says 404).
    pub method: Option<String>,
}

impl HostSection {
    /// The section's key in the config file.
    pub const KEY: &str = "hosts";
    /// The section as messages show it.
    pub const SHOWN: &str = "[[hosts]]";
    /// What a config found in the current folder may do with it (its patterns share the
    /// regex budget, and its headers may not be credentials, as for the flags).
    pub const LOCAL: Local =
        Local::allowed("per-host rates, caps, headers and methods, as the flags");
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

impl AuthSection {
    /// The section's key in the config file.
    pub const KEY: &str = "auth";
    /// The section as messages show it.
    pub const SHOWN: &str = "[[auth]]";
    /// What a config found in the current folder may do with it.
    pub const LOCAL: Local = Local::refused(
        "sends a username and password with every request whose URL matches a pattern: \
         credentials, and where they go, are the user's choice, not a checkout's",
    );
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
