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
//! The price is memory (every entry the inner reporter may show is held until the end) and
//! latency (nothing is written before the run ends, nor on a kill; the binary finishes it on a
//! second Ctrl-C): the binary's `--stream` writes rows as they finish instead.

use std::collections::HashSet;
use std::io;

use super::Reporter;
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Holds entries back and feeds them to `inner`, in a stable order, at `finish`.
#[derive(Debug)]
pub struct SortedReporter<R> {
    inner: R,
    entries: Vec<Entry>,
}

impl<R: Reporter> SortedReporter<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        SortedReporter {
            inner,
            entries: Vec::new(),
        }
    }
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
    entries.sort_by(|a, b| key(a).cmp(&key(b)));
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
        self.entries.push(entry.clone());
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        let mut entries = std::mem::take(&mut self.entries);
        report.settle_levels(&mut entries);
        sort_entries(&mut entries);
        // Every entry is fed, and the report finished, even when one write fails: the first
        // error is returned.
        let mut first = Ok(());
        for e in &entries {
            if let Err(err) = self.inner.entry(e)
                && first.is_ok()
            {
                first = Err(err);
            }
        }
        let finished = self.inner.finish(report);
        first.and(finished)
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
            referrer: page.map(|(p, line, column)| Referrer {
                parent: p.into(),
                raw: url.into(),
                line: Some(line),
                column: Some(column),
                name: String::new(),
                base: None,
                warnings: Vec::new(),
                remapped_from: None,
                rendered: false,
            }),
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
}
