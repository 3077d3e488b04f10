//! Each option of [`CheckOptions`] described for front doors that are not clap: its kind of
//! value, whether it repeats, its default and help, read from the clap definition itself, so
//! that Python's type checks, its docstring and its stubs follow the one definition.

use std::any::TypeId;
use std::time::Duration;

use clap::ArgAction;

use super::CheckOptions;
use crate::config::shard::Shard;

/// The kind of value an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// On when named (`--insecure`): a bool.
    Switch,
    /// `true` or `false` given as a value (`--check-extern=false`).
    Bool,
    /// A whole number.
    Count,
    /// A number, possibly with a fraction (a rate; seconds).
    Number,
    /// A size in bytes: a whole number, or one with a unit (`512M`).
    Size,
    /// A duration: a whole number with a unit (`12h`), or seconds as a number.
    Duration,
    /// A file or folder.
    Path,
    /// `I/N`, a shard of a split check.
    Shard,
    /// Any other text (a regex, a header, a URL).
    Text,
}

/// One option as front doors other than the command line see it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Described {
    /// The long flag without `--`: `max-retry-wait`.
    pub flag: String,
    /// The kind of each value.
    pub kind: Kind,
    /// Given any number of times (a list in Python and the config file).
    pub repeats: bool,
    /// The default as the flag would be written (`30`, `head`); `None` when unset by default.
    pub default: Option<String>,
    /// The values allowed, when the option has a fixed set (`head`, `get`).
    pub choices: Vec<String>,
    /// The help text's first paragraph, in one line.
    pub help: String,
}

/// Every long flag of `command` described, in the order of its definition (hidden ones
/// included): the config file reads the command line's own flags with it.
pub fn describe(command: &clap::Command) -> Vec<Described> {
    command
        .get_arguments()
        .filter_map(|arg| {
            let flag = arg.get_long()?.to_owned();
            let parser = arg.get_value_parser();
            let id = parser.type_id();
            let kind = match arg.get_action() {
                ArgAction::SetTrue => Kind::Switch,
                _ if id == TypeId::of::<bool>() => Kind::Bool,
                _ if [
                    TypeId::of::<usize>(),
                    TypeId::of::<u32>(),
                    TypeId::of::<u64>(),
                ]
                .iter()
                .any(|t| id == *t) =>
                {
                    Kind::Count
                }
                _ if id == TypeId::of::<f64>() => Kind::Number,
                _ if id == TypeId::of::<super::values::ByteSize>() => Kind::Size,
                _ if id == TypeId::of::<Duration>() => Kind::Duration,
                _ if id == TypeId::of::<std::path::PathBuf>() => Kind::Path,
                _ if id == TypeId::of::<Shard>() => Kind::Shard,
                _ => Kind::Text,
            };
            let default = arg
                .get_default_values()
                .first()
                .map(|v| v.to_string_lossy().into_owned())
                .filter(|_| kind != Kind::Switch);
            let choices = arg
                .get_possible_values()
                .iter()
                .filter(|_| kind == Kind::Text)
                .map(|v| v.get_name().to_owned())
                .collect();
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            Some(Described {
                flag,
                kind,
                repeats: matches!(arg.get_action(), ArgAction::Append),
                default,
                choices,
                help: help.split_whitespace().collect::<Vec<_>>().join(" "),
            })
        })
        .collect()
}

impl CheckOptions {
    /// Every option, in the order of its definition (hidden ones included).
    pub fn described() -> Vec<Described> {
        describe(&Self::command())
    }

    /// The option a parse error of [`CheckOptions::from_arguments`] is about (its long flag),
    /// and what is wrong in one line, without clap's usage and tips.
    pub fn explain(error: &clap::Error) -> (Option<String>, String) {
        use clap::error::{ContextKind, ContextValue};
        let flag = match error.get(ContextKind::InvalidArg) {
            // `--threads <N>`
            Some(ContextValue::String(arg)) => arg
                .strip_prefix("--")
                .map(|a| a.split([' ', '=']).next().unwrap_or(a).to_owned()),
            _ => None,
        };
        let value = match error.get(ContextKind::InvalidValue) {
            Some(ContextValue::String(v)) => Some(v.clone()),
            _ => None,
        };
        let why = std::error::Error::source(error).map(|s| s.to_string());
        let message = match (value, why) {
            (_, Some(why)) => why,
            (Some(value), None) => {
                let allowed = match error.get(ContextKind::ValidValue) {
                    Some(ContextValue::Strings(v)) => format!(" (one of: {})", v.join(", ")),
                    _ => String::new(),
                };
                format!(
                    "`{}' is not a value it takes{allowed}",
                    value.escape_debug()
                )
            }
            (None, None) => {
                let text = error.to_string();
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                first.trim().trim_start_matches("error: ").to_owned()
            }
        };
        (flag, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_fields_types() {
        let all = CheckOptions::described();
        let kind = |flag: &str| {
            let d = all.iter().find(|d| d.flag == flag).unwrap();
            (d.kind, d.repeats, d.default.clone())
        };
        assert_eq!(kind("threads"), (Kind::Count, false, Some("16".into())));
        assert_eq!(kind("insecure"), (Kind::Switch, false, None));
        assert_eq!(kind("check-extern").0, Kind::Bool);
        assert_eq!(kind("timeout").0, Kind::Number);
        assert_eq!(kind("max-cache-age").0, Kind::Duration);
        assert_eq!(kind("cache-file"), (Kind::Path, false, None));
        assert_eq!(kind("exclude"), (Kind::Text, true, None));
        assert_eq!(kind("shard").0, Kind::Shard);
        let method = all.iter().find(|d| d.flag == "method").unwrap();
        assert_eq!(method.choices, ["head", "get"]);
        assert!(
            all.iter().all(|d| !d.help.is_empty()),
            "every option has help"
        );
    }

    #[test]
    fn a_bad_value_names_its_option() {
        let e = CheckOptions::from_arguments(["--threads=0"]).unwrap_err();
        let (flag, message) = CheckOptions::explain(&e);
        assert_eq!(flag.as_deref(), Some("threads"));
        assert!(message.contains("thread count"), "{message}");
        let e = CheckOptions::from_arguments(["--method=post"]).unwrap_err();
        let (flag, message) = CheckOptions::explain(&e);
        assert_eq!(flag.as_deref(), Some("method"));
        assert!(message.contains("head, get"), "{message}");
    }
}
