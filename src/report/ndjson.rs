//! NDJSON (newline-delimited JSON): one JSON object per line, written and flushed as it
//! arrives, so a consumer can follow the run with `tail -f` and a killed run loses nothing.
//!
//! Each entry the verbosity shows is one line: the fields of [`entry_json`] plus
//! `"type": "entry"`. The last line, written by `finish` (also after a cancelled run), is the
//! summary: the fields of [`summary_json`] plus `"type": "summary"` — for example
//! `{"duration":0.12,"errors":1,"hosts":[…],"interrupted":false,"links":9,"type":"summary",
//! "unchecked":0,"urls":8,"warnings":0}`. Keys are in alphabetical order; lines end with `\n`.

use std::io::{self, Write};

use serde_json::Value;

use super::json::{entry_json, summary_json, write_json};
use super::{FlushPacer, Reporter, Verbosity};
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Writes one JSON object per line.
#[derive(Debug)]
pub struct NdjsonReporter<W: Write> {
    out: W,
    verbosity: Verbosity,
    pacer: FlushPacer,
}

impl<W: Write> NdjsonReporter<W> {
    /// A reporter writing to `out`, showing the entries `verbosity` selects.
    pub fn new(out: W, verbosity: Verbosity) -> Self {
        NdjsonReporter {
            out,
            verbosity,
            pacer: FlushPacer::default(),
        }
    }

    fn line(&mut self, mut value: Value, kind: &str) -> io::Result<()> {
        if let Value::Object(map) = &mut value {
            map.insert("type".into(), Value::from(kind));
        }
        write_json(&mut self.out, &value, false)?;
        self.out.write_all(b"\n")
    }
}

impl<W: Write> Reporter for NdjsonReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        if self.verbosity.shows(entry) {
            self.line(entry_json(entry), "entry")?;
            if self.pacer.due() {
                self.out.flush()?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        self.line(summary_json(report), "summary")?;
        self.out.flush()
    }
}
