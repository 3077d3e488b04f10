//! The compact report: one line per problem, `path:line:column: URL: reason`, the way
//! compilers write theirs, so editors and terminals can jump to the place; then the summary
//! line. A local page is a path relative to the working folder ([`PagePaths`]), a web page its
//! URL; the URL is the link as written. A problem without a place (a start URL) has no line
//! and column: `URL: URL: reason`.
//!
//! Lines stream as entries arrive (flushed within a tenth of a second), in the order links
//! finish. Every field passes [`escape_controls`], so each problem stays on its line; with
//! colour on, the reason is red for an error and yellow for a warning, and the summary bold.

use std::io::{self, Write};

use super::page_path::PagePaths;
use super::problems::{Severity, place, problems, written};
use super::style::{Painter, Tone};
use super::terminal::escape_controls as esc;
use super::text::{not_checked_lines, summary_line};
use super::{FlushPacer, Reporter};
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Writes the compact report.
#[derive(Debug)]
pub struct CompactReporter<W: Write> {
    out: W,
    paths: PagePaths,
    painter: Painter,
    pacer: FlushPacer,
}

impl<W: Write> CompactReporter<W> {
    /// A reporter writing to `out`, with local pages relative to `base` (absolute without
    /// one), coloured when `color` is true.
    pub fn new(out: W, base: Option<&std::path::Path>, color: bool) -> Self {
        CompactReporter {
            out,
            paths: PagePaths::new(base),
            painter: Painter::new(color),
            pacer: FlushPacer::default(),
        }
    }
}

impl<W: Write> Reporter for CompactReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        let found = problems(entry);
        if found.is_empty() {
            return Ok(());
        }
        let (page, line, column) = place(entry);
        let mut at = esc(&self.paths.show(page)).into_owned();
        if let Some(l) = line {
            at.push_str(&format!(":{l}"));
            if let Some(c) = column {
                at.push_str(&format!(":{c}"));
            }
        }
        let url = esc(written(entry));
        for p in found {
            let tone = match p.severity {
                Severity::Error => Tone::Error,
                Severity::Warning => Tone::Warning,
            };
            let reason = esc(&p.reason);
            writeln!(
                self.out,
                "{at}: {url}: {}",
                self.painter.paint(tone, &reason)
            )?;
        }
        if self.pacer.due() {
            self.out.flush()?;
        }
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        let line = summary_line(report);
        writeln!(self.out, "{}", self.painter.paint(Tone::Summary, line))?;
        for line in not_checked_lines(report) {
            writeln!(self.out, "{line}")?;
        }
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
