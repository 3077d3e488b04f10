//! [`SortedReporter`]: the same report whatever the thread count. Entries finish in the order
//! the workers happen to finish them; this reporter holds them back and hands them to its
//! inner reporter at `finish`, ordered by page, line and column (start URLs, which have no
//! page, first), ties by URL, then by the link as written, its text and fragment. The
//! `cached` flag ("this URL was reported before") is set again in that order, so the first
//! row of a URL is the one not cached. Two runs over the same pages then print the same
//! bytes, except for what the formats measure (durations, times of day). Each entry's level
//! is set to its URL's settled level ([`Report::levels`]: the shortest link distance from a
//! start URL), not the level of the link that happened to reach the URL first.
//!
//! The price is memory (every entry the inner reporter may show is held until the end, in
//! memory up to its share and on disk past it: `report/row_spill.rs`) and latency (nothing is
//! written before the run ends, nor on a kill; the binary finishes it on a second Ctrl-C): the
//! binary's `--stream` writes rows as they finish instead.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::io;

use super::Reporter;
use super::row_spill::RowSpill;
use crate::model::held_rows::HeldRows;
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Holds entries back and feeds them to `inner`, in a stable order, at `finish`.
#[derive(Debug)]
pub struct SortedReporter<R> {
    inner: R,
    entries: Vec<Entry>,
    /// Bytes of `entries` (`Entry::held_bytes`).
    held: usize,
    /// Bytes of rows kept in memory before they are sorted and written to disk; `None`: all
    /// stay in memory. Set once, by [`spill_past`](Self::spill_past).
    share: Option<usize>,
    /// The runs written, once the share was first full; `None` again after a write failed
    /// (the rest then stays in memory).
    spill: Option<RowSpill>,
    /// Rows written to disk (kept when a later write fails).
    spilled: usize,
    /// Where `held` is counted for the run's memory budget, if anywhere.
    counted: Option<HeldRows>,
    /// A write to disk failed: no more are tried.
    spill_failed: bool,
}

impl<R: Reporter> SortedReporter<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        SortedReporter {
            inner,
            entries: Vec::new(),
            held: 0,
            share: None,
            spill: None,
            spilled: 0,
            spill_failed: false,
            counted: None,
        }
    }

    /// Keeps at most about `bytes` of rows in memory: past that, the rows held are sorted and
    /// written to a private temporary file, and merged back in the same order at the end, so
    /// the report is the same. The binary gives it a quarter of `--max-memory`.
    pub fn spill_past(mut self, bytes: usize) -> Self {
        self.share = Some(bytes);
        self
    }

    /// Counts the bytes of the rows held in memory in `rows`, which the run's memory budget
    /// reads (`Config::rows_held`), as they come and go. Only with
    /// [`spill_past`](Self::spill_past): without a share nothing is measured.
    pub fn counting(mut self, rows: HeldRows) -> Self {
        self.counted = Some(rows);
        self
    }

    /// The rows held in memory are gone (to disk, or written out).
    fn released(&mut self) {
        if let Some(rows) = &self.counted {
            rows.release(self.held);
        }
        self.held = 0;
    }

    /// Writes the rows held to disk, sorted, as one run; on a failure they stay in memory and
    /// no more are written.
    fn spill_held(&mut self) {
        let mut batch = std::mem::take(&mut self.entries);
        batch.sort_by(order);
        let spill = self.spill.get_or_insert_with(RowSpill::default);
        match spill.write_run(batch) {
            Ok(()) => {
                self.spilled = spill.rows();
                self.released();
            }
            Err(batch) => {
                self.entries = batch;
                self.spill_failed = true;
            }
        }
    }
}

/// Report order (see [`key`]).
pub(super) fn order(a: &Entry, b: &Entry) -> Ordering {
    key(a).cmp(&key(b))
}

/// The order of the rows: page, line, column, URL, then what tells two links on the same
/// place apart.
fn key(e: &Entry) -> (Option<&str>, usize, usize, &str, &str, &str, Option<&str>) {
    let r = e.referrer.as_ref();
    (
        r.map(|r| r.parent.as_str()),
        r.and_then(|r| r.line).unwrap_or(0),
        r.and_then(|r| r.column).unwrap_or(0),
        e.result.url.as_str(),
        r.map_or("", |r| r.raw.as_str()),
        r.map_or("", |r| r.name.as_str()),
        e.fragment.as_deref(),
    )
}

/// Sorts `entries` and sets `cached` on every entry but the first of each URL.
pub(crate) fn sort_entries(entries: &mut [Entry]) {
    entries.sort_by(order);
    let mut seen: HashSet<&str> = HashSet::new();
    let mut first = Vec::with_capacity(entries.len());
    for e in entries.iter() {
        first.push(seen.insert(e.result.url.as_str()));
    }
    for (e, first) in entries.iter_mut().zip(first) {
        e.cached = !first;
    }
}

impl<R: Reporter> Reporter for SortedReporter<R> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        if self.share.is_some() {
            let bytes = entry.held_bytes();
            self.held += bytes;
            if let Some(rows) = &self.counted {
                rows.hold(bytes);
            }
        }
        self.entries.push(entry.clone());
        if self.share.is_some_and(|share| self.held > share) && !self.spill_failed {
            self.spill_held();
        }
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        self.released();
        let mut entries = std::mem::take(&mut self.entries);
        report.settle_levels(&mut entries);
        // Every entry is fed, and the report finished, even when one write fails: the first
        // error is returned.
        let mut first = Ok(());
        let mut feed = |inner: &mut R, e: &Entry| {
            if let Err(err) = inner.entry(e)
                && first.is_ok()
            {
                first = Err(err);
            }
        };
        match self.spill.take() {
            None => {
                sort_entries(&mut entries);
                for e in &entries {
                    feed(&mut self.inner, e);
                }
            }
            Some(spill) => {
                entries.sort_by(order);
                let mut merged = spill.merge(entries, order, |r| report.settled(r));
                let mut seen: HashSet<String> = HashSet::new();
                for mut e in merged.by_ref() {
                    e.cached = !seen.insert(e.result.url.clone());
                    feed(&mut self.inner, &e);
                }
                if let Some(lost) = merged.error() {
                    first = first.and(Err(lost));
                }
            }
        }
        let finished = self.inner.finish(report);
        first.and(finished)
    }

    fn rows_on_disk(&self) -> usize {
        self.spilled
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::outcome::{CheckResult, Outcome, Referrer};

    fn entry(url: &str, page: Option<(&str, usize, usize)>) -> Entry {
        Entry {
            result: Arc::new(CheckResult::immediate(
                url.into(),
                Outcome::Ok { status: Some(200) },
                1,
            )),
            referrer: page.map(|(p, line, column)| Referrer::at(p, url, line, column)),
            fragment: None,
            cached: false,
        }
    }

    /// Records the URLs it is fed, with their `cached` flags.
    #[derive(Default)]
    struct Seen(Vec<(String, bool)>, bool);

    impl Reporter for &mut Seen {
        fn entry(&mut self, e: &Entry) -> io::Result<()> {
            self.0.push((e.result.url.clone(), e.cached));
            Ok(())
        }
        fn finish(&mut self, _: &Report) -> io::Result<()> {
            self.1 = true;
            Ok(())
        }
    }

    #[test]
    fn rows_come_by_page_line_column_then_url_and_cached_follows_that_order() {
        let arrivals = [
            entry("http://t/b", Some(("http://t/p2", 1, 1))),
            entry("http://t/a", Some(("http://t/p1", 3, 1))),
            entry("http://t/b", Some(("http://t/p1", 2, 5))),
            entry("http://t/a", Some(("http://t/p1", 2, 5))),
            entry("http://t/", None),
        ];
        let mut seen = Seen::default();
        {
            let mut sorted = SortedReporter::new(&mut seen);
            for e in arrivals.iter().rev() {
                sorted.entry(e).unwrap();
            }
            sorted.finish(&Report::default()).unwrap();
        }
        let want = [
            ("http://t/", false),
            ("http://t/a", false),
            ("http://t/b", false),
            ("http://t/a", true),
            ("http://t/b", true),
        ];
        let got: Vec<(&str, bool)> = seen.0.iter().map(|(u, c)| (u.as_str(), *c)).collect();
        assert_eq!(got, want);
        assert!(seen.1, "finished");
    }

    /// Rows past the memory share go to disk in sorted runs and come back merged: the same
    /// rows, order and `cached` flags as all in memory, ties included.
    #[test]
    fn rows_on_disk_come_back_in_the_order_held_in_memory() {
        // Pages, places and URLs repeat, so rows tie and URLs recur across runs.
        let arrivals: Vec<Entry> = (0..600)
            .map(|i| {
                let url = format!("http://t/u{}", (i * 7) % 45);
                let page = format!("http://t/p{}", (i * 13) % 11);
                entry(&url, Some((&page, (i * 5) % 9, (i * 3) % 4)))
            })
            .chain([entry("http://t/", None)])
            .collect();
        let run = |share: Option<usize>| {
            let mut seen = Seen::default();
            let on_disk = {
                let mut sorted = SortedReporter::new(&mut seen);
                if let Some(bytes) = share {
                    sorted = sorted.spill_past(bytes);
                }
                for e in &arrivals {
                    sorted.entry(e).unwrap();
                }
                sorted.finish(&Report::default()).unwrap();
                sorted.rows_on_disk()
            };
            (seen.0, on_disk)
        };
        // Counted as held while in memory, released as each run goes to disk and at the end.
        let counted = HeldRows::new();
        let mut most = 0;
        let mut sink = Seen::default();
        {
            let mut sorted = SortedReporter::new(&mut sink)
                .spill_past(5_000)
                .counting(counted.clone());
            for e in &arrivals {
                sorted.entry(e).unwrap();
                most = most.max(counted.bytes());
            }
            assert!(counted.bytes() > 0);
            sorted.finish(&Report::default()).unwrap();
        }
        assert!(
            most > 4_000 && most <= 5_000,
            "at most the share between rows: {most}"
        );
        assert_eq!(counted.bytes(), 0);
        let (held, none) = run(None);
        assert_eq!((held.len(), none), (601, 0));
        for share in [1, 5_000, 50_000] {
            let (spilled, on_disk) = run(Some(share));
            assert!(on_disk > 0, "share {share}");
            assert!(spilled == held, "share {share}");
        }
    }
}
