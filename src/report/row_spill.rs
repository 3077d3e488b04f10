//! A sorted report's rows on disk: past its memory share, [`SortedReporter`](super::SortedReporter)
//! sorts the rows it holds and writes them as one run to a private temporary file (created
//! unlinked, so nothing is left behind, even after a kill); at the end the runs are merged back
//! in the same order, so the report is the same bytes.
//!
//! Only the rows' own parts go to disk: a row names its result by a number in [`RowSpill`]'s
//! table, which keeps each result once (every row of a URL shares it), and a warning's tag by a
//! number in its table of tags. Both tables live as long as the run, in this process, so a row
//! comes back with the very same result and tags.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::sync::Arc;

use crate::model::outcome::{CheckResult, Entry, Referrer, Warning};

const REFERRER: u8 = 1;
const FRAGMENT: u8 = 2;
const LINE: u8 = 4;
const COLUMN: u8 = 8;
const BASE: u8 = 16;
const REMAPPED: u8 = 32;
const RENDERED: u8 = 64;

/// The runs written so far and the tables their rows point into.
#[derive(Debug, Default)]
pub(super) struct RowSpill {
    runs: Vec<File>,
    results: Vec<Arc<CheckResult>>,
    /// A result's number, by its address (each is kept alive in `results`).
    result_ids: HashMap<*const CheckResult, u32>,
    tags: Vec<&'static str>,
    tag_ids: HashMap<&'static str, u32>,
    /// Rows written.
    rows: usize,
}

impl RowSpill {
    /// Rows written to disk so far.
    pub(super) fn rows(&self) -> usize {
        self.rows
    }

    /// Writes `sorted` (in report order) as one run. On an error nothing is kept of the run
    /// and the rows are handed back, to stay in memory.
    pub(super) fn write_run(&mut self, sorted: Vec<Entry>) -> Result<(), Vec<Entry>> {
        let Ok(file) = tempfile::tempfile() else {
            return Err(sorted);
        };
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let mut row = Vec::new();
        let written = sorted.iter().try_for_each(|e| {
            row.clear();
            self.encode(e, &mut row);
            out.write_all(&(row.len() as u32).to_le_bytes())?;
            out.write_all(&row)
        });
        let file = written
            .and_then(|()| out.into_inner().map_err(io::IntoInnerError::into_error))
            .and_then(|mut f| f.rewind().map(|()| f));
        match file {
            Ok(f) => {
                self.rows += sorted.len();
                self.runs.push(f);
                Ok(())
            }
            Err(_) => Err(sorted),
        }
    }

    /// Every row written and then `last` (sorted, held in memory), merged in `order` (the one
    /// the runs were sorted in): rows that sort the same come in the order they were held. `settle` gives each result
    /// its final form once (the level the run settled), and is applied to `last` by the caller.
    pub(super) fn merge(
        mut self,
        last: Vec<Entry>,
        order: Order,
        settle: impl Fn(&Arc<CheckResult>) -> Option<Arc<CheckResult>>,
    ) -> Merge {
        for r in &mut self.results {
            if let Some(settled) = settle(r) {
                *r = settled;
            }
        }
        let mut sources: Vec<Source> = self
            .runs
            .drain(..)
            .map(|f| Source::Run(BufReader::with_capacity(1 << 16, f)))
            .collect();
        sources.push(Source::Held(last.into_iter()));
        let mut merge = Merge {
            spill: self,
            sources,
            heads: BinaryHeap::new(),
            order,
            error: None,
        };
        for i in 0..merge.sources.len() {
            merge.advance(i);
        }
        merge
    }

    fn encode(&mut self, e: &Entry, out: &mut Vec<u8>) {
        let next = self.results.len() as u32;
        let id = *self
            .result_ids
            .entry(Arc::as_ptr(&e.result))
            .or_insert_with(|| {
                self.results.push(e.result.clone());
                next
            });
        out.extend_from_slice(&id.to_le_bytes());
        let r = e.referrer.as_ref();
        let flags = [
            (r.is_some(), REFERRER),
            (e.fragment.is_some(), FRAGMENT),
            (r.is_some_and(|r| r.line.is_some()), LINE),
            (r.is_some_and(|r| r.column.is_some()), COLUMN),
            (r.is_some_and(|r| r.base.is_some()), BASE),
            (r.is_some_and(|r| r.remapped_from.is_some()), REMAPPED),
            (r.is_some_and(|r| r.rendered), RENDERED),
        ]
        .iter()
        .fold(0u8, |f, &(on, bit)| if on { f | bit } else { f });
        out.push(flags);
        if let Some(r) = r {
            text(out, &r.parent);
            text(out, &r.raw);
            for n in [r.line, r.column].into_iter().flatten() {
                out.extend_from_slice(&(n as u64).to_le_bytes());
            }
            text(out, &r.name);
            if let Some(base) = &r.base {
                text(out, base);
            }
            if let Some(from) = &r.remapped_from {
                text(out, from);
            }
            out.extend_from_slice(&(r.warnings.len() as u32).to_le_bytes());
            for w in &r.warnings {
                let next = self.tags.len() as u32;
                let tag = *self.tag_ids.entry(w.tag).or_insert_with(|| {
                    self.tags.push(w.tag);
                    next
                });
                out.extend_from_slice(&tag.to_le_bytes());
                text(out, &w.message);
            }
        }
        if let Some(fragment) = &e.fragment {
            text(out, fragment);
        }
    }

    fn decode(&self, b: &[u8]) -> Option<Entry> {
        let mut at = Reader(b);
        let result = self.results.get(at.u32()? as usize)?.clone();
        let flags = at.byte()?;
        let referrer = if flags & REFERRER != 0 {
            let parent = at.text()?;
            let raw = at.text()?;
            let line = at.number_if(flags & LINE != 0)?;
            let column = at.number_if(flags & COLUMN != 0)?;
            let name = at.text()?;
            let base = at.text_if(flags & BASE != 0)?;
            let remapped_from = at.text_if(flags & REMAPPED != 0)?;
            let count = at.u32()? as usize;
            let mut warnings = Vec::with_capacity(count.min(64));
            for _ in 0..count {
                let tag = *self.tags.get(at.u32()? as usize)?;
                warnings.push(Warning {
                    tag,
                    message: at.text()?,
                });
            }
            Some(Referrer {
                parent,
                raw,
                line,
                column,
                name,
                base,
                warnings,
                remapped_from,
                rendered: flags & RENDERED != 0,
            })
        } else {
            None
        };
        let fragment = at.text_if(flags & FRAGMENT != 0)?;
        if !at.0.is_empty() {
            return None;
        }
        Some(Entry {
            result,
            referrer,
            fragment,
            cached: false,
        })
    }
}

fn text(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Reads a row back, field by field; `None` past its end.
struct Reader<'b>(&'b [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn number(&mut self) -> Option<usize> {
        usize::try_from(u64::from_le_bytes(self.take(8)?.try_into().ok()?)).ok()
    }

    fn text(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }

    /// A field written only when `present`: `Some(None)` when it was not, `None` when it was
    /// and does not read back.
    fn number_if(&mut self, present: bool) -> Option<Option<usize>> {
        if present {
            self.number().map(Some)
        } else {
            Some(None)
        }
    }

    fn text_if(&mut self, present: bool) -> Option<Option<String>> {
        if present {
            self.text().map(Some)
        } else {
            Some(None)
        }
    }
}

/// Where merged rows come from: a run on disk, or the rows still held.
enum Source {
    Run(BufReader<File>),
    Held(std::vec::IntoIter<Entry>),
}

/// The order of a report's rows.
pub(super) type Order = fn(&Entry, &Entry) -> Ordering;

/// A source's next row, ordered for the heap: the least in `order` first, then the source
/// written first (so rows that sort the same keep the order they were held in).
struct Head {
    entry: Entry,
    source: usize,
    order: Order,
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.order)(&other.entry, &self.entry).then(other.source.cmp(&self.source))
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

/// The rows of every run and the held ones, in report order (see [`RowSpill::merge`]).
pub(super) struct Merge {
    spill: RowSpill,
    sources: Vec<Source>,
    heads: BinaryHeap<Head>,
    order: Order,
    /// The first run that could not be read back: the rows left in it are lost.
    error: Option<io::Error>,
}

impl Merge {
    /// Puts the next row of source `i` on the heap, if it has one.
    fn advance(&mut self, i: usize) {
        let next = match &mut self.sources[i] {
            Source::Held(rows) => rows.next(),
            Source::Run(file) => match read_row(file) {
                Ok(None) => None,
                Ok(Some(bytes)) => match self.spill.decode(&bytes) {
                    Some(e) => Some(e),
                    None => {
                        self.fail(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "a report row written to disk did not read back",
                        ));
                        None
                    }
                },
                Err(e) => {
                    self.fail(e);
                    None
                }
            },
        };
        if let Some(entry) = next {
            self.heads.push(Head {
                entry,
                source: i,
                order: self.order,
            });
        }
    }

    fn fail(&mut self, e: io::Error) {
        self.error.get_or_insert(e);
    }

    /// What went wrong reading a run back, once the merge is over.
    pub(super) fn error(&mut self) -> Option<io::Error> {
        self.error.take()
    }
}

impl Iterator for Merge {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        let Head { entry, source, .. } = self.heads.pop()?;
        self.advance(source);
        Some(entry)
    }
}

/// The next row of a run: `None` at its end.
fn read_row(file: &mut BufReader<File>) -> io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match file.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut row = vec![0u8; u32::from_le_bytes(len) as usize];
    file.read_exact(&mut row)?;
    Ok(Some(row))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::outcome::Outcome;

    fn result(url: &str, level: usize) -> Arc<CheckResult> {
        Arc::new(CheckResult::immediate(
            url.into(),
            Outcome::Ok { status: Some(200) },
            level,
        ))
    }

    /// Every field of a row, set and unset, comes back as it was written, with the very same
    /// result and warning tags.
    #[test]
    fn a_row_comes_back_as_it_was_written() {
        let shared = result("http://t/a", 1);
        let full = Entry {
            result: shared.clone(),
            referrer: Some(Referrer {
                parent: "http://t/p".into(),
                raw: "a#x".into(),
                line: Some(3),
                column: Some(7),
                name: "the \u{1F600} text".into(),
                base: Some("http://t/base/".into()),
                warnings: vec![Warning {
                    tag: "url-whitespace",
                    message: "a\tb\n".into(),
                }],
                remapped_from: Some("http://old/a".into()),
                rendered: true,
            }),
            fragment: Some("x".into()),
            cached: false,
        };
        let bare = Entry {
            result: shared.clone(),
            referrer: Some(Referrer {
                line: None,
                column: None,
                base: None,
                warnings: Vec::new(),
                remapped_from: None,
                rendered: false,
                ..full.referrer.clone().unwrap()
            }),
            fragment: None,
            cached: false,
        };
        let start = Entry {
            result: result("http://t/", 0),
            referrer: None,
            fragment: None,
            cached: false,
        };
        let mut spill = RowSpill::default();
        for e in [&full, &bare, &start] {
            let mut bytes = Vec::new();
            spill.encode(e, &mut bytes);
            let back = spill.decode(&bytes).expect("reads back");
            assert_eq!(format!("{back:?}"), format!("{e:?}"));
            assert!(Arc::ptr_eq(&back.result, &e.result));
            for cut in 0..bytes.len() {
                assert!(spill.decode(&bytes[..cut]).is_none(), "cut at {cut}");
            }
        }
        assert_eq!(spill.results.len(), 2, "one result kept per URL");
    }

    /// The report's order as far as these rows differ: page, then URL.
    fn by_place(a: &Entry, b: &Entry) -> Ordering {
        let page = |e: &Entry| e.referrer.as_ref().map(|r| r.parent.clone());
        (page(a), &a.result.url).cmp(&(page(b), &b.result.url))
    }

    /// Runs merge in the given order, ties in the order they were held; results take their
    /// settled form.
    #[test]
    fn runs_merge_in_order_with_ties_in_the_order_held() {
        let row = |url: &str, page: &str, name: &str| Entry {
            result: result(url, 2),
            referrer: Some(Referrer {
                name: name.into(),
                ..Referrer::at(page, url, 1, 1)
            }),
            fragment: None,
            cached: false,
        };
        let mut spill = RowSpill::default();
        // Rows that sort the same (one place, one URL, one text) told apart by their results'
        // addresses: the first written must come first.
        let (a1, a2, a3) = (row("u", "p", "t"), row("u", "p", "t"), row("u", "p", "t"));
        let order = [&a1, &a2, &a3].map(|e| Arc::as_ptr(&e.result));
        // Each run sorted, as `SortedReporter` writes them.
        spill
            .write_run(vec![a1.clone(), row("b", "p2", "")])
            .unwrap_or_else(|_| panic!("written"));
        spill
            .write_run(vec![a2.clone(), row("c", "p3", "")])
            .unwrap_or_else(|_| panic!("written"));
        let merged: Vec<Entry> = spill
            .merge(vec![a3.clone(), row("a", "p0", "")], by_place, |r| {
                (r.url == "b").then(|| result("b", 1))
            })
            .collect();
        let urls: Vec<&str> = merged.iter().map(|e| e.result.url.as_str()).collect();
        assert_eq!(urls, ["u", "u", "u", "a", "b", "c"]);
        let tied: Vec<_> = merged[..3].iter().map(|e| Arc::as_ptr(&e.result)).collect();
        assert_eq!(tied, order, "ties in the order held");
        assert_eq!(merged[4].result.level, 1, "settled");
        assert_eq!(merged[5].result.level, 2);
    }
}
