//! The finishing touches of the command line: a `LINKPATROL_*` environment variable for every
//! flag (between the config file and the flags in precedence) and the two sizes of help. Each
//! flag's `--help` topic is part of its definition (`help_heading`).
//!
//! `-h` fits a screen: the usage, the ten most used flags with a one-line summary each, and
//! where to read more. `--help` (and `linkpatrol help`) is the full reference: every flag
//! under its topic with its variable and default, the commands, examples and the exit
//! statuses. The man page is written from the same `--help` command (`generate.rs`), with
//! the examples and exit statuses of [`EXAMPLES`] and [`EXIT_STATUS`].

use clap::{Arg, ArgAction, Command};
use linkpatrol::DEFAULT_USER_AGENT;

/// The flags `-h` lists (by argument id, in this order), each with its one-line summary.
/// Every other flag shows in `--help` only.
const SHORT_HELP: &[(&str, &str)] = &[
    (
        "inputs",
        "URLs, local files or folders, globs, or - (URLs on stdin) to check",
    ),
    (
        "recursion_level",
        "Recurse at most this deep from the start pages (0: start pages only)",
    ),
    (
        "include",
        "Check only URLs matching this regex (repeatable)",
    ),
    (
        "exclude",
        "Do not check URLs matching this regex (repeatable)",
    ),
    ("output", "Report format on stdout"),
    (
        "file_outputs",
        "Also write a report of TYPE to FILE (repeatable)",
    ),
    ("verbose", "Report every checked link, not only problems"),
    ("quiet", "No report on stdout (-F files are still written)"),
    ("threads", "Worker threads"),
    (
        "timeout",
        "Timeout of each phase of a request (30, 2.5, 5s, 1m)",
    ),
    ("config", "Read settings from this TOML file"),
];

/// What follows the flags in `-h`: the commands and where to read more.
const SHORT_AFTER: &str = "\
Commands:
  linkpatrol merge FILE...  Merge the NDJSON reports of a sharded check (merge --help)
  linkpatrol help           The full help (--help)

More: `linkpatrol --help` has every flag (each also read from a LINKPATROL_* variable)
and examples; `linkpatrol --generate man | man -l -` is the manual.

Exit status: 0 no broken links, 1 broken links found, 2 usage or runtime error,
130 interrupted.";

/// The commands besides a check, for `--help` and the man page: (synopsis, what it does).
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "linkpatrol merge FILE... [-o TYPE] [-F TYPE[/FILE]] [-q] [-v]",
        "One report from the NDJSON reports (-o ndjson -v) of the shards of a check split by \
         host, as one run over everything would have written it (see `linkpatrol merge --help`).",
    ),
    (
        "linkpatrol help",
        "This help. A file named `help` is checked with `linkpatrol ./help`.",
    ),
];

/// Examples for `--help` and the man page: (what it does, the command).
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "Check a site, following its own links; links to other sites are checked, not followed",
        "linkpatrol https://example.org/",
    ),
    (
        "Check the Markdown and HTML files of a folder (as ripgrep walks it)",
        "linkpatrol docs/",
    ),
    (
        "Two levels deep, leaving out a path, with a compact report",
        "linkpatrol -r 2 --exclude '/archive/' -o compact https://example.org/",
    ),
    (
        "Report every link as CSV and also write an HTML report",
        "linkpatrol -v -o csv -F html/report.html https://example.org/",
    ),
    (
        "Only the files changed since main, with their anchors checked",
        "linkpatrol --changed-since main --check-anchors .",
    ),
    (
        "Reuse the results of the last day's runs (state in ./.linkpatrol-cache.sqlite)",
        "linkpatrol --cache https://example.org/",
    ),
    (
        "Continue a run stopped with Ctrl-C",
        "linkpatrol --resume https://example.org/",
    ),
    (
        "One HTML report from the shards of a check split by host (--shard)",
        "linkpatrol merge phase1-*.ndjson phase2-*.ndjson -o html > report.html",
    ),
];

/// The exit statuses, for `-h`, `--help` and the man page.
pub const EXIT_STATUS: &str = "0 no broken links (or only links --fail-after-runs tolerates, \
                               which the summary says), 1 broken links found, 2 usage or \
                               runtime error, 124 stopped at --max-run-time and 130 \
                               interrupted (the report of what was checked is still written, \
                               its summary saying so first).";

/// What follows the flags in `--help`: commands, examples, exit statuses.
fn long_after() -> String {
    let mut text = String::from("Commands:\n");
    for (synopsis, what) in COMMANDS {
        text.push_str(&format!("  {synopsis}\n          {what}\n"));
    }
    text.push_str("\nExamples:\n");
    for (what, command) in EXAMPLES {
        text.push_str(&format!("  # {what}\n  {command}\n"));
    }
    text.push_str(&format!("\nExit status: {EXIT_STATUS}"));
    text
}

/// Whether the command line asks for the short help: a `-h` before any `--`.
pub fn wants_short_help(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    args.into_iter()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "-h")
}

/// Defaults that clap cannot show (the value is "none" rather than a value), added to the help.
const DEFAULT_NOTES: &[(&str, &str)] = &[
    ("recursion_level", "unlimited"),
    ("max_run_time", "unlimited"),
    ("user_agent", DEFAULT_USER_AGENT),
    ("include", "every URL"),
    ("exclude", "none"),
    ("no_follow", "none"),
    ("remap", "none"),
    ("headers", "none"),
    ("input_file", "none"),
    ("cookie_file", "none"),
    ("cookie_jar", "none"),
    ("preprocess", "none"),
    ("cache_exclude_status", "none"),
    ("login_url", "none"),
    ("login_user", "none"),
    ("login_extra_field", "none"),
    ("cache_file", "./.linkpatrol-cache.sqlite with --cache"),
    ("root_dir", "the folder given as input"),
];

/// The environment variable of a flag: `LINKPATROL_` and its long name in upper snake case
/// (`--max-urls` → `LINKPATROL_MAX_URLS`). Positional inputs, help and version have none.
pub fn env_name(arg: &Arg) -> Option<String> {
    let long = arg.get_long()?;
    if matches!(
        long,
        "help" | "version" | "print-config" | "list-plugins" | "generate"
    ) {
        return None;
    }
    Some(format!(
        "LINKPATROL_{}",
        long.replace('-', "_").to_ascii_uppercase()
    ))
}

/// Adds the environment variables, the help topics and the texts after the flags to the
/// command. `short` makes the `-h` command: only the flags of [`SHORT_HELP`], with their
/// summaries, under one heading and without their variables (which still apply: only the
/// help text differs, never what is parsed).
pub fn decorate(cmd: Command, short: bool) -> Command {
    let cmd = cmd.after_help(SHORT_AFTER).after_long_help(long_after());
    let cmd = if short { shorten(cmd) } else { cmd };
    cmd.mut_args(|arg| {
        let note = DEFAULT_NOTES
            .iter()
            .find(|(id, _)| arg.get_id() == *id)
            .map(|(_, d)| *d);
        let arg = match (note, arg.get_help()) {
            (Some(d), Some(h)) => {
                let text = format!("{h} [default: {d}]");
                arg.help(text)
            }
            _ => arg,
        };
        match env_name(&arg) {
            Some(name) if matches!(arg.get_action(), ArgAction::SetTrue) => {
                arg.env(name).value_parser(switch_value)
            }
            Some(name) => arg.env(name),
            None => arg,
        }
        .hide_env(short)
    })
}

/// A switch's variable: `1`, `true`, `yes`, `on` set it; `0`, `false`, `no`, `off` and ``
/// do not (any case). Anything else is a usage error naming the flag, never a silent `true`
/// (`LINKPATROL_QUIET=2`).
fn switch_value(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "" | "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!(
            "`{}' is not a switch value: use true or false, 1 or 0, yes or no",
            s.escape_debug()
        )),
    }
}

/// The `-h` form of the command: the flags of [`SHORT_HELP`] with their summaries, in the
/// table's order; the others hidden from `-h`.
fn shorten(cmd: Command) -> Command {
    cmd.mut_args(|arg| {
        let id = arg.get_id().as_str().to_owned();
        match SHORT_HELP.iter().position(|(i, _)| *i == id) {
            Some(order) => arg
                .help(SHORT_HELP[order].1)
                .help_heading(None)
                .display_order(order),
            None if id == "help" || id == "version" => arg.display_order(100),
            None => arg.hide_short_help(true),
        }
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::args::Args;

    #[test]
    fn every_flag_has_a_topic_and_ids_in_the_table_exist() {
        let cmd = Args::command();
        let ids: Vec<String> = cmd
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect();
        for arg in cmd.get_arguments() {
            let id = arg.get_id();
            if id != "help" && id != "version" {
                assert!(
                    arg.get_help_heading().is_some(),
                    "flag `{id}' has no --help topic"
                );
            }
        }
        for (id, _) in SHORT_HELP {
            assert!(ids.iter().any(|i| i == id), "`{id}' is no flag");
        }
    }

    #[test]
    fn env_names_follow_the_long_flag() {
        let cmd = decorate(Args::command(), false);
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_id() == "max_urls")
            .unwrap();
        assert_eq!(
            arg.get_env().and_then(|e| e.to_str()),
            Some("LINKPATROL_MAX_URLS")
        );
        let header = cmd
            .get_arguments()
            .find(|a| a.get_id() == "headers")
            .unwrap();
        assert_eq!(
            header.get_env().and_then(|e| e.to_str()),
            Some("LINKPATROL_HEADER")
        );
        let trust = cmd
            .get_arguments()
            .find(|a| a.get_id() == "trust_config")
            .unwrap();
        assert_eq!(
            trust.get_env().and_then(|e| e.to_str()),
            Some("LINKPATROL_TRUST_CONFIG")
        );
    }
}
