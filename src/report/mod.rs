//! Reporters: they turn the stream of [`Entry`]s into text, CSV and other formats.
//!
//! A reporter is fed on one thread (the caller of [`Checker::run_with`](crate::Checker::run_with))
//! and writes as entries arrive, so an interrupted run still leaves a complete file; `finish`
//! writes the summary. Reporters never decide a verdict.

mod csv;
mod text;

use std::io;

pub use self::csv::{CSV_COLUMNS, CsvReporter, csv_fields};
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
