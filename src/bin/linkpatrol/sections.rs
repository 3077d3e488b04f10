//! The config file's sections, each defined here once: `[[hosts]]` (rules for the hosts a
//! pattern matches), `[[auth]]` (basic auth) and `[plugins.NAME]` (a plugin's settings): their
//! fields and names, what a config found in the current folder may do with them, how they are
//! checked and what they add to the library's `Config`. Every other top-level key of the file
//! is a flag (`config_file.rs`).

use std::collections::BTreeMap;

use anyhow::{Context, Result, anyhow};
use linkpatrol::options::Local;
use linkpatrol::{BasicAuth, Config, HostRule};
use regex::Regex;
use serde::{Deserialize, Serialize};

/// The sections of a config file, read with their types. `--print-config` writes `hosts` and
/// `auth` back; the plugins go back as the `plugin` key's values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Sections {
    /// `[[hosts]]`: per-host settings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostSection>,
    /// `[[auth]]`: basic auth for URLs matching a pattern.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auth: Vec<AuthSection>,
    /// `[plugins.NAME]`: a plugin's settings, `key = value` or `key = [values]`.
    #[serde(default, skip_serializing)]
    pub plugins: BTreeMap<String, BTreeMap<String, toml::Value>>,
}

impl Sections {
    /// The top-level names of the sections; every other one is a plain key.
    pub const NAMES: [&str; 3] = [HostSection::KEY, AuthSection::KEY, PLUGINS];

    /// Fails naming the section and what is wrong: a pattern that is no regex, a method that
    /// is not one. `origin`: the file, for the message.
    pub fn check(&self, origin: &std::path::Path) -> Result<()> {
        for h in &self.hosts {
            h.rule()
                .with_context(|| format!("config file `{}'", origin.display()))?;
        }
        for a in &self.auth {
            a.basic_auth()
                .with_context(|| format!("config file `{}'", origin.display()))?;
        }
        Ok(())
    }

    /// `config` with the rules of `[[hosts]]` and `[[auth]]`.
    pub fn add_to(&self, mut config: Config) -> Result<Config> {
        for h in &self.hosts {
            config = config.host_rule(h.rule().context("config file")?);
        }
        for a in &self.auth {
            config = config.basic_auth(a.basic_auth().context("config file")?);
        }
        Ok(config)
    }
}

/// The name of the plugins' section, `[plugins.NAME]`.
pub const PLUGINS: &str = "plugins";

/// The key a plugin's policy goes by, and how a message shows its section:
/// (`plugins.regex`, `` `[plugins.regex]` ``).
pub fn plugin_key(name: &str) -> (String, String) {
    (format!("{PLUGINS}.{name}"), format!("`[{PLUGINS}.{name}]`"))
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

    /// The section as a host rule.
    pub fn rule(&self) -> Result<HostRule> {
        let pattern = Regex::new(&self.pattern)
            .map_err(|e| anyhow!("{} pattern: `{}': {e}", Self::SHOWN, self.pattern))?;
        let mut rule = HostRule::new(pattern);
        if let Some(n) = self.rate {
            rule = rule.max_requests_per_second(n);
        }
        if let Some(n) = self.max_concurrency {
            rule = rule.concurrency(n);
        }
        for (name, value) in &self.headers {
            rule = rule.header(name, value);
        }
        if let Some(m) = &self.method {
            let m = linkpatrol::options::values::method(m)
                .map_err(|e| anyhow!("{} method: {e}", Self::SHOWN))?;
            rule = rule.always_get(m == "get");
        }
        Ok(rule)
    }
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

    /// The section as the library's basic auth.
    pub fn basic_auth(&self) -> Result<BasicAuth> {
        let pattern = Regex::new(&self.pattern)
            .map_err(|e| anyhow!("{} pattern: `{}': {e}", Self::SHOWN, self.pattern))?;
        Ok(BasicAuth::new(pattern, &self.username, &self.password))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_fields() {
        let text = "[[hosts]]\npattern = 'a'\n[[auth]]\npattern = 'b'\nusername = 'u'\n\
                    password = 'p'\n[plugins.anchors]\n";
        let sections: Sections = toml::from_str(text).unwrap();
        assert_eq!(sections.hosts.len(), 1);
        assert_eq!(sections.auth.len(), 1);
        assert!(sections.plugins.contains_key("anchors"));
        let table: toml::Table = toml::from_str(text).unwrap();
        let names: Vec<&str> = table.keys().map(String::as_str).collect();
        let mut expected = Sections::NAMES.to_vec();
        expected.sort();
        assert_eq!(names, expected);
        let written = toml::Table::try_from(&sections).unwrap();
        assert!(written.contains_key(HostSection::KEY) && written.contains_key(AuthSection::KEY));
    }

    #[test]
    fn a_bad_pattern_or_method_is_named() {
        let host = HostSection {
            pattern: "(".into(),
            ..HostSection::default()
        };
        let e = format!("{:#}", host.rule().unwrap_err());
        assert!(e.starts_with("[[hosts]] pattern: `(':"), "{e}");
        let host = HostSection {
            pattern: "x".into(),
            method: Some("post".into()),
            ..HostSection::default()
        };
        let e = format!("{:#}", host.rule().unwrap_err());
        assert!(e.starts_with("[[hosts]] method: "), "{e}");
    }
}
