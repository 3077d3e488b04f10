//! Run statistics: counts, content types, bytes downloaded, URL lengths, and per-host numbers
//! (broken URLs joined to the gate's request counts). A [`Tally`] gathers them while entries
//! stream by, so a run that does not keep its entries still has its summary; every format
//! that prints a summary reads them from the run's `Report`. [`SkipCounter`] counts the URLs
//! that were not checked, by reason, as the engine decides them.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::model::host_stats::HostStats;
use crate::model::outcome::{CheckResult, Entry, FailKind, Outcome};
use crate::model::url_fingerprint::UrlFingerprints;

/// Summary numbers of a run.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Statistics {
    /// Entries (one per link occurrence, plus the start URLs).
    pub links: usize,
    /// Broken entries (one per page and link).
    pub errors: usize,
    /// Warnings over all entries.
    pub warnings: usize,
    /// Distinct URLs per content-type class (`text`, `image`, `application`, …, `mail`,
    /// `other` for unknown), counted once per URL.
    pub content_types: BTreeMap<String, usize>,
    /// Bytes of bodies read or announced, over distinct URLs.
    pub bytes: u64,
    /// Shortest, longest and mean URL length in characters (distinct URLs).
    pub url_lengths: Option<(usize, usize, f64)>,
    /// Per host: the gate's numbers and the broken URLs on that host.
    pub hosts: Vec<(HostStats, usize)>,
    /// Distinct broken URLs; a link whose `#fragment` is missing counts as the URL with that
    /// fragment (`guide.html#setup`).
    pub broken_urls: usize,
    /// Distinct URLs that were not checked, by reason.
    pub skipped: Skipped,
    /// Entries whose URL bot protection answered for (`Outcome::Blocked`): not verified.
    pub blocked: usize,
    /// The host names of those URLs, sorted.
    pub blocked_hosts: Vec<String>,
    /// Distinct URLs whose result was reused from the state file, not requested
    /// ([`CheckResult::cached_from`]).
    pub reused: usize,
    /// Rows of links found only once their page was rendered (`--render-js`,
    /// [`Referrer::rendered`](crate::Referrer::rendered)).
    pub rendered: usize,
    /// Distinct pages answered 304 (not modified since the run that stored them), whose
    /// links came from the state file ([`CheckResult::not_modified`]).
    pub not_modified: usize,
    /// Start URLs whose site could not be reached at all (no name, no connection, no TLS, no
    /// answer), each with the failure (`connect: Connection refused`), in the order their
    /// entries came.
    pub unreached_starts: Vec<(String, String)>,
}

/// Distinct URLs that were found but not checked, by reason. Each URL is counted once, when
/// the engine decides about it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// Disallowed by robots.txt.
    pub robots: usize,
    /// Outside the crawl's scope while only internal links are checked.
    pub outside_scope: usize,
    /// Matched an `--exclude` pattern.
    pub excluded: usize,
    /// Matched no `--include` pattern.
    pub not_included: usize,
    /// Over the `--max-urls` limit.
    pub url_limit: usize,
    /// A scheme that is listed, not checked (`javascript:`, `tel:`, `ftp:`, a `file:` link on a
    /// web page, an unknown scheme).
    pub scheme: usize,
    /// Links after a `<!-- linkpatrol-ignore -->` comment or in a `linkpatrol-ignore-start` …
    /// `-end` region: counted once per link (the same URL elsewhere is checked there).
    pub comment: usize,
    /// Matched a pattern of the checked folder's `.linkpatrolignore` file.
    pub ignore_file: usize,
    /// Start inputs (the pages of a checked folder, a file or URL named) that matched an
    /// `--exclude` pattern: left out before they were read, so their links were never seen.
    /// Not counted in `excluded`.
    pub excluded_starts: usize,
    /// Links that climb out of a site's folder (an mdBook's sources, `--base-url`'s folder)
    /// to another part of the deployed site, whose public URL is not known: nothing local
    /// stands for them, so they are not checked offline ([`Config::site_root`](crate::Config::site_root)).
    pub offline: usize,
}

impl Skipped {
    /// All URLs not checked.
    pub fn total(&self) -> usize {
        self.robots
            + self.outside_scope
            + self.excluded
            + self.not_included
            + self.url_limit
            + self.scheme
            + self.comment
            + self.ignore_file
            + self.excluded_starts
            + self.offline
    }

    /// The reasons with their counts, in the order a summary names them, zeros left out
    /// (`("disallowed by robots.txt", 2)`).
    pub fn reasons(&self) -> Vec<(&'static str, usize)> {
        [
            ("disallowed by robots.txt", self.robots),
            ("outside the scope", self.outside_scope),
            ("start pages left out by --exclude", self.excluded_starts),
            ("by --exclude", self.excluded),
            ("by --include", self.not_included),
            ("over --max-urls", self.url_limit),
            ("with a scheme not checked", self.scheme),
            ("by a linkpatrol-ignore comment", self.comment),
            ("by .linkpatrolignore", self.ignore_file),
            (
                "leaving the site's folder, not checked offline",
                self.offline,
            ),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    }

    /// The reasons as a summary writes them: `2 disallowed by robots.txt, 1 by --exclude`.
    pub fn reasons_text(&self) -> String {
        let reasons: Vec<String> = self
            .reasons()
            .iter()
            .map(|(why, n)| format!("{n} {why}"))
            .collect();
        reasons.join(", ")
    }
}

/// Why a URL was not checked (one counter of [`Skipped`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkipReason {
    Robots,
    OutsideScope,
    Excluded,
    NotIncluded,
    UrlLimit,
    Scheme,
    Comment,
    IgnoreFile,
    ExcludedStart,
    Offline,
}

/// [`Skipped`] counted by many workers at once: one relaxed atomic add per URL not checked.
/// Read when the run's report is made; a statistic, so relaxed ordering is enough.
#[derive(Debug, Default)]
pub(crate) struct SkipCounter([AtomicUsize; 10]);

impl SkipCounter {
    /// Counts one URL not checked.
    pub(crate) fn add(&self, reason: SkipReason) {
        self.0[reason as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// The counts so far.
    pub(crate) fn get(&self) -> Skipped {
        let n = |r: SkipReason| self.0[r as usize].load(Ordering::Relaxed);
        Skipped {
            robots: n(SkipReason::Robots),
            outside_scope: n(SkipReason::OutsideScope),
            excluded: n(SkipReason::Excluded),
            not_included: n(SkipReason::NotIncluded),
            url_limit: n(SkipReason::UrlLimit),
            scheme: n(SkipReason::Scheme),
            comment: n(SkipReason::Comment),
            ignore_file: n(SkipReason::IgnoreFile),
            excluded_starts: n(SkipReason::ExcludedStart),
            offline: n(SkipReason::Offline),
        }
    }
}

/// `true` for the result of a link broken for its `#fragment` alone: its URL is fine.
fn is_fragment_failure(r: &CheckResult) -> bool {
    matches!(
        r.outcome,
        Outcome::Failed {
            kind: FailKind::Fragment,
            ..
        }
    )
}

/// Accumulates [`Statistics`] one entry at a time.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    stats: Statistics,
    /// URLs counted already (statistics per URL count each once), by [`UrlFingerprints`] (a shared
    /// fingerprint would cost one URL missing from the per-URL statistics, never a row): 16 bytes
    /// a URL instead of a copy of it (a folder check of the Rust docs counts 80k URLs, 146
    /// characters long on average).
    seen: HashSet<u128, foldhash::fast::RandomState>,
    /// The fingerprints of `seen`.
    prints: UrlFingerprints,
    /// Sum, minimum and maximum of the URL lengths.
    length_sum: usize,
    length_min: usize,
    length_max: usize,
    /// Broken URLs per `host:port`.
    broken_by_host: BTreeMap<String, usize>,
    /// Links counted broken for their fragment alone, as `url#fragment`.
    broken_fragments: HashSet<String>,
    blocked_hosts: std::collections::BTreeSet<String>,
}

impl Tally {
    /// Counts one entry.
    pub(crate) fn add(&mut self, e: &Entry) {
        let s = &mut self.stats;
        let r = &e.result;
        s.links += 1;
        s.warnings += e.warnings().count();
        if e.referrer.as_ref().is_some_and(|x| x.rendered) {
            s.rendered += 1;
        }
        if r.outcome.is_broken() {
            s.errors += 1;
        }
        if r.outcome.is_blocked() {
            s.blocked += 1;
            if let Ok(u) = url::Url::parse(&r.url)
                && let Some(h) = u.host_str()
            {
                self.blocked_hosts.insert(h.to_owned());
            }
        }
        if e.referrer.is_none()
            && let Outcome::Failed { kind, message } = &r.outcome
            && matches!(
                kind,
                FailKind::Dns
                    | FailKind::Connect
                    | FailKind::Timeout
                    | FailKind::Tls
                    | FailKind::Io
                    | FailKind::Protocol
            )
            && !s.unreached_starts.iter().any(|(u, _)| *u == r.url)
        {
            let why = format!("{}: {message}", kind.as_str());
            s.unreached_starts.push((r.url.clone(), why));
        }
        if is_fragment_failure(r) {
            let link = format!("{}#{}", r.url, e.fragment.as_deref().unwrap_or(""));
            if self.broken_fragments.insert(link) {
                s.broken_urls += 1;
            }
        }
        self.add_url(r);
    }

    /// Counts `n` entries that were not built (`Config::only_problems`): never broken and
    /// without warnings, so they add to the links only.
    pub(crate) fn add_unreported(&mut self, n: usize) {
        self.stats.links += n;
    }

    /// Counts the per-URL statistics of `r`, once per URL.
    pub(crate) fn add_url(&mut self, r: &CheckResult) {
        let s = &mut self.stats;
        if !self.seen.insert(self.prints.of(&r.url)) {
            return;
        }
        let len = r.url.chars().count();
        self.length_sum += len;
        self.length_min = if self.seen.len() == 1 {
            len
        } else {
            self.length_min.min(len)
        };
        self.length_max = self.length_max.max(len);
        s.bytes += r.size.unwrap_or(0);
        if r.cached_from.is_some() {
            s.reused += 1;
        }
        if r.not_modified() {
            s.not_modified += 1;
        }
        let class = if r.url.starts_with("mailto:") {
            "mail"
        } else {
            r.content_type
                .as_deref()
                .and_then(|ct| ct.split('/').next())
                .filter(|c| !c.is_empty())
                .unwrap_or("other")
        };
        *s.content_types.entry(class.to_owned()).or_default() += 1;
        if r.outcome.is_broken() && !is_fragment_failure(r) {
            s.broken_urls += 1;
            if let Ok(u) = url::Url::parse(&r.url)
                && let Some(h) = u.host_str()
            {
                let key = format!("{h}:{}", u.port_or_known_default().unwrap_or(0));
                *self.broken_by_host.entry(key).or_default() += 1;
            }
        }
    }

    /// The distinct URLs counted so far: "URLs checked" (see [`Report::urls`]).
    ///
    /// [`Report::urls`]: crate::Report::urls
    pub(crate) fn urls(&self) -> usize {
        self.seen.len()
    }

    /// The statistics, joined with the gate's per-host numbers.
    pub(crate) fn finish(self, hosts: &[HostStats]) -> Statistics {
        self.statistics(hosts)
    }

    /// The statistics of what was counted so far, with `hosts`' figures; counting goes on.
    pub(crate) fn statistics(&self, hosts: &[HostStats]) -> Statistics {
        let mut stats = self.stats.clone();
        let n = self.seen.len();
        if n > 0 {
            stats.url_lengths = Some((
                self.length_min,
                self.length_max,
                self.length_sum as f64 / n as f64,
            ));
        }
        stats.blocked_hosts = self.blocked_hosts.iter().cloned().collect();
        stats.hosts = hosts
            .iter()
            .map(|h| {
                (
                    h.clone(),
                    self.broken_by_host.get(&h.host).copied().unwrap_or(0),
                )
            })
            .collect();
        stats
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn entry(url: &str, outcome: Outcome, fragment: Option<&str>) -> Entry {
        Entry {
            result: Arc::new(CheckResult::immediate(url.into(), outcome, 1)),
            referrer: None,
            fragment: fragment.map(str::to_owned),
            cached: false,
        }
    }

    #[test]
    fn skips_are_counted_by_reason_and_named_in_order() {
        let counter = SkipCounter::default();
        for reason in [
            SkipReason::Excluded,
            SkipReason::Robots,
            SkipReason::Robots,
            SkipReason::Scheme,
        ] {
            counter.add(reason);
        }
        let skipped = counter.get();
        assert_eq!(skipped.total(), 4);
        assert_eq!(
            skipped.reasons(),
            [
                ("disallowed by robots.txt", 2),
                ("by --exclude", 1),
                ("with a scheme not checked", 1)
            ]
        );
        assert!(Skipped::default().reasons().is_empty());
    }

    #[test]
    fn a_missing_fragment_is_a_broken_link_not_a_broken_url() {
        let fragment = |message: &str| Outcome::Failed {
            kind: FailKind::Fragment,
            message: message.into(),
        };
        let mut tally = Tally::default();
        tally.add(&entry("file:///d/a.html", fragment("x"), Some("x")));
        tally.add(&entry("file:///d/a.html", fragment("x"), Some("x")));
        tally.add(&entry("file:///d/a.html", fragment("y"), Some("y")));
        tally.add(&entry(
            "file:///d/a.html",
            Outcome::Ok { status: None },
            None,
        ));
        let stats = tally.finish(&[]);
        assert_eq!(stats.errors, 3);
        assert_eq!(stats.broken_urls, 2, "a.html#x and a.html#y");
        assert_eq!(stats.links, 4);
        assert_eq!(stats.content_types.values().sum::<usize>(), 1);
    }

    #[test]
    fn each_url_is_counted_once_however_many_entries_name_it() {
        let mut tally = Tally::default();
        let urls = [
            "file:///d/a.html",
            "file:///d/b.html",
            "file:///d/a.htm",
            "file:///d/",
        ];
        for url in urls.iter().chain(&urls).chain(&urls[..1]) {
            tally.add(&entry(url, Outcome::Ok { status: None }, None));
        }
        let stats = tally.finish(&[]);
        assert_eq!(stats.links, 9);
        assert_eq!(
            stats.content_types.values().sum::<usize>(),
            4,
            "one per URL"
        );
        let prints = UrlFingerprints::default();
        assert_ne!(prints.of(urls[0]), prints.of(urls[2]));
        let again: String = urls[0].chars().collect();
        assert_eq!(
            prints.of(urls[0]),
            prints.of(&again),
            "the text, not its address"
        );
    }
}
