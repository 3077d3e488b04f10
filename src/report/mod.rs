//! Reporters: they turn the stream of [`Entry`]s into text, CSV, HTML and other formats.
//!
//! A reporter is fed on one thread (the caller of [`Checker::run_with`](crate::Checker::run_with))
//! and writes as entries arrive, so an interrupted run still leaves a complete file; `finish`
//! writes the summary. Reporters never decide a verdict.

mod csv;
mod html;
mod text;

use std::io::{self, Write};

pub use self::csv::{CSV_COLUMNS, CsvReporter, csv_fields};
pub use self::html::HtmlReporter;
pub use self::text::TextReporter;
use crate::checker::Report;
use crate::outcome::Entry;

/// A sink for report rows.
pub trait Reporter {
    /// Called for every entry as soon as it is known.
    ///
    /// # Errors
    /// When writing fails.
    fn entry(&mut self, entry: &Entry) -> io::Result<()>;

    /// Called once at the end (also after a cancelled run) with the whole report.
    ///
    /// # Errors
    /// When writing fails.
    fn finish(&mut self, report: &Report) -> io::Result<()>;
}

/// The report formats, by the names `-o` and `-F` take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// LinkChecker-style text blocks and summary.
    Text,
    /// LinkChecker's 17 CSV columns.
    Csv,
    /// One self-contained HTML page for people: summary, broken links by page, sortable table.
    Html,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: &'static [Format] = &[Format::Text, Format::Csv, Format::Html];

    /// The name used on the command line (`csv`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Csv => "csv",
            Format::Html => "html",
        }
    }

    /// The format with that command-line name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// The file `-F FORMAT` writes when no file name is given (`linkpatrol-out.csv`).
    pub fn default_file_name(self) -> &'static str {
        match self {
            Format::Text => "linkpatrol-out.txt",
            Format::Csv => "linkpatrol-out.csv",
            Format::Html => "linkpatrol-out.html",
        }
    }
}

/// Settings every reporter may use.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Which entries are shown. Defaults to problems only.
    pub verbosity: Verbosity,
    /// CSV field delimiter. Defaults to `;`.
    pub csv_delimiter: u8,
    /// Start the CSV with a UTF-8 byte-order mark, so Excel reads it as UTF-8. Defaults to off.
    pub csv_bom: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            verbosity: Verbosity::Problems,
            csv_delimiter: b';',
            csv_bom: false,
        }
    }
}

/// A reporter of `format` writing to `out`.
pub fn reporter_for<'a>(
    format: Format,
    out: Box<dyn Write + 'a>,
    options: &ReportOptions,
) -> Box<dyn Reporter + 'a> {
    match format {
        Format::Text => Box::new(TextReporter::new(out, options.verbosity)),
        Format::Csv => Box::new(
            CsvReporter::new(out, options.csv_delimiter, options.verbosity)
                .with_bom(options.csv_bom),
        ),
        Format::Html => Box::new(HtmlReporter::new(out, options.verbosity)),
    }
}

/// Feeds every entry to several reporters (one `-o` plus any `-F`).
#[derive(Default)]
pub struct Fanout<'a> {
    reporters: Vec<Box<dyn Reporter + 'a>>,
}

impl std::fmt::Debug for Fanout<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fanout")
            .field("reporters", &self.reporters.len())
            .finish()
    }
}

impl<'a> Fanout<'a> {
    /// An empty fan-out.
    pub fn new() -> Self {
        Fanout {
            reporters: Vec::new(),
        }
    }

    /// Adds a reporter.
    pub fn push(&mut self, reporter: Box<dyn Reporter + 'a>) {
        self.reporters.push(reporter);
    }
}

impl Reporter for Fanout<'_> {
    /// Feeds every reporter; the first error is returned after all were fed.
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        let mut first = Ok(());
        for r in &mut self.reporters {
            if let Err(e) = r.entry(entry)
                && first.is_ok()
            {
                first = Err(e);
            }
        }
        first
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        let mut first = Ok(());
        for r in &mut self.reporters {
            if let Err(e) = r.finish(report)
                && first.is_ok()
            {
                first = Err(e);
            }
        }
        first
    }
}

/// Which entries a reporter shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verbosity {
    /// Broken links and links with warnings (the default).
    #[default]
    Problems,
    /// Every entry.
    All,
}

impl Verbosity {
    /// `true` when `entry` is to be shown.
    pub fn shows(self, entry: &Entry) -> bool {
        self == Verbosity::All
            || entry.result.outcome.is_broken()
            || !entry.result.warnings.is_empty()
    }
}

/// `1.234 seconds`, `2 minutes, 3 seconds`: durations as LinkChecker prints them.
pub(crate) fn human_duration(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.3} seconds")
    } else {
        let secs = d.as_secs();
        format!("{} minutes, {} seconds", secs / 60, secs % 60)
    }
}
