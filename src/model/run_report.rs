//! [`Report`]: what a finished run hands back — its entries and the numbers of its summary.

use std::time::Duration;

use crate::model::host_stats::HostStats;
use crate::model::outcome::Entry;
use crate::model::stats::Statistics;

/// The outcome of a run: every entry, and the numbers of the summary.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Report {
    /// Every report row, in the order they finished. Empty when the run was configured not
    /// to keep them ([`Config::keep_entries`](crate::Config::keep_entries)); the numbers below
    /// are complete either way.
    pub entries: Vec<Entry>,
    /// Counts and statistics over every entry (kept or not).
    pub stats: Statistics,
    /// Distinct URLs seen (checked, ignored, or still queued when a run was cancelled).
    pub urls: usize,
    /// URLs that were queued or in flight when a cancelled run stopped: not checked.
    pub unchecked: usize,
    /// Links to new URLs found after [`Config::max_urls`](crate::Config::max_urls) distinct
    /// URLs were seen: not checked and not stored (so memory stays bounded by the limit), only
    /// counted here, once per link found (the same URL linked twice counts twice).
    pub over_limit: usize,
    /// `true` when the run was cancelled before it finished.
    pub interrupted: bool,
    /// Wall time of the run.
    pub duration: Duration,
    /// When the run started (by the system clock); `None` for a report not made by a run
    /// (merged from shards' reports).
    pub started_at: Option<std::time::SystemTime>,
    /// Per-host request counts and politeness waits.
    pub hosts: Vec<HostStats>,
    /// `true` when TLS certificates were not verified (`Config::insecure`).
    pub insecure: bool,
    /// Broken entries that fail the run: every broken entry, or with
    /// [`Config::fail_after_runs`](crate::Config::fail_after_runs) only those whose URL has
    /// been broken in that many consecutive runs; with
    /// [`Config::fail_on_blocked`](crate::Config::fail_on_blocked), blocked entries too.
    pub failing: usize,
    /// Start inputs read for links that held none (an empty file, a page without a link), in
    /// the order they were checked: nothing was checked beyond them.
    pub starts_without_links: Vec<String>,
    /// Why the state file ([`Config::state_file`](crate::Config::state_file)) was not used or
    /// was set aside, one line each; the run went on without it.
    pub state_warnings: Vec<String>,
}

impl Report {
    /// Kept entries whose URL is broken.
    pub fn broken(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.result.outcome.is_broken())
    }

    /// Number of entries (link occurrences plus start URLs).
    pub fn links(&self) -> usize {
        self.stats.links
    }

    /// Number of broken entries (one per page and link).
    pub fn errors(&self) -> usize {
        self.stats.errors
    }

    /// Number of warnings over all entries.
    pub fn warnings(&self) -> usize {
        self.stats.warnings
    }
}
