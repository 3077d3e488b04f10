//! What a config file found in the current folder may not set: that folder is often a checkout
//! of the very repository being checked, so its `linkpatrol.toml` is untrusted input.
//!
//! A file named with `-c`, the user's own `config.toml` (in the user config folder) and a local
//! file under `--trust-config` are trusted and may set every key. A local file without that
//! trust may set every key but those of [`REFUSED_IN_LOCAL`], nor a header of
//! [`CREDENTIAL_HEADERS`]; when it does, nothing runs: the refusal is one line naming the
//! file, the keys and how to trust the file.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use linkpatrol::{Inputs, LOCAL_PATTERN_BUDGET};
use url::Url;

use crate::config_file::FileConfig;

/// How a refused key is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Whatever its value.
    Always,
    /// When one of its local paths (or `file:` URLs) leads outside the current folder, once
    /// symbolic links are resolved, or one of its http(s) URLs into this machine's network
    /// ([`linkpatrol::refused_untrusted_start`]).
    Leaves,
}

/// The keys a config file found in the current folder may not set, and why each is
/// dangerous. The key is as written in the file; a plugin's is `plugins.NAME`, whether it is
/// set by a `[plugins.NAME]` section or by `plugin = ["NAME…"]`.
///
/// - `plugins.command`: runs a program of the file's choosing, with the user's rights, on
///   every parsed page.
/// - `plugins.render-js`, `render-js`, `render-tabs`, `render-timeout`: start a browser that
///   runs the sites' scripts (as root without Chromium's sandbox), and `chromium=PATH` runs
///   any program of the file's choosing; the user turns rendering on, never a checkout.
/// - `file-output`: writes (truncates) files at any path, outside the folder too.
/// - `proxy`: sends every request through a server the file names, with the headers, cookies
///   and passwords the user gives on the command line; the proxy can read and answer them all.
/// - `dns-server`: sends the `--check-mx` lookups to a resolver the file names, which learns
///   every mail domain and decides every verdict.
/// - `archive-url`: sends every broken URL (`--suggest`) to a server the file names, which
///   also writes the suggestions the user is shown.
/// - `insecure`: turns certificate checks off, so anyone on the network path can read and
///   change the requests, the user's headers and cookies included.
/// - `allow-private`: lets the checkout's pages have requests made to this machine and its
///   network (a CI runner's metadata service at 169.254.169.254, its neighbours).
/// - `cookie-file`: reads a file at any path (its lines can end up in an error message) and
///   sends cookies the user did not choose.
/// - `input-file`: reads files at any path; every line becomes an input, which is requested
///   or read, and shown in the report when it is not a valid one (`/proc/self/environ`).
/// - `auth`: `[[auth]]` sends a username and password with every request whose URL matches
///   a pattern; credentials, and where they go, are the user's choice, not a checkout's.
/// - `github-token`: a credential too (sent to GitHub with every request there); a checkout
///   that ships one would have the user's run speak to GitHub as the checkout's account.
/// - `remap`: rewrites the links before they are requested, so it can send each request
///   (with the headers and cookies meant for the start sites) to a server the file names.
/// - `csv-raw`: turns off the quote before CSV cells a spreadsheet would run as formulas, so
///   the checkout's own pages could put formulas into the CSV the user opens.
/// - `follow-outside-root`: lets a folder check read, parse and list files outside the folder
///   (`../`, `..%2F`, symbolic links pointing out), which the checkout's pages would then show.
/// - `follow`: has the folder walk follow the checkout's symbolic links, which the checkout
///   chooses.
/// - `cache-file`: creates and writes an SQLite file at any path (and moves a file it cannot
///   read aside), outside the folder too.
/// - `changed-since`: runs git in the checkout, and the checkout's own git configuration (a
///   `.git/config` in a tarball, a bare repository in a subfolder) can have git run commands
///   (`core.fsmonitor`, filters).
/// - `login-url`, `login-user`: the login sends the user's password (from
///   `LINKPATROL_LOGIN_PASSWORD`) to the form the page names, so a checkout could have it sent
///   to a server of its choosing; and the user name is the user's to choose.
/// - `login-user-field`, `login-password-field`: choose the form the password fills on the
///   login page, so a checkout could have it put in a search form's field and sent to that
///   form's host (`GET /search?q=me&lang=PASSWORD`).
/// - `login-extra-field`: fields sent with the user's password, replacing the form's own: a
///   `redirect_uri`, `next` or `return_to` of its choosing has the site send the new session's
///   code or token (in the redirect's query) to a server the file names.
/// - `inputs`, `root-dir`, `sources`: a start input, the site's root or its sources outside the
///   folder would have the crawl read, parse and report files the checkout does not contain
///   (`/etc`, `~/.ssh`);
///   inside the folder they work as usual. A glob input is judged by the folder it walks
///   (`docs` of `docs/**/*.md`). An `inputs` URL whose host is or resolves to a link-local or
///   cloud metadata address is refused, and one on a loopback or private address unless the
///   user's own `--allow-private`: a start site's host is requested whatever its address, so
///   the checkout's `http://169.254.169.254/` would have the metadata service's answers (the
///   machine's credentials) read, and quoted by a plugin.
pub const REFUSED_IN_LOCAL: &[(&str, Refusal)] = &[
    ("plugins.command", Refusal::Always),
    ("plugins.render-js", Refusal::Always),
    ("render-js", Refusal::Always),
    ("render-tabs", Refusal::Always),
    ("render-timeout", Refusal::Always),
    ("file-output", Refusal::Always),
    ("proxy", Refusal::Always),
    ("dns-server", Refusal::Always),
    ("archive-url", Refusal::Always),
    ("insecure", Refusal::Always),
    ("allow-private", Refusal::Always),
    ("cookie-file", Refusal::Always),
    ("input-file", Refusal::Always),
    ("auth", Refusal::Always),
    ("github-token", Refusal::Always),
    ("follow-outside-root", Refusal::Always),
    ("follow", Refusal::Always),
    ("csv-raw", Refusal::Always),
    ("remap", Refusal::Always),
    ("cache-file", Refusal::Always),
    ("changed-since", Refusal::Always),
    ("login-url", Refusal::Always),
    ("login-user", Refusal::Always),
    ("login-user-field", Refusal::Always),
    ("login-password-field", Refusal::Always),
    ("login-extra-field", Refusal::Always),
    ("inputs", Refusal::Leaves),
    ("root-dir", Refusal::Leaves),
    ("sources", Refusal::Leaves),
];

/// Fails with one line when the config file found in the current folder at `path` sets a key
/// of [`REFUSED_IN_LOCAL`], or when its patterns need more than [`LOCAL_PATTERN_BUDGET`].
/// `allow_private`: the user's own flags or variables allow private addresses.
pub fn check_local(file: &FileConfig, path: &Path, allow_private: bool) -> Result<()> {
    let folder = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .context("cannot read the current folder")?;
    let set = keys_set(file)?;
    let mut refused = Vec::new();
    for (key, refusal) in REFUSED_IN_LOCAL {
        for (_, shown) in set.iter().filter(|(k, _)| k == key) {
            match refusal {
                Refusal::Always => refused.push(shown.clone()),
                Refusal::Leaves => {
                    for (url, why) in urls_into_network(file, key, allow_private) {
                        refused.push(format!("{shown} `{url}' ({why})"));
                    }
                    for p in paths_of(file, key) {
                        if leaves(&folder, &p) {
                            refused.push(format!(
                                "{shown} outside the current folder (`{}')",
                                p.display()
                            ));
                        }
                    }
                }
            }
        }
    }
    refused.extend(credential_headers(file));
    if refused.is_empty() {
        return pattern_budget(file, path);
    }
    let p = path.display();
    bail!(
        "{p} sets {}, which a config found in the current folder may not set (it could come \
         from the repository being checked); trust it with --trust-config, \
         LINKPATROL_TRUST_CONFIG=1 or -c {p}",
        refused.join(", ")
    )
}

/// The headers a config found in the current folder may not set, for any host (`header`,
/// `host-header`, `[[hosts]]`): credentials are the user's to give, and a checkout's own
/// would go beside the user's (a second `Authorization` on a request that carries the GitHub
/// token) or speak for the checkout's account.
pub const CREDENTIAL_HEADERS: [&str; 3] = ["authorization", "cookie", "proxy-authorization"];

/// The credential headers `file` sets, each as the refusal shows it (name only, never the
/// value): `` `header` `Cookie` ``.
fn credential_headers(file: &FileConfig) -> Vec<String> {
    // `NAME: VALUE`, and `REGEX=NAME: VALUE` for `host-header`.
    let name = |h: &str| h.split_once(':').map_or(h, |(n, _)| n).trim().to_owned();
    let plain = file
        .strings("header")
        .into_iter()
        .map(|h| ("header", name(&h)));
    let per_host = file.strings("host-header").into_iter().map(|h| {
        let header = h.split_once('=').map_or(h.as_str(), |(_, h)| h);
        ("host-header", name(header))
    });
    let sections = file
        .hosts
        .iter()
        .flat_map(|s| s.headers.keys())
        .map(|n| ("[[hosts]]", n.trim().to_owned()));
    plain
        .chain(per_host)
        .chain(sections)
        .filter(|(_, n)| CREDENTIAL_HEADERS.contains(&n.to_ascii_lowercase().as_str()))
        .map(|(key, n)| format!("`{key}` `{}`", n.escape_debug()))
        .collect()
}

/// Fails with one line naming the file and the key when the patterns of `file` (an untrusted
/// local config) need more than [`LOCAL_PATTERN_BUDGET`] together.
fn pattern_budget(file: &FileConfig, path: &Path) -> Result<()> {
    let list = |key: &'static str, split: bool| {
        file.strings(key)
            .into_iter()
            .map(move |p| {
                // `REGEX=VALUE`: the pattern is before the last `=` (a number) or the first
                // (a header).
                let pattern = match (split, key) {
                    (false, _) => p.as_str(),
                    (true, "host-header") => p.split_once('=').map_or(p.as_str(), |(r, _)| r),
                    (true, _) => p.rsplit_once('=').map_or(p.as_str(), |(r, _)| r),
                };
                (key, pattern.to_owned())
            })
            .collect::<Vec<_>>()
    };
    let mut patterns = Vec::new();
    patterns.extend(list("include", false));
    patterns.extend(list("exclude", false));
    patterns.extend(list("no-follow", false));
    patterns.extend(list("host-rate", true));
    patterns.extend(list("host-max-concurrency", true));
    patterns.extend(list("host-header", true));
    patterns.extend(list("exclude-path", false));
    patterns.extend(list("login-logout-pattern", false));
    patterns.extend(list("host-method", true));
    patterns.extend(file.hosts.iter().map(|h| ("hosts", h.pattern.clone())));
    patterns.extend(
        regex_plugin_patterns(file)
            .into_iter()
            .map(|p| ("plugins.regex", p)),
    );
    let Some(share) = LOCAL_PATTERN_BUDGET.checked_div(patterns.len()) else {
        return Ok(());
    };
    let share = share.min(10 * 1024 * 1024);
    for (key, pattern) in &patterns {
        let built = regex::RegexBuilder::new(pattern)
            .size_limit(share)
            .dfa_size_limit(share)
            .build();
        if let Err(regex::Error::CompiledTooBig(_)) = built {
            let p = path.display();
            bail!(
                "{p}: a `{key}' pattern (`{}') needs more than its share ({} KB) of the {} MB \
                 of patterns a config found in the current folder may use ({} patterns); \
                 simplify it, or trust the file with --trust-config, \
                 LINKPATROL_TRUST_CONFIG=1 or -c {p}",
                shortened(pattern).escape_debug(),
                share / 1024,
                LOCAL_PATTERN_BUDGET / (1024 * 1024),
                patterns.len()
            );
        }
    }
    Ok(())
}

/// The patterns `file` gives the regex plugin, by its `[plugins.regex]` section or by
/// `plugin = ["regex:pattern=…"]`.
fn regex_plugin_patterns(file: &FileConfig) -> Vec<String> {
    let mut patterns = Vec::new();
    if let Some(value) = file.plugins.get("regex").and_then(|s| s.get("pattern")) {
        match value {
            toml::Value::String(p) => patterns.push(p.clone()),
            toml::Value::Array(list) => {
                patterns.extend(list.iter().filter_map(|v| v.as_str().map(str::to_owned)))
            }
            _ => {}
        }
    }
    for spec in file.strings("plugin") {
        if let Ok((name, pairs)) = linkpatrol::parse_plugin_spec(&spec)
            && name == "regex"
        {
            patterns.extend(
                pairs
                    .into_iter()
                    .filter(|(k, _)| k == "pattern")
                    .map(|(_, v)| v),
            );
        }
    }
    patterns
}

/// A pattern as an error shows it: at most 60 characters.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The keys that print what the checked sites answered: under the user's credentials, a local
/// config could have them print a cookie or a private page into a public CI log.
pub const PRINTING_KEYS: &[&str] = &["plugins.http-headers", "plugins.regex", "verbose"];

/// Fails with one line when `file` (an untrusted local config) sets a key of
/// [`PRINTING_KEYS`]; called when the user's own flags or variables give credentials
/// (`-H`, `--host-header`, `--cookie-file`, a GitHub token). `verbose_given`: the user asked for `-v` too.
pub fn check_local_printing(file: &FileConfig, path: &Path, verbose_given: bool) -> Result<()> {
    let refused: Vec<String> = keys_set(file)?
        .into_iter()
        .filter(|(k, _)| PRINTING_KEYS.contains(&k.as_str()))
        .filter(|(k, _)| !(verbose_given && k == "verbose"))
        .map(|(_, shown)| shown)
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    let p = path.display();
    bail!(
        "{p} sets {}, which print what the sites answer, and the command line gives \
         credentials (-H, --host-header, --cookie-file or a GitHub token): a config found in \
         the current folder may not print what was fetched with them; trust it with --trust-config, \
         LINKPATROL_TRUST_CONFIG=1 or -c {p}",
        refused.join(", ")
    )
}

/// Every key `file` sets, with the way a message shows it: plain keys by name, `[[auth]]`
/// and `[[hosts]]` as `auth` and `hosts`, each plugin as `plugins.NAME`.
pub fn keys_set(file: &FileConfig) -> Result<Vec<(String, String)>> {
    let mut keys = Vec::new();
    for key in &file.keys {
        keys.push((key.key.clone(), format!("`{}`", key.key)));
        if key.key == "plugin" {
            // The name as `--plugin` reads it: the part before the first `:`, trimmed.
            for spec in file.strings("plugin") {
                let name = spec.split_once(':').map_or(&spec[..], |(n, _)| n).trim();
                keys.push((format!("plugins.{name}"), format!("`plugin = {name}`")));
            }
        }
    }
    for (key, set) in [
        ("auth", !file.auth.is_empty()),
        ("hosts", !file.hosts.is_empty()),
    ] {
        if set {
            keys.push((key.to_owned(), format!("`[[{key}]]`")));
        }
    }
    keys.extend(
        file.plugins
            .keys()
            .map(|name| (format!("plugins.{name}"), format!("`[plugins.{name}]`"))),
    );
    Ok(keys)
}

/// The local paths a path-valued key names: `root-dir`, and the `inputs` that are paths or
/// `file:` URLs (not `-`, the standard input, nor http(s) URLs).
fn paths_of(file: &FileConfig, key: &str) -> Vec<PathBuf> {
    match key {
        "root-dir" | "sources" => file.strings(key).into_iter().map(PathBuf::from).collect(),
        "inputs" => file
            .strings("inputs")
            .iter()
            .filter(|i| *i != "-")
            .filter_map(|i| {
                if !Inputs::is_url(i) {
                    // A glob reads what is below its folder part.
                    return Some(Inputs::folder_of(i));
                }
                let url = Url::parse(i.trim()).ok()?;
                // A `file:` URL that names no local path is refused by the input parser.
                (url.scheme() == "file").then(|| url.to_file_path().ok())?
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The http(s) URLs among `key`'s values (`inputs`) that may not be requested for an untrusted
/// config, each with why (`a link-local address`), shown without a password.
fn urls_into_network(
    file: &FileConfig,
    key: &str,
    allow_private: bool,
) -> Vec<(String, &'static str)> {
    if key != "inputs" {
        return Vec::new();
    }
    // A name is looked up with the run's default timeout at most.
    let timeout = std::time::Duration::from_secs(5);
    file.strings("inputs")
        .iter()
        .filter(|i| Inputs::is_url(i))
        .filter_map(|i| Url::parse(i.trim()).ok())
        .filter_map(|url| {
            let why = linkpatrol::refused_untrusted_start(&url, allow_private, timeout)?;
            Some((linkpatrol::redact_text(url.as_str()).into_owned(), why))
        })
        .collect()
}

/// `true` when `path` (relative to `folder`, the canonical current folder) exists and leads
/// outside `folder` once `..` and symbolic links are resolved. A path that does not exist
/// reads nothing: the input parser refuses it.
fn leaves(folder: &Path, path: &Path) -> bool {
    folder
        .join(path)
        .canonicalize()
        .is_ok_and(|real| !real.starts_with(folder))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config_file::{self, parse};

    /// The keys a config file found in the current folder may set, and why each is harmless
    /// there. With [`REFUSED_IN_LOCAL`], every key of the file is listed exactly once: a new
    /// key (or a new built-in plugin) fails `every_key_is_classified` until it is put in one.
    const ALLOWED_IN_LOCAL: &[(&str, &str)] = &[
        ("stdin", "reads the standard input the user gives"),
        ("no-ignore", "which files of the checked folder are walked"),
        ("hidden", "which files of the checked folder are walked"),
        ("exclude-path", "narrows the walk"),
        (
            "fallback-extensions",
            "which files of the checked folder a link may name",
        ),
        (
            "base-url",
            "maps URLs onto the site folder, which stays inside",
        ),
        ("sitemaps", "crawls what robots.txt of a start site lists"),
        ("recursion-level", "scope"),
        ("internal-only", "scope"),
        ("check-extern", "scope"),
        ("include", "scope"),
        ("exclude", "scope"),
        ("no-follow", "scope"),
        (
            "include-verbatim",
            "scope: links in code of the pages checked",
        ),
        ("max-urls", "scope"),
        ("max-run-time", "limits: it only shortens the run"),
        (
            "login-logout-pattern",
            "which links are not followed once logged in (only with login-url)",
        ),
        ("no-robots", "politeness towards the sites checked"),
        ("timeout", "limits"),
        ("max-redirects", "limits"),
        ("max-retries", "limits"),
        ("max-retry-wait", "limits"),
        ("max-body-size", "limits"),
        ("user-agent", "a header the file's author may choose"),
        (
            "header",
            "headers of the file's own choosing, credentials aside (`CREDENTIAL_HEADERS`); \
             flags replace them, never join them",
        ),
        ("host-header", "as header"),
        ("accept", "which statuses count as valid"),
        (
            "accept-timeouts",
            "whether a timed-out link counts as valid",
        ),
        ("method", "HEAD or GET"),
        ("host-method", "HEAD or GET, per host"),
        ("exclude-private", "requests fewer addresses"),
        ("exclude-loopback", "requests fewer addresses"),
        ("exclude-link-local", "requests fewer addresses"),
        (
            "check-mx",
            "looks up mail domains with the system's own resolver",
        ),
        (
            "suggest",
            "asks the default web archive (archive.org) about broken links",
        ),
        (
            "detect-soft-404",
            "one made-up path asked of each host checked, and GET for links",
        ),
        ("threads", "limits"),
        ("max-requests-per-second", "politeness"),
        ("host-concurrency", "politeness"),
        ("host-rate", "politeness"),
        ("host-max-concurrency", "politeness"),
        ("abort-timeout", "limits"),
        ("output", "the format on stdout"),
        ("color", "stdout"),
        ("group-by", "the report's shape"),
        ("stream", "the order of the report's rows"),
        ("quiet", "stdout"),
        ("verbose", "stdout"),
        ("no-status", "stderr"),
        ("csv-delimiter", "the report's shape"),
        ("csv-bom", "the report's shape"),
        ("ignore-warning", "the report's content"),
        ("fail-on-warnings", "the exit status"),
        ("fail-on-blocked", "the exit status"),
        (
            "check-anchors",
            "the anchors plugin: reads the pages being checked",
        ),
        (
            "cache",
            "the state file in the current folder, which may be the checkout's: it is written, \
             and nothing in it is reused (Config::trust_state_file)",
        ),
        ("max-cache-age", "which stored results are reused"),
        ("cache-failures", "which stored results are reused"),
        (
            "resume",
            "nothing: the state file it turns on is the checkout's as `cache`, and no run of it \
             is resumed",
        ),
        ("fail-after-runs", "the exit status"),
        (
            "plugin",
            "the list itself; each plugin it names is classified as plugins.NAME",
        ),
        (
            "hosts",
            "per-host rates, caps, headers and methods, as the flags",
        ),
        ("plugins.anchors", "reads the pages being checked"),
        ("plugins.regex", "reads the pages being checked"),
        (
            "plugins.cert-expiry",
            "reads the certificates of the sites checked",
        ),
        (
            "plugins.http-headers",
            "reads the responses of the sites checked",
        ),
    ];

    #[test]
    fn every_key_is_classified() {
        let mut keys: Vec<String> = config_file::keys().into_iter().map(|d| d.flag).collect();
        keys.extend(["inputs", "hosts", "auth"].map(String::from));
        keys.extend(
            linkpatrol::plugins::builtins()
                .iter()
                .map(|p| format!("plugins.{}", p.name)),
        );
        for key in &keys {
            let refused = REFUSED_IN_LOCAL.iter().any(|(k, _)| k == key);
            let allowed = ALLOWED_IN_LOCAL.iter().any(|(k, _)| k == key);
            assert!(
                refused ^ allowed,
                "key `{key}' must be in exactly one of REFUSED_IN_LOCAL and ALLOWED_IN_LOCAL"
            );
        }
        let listed = REFUSED_IN_LOCAL
            .iter()
            .map(|(k, _)| k)
            .chain(ALLOWED_IN_LOCAL.iter().map(|(k, _)| k));
        for key in listed {
            assert!(keys.iter().any(|k| k == key), "`{key}' is no config key");
        }
    }

    #[test]
    fn a_file_cannot_trust_itself() {
        let e = parse("trust-config = true\n").unwrap_err();
        assert!(e.contains("trust-config"), "{e}");
    }

    #[test]
    fn plugins_are_keyed_by_name_in_both_forms() {
        let file = parse("plugin = ['regex:pattern=x', ' command ']\n[plugins.anchors]\n").unwrap();
        let keys: Vec<(String, String)> = keys_set(&file).unwrap();
        let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "plugin",
                "plugins.regex",
                "plugins.command",
                "plugins.anchors"
            ]
        );
        assert_eq!(keys[2].1, "`plugin = command`");
        assert_eq!(keys[3].1, "`[plugins.anchors]`");
    }

    #[test]
    fn the_refusal_is_one_line_naming_the_file_and_every_key() {
        let file = parse(
            "threads = 2\nproxy = 'http://127.0.0.1:1'\n\n[[auth]]\npattern = 'x'\n\
             username = 'u'\npassword = 'p'\n",
        )
        .unwrap();
        let e = check_local(&file, Path::new("./linkpatrol.toml"), false)
            .unwrap_err()
            .to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.starts_with("./linkpatrol.toml sets `proxy`, `[[auth]]`, which"),
            "{e}"
        );
        assert!(e.ends_with("-c ./linkpatrol.toml"), "{e}");
        let harmless = parse("threads = 2\ninputs = ['.', 'https://example.test/', '-']\n");
        assert!(check_local(&harmless.unwrap(), Path::new("x"), false).is_ok());
    }

    #[test]
    fn paths_may_not_leave_the_folder() {
        let folder = std::env::current_dir().unwrap().canonicalize().unwrap();
        assert!(!leaves(&folder, Path::new("src")));
        assert!(!leaves(&folder, Path::new("./src/../tests")));
        assert!(leaves(&folder, Path::new("..")));
        assert!(leaves(&folder, Path::new("/")));
        assert!(!leaves(&folder, Path::new("no/such/path")));
        let file = parse("inputs = ['file:///', 'src']\nroot-dir = '/'\n").unwrap();
        let e = check_local(&file, Path::new("x"), false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`inputs` outside the current folder (`/')")
                && e.contains("`root-dir` outside the current folder (`/')")
                && !e.contains("`src'"),
            "{e}"
        );
    }
}
