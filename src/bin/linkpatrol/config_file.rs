//! The config file (TOML): where it is found, its keys (the long flag names, kebab-case), how
//! it merges under the environment and the flags, and the effective configuration printed back
//! as TOML (`--print-config`) in a form that reads back to the same configuration.
//!
//! Precedence, lowest first: built-in defaults < config file < `LINKPATROL_*` environment
//! variables < flags. A flag or variable that is given replaces the file's value, lists
//! included (`-H` on the command line replaces the file's `header` list).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::ArgMatches;
use clap::parser::ValueSource;
use serde::{Deserialize, Serialize};

use crate::args::Args;
use crate::values::{self, AuthSection, HostSection, Secs};

/// The name of the config file looked for in the current folder.
pub const LOCAL_FILE: &str = "linkpatrol.toml";

/// Every key of the config file. All are optional; an absent key keeps the default. A key the
/// program does not know is an error (with its line), so a typo never goes unnoticed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileConfig {
    // Inputs
    pub inputs: Option<Vec<String>>,
    pub no_ignore: Option<bool>,
    pub hidden: Option<bool>,
    pub follow: Option<bool>,
    pub exclude_path: Option<Vec<String>>,
    pub fallback_extensions: Option<Vec<String>>,
    pub changed_since: Option<String>,
    pub stdin: Option<bool>,
    pub input_file: Option<Vec<PathBuf>>,
    pub root_dir: Option<PathBuf>,
    pub base_url: Option<String>,
    pub sitemaps: Option<bool>,
    // Scope
    pub recursion_level: Option<usize>,
    pub internal_only: Option<bool>,
    pub include: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    pub no_follow: Option<Vec<String>>,
    pub remap: Option<Vec<String>>,
    pub max_urls: Option<usize>,
    pub max_run_time: Option<Secs>,
    pub no_robots: Option<bool>,
    pub follow_outside_root: Option<bool>,
    pub include_verbatim: Option<bool>,
    // Requests
    pub timeout: Option<Secs>,
    pub max_redirects: Option<usize>,
    pub max_retries: Option<u32>,
    pub max_retry_wait: Option<Secs>,
    pub max_body_size: Option<u64>,
    pub user_agent: Option<String>,
    pub header: Option<Vec<String>>,
    pub host_header: Option<Vec<String>>,
    pub cookie_file: Option<PathBuf>,
    pub login_url: Option<String>,
    pub login_user: Option<String>,
    pub login_user_field: Option<String>,
    pub login_password_field: Option<String>,
    pub login_extra_field: Option<Vec<String>>,
    pub login_logout_pattern: Option<String>,
    pub accept: Option<String>,
    pub method: Option<String>,
    pub insecure: Option<bool>,
    pub exclude_private: Option<bool>,
    pub exclude_loopback: Option<bool>,
    pub exclude_link_local: Option<bool>,
    pub allow_private: Option<bool>,
    pub proxy: Option<String>,
    pub check_mx: Option<bool>,
    pub dns_server: Option<String>,
    pub suggest: Option<bool>,
    pub archive_url: Option<String>,
    pub github_token: Option<String>,
    pub detect_soft_404: Option<bool>,
    // Politeness and threads
    pub threads: Option<usize>,
    pub max_requests_per_second: Option<f64>,
    pub host_concurrency: Option<usize>,
    pub host_rate: Option<Vec<String>>,
    pub host_max_concurrency: Option<Vec<String>>,
    pub abort_timeout: Option<Secs>,
    // Output
    pub output: Option<String>,
    pub color: Option<String>,
    pub group_by: Option<String>,
    pub file_output: Option<Vec<String>>,
    pub stream: Option<bool>,
    pub quiet: Option<bool>,
    pub verbose: Option<bool>,
    pub no_status: Option<bool>,
    pub csv_delimiter: Option<char>,
    pub csv_bom: Option<bool>,
    pub csv_raw: Option<bool>,
    pub ignore_warning: Option<Vec<String>>,
    pub fail_on_warnings: Option<bool>,
    pub fail_on_blocked: Option<bool>,
    pub check_anchors: Option<bool>,
    // State between runs
    pub cache: Option<bool>,
    pub cache_file: Option<PathBuf>,
    pub max_cache_age: Option<String>,
    pub cache_failures: Option<bool>,
    pub resume: Option<bool>,
    pub fail_after_runs: Option<u32>,
    // Plugins: `plugin = ["NAME:key=value", …]` as the flag, or `[plugins.NAME]` sections.
    pub plugin: Option<Vec<String>>,
    // Sections (tables come after plain keys in TOML).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostSection>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auth: Vec<AuthSection>,
    /// `[plugins.NAME]`: a plugin's settings, `key = value` or `key = [values]`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub plugins: BTreeMap<String, BTreeMap<String, toml::Value>>,
}

/// Where the config file to read was found; only [`Found::InCurrentFolder`] may be untrusted
/// (see `trust.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Named with `-c`/`--config` (or `LINKPATROL_CONFIG`).
    Named,
    /// `./linkpatrol.toml`, which may come from the repository being checked.
    InCurrentFolder,
    /// The user's own `config.toml` in the user config folder.
    InUserFolder,
}

/// The config file to read and where it was found: `--config`, else `./linkpatrol.toml`, else
/// `$XDG_CONFIG_HOME/linkpatrol/config.toml` (`~/.config/…`); none with `--no-config`.
pub fn locate(args: &Args) -> Option<(PathBuf, Found)> {
    if args.no_config {
        return None;
    }
    if let Some(p) = &args.config {
        return Some((p.clone(), Found::Named));
    }
    let local = Path::new(".").join(LOCAL_FILE);
    // Whatever it is: `load` refuses what is not a regular file inside the folder, with an
    // error rather than a silent fall back to the user's file.
    if local.symlink_metadata().is_ok() {
        return Some((local, Found::InCurrentFolder));
    }
    dirs::config_dir()
        .map(|d| d.join("linkpatrol").join("config.toml"))
        .filter(|p| p.is_file())
        .map(|p| (p, Found::InUserFolder))
}

/// The most bytes of a config file (a real one is a few kilobytes).
const CONFIG_MAX: u64 = 1 << 20;

/// Reads and parses a config file found as `found` says. It is read only when it is a regular
/// file of at most [`CONFIG_MAX`] bytes (a FIFO would block for ever, `/dev/zero` never end),
/// and one found in the current folder only when it is inside that folder (see
/// `linkpatrol::checkout_file`). Errors are one line naming the file and, for TOML errors, the line and
/// column.
pub fn load(path: &Path, found: Found) -> Result<FileConfig> {
    let folder = (found == Found::InCurrentFolder).then_some(Path::new("."));
    let bytes = linkpatrol::checkout_file::read(path, folder, CONFIG_MAX)
        .map_err(|why| anyhow!("cannot read config file `{}': it {why}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow!("config file `{}' is not UTF-8 text", path.display()))?;
    parse(&text).map_err(|e| anyhow!("config file `{}'{e}", path.display()))
}

/// Parses config text; the error starts with `, line L, column C: ` when the place is known,
/// then names the key of that line and, for a value of the wrong type, the type expected.
pub fn parse(text: &str) -> std::result::Result<FileConfig, String> {
    toml::from_str(text).map_err(|e: toml::de::Error| {
        let full = e.message();
        let mut message = if full.starts_with("unknown field") {
            // The message lists every known key after "expected"; the key and line are
            // enough, with a hint when the key is close to a known one.
            let mut first = full
                .split(", expected")
                .next()
                .unwrap_or("")
                .trim()
                .to_owned();
            if let Some(hint) = crate::key_hint::unknown_key_hint(full) {
                first = format!("{first}; {hint}");
            }
            first
        } else {
            plain_types(full.trim())
        };
        match e.span() {
            Some(span) => {
                let (line, column) = line_col(text, span.start);
                if let Some(key) = key_of_line(text, line).filter(|k| !message.contains(k)) {
                    message = format!("{key}: {message}");
                }
                format!(", line {line}, column {column}: {message}")
            }
            None => format!(": {message}"),
        }
    })
}

/// A serde type error in words a config file's reader knows (`expected usize` → `expected a
/// whole number`).
fn plain_types(message: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("expected usize", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected u16", "expected a whole number"),
        ("expected u8", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
        (
            "expected a sequence",
            "expected a list, such as [\"a\", \"b\"]",
        ),
        ("expected a map", "expected a table"),
        ("expected a character", "expected a single character"),
    ];
    let mut text = message.to_owned();
    for (rust, words) in WORDS {
        if let Some(at) = text.find(rust)
            && !text[at + rust.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
        {
            text.replace_range(at..at + rust.len(), words);
        }
    }
    text
}

/// The key a line of the config text sets (`threads` for `threads = "many"`), if it sets one.
fn key_of_line(text: &str, line: usize) -> Option<String> {
    let (key, _) = text.lines().nth(line - 1)?.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)))
    .then(|| key.to_owned())
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..text.floor_char_boundary(at.min(text.len()))];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// `true` when the argument `id` was given on the command line or in the environment.
pub fn given(m: &ArgMatches, id: &str) -> bool {
    matches!(
        m.value_source(id),
        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
    )
}

/// Fills every argument that neither a flag nor an environment variable set from the file.
/// Values are checked by the same parsers as the flags; an error names the file and the key.
pub fn apply(args: &mut Args, m: &ArgMatches, file: &FileConfig, origin: &Path) -> Result<()> {
    let bad = |key: &str, e: String| anyhow!("config file `{}': {key}: {e}", origin.display());
    // A value taken as is.
    macro_rules! take {
        ($($id:ident),*) => {$(
            if !given(m, stringify!($id)) && let Some(v) = &file.$id {
                args.$id = v.clone();
            }
        )*};
    }
    // An optional value.
    macro_rules! take_some {
        ($($id:ident),*) => {$(
            if !given(m, stringify!($id)) && let Some(v) = &file.$id {
                args.$id = Some(v.clone());
            }
        )*};
    }
    // A value checked by the flag's own parser.
    macro_rules! take_parsed {
        ($id:ident, $key:ident, $parse:expr) => {
            if !given(m, stringify!($id))
                && let Some(v) = &file.$key
            {
                args.$id = $parse(&v.to_string()).map_err(|e| bad(stringify!($key), e))?;
            }
        };
    }
    // A list whose items are checked by the flag's own parser.
    macro_rules! take_list {
        ($id:ident, $key:ident, $parse:expr) => {
            if !given(m, stringify!($id))
                && let Some(v) = &file.$key
            {
                args.$id = v
                    .iter()
                    .map(|s| $parse(s))
                    .collect::<std::result::Result<_, String>>()
                    .map_err(|e| bad(stringify!($key), e))?;
            }
        };
    }
    take!(
        inputs,
        no_ignore,
        hidden,
        follow,
        exclude_path,
        fallback_extensions,
        stdin,
        input_file,
        sitemaps,
        internal_only,
        include,
        exclude,
        no_follow,
        remap,
        no_robots,
        follow_outside_root,
        include_verbatim,
        max_redirects,
        max_retries,
        max_body_size,
        accept,
        method,
        insecure,
        exclude_private,
        exclude_loopback,
        exclude_link_local,
        allow_private,
        check_mx,
        suggest,
        detect_soft_404,
        host_concurrency,
        stream,
        quiet,
        verbose,
        no_status,
        csv_delimiter,
        login_user_field,
        login_password_field,
        login_extra_field,
        login_logout_pattern,
        csv_bom,
        csv_raw,
        ignore_warning,
        fail_on_warnings,
        fail_on_blocked,
        check_anchors,
        cache,
        cache_failures,
        resume
    );
    // Regexes are compiled where the flags' are (`settings`), whose errors name the flag; the
    // file's are checked here first so that an error names the file and its key instead.
    for (id, key, list) in [
        ("exclude_path", "exclude-path", &file.exclude_path),
        ("include", "include", &file.include),
        ("exclude", "exclude", &file.exclude),
        ("no_follow", "no-follow", &file.no_follow),
    ] {
        if !given(m, id)
            && let Some(list) = list
        {
            for p in list {
                regex::Regex::new(p)
                    .map_err(|e| bad(key, format!("`{p}' is not a valid regex: {e}")))?;
            }
        }
    }
    if !given(m, "remap")
        && let Some(rules) = &file.remap
    {
        for rule in rules {
            linkpatrol::Remap::parse(rule).map_err(|e| bad("remap", e.to_string()))?;
        }
    }
    if !given(m, "fail_after_runs")
        && let Some(n) = file.fail_after_runs
    {
        if n == 0 {
            bail!(bad("fail-after-runs", "must be at least 1".into()));
        }
        args.fail_after_runs = n;
    }
    take_parsed!(color, color, values::color_when);
    take_parsed!(group_by, group_by, values::group_by);
    take_some!(
        changed_since,
        root_dir,
        base_url,
        recursion_level,
        max_urls,
        user_agent,
        cookie_file,
        login_url,
        login_user,
        dns_server,
        archive_url,
        github_token,
        proxy,
        cache_file
    );
    take_parsed!(max_cache_age, max_cache_age, values::cache_age);
    take_parsed!(threads, threads, values::thread_count);
    take_parsed!(timeout, timeout, values::positive_secs);
    take_parsed!(max_retry_wait, max_retry_wait, values::non_negative_secs);
    args.rate_given |= file.max_requests_per_second.is_some();
    take_parsed!(
        max_requests_per_second,
        max_requests_per_second,
        values::non_negative
    );
    take_parsed!(abort_timeout, abort_timeout, values::non_negative_secs);
    if !given(m, "max_run_time")
        && let Some(v) = &file.max_run_time
    {
        let secs = values::non_negative_secs(&v.to_string()).map_err(|e| bad("max_run_time", e))?;
        args.max_run_time = Some(secs);
    }
    take_parsed!(output, output, values::format_name);
    take_list!(headers, header, values::header);
    take_list!(host_header, host_header, values::host_header);
    take_list!(host_rate, host_rate, values::pattern_number::<f64>);
    take_list!(
        host_max_concurrency,
        host_max_concurrency,
        values::pattern_number::<usize>
    );
    let file_patterns = [
        (
            "host_rate",
            "host-rate",
            args.host_rate.iter().map(|(p, _)| p).collect(),
        ),
        (
            "host_max_concurrency",
            "host-max-concurrency",
            args.host_max_concurrency.iter().map(|(p, _)| p).collect(),
        ),
        (
            "host_header",
            "host-header",
            args.host_header.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        ),
    ];
    for (id, key, patterns) in file_patterns {
        if !given(m, id) {
            for p in patterns {
                regex::Regex::new(p)
                    .map_err(|e| bad(key, format!("`{p}' is not a valid regex: {e}")))?;
            }
        }
    }
    take_list!(file_outputs, file_output, values::file_output);
    take_list!(plugins, plugin, crate::plugin_flags::parse_spec);
    if !given(m, "plugins") {
        let sections = crate::plugin_flags::from_sections(&file.plugins)
            .map_err(|e| bad("plugins", e.to_string()))?;
        args.plugins.extend(sections);
    }
    if !["head", "get"].contains(&args.method.as_str()) {
        bail!(bad(
            "method",
            format!("`{}' is not head or get", args.method)
        ));
    }
    for h in &file.hosts {
        regex::Regex::new(&h.pattern)
            .map_err(|e| bad("[[hosts]] pattern", format!("`{}': {e}", h.pattern)))?;
    }
    for a in &file.auth {
        regex::Regex::new(&a.pattern)
            .map_err(|e| bad("[[auth]] pattern", format!("`{}': {e}", a.pattern)))?;
    }
    args.hosts = file.hosts.clone();
    args.auth = file.auth.clone();
    Ok(())
}

/// The effective configuration as a config file: every key with its value (defaults included;
/// a key whose default is "none" or "unlimited" is left out).
pub fn effective(args: &Args) -> FileConfig {
    let list = |v: &[String]| Some(v.to_vec());
    FileConfig {
        inputs: list(&args.inputs),
        no_ignore: Some(args.no_ignore),
        hidden: Some(args.hidden),
        follow: Some(args.follow),
        exclude_path: list(&args.exclude_path),
        fallback_extensions: list(&args.fallback_extensions),
        changed_since: args.changed_since.clone(),
        stdin: Some(args.stdin),
        input_file: Some(args.input_file.clone()),
        root_dir: args.root_dir.clone(),
        base_url: args.base_url.clone(),
        sitemaps: Some(args.sitemaps),
        recursion_level: args.recursion_level,
        internal_only: Some(args.internal_only),
        include: list(&args.include),
        exclude: list(&args.exclude),
        no_follow: list(&args.no_follow),
        remap: list(&args.remap),
        max_urls: args.max_urls,
        max_run_time: args.max_run_time.map(Secs),
        no_robots: Some(args.no_robots),
        follow_outside_root: Some(args.follow_outside_root),
        include_verbatim: Some(args.include_verbatim),
        timeout: Some(Secs(args.timeout)),
        max_redirects: Some(args.max_redirects),
        max_retries: Some(args.max_retries),
        max_retry_wait: Some(Secs(args.max_retry_wait)),
        max_body_size: Some(args.max_body_size),
        user_agent: args.user_agent.clone(),
        header: Some(
            args.headers
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect(),
        ),
        host_header: Some(
            args.host_header
                .iter()
                .map(|(p, (k, v))| format!("{p}={k}: {v}"))
                .collect(),
        ),
        cookie_file: args.cookie_file.clone(),
        login_url: args.login_url.clone(),
        login_user: args.login_user.clone(),
        login_user_field: Some(args.login_user_field.clone()),
        login_password_field: Some(args.login_password_field.clone()),
        login_extra_field: list(&args.login_extra_field),
        login_logout_pattern: Some(args.login_logout_pattern.clone()),
        accept: Some(args.accept.clone()),
        method: Some(args.method.clone()),
        insecure: Some(args.insecure),
        exclude_private: Some(args.exclude_private),
        exclude_loopback: Some(args.exclude_loopback),
        exclude_link_local: Some(args.exclude_link_local),
        allow_private: Some(args.allow_private),
        proxy: args.proxy.clone(),
        check_mx: Some(args.check_mx),
        dns_server: args.dns_server.clone(),
        suggest: Some(args.suggest),
        archive_url: args.archive_url.clone(),
        // A secret: --print-config output ends up in logs and issues.
        github_token: None,
        detect_soft_404: Some(args.detect_soft_404),
        threads: Some(args.threads),
        max_requests_per_second: Some(args.max_requests_per_second),
        host_concurrency: Some(args.host_concurrency),
        host_rate: Some(
            args.host_rate
                .iter()
                .map(|(p, n)| format!("{p}={n}"))
                .collect(),
        ),
        host_max_concurrency: Some(
            args.host_max_concurrency
                .iter()
                .map(|(p, n)| format!("{p}={n}"))
                .collect(),
        ),
        abort_timeout: Some(Secs(args.abort_timeout)),
        output: Some(args.output.name().to_owned()),
        color: Some(args.color.clone()),
        group_by: Some(args.group_by.clone()),
        file_output: Some(
            args.file_outputs
                .iter()
                .map(|f| format!("{}/{}", f.format.name(), f.path))
                .collect(),
        ),
        stream: Some(args.stream),
        quiet: Some(args.quiet),
        verbose: Some(args.verbose),
        no_status: Some(args.no_status),
        csv_delimiter: Some(args.csv_delimiter),
        csv_bom: Some(args.csv_bom),
        csv_raw: Some(args.csv_raw),
        ignore_warning: list(&args.ignore_warning),
        fail_on_warnings: Some(args.fail_on_warnings),
        fail_on_blocked: Some(args.fail_on_blocked),
        check_anchors: Some(args.check_anchors),
        cache: Some(args.cache),
        cache_file: args.cache_file.clone(),
        max_cache_age: Some(values::format_cache_age(args.max_cache_age)),
        cache_failures: Some(args.cache_failures),
        resume: Some(args.resume),
        fail_after_runs: Some(args.fail_after_runs),
        plugin: Some(crate::plugin_flags::to_flags(&args.plugins)),
        hosts: args.hosts.clone(),
        auth: args.auth.clone(),
        plugins: BTreeMap::new(),
    }
}

/// The effective configuration as TOML text.
pub fn to_toml(config: &FileConfig) -> Result<String> {
    toml::to_string(config).context("cannot print the configuration")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A config with every key set.
    pub(crate) fn every_key() -> FileConfig {
        FileConfig {
            inputs: Some(vec!["https://example.test/".into(), "docs".into()]),
            no_ignore: Some(true),
            hidden: Some(true),
            follow: Some(true),
            exclude_path: Some(vec!["/vendor/".into()]),
            fallback_extensions: Some(vec!["md".into(), "html".into()]),
            changed_since: Some("origin/main".into()),
            stdin: Some(true),
            input_file: Some(vec!["urls.txt".into()]),
            root_dir: Some("public".into()),
            base_url: Some("https://example.test/".into()),
            sitemaps: Some(true),
            recursion_level: Some(3),
            internal_only: Some(true),
            include: Some(vec!["^https://example\\.test/".into()]),
            exclude: Some(vec!["/private/".into()]),
            no_follow: Some(vec!["/archive/".into()]),
            remap: Some(vec![
                "^https://example\\.test/ http://127.0.0.1:8000/".into(),
            ]),
            max_urls: Some(1000),
            max_run_time: Some(Secs(600.0)),
            no_robots: Some(true),
            follow_outside_root: Some(true),
            include_verbatim: Some(true),
            timeout: Some(Secs(12.5)),
            max_redirects: Some(4),
            max_retries: Some(1),
            max_retry_wait: Some(Secs(5.0)),
            max_body_size: Some(1024),
            user_agent: Some("bot/1".into()),
            header: Some(vec!["X-A: 1".into()]),
            host_header: Some(vec!["example=X-B: 2".into()]),
            cookie_file: Some("cookies.txt".into()),
            login_url: Some("https://example.test/login".into()),
            login_user: Some("me".into()),
            login_user_field: Some("user".into()),
            login_password_field: Some("pass".into()),
            login_extra_field: Some(vec!["remember=1".into()]),
            login_logout_pattern: Some("(?i)logoff".into()),
            accept: Some("200..=299,429".into()),
            method: Some("get".into()),
            insecure: Some(true),
            exclude_private: Some(true),
            exclude_loopback: Some(true),
            exclude_link_local: Some(true),
            allow_private: Some(true),
            proxy: Some("http://127.0.0.1:3128".into()),
            check_mx: Some(true),
            dns_server: Some("127.0.0.1:5353".into()),
            suggest: Some(true),
            archive_url: Some("http://127.0.0.1:8001/wayback/available".into()),
            github_token: Some("ghp_token".into()),
            detect_soft_404: Some(true),
            threads: Some(3),
            max_requests_per_second: Some(2.0),
            host_concurrency: Some(2),
            host_rate: Some(vec!["slow=0.5".into()]),
            host_max_concurrency: Some(vec!["slow=1".into()]),
            abort_timeout: Some(Secs(1.0)),
            output: Some("csv".into()),
            color: Some("never".into()),
            group_by: Some("url".into()),
            file_output: Some(vec!["json/out.json".into()]),
            stream: Some(true),
            quiet: Some(true),
            verbose: Some(true),
            no_status: Some(true),
            csv_delimiter: Some(','),
            csv_bom: Some(true),
            csv_raw: Some(true),
            ignore_warning: Some(vec!["http-redirected".into()]),
            fail_on_warnings: Some(true),
            fail_on_blocked: Some(true),
            check_anchors: Some(true),
            cache: Some(true),
            cache_file: Some("state.sqlite".into()),
            max_cache_age: Some("12h".into()),
            cache_failures: Some(true),
            resume: Some(true),
            fail_after_runs: Some(3),
            plugin: Some(vec!["anchors".into(), "regex:pattern=TODO".into()]),
            hosts: vec![HostSection {
                pattern: "^docs\\.example\\.test:443$".into(),
                rate: Some(1.5),
                max_concurrency: Some(2),
                headers: BTreeMap::from([("X-Token".into(), "t".into())]),
            }],
            auth: vec![AuthSection {
                pattern: "^https://intra\\.example\\.test/".into(),
                username: "me".into(),
                password: "secret".into(),
            }],
            plugins: BTreeMap::from([(
                "command".into(),
                BTreeMap::from([
                    ("program".into(), toml::Value::String("sh".into())),
                    ("timeout".into(), toml::Value::Float(2.5)),
                ]),
            )]),
        }
    }

    #[test]
    fn every_key_round_trips_through_toml() {
        let config = every_key();
        let text = to_toml(&config).unwrap();
        assert_eq!(parse(&text).unwrap(), config, "{text}");
    }

    #[test]
    fn every_flag_has_a_config_key() {
        use clap::CommandFactory;
        let text = to_toml(&every_key()).unwrap();
        let keys: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once(" = ").map(|(k, _)| k))
            .collect();
        // Flags about the config file itself, accepted-but-ignored LinkChecker flags, flags that
        // print something and exit, and a shard's place and files in a split check (per run,
        // never a saved setting).
        let exempt = [
            "shard",
            "export-external",
            "external-from",
            "reuse-results",
            "help",
            "version",
            "config",
            "no-config",
            "trust-config",
            "print-config",
            "check-extern",
            "list-plugins",
            "generate",
        ];
        for arg in crate::args::Args::command().get_arguments() {
            let key = arg.get_long().unwrap_or("inputs");
            if !exempt.contains(&key) {
                assert!(keys.contains(&key), "flag --{key} has no config file key");
            }
        }
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let e = parse("threads = 4\n\nthredas = 5\n").unwrap_err();
        assert!(e.starts_with(", line 3, column 1: "), "{e}");
        assert!(e.contains("thredas"), "{e}");
        let e = parse("[[hosts]]\npattern = 'x'\nrat = 1\n").unwrap_err();
        assert!(e.contains("line 3") && e.contains("rat"), "{e}");
    }

    #[test]
    fn a_bad_value_type_names_the_line() {
        let e = parse("threads = 'many'\n").unwrap_err();
        assert!(e.starts_with(", line 1, column 11: "), "{e}");
        let e = parse("threads = \n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
    }

    #[test]
    fn the_password_is_not_in_debug_output() {
        let dbg = format!("{:?}", every_key().auth[0]);
        assert!(!dbg.contains("secret") && dbg.contains("***"), "{dbg}");
    }
}
