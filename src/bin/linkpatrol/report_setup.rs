//! The report options the flags give: which entries, CSV details, colour on stdout (`--color`,
//! `NO_COLOR`, whether stdout is a terminal), the grouping of the text report, and the folders
//! paths are written relative to (the working folder; the checked folder for SARIF).

use std::io;
use std::path::{Path, PathBuf};

use linkpatrol::report::{GroupBy, ReportOptions, Verbosity};

use crate::args::Args;

/// The options of the report on stdout; the `-F` files get the same without colour.
pub fn stdout_options(args: &Args) -> ReportOptions {
    let working_dir = std::env::current_dir().and_then(|d| d.canonicalize()).ok();
    let source_root = sarif_root(working_dir.as_deref(), checked_folder(args));
    ReportOptions {
        verbosity: if args.verbose {
            Verbosity::All
        } else {
            Verbosity::Problems
        },
        csv_delimiter: args.csv_delimiter as u8,
        csv_bom: args.csv_bom,
        csv_raw: args.csv_raw,
        color: stdout_takes_color(&args.color),
        group_by: if args.group_by == "url" {
            GroupBy::Url
        } else {
            GroupBy::Page
        },
        working_dir,
        source_root,
        suggestions: args.check.suggest,
        run_settings: run_settings(args),
    }
}

/// What was checked and the settings that shape the verdicts, for the reports that name them
/// (HTML): the inputs, the scope, the request settings, and each setting given that changes
/// what is checked or how. Header values are left out (any header may be a secret: only the
/// names), and URLs are masked (`user:password@`).
pub fn run_settings(args: &Args) -> Vec<(String, String)> {
    let mask = |s: &str| linkpatrol::redact_text(s).into_owned();
    let mut inputs: Vec<String> = args.inputs.iter().map(|i| mask(i)).collect();
    if args.stdin {
        inputs.push("URLs from stdin".into());
    }
    inputs.extend(
        args.input_file
            .iter()
            .map(|f| format!("the list {}", f.display())),
    );
    if let Some(r) = &args.check.changed_since {
        inputs.push(format!("files changed since {r}"));
    }
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |name: &str, value: String| out.push((name.to_owned(), value));
    if !inputs.is_empty() {
        add("Inputs", inputs.join(" "));
    }
    add(
        "Recursion level",
        args.check
            .recursion_level
            .map_or_else(|| "unlimited".into(), |n| n.to_string()),
    );
    if args.check.internal_only {
        add("Scope", "internal links only (--internal-only)".into());
    }
    for (name, list) in [
        ("Include", &args.check.include),
        ("Exclude", &args.check.exclude),
        ("No follow", &args.check.no_follow),
        ("Remap", &args.check.remap),
    ] {
        if !list.is_empty() {
            add(
                name,
                list.iter().map(|p| mask(p)).collect::<Vec<_>>().join("  "),
            );
        }
    }
    if args.check.max_urls != linkpatrol::DEFAULT_MAX_URLS {
        let n = args.check.max_urls;
        add(
            "Max URLs",
            if n == 0 {
                "no limit".into()
            } else {
                n.to_string()
            },
        );
    }
    if args.check.check_anchors {
        add("Anchors", "checked (--check-anchors)".into());
    }
    add(
        "Requests",
        format!(
            "{} method for links, timeout {} s, {} retries, statuses accepted {}",
            args.check.method.to_ascii_uppercase(),
            args.check.timeout,
            args.check.max_retries,
            args.check.accept
        ),
    );
    add(
        "Politeness",
        format!(
            "{} threads, {} requests per second per host",
            args.check.threads,
            if args.check.max_requests_per_second == 0.0 {
                "no limit of".into()
            } else {
                args.check.max_requests_per_second.to_string()
            }
        ),
    );
    if !args.check.headers.is_empty() {
        let names: Vec<&str> = args.check.headers.iter().map(|(n, _)| n.as_str()).collect();
        add("Headers sent", names.join(", "));
    }
    if args.check.insecure {
        add("TLS", "certificates not verified (--insecure)".into());
    }
    if args.check.resume {
        add(
            "State",
            "resumed the interrupted last run (--resume)".into(),
        );
    } else if args.check.cache {
        add("State", "recent results reused (--cache)".into());
    }
    if let Some(shard) = &args.check.shard {
        add("Shard", shard.to_string());
    }
    if !args.check.plugins.is_empty() {
        let names: Vec<&str> = args.check.plugins.iter().map(|(n, _)| n.as_str()).collect();
        add("Plugins", names.join(", "));
    }
    out
}

/// The folder SARIF locations are relative to: the working folder when the checked folder is
/// inside it — in CI that is the checked-out repository, and code scanning reads a relative
/// location from the repository's root (`docs/guide.md`, not `guide.md`) — else the checked
/// folder itself.
fn sarif_root(working: Option<&Path>, checked: Option<PathBuf>) -> Option<PathBuf> {
    let checked = checked?;
    match working {
        Some(w) if checked.starts_with(w) => Some(w.to_path_buf()),
        _ => Some(checked),
    }
}

/// `--color WHEN` for stdout: `always`, `never`, or for `auto` what anstream decides: colour
/// on a terminal, none when piped or redirected, none when `NO_COLOR` is set (and always with
/// `CLICOLOR_FORCE`).
fn stdout_takes_color(when: &str) -> bool {
    match when {
        "always" => true,
        "never" => false,
        _ => anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never,
    }
}

/// The folder SARIF locations are relative to: `--root-dir`, else the first folder given as
/// input, else the folder of the first file given as input; `None` when only URLs are checked.
pub(crate) fn checked_folder(args: &Args) -> Option<PathBuf> {
    if let Some(root) = &args.check.root_dir {
        return root.canonicalize().ok();
    }
    let local = args
        .inputs
        .iter()
        .filter(|i| *i != "-" && !linkpatrol::Inputs::is_url(i))
        .map(Path::new)
        .find_map(|p| p.canonicalize().ok())?;
    if local.is_dir() {
        Some(local)
    } else {
        local.parent().map(Path::to_path_buf)
    }
}
