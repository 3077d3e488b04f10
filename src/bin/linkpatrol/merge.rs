//! `linkpatrol merge FILES... [-o TYPE] [-F TYPE[/FILE]]`: one report from the NDJSON reports
//! of the shards of a check split by host (each written with `-o ndjson -v` or
//! `-F ndjson/FILE -v`), as one run over everything would have written it. Exit status as a
//! check: 1 when the merged rows have broken links.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use linkpatrol::report::{Format, ReportOptions, Verbosity, escape_controls, merge_ndjson};

use crate::outputs;
use crate::report_file::ReportFiles;
use crate::values::{FileOutput, file_output, format_parser};

/// Merge the NDJSON reports of the shards of a check split by host into one report.
#[derive(Debug, Parser)]
#[command(name = "linkpatrol merge")]
struct MergeArgs {
    /// The shards' NDJSON reports (phase 1 and phase 2 of every shard, written with -v). A
    /// file that is no such report (an export file, an empty file, CSV) is refused (exit 2);
    /// a missing phase-2 report is warned about.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Report format on stdout.
    #[arg(short = 'o', long, value_name = "TYPE", default_value = "text", value_parser = format_parser(), ignore_case = true)]
    output: Format,

    /// Also write a report of TYPE to FILE (repeatable).
    #[arg(short = 'F', long = "file-output", value_name = "TYPE[/FILE]", value_parser = file_output)]
    file_outputs: Vec<FileOutput>,

    /// No report on stdout.
    #[arg(short = 'q', long)]
    quiet: bool,

    /// List every link, not only broken ones and warnings.
    #[arg(short = 'v', long)]
    verbose: bool,

    /// Field delimiter of the CSV output.
    #[arg(long, value_name = "CHAR", default_value_t = ';')]
    csv_delimiter: char,
}

/// A clap error on one line: its message, what it lists on the lines below (the missing
/// arguments), and the usage, without the hint to `--help` and blank lines.
fn one_line(text: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("For more information") {
            continue;
        }
        parts.push(line.trim_start_matches("error: "));
    }
    let mut out = String::new();
    for p in parts {
        if let Some(usage) = p.strip_prefix("Usage: ") {
            out.push_str(&format!(" (usage: {usage}; see linkpatrol merge --help)"));
        } else {
            if !out.is_empty() {
                out.push_str(if p.starts_with("tip:") { "; " } else { " " });
            }
            out.push_str(p);
        }
    }
    out
}

/// The `merge` command's clap definition, for `linkpatrol help merge` and the completions.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    MergeArgs::command()
}

/// Runs `merge` with the process's arguments (after the word `merge`); the exit status.
pub fn run() -> Result<u8> {
    // The name in usage lines and `--help`: `linkpatrol merge`, not the word after the binary.
    let argv = std::iter::once("linkpatrol merge".into()).chain(std::env::args_os().skip(2));
    let args = MergeArgs::try_parse_from(argv).map_err(|e| {
        if matches!(
            e.kind(),
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
        ) {
            e.exit();
        }
        anyhow::anyhow!("merge: {}", one_line(&e.to_string()))
    })?;
    if !args.csv_delimiter.is_ascii() {
        anyhow::bail!("--csv-delimiter must be a single ASCII character");
    }
    let mut readers = Vec::new();
    for path in &args.files {
        let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        readers.push((path.display().to_string(), BufReader::new(file)));
    }
    let report = merge_ndjson(readers)?;
    for w in &report.warnings {
        stderr_line!("linkpatrol: warning: merge: {}", escape_controls(w));
    }
    let mut files = ReportFiles::open_all(&args.file_outputs, false)?;
    let options = ReportOptions {
        verbosity: if args.verbose {
            Verbosity::All
        } else {
            Verbosity::Problems
        },
        csv_delimiter: args.csv_delimiter as u8,
        ..ReportOptions::default()
    };
    let mut reporter = outputs::reporters(
        args.output,
        args.quiet,
        &options,
        &args.file_outputs,
        std::mem::take(&mut files.writers),
        &options,
        outputs::Rows::Sorted(None),
    );
    for entry in &report.entries {
        reporter.entry(entry)?;
    }
    reporter.finish(&report)?;
    drop(reporter);
    files.commit()?;
    io::stdout().flush()?;
    Ok(if report.errors() > 0 { 1 } else { 0 })
}
