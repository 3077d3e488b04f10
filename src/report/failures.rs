//! The failures list, like LinkChecker's `failures` output: one broken URL per line, each URL
//! once, in the order they were found. Lines are written and flushed as they are found, so a
//! script can re-check or grep the list even while the run goes on. Verbosity does not apply.
//!
//! A link that did not parse is listed as written; its control characters (a line break that
//! would forge a line, an ESC that would drive a terminal) are percent-encoded, the spelling a
//! URL parser gives them, so every line is one URL.

use std::collections::HashSet;
use std::io::{self, Write};

use super::Reporter;
use super::terminal::percent_encode_controls;
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Writes every broken URL once.
#[derive(Debug)]
pub struct FailuresReporter<W: Write> {
    out: W,
    /// URLs already written.
    seen: HashSet<String>,
}

impl<W: Write> FailuresReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W) -> Self {
        FailuresReporter {
            out,
            seen: HashSet::new(),
        }
    }
}

impl<W: Write> Reporter for FailuresReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        let r = &entry.result;
        if r.outcome.is_broken() && self.seen.insert(r.url.clone()) {
            let line = percent_encode_controls(&r.url);
            writeln!(self.out, "{line}")?;
            self.out.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn finish(&mut self, _report: &Report) -> io::Result<()> {
        self.out.flush()
    }
}
