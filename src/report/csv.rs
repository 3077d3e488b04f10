//! CSV in LinkChecker's 17 columns and order, `;`-separated by default, one row per (URL,
//! referrer), written and flushed within a tenth of a second as entries arrive.
//!
//! Unlike LinkChecker, every row has all 17 fields (empty line and column stay empty fields
//! instead of shifting the columns), and no `#` comment lines surround the table, so a
//! spreadsheet opens it as-is. With [`CsvReporter::with_bom`] the file starts with a UTF-8
//! byte-order mark, which Excel needs to read non-ASCII text as UTF-8.

use std::io::{self, Write};

use super::{FlushPacer, Reporter, Verbosity};
use crate::model::outcome::Entry;
use crate::model::report::Report;

/// The header row, LinkChecker's column names in its order.
pub const CSV_COLUMNS: [&str; 17] = [
    "urlname",
    "parentname",
    "base",
    "result",
    "warningstring",
    "infostring",
    "valid",
    "url",
    "line",
    "column",
    "name",
    "dltime",
    "size",
    "checktime",
    "cached",
    "level",
    "modified",
];

/// The byte-order mark (U+FEFF, `EF BB BF` in UTF-8).
const BOM: char = '\u{FEFF}';

/// Writes CSV rows.
#[derive(Debug)]
pub struct CsvReporter<W: Write> {
    out: csv::Writer<W>,
    verbosity: Verbosity,
    header_written: bool,
    bom: bool,
    pacer: FlushPacer,
}

impl<W: Write> CsvReporter<W> {
    /// A reporter writing to `out` with `delimiter` (LinkChecker uses `;`).
    pub fn new(out: W, delimiter: u8, verbosity: Verbosity) -> Self {
        CsvReporter {
            out: csv::WriterBuilder::new()
                .delimiter(delimiter)
                .quote_style(csv::QuoteStyle::Necessary)
                .from_writer(out),
            verbosity,
            header_written: false,
            pacer: FlushPacer::default(),
            bom: false,
        }
    }

    /// Writes a UTF-8 byte-order mark before the header when `bom` is true (Excel then reads
    /// the file as UTF-8; LibreOffice accepts either). Defaults to off.
    pub fn with_bom(mut self, bom: bool) -> Self {
        self.bom = bom;
        self
    }

    /// Flushes and returns the underlying writer.
    ///
    /// # Errors
    /// When the final flush fails.
    pub fn into_inner(self) -> io::Result<W> {
        self.out.into_inner().map_err(|e| e.into_error())
    }

    fn header(&mut self) -> io::Result<()> {
        if !self.header_written {
            self.header_written = true;
            if self.bom {
                // `csv::Writer` has no raw write, so the mark goes out as the start of the first
                // field: a BOM needs no quoting under `QuoteStyle::Necessary`, and nothing was
                // written before the header.
                let first = format!("{BOM}{}", CSV_COLUMNS[0]);
                let mut header = CSV_COLUMNS.map(str::to_owned);
                header[0] = first;
                self.out.write_record(&header)?;
            } else {
                self.out.write_record(CSV_COLUMNS)?;
            }
        }
        Ok(())
    }
}

/// The 17 fields of one entry.
pub fn csv_fields(e: &Entry) -> [String; 17] {
    let r = &e.result;
    let rf = e.referrer.as_ref();
    let url = match &e.fragment {
        Some(f) => format!("{}#{f}", r.url),
        None => r.url.clone(),
    };
    let warnings: Vec<String> = e
        .warnings()
        .map(|w| format!("[{}] {}", w.tag, w.message))
        .collect();
    let result = if r.outcome.is_broken() {
        format!("Error: {}", r.outcome)
    } else {
        r.outcome.to_string()
    };
    [
        rf.map_or_else(|| url.clone(), |x| x.raw.clone()),
        rf.map(|x| x.parent.clone()).unwrap_or_default(),
        rf.and_then(|x| x.base.clone()).unwrap_or_default(),
        result,
        warnings.join("\n"),
        r.infos.join("\n"),
        if r.outcome.is_broken() {
            "False"
        } else {
            "True"
        }
        .to_owned(),
        r.real_url.as_ref().map_or(url, |u| u.to_string()),
        rf.and_then(|x| x.line)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        rf.and_then(|x| x.column)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        rf.map(|x| x.name.clone()).unwrap_or_default(),
        r.download_time
            .map_or("-1".into(), |d| format!("{:.6}", d.as_secs_f64())),
        r.size.map_or("-1".into(), |s| s.to_string()),
        format!("{:.6}", r.check_time.as_secs_f64()),
        if e.cached { "1" } else { "0" }.to_owned(),
        r.level.to_string(),
        r.modified.clone().unwrap_or_default(),
    ]
}

impl<W: Write> Reporter for CsvReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        self.header()?;
        if self.verbosity.shows(entry) {
            self.out.write_record(csv_fields(entry))?;
            // Streamed: rows reach the file within FLUSH_INTERVAL; `finish` (also after a
            // cancel) flushes the rest.
            if self.pacer.due() {
                self.out.flush()?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn finish(&mut self, _report: &Report) -> io::Result<()> {
        self.header()?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_bytes(bom: bool) -> Vec<u8> {
        let mut r = CsvReporter::new(Vec::new(), b';', Verbosity::All).with_bom(bom);
        r.finish(&Report::default()).unwrap();
        r.into_inner().unwrap()
    }

    #[test]
    fn bom_only_when_asked() {
        let plain = header_bytes(false);
        assert!(plain.starts_with(b"urlname;parentname;"));
        let with = header_bytes(true);
        assert_eq!(&with[..3], b"\xEF\xBB\xBF");
        assert_eq!(&with[3..], &plain[..]);
    }
}
