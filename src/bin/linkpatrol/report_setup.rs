//! The report options the flags give: which entries, CSV details, colour on stdout (`--color`,
//! `NO_COLOR`, whether stdout is a terminal), the grouping of the text report, and the folders
//! paths are written relative to (the working folder; the checked folder for SARIF).

use std::io;
use std::path::{Path, PathBuf};

use linkpatrol::report::{GroupBy, ReportOptions, Verbosity};

use crate::args::Args;
use crate::inputs::looks_like_url;

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
        suggestions: args.suggest,
    }
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
fn checked_folder(args: &Args) -> Option<PathBuf> {
    if let Some(root) = &args.root_dir {
        return root.canonicalize().ok();
    }
    let local = args
        .inputs
        .iter()
        .filter(|i| *i != "-" && !looks_like_url(i))
        .map(Path::new)
        .find_map(|p| p.canonicalize().ok())?;
    if local.is_dir() {
        Some(local)
    } else {
        local.parent().map(Path::to_path_buf)
    }
}
