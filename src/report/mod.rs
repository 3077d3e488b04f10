//! Reporters: they turn the stream of [`Entry`]s into text, compact lines, CSV, HTML, Markdown,
//! GitHub Actions commands and the machine-readable formats (JSON, NDJSON, JUnit XML, SARIF,
//! sitemap, failures list, DOT and GML graphs).
//!
//! A reporter is fed on one thread (the caller of [`Checker::run_with`](crate::Checker::run_with)).
//! Line-oriented formats (CSV, NDJSON, failures) and the JSON entries array are written and
//! flushed as entries arrive, and so are the problem lines of compact and github; formats that
//! are one grouped or sorted document (text, Markdown, JUnit, SARIF, sitemap, DOT, GML) are
//! written by `finish`. Entries arrive in the order they finish, which changes from run to
//! run with several threads: [`SortedReporter`] in front of any reporter gives them in a
//! stable order (page, line, column, URL) at the end, as the binary does unless `--stream`. `finish` also runs after a cancelled run,
//! so every file is a complete, well-formed document once it returns. Reporters never decide a
//! verdict.
//!
//! [`ReportOptions::verbosity`] selects the entries of the text, CSV, JSON and NDJSON reports.
//! The other formats have a fixed scope: JUnit lists every link (CI tools count passes),
//! SARIF, compact, github, Markdown and failures list only problems, the sitemap only good
//! pages, the graphs every link.
//!
//! # Text from pages and servers
//! Link texts, hrefs as written, server answers and file names are chosen by others. Each
//! format writes them in its own safe spelling: [`escape_controls`] for the text report, the
//! CSV cells and the CLI's messages (a page must not drive the reader's terminal or forge a
//! line of the report), percent-encoding for the failures list, `xml.rs` for JUnit and the
//! sitemap, `html/escape.rs` for the HTML report, `json::write_json` for JSON, NDJSON and SARIF
//! (every control character as `\uXXXX`), `github.rs` and `markdown.rs` for their own syntax
//! after [`escape_controls`], and their own quoting for the graphs. No format writes a raw ESC
//! or BEL a page chose; the only colour codes are ours (`style.rs`, off unless asked for). The CSV also defuses formulas (`csv.rs`).

mod compact;
mod csv;
mod dot;
mod failures;
mod format;
mod github;
mod gml;
mod graph;
mod html;
mod json;
mod junit;
mod markdown;
mod merge;
mod merged_levels;
mod ndjson;
pub mod out_file;
mod page_path;
mod problems;
mod row_spill;
mod sarif;
mod sitemap;
mod sorted;
mod style;
mod terminal;
mod text;
mod text_by_page;
mod xml;

use std::io::{self, Write};

pub use self::compact::CompactReporter;
pub use self::csv::{CSV_COLUMNS, CsvReporter, csv_fields};
pub use self::dot::DotReporter;
pub use self::failures::FailuresReporter;
pub use self::format::{Format, Scope, Syntax};
pub use self::github::GithubReporter;
pub use self::gml::GmlReporter;
pub use self::html::HtmlReporter;
pub use self::json::{JsonReporter, entry_json, summary_json};
pub use self::junit::JunitReporter;
pub use self::markdown::MarkdownReporter;
pub use self::merge::{MAX_NDJSON_LINE, entry_from_json, merge_ndjson, read_ndjson_line};
pub use self::ndjson::NdjsonReporter;
pub use self::sarif::SarifReporter;
pub use self::sitemap::SitemapReporter;
pub use self::sorted::SortedReporter;
pub use self::terminal::{escape_controls, is_control};
pub use self::text::TextReporter;
use crate::model::outcome::Entry;
use crate::model::run_report::Report;
use crate::model::stats::Statistics;

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

    /// Pushes every row written so far out of its buffers (called while the result stream is
    /// idle, and before an immediate exit). Formats written whole by `finish` have nothing to
    /// push: the default does nothing.
    ///
    /// # Errors
    /// When writing fails.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Rows this reporter held on disk because its memory share was full (see
    /// [`SortedReporter::spill_past`]); the default holds none.
    fn rows_on_disk(&self) -> usize {
        0
    }
}

impl<R: Reporter + ?Sized> Reporter for Box<R> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        (**self).entry(entry)
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        (**self).finish(report)
    }

    fn flush(&mut self) -> io::Result<()> {
        (**self).flush()
    }

    fn rows_on_disk(&self) -> usize {
        (**self).rows_on_disk()
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
    /// Write CSV cells as found: no `'` before a text cell a spreadsheet would run as a
    /// formula, no escaped control characters ([`CsvReporter::with_raw`]). Defaults to off.
    pub csv_raw: bool,
    /// Colour the text and compact reports (errors red, warnings yellow, the summary bold).
    /// Defaults to off; the binary turns it on for a terminal (`--color`).
    pub color: bool,
    /// How the text report groups its problems. Defaults to by page.
    pub group_by: GroupBy,
    /// The folder local pages are shown relative to in the text, compact, github and Markdown
    /// reports (the binary gives the working folder). Defaults to none: absolute paths.
    pub working_dir: Option<std::path::PathBuf>,
    /// The folder SARIF locations of local pages are relative to, under the `uriBaseId`
    /// `SRCROOT` (the binary gives the working folder when the checked folder is inside it,
    /// else the checked folder), and the HTML report's local paths. Defaults to none:
    /// absolute `file:` URIs (the HTML report then uses `working_dir`).
    pub source_root: Option<std::path::PathBuf>,
    /// The run asked the web archive for suggestions (`--suggest`): the CSV report gets a last
    /// column, `suggestion`. Defaults to off.
    pub suggestions: bool,
    /// What the run checked and the settings that shape its verdicts, as the front end names
    /// them (`("Inputs", "docs/")`, `("Recursion level", "2")`), for the reports that say
    /// what was checked (HTML). Credentials must already be masked. Defaults to none.
    pub run_settings: Vec<(String, String)>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            verbosity: Verbosity::Problems,
            csv_delimiter: b';',
            csv_bom: false,
            csv_raw: false,
            color: false,
            group_by: GroupBy::Page,
            working_dir: None,
            source_root: None,
            suggestions: false,
            run_settings: Vec::new(),
        }
    }
}

/// How the text report groups its problems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupBy {
    /// Each page, then its problems by line and column (the default).
    #[default]
    Page,
    /// Each broken URL, then every page that links to it (LinkChecker's layout).
    Url,
}

/// A reporter of `format` writing to `out`.
pub fn reporter_for<'a>(
    format: Format,
    out: Box<dyn Write + 'a>,
    options: &ReportOptions,
) -> Box<dyn Reporter + 'a> {
    let cwd = options.working_dir.as_deref();
    match format {
        Format::Text => Box::new(
            TextReporter::new(out, options.verbosity)
                .with_group_by(options.group_by)
                .with_color(options.color)
                .with_base(cwd),
        ),
        Format::Compact => Box::new(CompactReporter::new(out, cwd, options.color)),
        Format::Github => Box::new(GithubReporter::new(out, cwd)),
        Format::Markdown => Box::new(MarkdownReporter::new(out, cwd)),
        Format::Json => Box::new(JsonReporter::new(out, options.verbosity)),
        Format::Ndjson => Box::new(NdjsonReporter::new(out, options.verbosity)),
        Format::Junit => Box::new(JunitReporter::new(out)),
        Format::Sarif => {
            Box::new(SarifReporter::new(out).with_source_root(options.source_root.as_deref()))
        }
        Format::Sitemap => Box::new(SitemapReporter::new(out)),
        Format::Failures => Box::new(FailuresReporter::new(out)),
        Format::Dot => Box::new(DotReporter::new(out)),
        Format::Gml => Box::new(GmlReporter::new(out)),
        Format::Csv => Box::new(
            CsvReporter::new(out, options.csv_delimiter, options.verbosity)
                .with_bom(options.csv_bom)
                .with_raw(options.csv_raw)
                .with_suggestions(options.suggestions),
        ),
        Format::Html => Box::new(
            HtmlReporter::new(out, options.verbosity)
                .with_settings(options.run_settings.clone())
                .with_base(options.source_root.as_deref().or(cwd)),
        ),
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

    fn flush(&mut self) -> io::Result<()> {
        let mut first = Ok(());
        for r in &mut self.reporters {
            if let Err(e) = r.flush()
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
            || entry.result.outcome.is_blocked()
            || entry.warnings().next().is_some()
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

/// Paces the flushes of a streaming reporter: at most one every [`FLUSH_INTERVAL`], so a
/// reader (or an interrupted run) sees rows within a fraction of a second without a system
/// call per row. `finish` always flushes.
#[derive(Debug)]
pub(crate) struct FlushPacer {
    last: std::time::Instant,
}

/// Longest time a written row may wait in a buffer before it is flushed.
pub(crate) const FLUSH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

impl Default for FlushPacer {
    fn default() -> Self {
        FlushPacer {
            last: std::time::Instant::now(),
        }
    }
}

impl FlushPacer {
    /// `true` when it is time to flush again (and notes that it happens now).
    pub(crate) fn due(&mut self) -> bool {
        let now = std::time::Instant::now();
        if now - self.last >= FLUSH_INTERVAL {
            self.last = now;
            true
        } else {
            false
        }
    }
}

/// The statistics of `report` (gathered while its entries streamed by).
pub fn statistics(report: &Report) -> Statistics {
    report.stats.clone()
}

/// `1.2MB`, `3KB`, `17B`.
pub fn human_bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n}B"),
        1024..1_048_576 => format!("{}KB", n / 1024),
        _ => format!("{:.1}MB", n as f64 / 1_048_576.0),
    }
}
