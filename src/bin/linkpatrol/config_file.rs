//! The config file (TOML): its keys (which files are read: `config_sources`), how it merges
//! under the environment and the flags, and the effective configuration printed back as TOML
//! (`--print-config`) in a form that reads back to the same configuration.
//!
//! A plain key is a long flag of the command line (kebab-case), read by that flag's own parser:
//! the file's values are handed to the command line's parser as `--key=value` arguments placed
//! before the user's, so no key has a definition of its own here: every function that reads
//! keys takes the command (`clap::Command`) whose flags they are. The file's sections are
//! defined in `sections.rs`.
//!
//! Precedence, lowest first: built-in defaults < config file < `LINKPATROL_*` environment
//! variables < flags. A flag or variable that is given replaces the file's value, lists
//! included (`-H` on the command line replaces the file's `header` list).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::parser::ValueSource;
use clap::{ArgMatches, Command};
use linkpatrol::PluginSpec;
use linkpatrol::options::{Described, Kind, describe};

use crate::sections::Sections;

/// The name of the config file looked for in the current folder.
pub const LOCAL_FILE: &str = "linkpatrol.toml";

/// Flags that are no config key: about the config file itself, what prints and exits, and a
/// shard's place and files in a split check (per run, never a saved setting).
const NOT_KEYS: &[&str] = &[
    "help",
    "version",
    "config",
    "no-config",
    "trust-config",
    "print-config",
    "list-plugins",
    "generate",
    "shard",
    "export-external",
    "external-from",
    "reuse-results",
];

/// The plain key the positional inputs take.
const INPUTS: &str = "inputs";

/// Every plain key but `inputs`, with the kind of value it takes: the long flags of
/// `command`, less [`NOT_KEYS`]. A key the program does not know is an error (with its line).
pub fn keys(command: &Command) -> Vec<Described> {
    describe(command)
        .into_iter()
        .filter(|d| !NOT_KEYS.contains(&d.flag.as_str()))
        .collect()
}

/// A plain key of the file as written, with the line it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct FileKey {
    /// The key, a long flag (`max-retry-wait`) or `inputs`.
    pub key: String,
    /// Its value, of the type the key takes (checked by [`parse`]).
    pub value: toml::Value,
    /// The 1-based line of the value.
    pub line: usize,
    /// The file it is from, when several were merged (`config_sources`); else the one read.
    pub file: Option<PathBuf>,
}

/// A config file read: its plain keys in the order written, and its sections. All keys are
/// optional; an absent key keeps the default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileConfig {
    /// The plain keys, in the order of the file.
    pub keys: Vec<FileKey>,
    /// The sections (`[[hosts]]`, …).
    pub sections: Sections,
}

impl FileConfig {
    /// The plain key `key`, if the file sets it.
    pub fn get(&self, key: &str) -> Option<&FileKey> {
        self.keys.iter().find(|k| k.key == key)
    }

    /// The values of `key` as text: each item of a list, or the one value.
    pub fn strings(&self, key: &str) -> Vec<String> {
        match self.get(key).map(|k| &k.value) {
            Some(toml::Value::Array(items)) => items.iter().map(text).collect(),
            Some(one) => vec![text(one)],
            None => Vec::new(),
        }
    }

    /// The file's `inputs`, unless the flags (`m`) name inputs of their own.
    pub fn inputs(&self, m: &ArgMatches) -> Option<Vec<String>> {
        (!given(m, INPUTS) && self.get(INPUTS).is_some()).then(|| self.strings(INPUTS))
    }

    /// The file's plain keys (but `inputs`) as arguments of `command`, `--key=value`, leaving
    /// out those the flags or the environment gave (`m`).
    fn arguments(&self, command: &Command, m: &ArgMatches) -> Vec<OsString> {
        let mut out = Vec::new();
        for FileKey { key, value, .. } in &self.keys {
            let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(key)) else {
                continue;
            };
            if given(m, arg.get_id().as_str()) {
                continue;
            }
            match value {
                // A switch: named when true.
                toml::Value::Boolean(on)
                    if matches!(arg.get_action(), clap::ArgAction::SetTrue) =>
                {
                    if *on {
                        out.push(OsString::from(format!("--{key}")));
                    }
                }
                toml::Value::Array(items)
                    if items.is_empty() && linkpatrol::options::empty_list_is_a_value(key) =>
                {
                    out.push(OsString::from(format!("--{key}=")));
                }
                toml::Value::Array(items) => out.extend(
                    items
                        .iter()
                        .map(|item| OsString::from(format!("--{key}={}", text(item)))),
                ),
                one => out.push(OsString::from(format!("--{key}={}", text(one)))),
            }
        }
        out
    }
}

/// A value as a flag's argument: a string as is, a number or boolean as TOML writes it.
fn text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
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

/// The most bytes of a config file (a real one is a few kilobytes).
const CONFIG_MAX: u64 = 1 << 20;

/// Reads and parses a config file found as `found` says. It is read only when it is a regular
/// file of at most [`CONFIG_MAX`] bytes (a FIFO would block for ever, `/dev/zero` never end),
/// and one found in the current folder only when it is inside that folder (see
/// `linkpatrol::checkout_file`). Errors are one line naming the file and, for TOML errors, the line and
/// column. `command`: the command whose flags are the plain keys.
pub fn load(command: &Command, path: &Path, found: Found) -> Result<FileConfig> {
    let folder = (found == Found::InCurrentFolder).then_some(Path::new("."));
    let bytes = linkpatrol::checkout_file::read(path, folder, CONFIG_MAX)
        .map_err(|why| anyhow!("cannot read config file `{}': it {why}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow!("config file `{}' is not UTF-8 text", path.display()))?;
    parse(command, &text).map_err(|e| anyhow!("config file `{}'{e}", path.display()))
}

/// Parses config text whose plain keys are flags of `command`; the error starts with `, line L, column C: ` when the place is known,
/// then names the key and, for a value of the wrong type, the type expected.
pub fn parse(command: &Command, text: &str) -> std::result::Result<FileConfig, String> {
    let spanned: BTreeMap<String, toml::Spanned<toml::Value>> =
        toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    let sections: Sections = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    let known = keys(command);
    let mut keys = Vec::new();
    for (key, value) in spanned {
        if Sections::NAMES.contains(&key.as_str()) {
            continue;
        }
        let (line, column) = line_col(text, value.span().start);
        let described = known.iter().find(|d| d.flag == key);
        if described.is_none() && key != INPUTS {
            let known: Vec<&str> = known.iter().map(|d| d.flag.as_str()).collect();
            let hint = crate::key_hint::unknown_key_hint(&key, &known)
                .map_or_else(String::new, |h| format!("; {h}"));
            let column = text
                .lines()
                .nth(line - 1)
                .and_then(|l| l.find(key.as_str()))
                .map_or(1, |at| at + 1);
            return Err(format!(
                ", line {line}, column {column}: unknown field `{key}`{hint}"
            ));
        }
        let (kind, repeats) = described.map_or((Kind::Text, true), |d| (d.kind, d.repeats));
        let value = value.into_inner();
        if let Err(wanted) = typed(kind, repeats, &value) {
            return Err(format!(
                ", line {line}, column {column}: {key}: expected {wanted}, not {}",
                shown(&value)
            ));
        }
        keys.push(FileKey {
            key,
            value,
            line,
            file: None,
        });
    }
    keys.sort_by_key(|k| k.line);
    Ok(FileConfig { keys, sections })
}

/// `Err(what is expected)` unless `value` is of a type a key of `kind` takes. Numbers and
/// booleans go to a text key as written; seconds may be a number or a duration (`"5s"`).
fn typed(kind: Kind, repeats: bool, value: &toml::Value) -> std::result::Result<(), &'static str> {
    use toml::Value as V;
    if repeats {
        return match value {
            V::Array(items) if items.iter().all(|i| matches!(i, V::String(_))) => Ok(()),
            _ => Err("a list, such as [\"a\", \"b\"]"),
        };
    }
    match (kind, value) {
        (Kind::Switch | Kind::Bool, V::Boolean(_)) => Ok(()),
        (Kind::Switch | Kind::Bool, _) => Err("true or false"),
        (Kind::Count, V::Integer(_)) => Ok(()),
        (Kind::Count, _) => Err("a whole number"),
        (Kind::Size, V::Integer(_) | V::String(_)) => Ok(()),
        (Kind::Size, _) => Err("a size such as \"512M\" or a number of bytes"),
        (Kind::Number, V::Integer(_) | V::Float(_) | V::String(_)) => Ok(()),
        (Kind::Number, _) => Err("a number"),
        (Kind::Duration, V::String(_)) => Ok(()),
        (Kind::Duration, _) => Err("a duration such as \"12h\""),
        (_, V::String(_)) => Ok(()),
        (_, _) => Err("a string"),
    }
}

/// A TOML value as an error shows it: its type, and the value when short.
fn shown(value: &toml::Value) -> String {
    let written = value.to_string();
    if written.chars().count() <= 40 {
        format!("the {} {}", value.type_str(), written.escape_debug())
    } else {
        format!("a {}", value.type_str())
    }
}

/// A TOML error as `, line L, column C: message`, in words a config file's reader knows.
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let mut message = plain_types(e.message().trim());
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

/// Where each key of the file gave a value: `config file `PATH', line L: KEY`, for the
/// errors about a value that came from the file (the flags and variables name their own).
pub fn place_of(
    command: &Command,
    file: &FileConfig,
    origin: &Path,
    m: &ArgMatches,
    flag: &str,
) -> Option<String> {
    let key = file.get(flag)?;
    let arg = command
        .get_arguments()
        .find(|a| a.get_long() == Some(flag))
        .map(|a| a.get_id().to_string())?;
    (!given(m, &arg)).then(|| {
        format!(
            "config file `{}', line {}: {flag}",
            key.file.as_deref().unwrap_or(origin).display(),
            key.line
        )
    })
}

/// `command`'s matches with the file's keys under the flags and variables (`m`, the
/// matches of `argv` alone): the file's values go first, as arguments, for every key `m` did
/// not give. A value the flag's parser refuses is an error naming the file, line and key.
pub fn merge(
    command: &Command,
    file: &FileConfig,
    origin: &Path,
    m: &ArgMatches,
    argv: &[OsString],
) -> Result<ArgMatches> {
    let mut all: Vec<OsString> = argv.iter().take(1).cloned().collect();
    all.extend(file.arguments(command, m));
    all.extend(argv.iter().skip(1).cloned());
    command.clone().try_get_matches_from(all).map_err(|e| {
        let (flag, message) = linkpatrol::options::CheckOptions::explain(&e);
        match flag.and_then(|f| place_of(command, file, origin, m, &f)) {
            Some(place) => anyhow!("{place}: {message}"),
            None => crate::usage::usage_error(e),
        }
    })
}

/// The effective configuration (`m`: the final matches of `command`, with `inputs`, the
/// `plugins` of flags and sections, and the file's `sections`) as config file text: every key
/// with its value, defaults included; a key whose default is "none" is left out, and so is the
/// GitHub token (a secret: `--print-config` output ends up in logs and issues).
pub fn effective(
    command: &Command,
    m: &ArgMatches,
    inputs: &[String],
    plugins: &[PluginSpec],
    sections: &Sections,
) -> Result<String> {
    use toml::Value as V;
    let mut table = toml::Table::new();
    table.insert(
        INPUTS.to_owned(),
        V::Array(inputs.iter().cloned().map(V::String).collect()),
    );
    for d in keys(command) {
        if d.flag == "github-token" {
            continue;
        }
        let Some(arg) = command
            .get_arguments()
            .find(|a| a.get_long() == Some(&d.flag))
        else {
            continue;
        };
        let id = arg.get_id().as_str();
        let raw: Vec<String> = m
            .get_raw(id)
            .map(|values| values.map(|v| v.to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        let value = match d.kind {
            // With the plugins of the file's `[plugins.NAME]` sections.
            _ if d.flag == "plugin" => Some(V::Array(
                crate::plugin_flags::to_flags(plugins)
                    .into_iter()
                    .map(V::String)
                    .collect(),
            )),
            Kind::Switch => Some(V::Boolean(m.get_flag(id))),
            // Not given: its default stands (an empty list would be a value of its own).
            _ if d.repeats
                && raw.is_empty()
                && linkpatrol::options::empty_list_is_a_value(&d.flag) =>
            {
                None
            }
            _ if d.repeats => Some(V::Array(raw.into_iter().map(V::String).collect())),
            Kind::Number => m.get_one::<f64>(id).map(|x| V::Float(*x)),
            Kind::Bool => m.get_one::<bool>(id).map(|b| V::Boolean(*b)),
            Kind::Count | Kind::Size => raw.first().map(|n| {
                n.parse::<i64>()
                    .map_or_else(|_| V::String(n.clone()), V::Integer)
            }),
            _ => raw.first().cloned().map(V::String),
        };
        if let Some(value) = value {
            table.insert(d.flag.clone(), value);
        }
    }
    table.extend(toml::Table::try_from(sections)?);
    toml::to_string(&table).context("cannot print the configuration")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// [`super::parse`] with the command line's flags.
    pub(crate) fn parse(text: &str) -> std::result::Result<FileConfig, String> {
        super::parse(&crate::settings::command(), text)
    }

    /// [`super::keys`] of the command line.
    pub(crate) fn keys() -> Vec<Described> {
        super::keys(&crate::settings::command())
    }

    /// A value of the type each key takes.
    fn sample(d: &Described) -> &'static str {
        match d.kind {
            _ if d.repeats => "[\"x\"]",
            Kind::Switch | Kind::Bool => "true",
            Kind::Count => "3",
            Kind::Size => "\"64M\"",
            Kind::Number => "2.5",
            Kind::Duration => "\"12h\"",
            _ => "\"x\"",
        }
    }

    #[test]
    fn every_key_reads_with_a_value_of_its_type() {
        let mut text = String::from("inputs = [\"docs\"]\n");
        for d in keys() {
            text.push_str(&format!("{} = {}\n", d.flag, sample(&d)));
        }
        let file = parse(&text).unwrap();
        assert_eq!(file.keys.len(), keys().len() + 1);
        assert_eq!(file.keys[0].key, "inputs");
        assert_eq!(
            file.get("threads").unwrap().line,
            text.lines()
                .position(|l| l.starts_with("threads ="))
                .unwrap()
                + 1
        );
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let e = parse("threads = 4\n\nthredas = 5\n").unwrap_err();
        assert!(e.starts_with(", line 3, column 1: "), "{e}");
        assert!(
            e.contains("thredas") && e.contains("did you mean `threads'"),
            "{e}"
        );
        let e = parse("[[hosts]]\npattern = 'x'\nrat = 1\n").unwrap_err();
        assert!(e.contains("line 3") && e.contains("rat"), "{e}");
        let e = parse("trust-config = true\n").unwrap_err();
        assert!(e.contains("unknown field `trust-config`"), "{e}");
    }

    #[test]
    fn a_bad_value_type_names_the_line() {
        let e = parse("threads = 'many'\n").unwrap_err();
        assert!(
            e.starts_with(", line 1, column 11: threads: expected a whole number"),
            "{e}"
        );
        let e = parse("threads = \n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        let e = parse("exclude = 'x'\n").unwrap_err();
        assert!(e.contains("exclude: expected a list"), "{e}");
        assert!(parse("timeout = '5s'\nabort-timeout = 2\n").is_ok());
    }

    #[test]
    fn the_password_is_not_in_debug_output() {
        let file =
            parse("[[auth]]\npattern = 'x'\nusername = 'me'\npassword = 'secret'\n").unwrap();
        let dbg = format!("{:?}", file.sections.auth[0]);
        assert!(!dbg.contains("secret") && dbg.contains("***"), "{dbg}");
    }
}
