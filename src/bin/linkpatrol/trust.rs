//! What a config file found in the current folder may not set: that folder is often a checkout
//! of the very repository being checked, so its `linkpatrol.toml` is untrusted input.
//!
//! A file named with `-c`, the user's own `config.toml` (in the user config folder) and a local
//! file under `--trust-config` are trusted and may set every key. A local file without that
//! trust may set every key but those whose policy refuses it, nor a header of
//! [`CREDENTIAL_HEADERS`]; when it does, nothing runs: the refusal is one line naming the
//! file, the keys and how to trust the file.
//!
//! Each key's policy ([`Local`]: refused, allowed, or allowed inside the folder; whether its
//! values hold regexes or headers; whether it prints what the sites answered) is declared
//! where the key is defined: on the option (`#[arg(add = Local::…)]`, read from the clap
//! command), on the section (`HostSection::LOCAL`, `AuthSection::LOCAL`) and on the plugin
//! (`plugin_flags::local`). This file keeps no list of keys.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use linkpatrol::options::{Inside, Local, Trust};
use linkpatrol::{Inputs, LOCAL_PATTERN_BUDGET};
use url::Url;

use crate::config_file::FileConfig;
use crate::sections::{AuthSection, HostSection, plugin_key};

/// A key a config file sets: its name (`proxy`, `hosts`, `plugins.NAME`), the way a message
/// shows it, and its policy (`None` for a plugin no build has: making it fails anyway).
#[derive(Debug, Clone)]
pub struct SetKey {
    /// The key as written (`inputs`, a long flag), `hosts`, `auth`, or `plugins.NAME`.
    pub key: String,
    /// How a message shows it: `` `proxy` ``, `` `[[auth]]` ``, `` `plugin = command` ``.
    pub shown: String,
    /// What a local config may do with it.
    pub local: Option<Local>,
}

/// The policy of the plain key `key` (a long flag, or `inputs`) in `command`.
pub fn policy(command: &clap::Command, key: &str) -> Option<Local> {
    command
        .get_arguments()
        .find(|a| a.get_long() == Some(key) || (a.is_positional() && a.get_id() == key))
        .and_then(Local::of)
        .copied()
}

/// Fails with one line when the config file found in the current folder at `path` sets a key
/// its policy refuses, or when its patterns need more than [`LOCAL_PATTERN_BUDGET`].
/// `command`: the command line, whose options carry their policies; `allow_private`: the
/// user's own flags or variables allow private addresses.
pub fn check_local(
    command: &clap::Command,
    file: &FileConfig,
    path: &Path,
    allow_private: bool,
) -> Result<()> {
    let folder = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .context("cannot read the current folder")?;
    let set = keys_set(command, file);
    let mut refused = Vec::new();
    for SetKey { key, shown, local } in &set {
        match local.map(|l| l.trust) {
            Some(Trust::Refused) => refused.push(shown.clone()),
            Some(Trust::Inside(values)) => {
                for (url, why) in urls_into_network(file, key, values, allow_private) {
                    refused.push(format!("{shown} `{url}' ({why})"));
                }
                for p in paths_of(file, key, values) {
                    if leaves(&folder, &p) {
                        refused.push(format!(
                            "{shown} outside the current folder (`{}')",
                            p.display()
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    refused.extend(credential_headers(file, &set));
    if refused.is_empty() {
        return pattern_budget(file, &set, path);
    }
    let p = path.display();
    bail!(
        "{p} sets {}, which a config found in the current folder may not set (it could come \
         from the repository being checked); trust it with --trust-config, \
         LINKPATROL_TRUST_CONFIG=1 or -c {p}",
        refused.join(", ")
    )
}

/// The headers a config found in the current folder may not set, for any host (the keys
/// whose policy says their values hold headers, and `[[hosts]]`): credentials are the user's
/// to give, and a checkout's own would go beside the user's (a second `Authorization` on a
/// request that carries the GitHub token) or speak for the checkout's account.
pub const CREDENTIAL_HEADERS: [&str; 3] = ["authorization", "cookie", "proxy-authorization"];

/// The credential headers `file` sets (`set`: its keys), each as the refusal shows it (name
/// only, never the value): `` `header` `Cookie` ``.
fn credential_headers(file: &FileConfig, set: &[SetKey]) -> Vec<String> {
    // `NAME: VALUE`, where the key's policy says it is in each value.
    let name = |h: &str| h.split_once(':').map_or(h, |(n, _)| n).trim().to_owned();
    let options = set.iter().flat_map(|k| {
        let part = k.local.and_then(|l| l.header);
        part.into_iter().flat_map(move |part| {
            file.strings(&k.key)
                .into_iter()
                .map(move |v| (k.key.clone(), name(part.of(&v))))
        })
    });
    let sections = file
        .sections
        .hosts
        .iter()
        .flat_map(|s| s.headers.keys())
        .map(|n| (HostSection::SHOWN.to_owned(), n.trim().to_owned()));
    options
        .chain(sections)
        .filter(|(_, n)| CREDENTIAL_HEADERS.contains(&n.to_ascii_lowercase().as_str()))
        .map(|(key, n)| format!("`{key}` `{}`", n.escape_debug()))
        .collect()
}

/// Fails with one line naming the file and the key when the patterns of `file` (an untrusted
/// local config; `set`: its keys) need more than [`LOCAL_PATTERN_BUDGET`] together: those of
/// every key whose policy says its values hold a regex, of `[[hosts]]` and of the regex plugin.
fn pattern_budget(file: &FileConfig, set: &[SetKey], path: &Path) -> Result<()> {
    let mut patterns: Vec<(String, String)> = Vec::new();
    for k in set {
        if let Some(part) = k.local.and_then(|l| l.pattern) {
            patterns.extend(
                file.strings(&k.key)
                    .iter()
                    .map(|v| (k.key.clone(), part.of(v).to_owned())),
            );
        }
    }
    patterns.extend(
        file.sections
            .hosts
            .iter()
            .map(|h| (HostSection::KEY.to_owned(), h.pattern.clone())),
    );
    patterns.extend(
        regex_plugin_patterns(file)
            .into_iter()
            .map(|p| (plugin_key("regex").0, p)),
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
    if let Some(value) = file
        .sections
        .plugins
        .get("regex")
        .and_then(|s| s.get("pattern"))
    {
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

/// Fails with one line when `file` (an untrusted local config) sets a key whose policy says
/// it prints what the checked sites answered (`verbose`, some plugins): under the user's
/// credentials, it could have them print a cookie or a private page into a public CI log.
/// Called when the user's own flags or variables give credentials (`-H`, `--host-header`,
/// `--cookie-file`, a GitHub token); `matches`: the flags and variables alone.
pub fn check_local_printing(
    command: &clap::Command,
    file: &FileConfig,
    path: &Path,
    matches: &clap::ArgMatches,
) -> Result<()> {
    // A key the user's own flags give too is theirs, whatever the file says (`-v`).
    let users = |key: &str| {
        command
            .get_arguments()
            .find(|a| a.get_long() == Some(key))
            .is_some_and(|a| crate::config_file::given(matches, a.get_id().as_str()))
    };
    let refused: Vec<String> = keys_set(command, file)
        .into_iter()
        .filter(|k| k.local.is_some_and(|l| l.prints))
        .filter(|k| !users(&k.key))
        .map(|k| k.shown)
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

/// Every key `file` sets with the way a message shows it and its policy: plain keys by name
/// (their policy on the option in `command`), `[[auth]]` and `[[hosts]]` as `auth` and
/// `hosts`, each plugin as `plugins.NAME`, whether set by `[plugins.NAME]` or `plugin = […]`.
pub fn keys_set(command: &clap::Command, file: &FileConfig) -> Vec<SetKey> {
    let mut keys = Vec::new();
    for key in &file.keys {
        keys.push(SetKey {
            key: key.key.clone(),
            shown: format!("`{}`", key.key),
            local: policy(command, &key.key),
        });
        if key.key == "plugin" {
            // The name as `--plugin` reads it: the part before the first `:`, trimmed.
            for spec in file.strings("plugin") {
                let name = spec.split_once(':').map_or(&spec[..], |(n, _)| n).trim();
                keys.push(SetKey {
                    key: plugin_key(name).0,
                    shown: format!("`plugin = {name}`"),
                    local: crate::plugin_flags::local(name),
                });
            }
        }
    }
    for (key, shown, local, set) in [
        (
            AuthSection::KEY,
            AuthSection::SHOWN,
            AuthSection::LOCAL,
            !file.sections.auth.is_empty(),
        ),
        (
            HostSection::KEY,
            HostSection::SHOWN,
            HostSection::LOCAL,
            !file.sections.hosts.is_empty(),
        ),
    ] {
        if set {
            keys.push(SetKey {
                key: key.to_owned(),
                shown: format!("`{shown}`"),
                local: Some(local),
            });
        }
    }
    keys.extend(file.sections.plugins.keys().map(|name| {
        let (key, shown) = plugin_key(name);
        SetKey {
            key,
            shown,
            local: crate::plugin_flags::local(name),
        }
    }));
    keys
}

/// The local paths among the values of `key` (whose values are `values`): each one of a key
/// of paths, and the inputs that are paths, globs (their folder) or `file:` URLs (not `-`,
/// the standard input, nor http(s) URLs).
fn paths_of(file: &FileConfig, key: &str, values: Inside) -> Vec<PathBuf> {
    match values {
        Inside::Inputs => file
            .strings(key)
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
        _ => file.strings(key).into_iter().map(PathBuf::from).collect(),
    }
}

/// The http(s) URLs among the values of `key` (inputs) that may not be requested for an
/// untrusted config, each with why (`a link-local address`), shown without a password.
fn urls_into_network(
    file: &FileConfig,
    key: &str,
    values: Inside,
    allow_private: bool,
) -> Vec<(String, &'static str)> {
    if values != Inside::Inputs {
        return Vec::new();
    }
    // A name is looked up with the run's default timeout at most.
    let timeout = std::time::Duration::from_secs(5);
    file.strings(key)
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
    use crate::config_file::tests::{keys, parse};

    fn command() -> clap::Command {
        crate::settings::command()
    }

    #[test]
    fn every_key_has_a_policy() {
        let command = command();
        let mut keys: Vec<String> = keys().into_iter().map(|d| d.flag).collect();
        keys.push("inputs".to_owned());
        let missing: Vec<&String> = keys
            .iter()
            .filter(|k| policy(&command, k).is_none())
            .collect();
        assert!(
            missing.is_empty(),
            "config keys without a local-config policy (`#[arg(add = Local::…)]` where the \
             option is defined): {missing:?}"
        );
        for p in linkpatrol::plugins::builtins() {
            assert!(
                crate::plugin_flags::local(p.name).is_some(),
                "plugin `{}' has no local-config policy (plugin_flags::local)",
                p.name
            );
        }
    }

    #[test]
    fn the_policies_refuse_what_they_did() {
        let command = command();
        let mut refused: Vec<String> = keys()
            .into_iter()
            .map(|d| d.flag)
            .chain(["inputs".to_owned()])
            .filter(|k| policy(&command, k).is_some_and(|l| l.trust != Trust::Allowed))
            .collect();
        refused.sort();
        assert_eq!(
            refused,
            [
                "allow-private",
                "archive-url",
                "cache-file",
                "changed-since",
                "cookie-file",
                "cookie-jar",
                "csv-raw",
                "dns-server",
                "file-output",
                "follow",
                "follow-outside-root",
                "github-token",
                "input-file",
                "inputs",
                "insecure",
                "login-extra-field",
                "login-password-field",
                "login-url",
                "login-user",
                "login-user-field",
                "preprocess",
                "proxy",
                "remap",
                "render-js",
                "render-tabs",
                "render-timeout",
                "root-dir",
                "sources",
            ]
        );
        let capped: Vec<String> = keys()
            .into_iter()
            .filter(|d| policy(&command, &d.flag).is_some_and(|l| l.cap.is_some()))
            .map(|d| d.flag)
            .collect();
        assert_eq!(
            capped,
            [
                "timeout",
                "max-redirects",
                "abort-timeout",
                "max-retries",
                "max-retry-wait",
                "max-urls",
                "max-memory",
                "max-body-size"
            ]
        );
        assert_eq!(
            AuthSection::LOCAL.trust,
            Trust::Refused,
            "[[auth]] sends passwords"
        );
        assert_eq!(
            crate::plugin_flags::local("command").map(|l| l.trust),
            Some(Trust::Refused)
        );
    }

    #[test]
    fn a_file_cannot_trust_itself() {
        let e = parse("trust-config = true\n").unwrap_err();
        assert!(e.contains("trust-config"), "{e}");
    }

    #[test]
    fn plugins_are_keyed_by_name_in_both_forms() {
        let file = parse("plugin = ['regex:pattern=x', ' command ']\n[plugins.anchors]\n").unwrap();
        let keys = keys_set(&command(), &file);
        let names: Vec<&str> = keys.iter().map(|k| k.key.as_str()).collect();
        assert_eq!(
            names,
            [
                "plugin",
                "plugins.regex",
                "plugins.command",
                "plugins.anchors"
            ]
        );
        assert_eq!(keys[2].shown, "`plugin = command`");
        assert_eq!(keys[3].shown, "`[plugins.anchors]`");
        assert_eq!(keys[2].local.map(|l| l.trust), Some(Trust::Refused));
    }

    #[test]
    fn the_refusal_is_one_line_naming_the_file_and_every_key() {
        let file = parse(
            "threads = 2\nproxy = 'http://127.0.0.1:1'\n\n[[auth]]\npattern = 'x'\n\
             username = 'u'\npassword = 'p'\n",
        )
        .unwrap();
        let e = check_local(&command(), &file, Path::new("./linkpatrol.toml"), false)
            .unwrap_err()
            .to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.starts_with("./linkpatrol.toml sets `proxy`, `[[auth]]`, which"),
            "{e}"
        );
        assert!(e.ends_with("-c ./linkpatrol.toml"), "{e}");
        let harmless = parse("threads = 2\ninputs = ['.', 'https://example.test/', '-']\n");
        assert!(check_local(&command(), &harmless.unwrap(), Path::new("x"), false).is_ok());
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
        let e = check_local(&command(), &file, Path::new("x"), false)
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
