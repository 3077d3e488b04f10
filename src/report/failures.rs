//! The failures list, like LinkChecker's `failures` output: one broken URL per line, each URL
//! once, in the order they were found. Lines are written and flushed as they are found, so a
//! script can re-check or grep the list even while the run goes on. Verbosity does not apply.

use std::collections::HashSet;
use std::io::{self, Write};

use super::Reporter;
use crate::model::outcome::Entry;
use crate::model::report::Report;

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
            // An unparsable link is kept as written; a line break in it must not split it.
            let line = r.url.replace('\r', "%0D").replace('\n', "%0A");
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
