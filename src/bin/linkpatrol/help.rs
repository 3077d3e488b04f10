//! The finishing touches of the command line: a `LINKPATROL_*` environment variable for every
//! flag (between the config file and the flags in precedence) and the `--help` topic of each
//! flag, kept here in one table so the flag definitions in `args.rs` stay short.

use clap::builder::FalseyValueParser;
use clap::{Arg, ArgAction, Command};
use linkpatrol::DEFAULT_USER_AGENT;

/// `--help` topics (clap shows them in the order their first flag is declared), with the flags (by argument id) under each. A flag not
/// listed shows under "Options".
const HEADINGS: &[(&str, &[&str])] = &[
    (
        "Inputs",
        &[
            "inputs",
            "no_ignore",
            "hidden",
            "follow",
            "exclude_path",
            "fallback_extensions",
            "changed_since",
            "stdin",
            "input_file",
            "root_dir",
            "base_url",
            "sitemaps",
        ],
    ),
    (
        "Config file",
        &["config", "no_config", "trust_config", "print_config"],
    ),
    (
        "Scope",
        &[
            "recursion_level",
            "internal_only",
            "check_extern",
            "include",
            "exclude",
            "no_follow",
            "remap",
            "max_urls",
            "no_robots",
            "follow_outside_root",
            "include_verbatim",
        ],
    ),
    (
        "Requests",
        &[
            "timeout",
            "max_redirects",
            "max_retries",
            "max_retry_wait",
            "max_body_size",
            "user_agent",
            "headers",
            "host_header",
            "cookie_file",
            "accept",
            "method",
            "insecure",
            "exclude_private",
            "exclude_loopback",
            "exclude_link_local",
            "allow_private",
            "proxy",
            "check_mx",
            "dns_server",
            "suggest",
            "archive_url",
            "github_token",
            "detect_soft_404",
        ],
    ),
    (
        "Politeness and threads",
        &[
            "threads",
            "max_requests_per_second",
            "host_concurrency",
            "host_rate",
            "host_max_concurrency",
            "abort_timeout",
        ],
    ),
    (
        "Output",
        &[
            "output",
            "color",
            "group_by",
            "file_outputs",
            "stream",
            "quiet",
            "verbose",
            "no_status",
            "csv_delimiter",
            "csv_bom",
            "csv_raw",
            "ignore_warning",
            "fail_on_warnings",
            "fail_on_blocked",
        ],
    ),
    (
        "State between runs",
        &[
            "cache",
            "cache_file",
            "max_cache_age",
            "cache_failures",
            "resume",
            "fail_after_runs",
        ],
    ),
    ("Plugins", &["check_anchors", "plugins", "list_plugins"]),
    (
        "Sharding",
        &["shard", "export_external", "external_from", "reuse_results"],
    ),
    ("Shell integration", &["generate"]),
];

/// Defaults that clap cannot show (the value is "none" rather than a value), added to the help.
const DEFAULT_NOTES: &[(&str, &str)] = &[
    ("recursion_level", "unlimited"),
    ("max_urls", "unlimited"),
    ("user_agent", DEFAULT_USER_AGENT),
    ("include", "every URL"),
    ("exclude", "none"),
    ("no_follow", "none"),
    ("remap", "none"),
    ("headers", "none"),
    ("input_file", "none"),
    ("cookie_file", "none"),
    ("cache_file", "./.linkpatrol-cache.sqlite with --cache"),
    ("root_dir", "the folder given as input"),
];

/// The topic of the argument `id` and its place in the help (topics in table order).
fn place_of(id: &str) -> Option<(&'static str, usize)> {
    HEADINGS.iter().enumerate().find_map(|(t, (h, ids))| {
        let i = ids.iter().position(|i| *i == id)?;
        Some((*h, t * 100 + i))
    })
}

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

/// Adds the environment variables and the help topics to the command.
pub fn decorate(cmd: Command) -> Command {
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
        let arg = match place_of(arg.get_id().as_str()) {
            Some((h, order)) => arg.help_heading(h).display_order(order),
            None => arg,
        };
        match env_name(&arg) {
            // A switch reads `1`, `true`, `yes`, `on` as set; `0`, `false`, `no`, `off`, `` not.
            Some(name) if matches!(arg.get_action(), ArgAction::SetTrue) => {
                arg.env(name).value_parser(FalseyValueParser::new())
            }
            Some(name) => arg.env(name),
            None => arg,
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
        for id in &ids {
            if id != "help" && id != "version" {
                assert!(place_of(id).is_some(), "flag `{id}' has no --help topic");
            }
        }
        for (_, listed) in HEADINGS {
            for id in *listed {
                assert!(ids.iter().any(|i| i == id), "`{id}' is no flag");
            }
        }
    }

    #[test]
    fn env_names_follow_the_long_flag() {
        let cmd = decorate(Args::command());
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
