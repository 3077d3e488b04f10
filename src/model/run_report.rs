//! [`Report`]: what a finished run hands back — its entries and the numbers of its summary.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::model::host_stats::HostStats;
use crate::model::outcome::{CheckResult, Entry};
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
    /// "URLs checked": the distinct URLs the report has a row for (a verdict: checked,
    /// answered from the state file or a phase-1 report, or ignored), the URL as linked,
    /// without its `#fragment`. A redirect hop no link names is part of its row's chain, not
    /// a URL of its own; a URL left unchecked by a cancel is counted in [`unchecked`], not
    /// here. One definition for a run, a resumed run and merged shards, so the three agree
    /// on the same rows; a merge counts it again over the rows it reads.
    ///
    /// [`unchecked`]: Report::unchecked
    pub urls: usize,
    /// URLs that were queued or in flight when a cancelled run stopped: not checked.
    pub unchecked: usize,
    /// Links to new URLs found after [`Config::max_urls`](crate::Config::max_urls) distinct
    /// URLs were seen: not checked and not stored (so memory stays bounded by the limit), only
    /// counted here, once per link found (the same URL linked twice counts twice).
    pub over_limit: usize,
    /// The limit of distinct URLs the run kept to ([`Config::max_urls`](crate::Config::max_urls),
    /// a default one included), for the summary to name when [`over_limit`](Report::over_limit)
    /// is not 0; `None` without a limit, and in a report merged from shards' reports.
    pub url_limit: Option<usize>,
    /// The memory budget ([`Config::max_memory`](crate::Config::max_memory)) when it, and not
    /// the URL limit, stopped the run from discovering URLs: the links counted in
    /// [`over_limit`](Report::over_limit) are those it refused. `None` when it never did.
    pub memory_limit: Option<usize>,
    /// Queued URLs that waited on disk because the queue's memory share was full
    /// ([`Config::queue_memory`](crate::Config::queue_memory)). Every one was still checked;
    /// the report is the same as without the wait.
    pub spilled: usize,
    /// `true` when the run was cancelled before it finished (by a cancel, or by its time
    /// limit).
    pub interrupted: bool,
    /// The time limit the run stopped at ([`Config::max_run_time`](crate::Config::max_run_time)),
    /// when it reached it: the run was cut short, [`interrupted`](Report::interrupted) is
    /// `true` and [`unchecked`](Report::unchecked) counts the URLs it did not check. `None`
    /// when the run ended on its own or was cancelled first.
    pub time_limit_reached: Option<Duration>,
    /// Wall time of the run.
    pub duration: Duration,
    /// When the run started (by the system clock); `None` for a report not made by a run
    /// (merged from shards' reports).
    pub started_at: Option<std::time::SystemTime>,
    /// Per-host request counts and politeness waits.
    pub hosts: Vec<HostStats>,
    /// `true` when TLS certificates were not verified (`Config::insecure`).
    pub insecure: bool,
    /// How the form login's session was lost during the run (`Config::login`): the URL whose
    /// redirect chain went back to the login page. Every page checked after it carries the
    /// `session-lost` warning and fails the run. `None` when it held, or without a login.
    pub session_lost: Option<String>,
    /// Broken entries that fail the run: every broken entry, or with
    /// [`Config::fail_after_runs`](crate::Config::fail_after_runs) only those whose URL has
    /// been broken in that many consecutive runs; with
    /// [`Config::fail_on_blocked`](crate::Config::fail_on_blocked), blocked entries too.
    pub failing: usize,
    /// Broken entries that did not fail the run because their URL has not been broken in
    /// [`Config::fail_after_runs`](crate::Config::fail_after_runs) consecutive runs yet;
    /// `None` when there are none (every broken entry fails the run, or none is broken).
    pub tolerated: Option<Tolerated>,
    /// The shard this run was ([`Config::shard`](crate::Config::shard)), with its phase:
    /// `None` for a run that was not split by host.
    pub shard: Option<ShardRun>,
    /// Warnings about the report as a whole, one line each: a merge of shards' reports that
    /// lacks the phase-2 report of a shard that links were exported to (the report is
    /// partial).
    pub warnings: Vec<String>,
    /// Start inputs read for links that held none (an empty file, a page without a link), in
    /// the order they were checked: nothing was checked beyond them.
    pub starts_without_links: Vec<String>,
    /// Why the state file ([`Config::state_file`](crate::Config::state_file)) was not used or
    /// was set aside, one line each; the run went on without it.
    pub state_warnings: Vec<String>,
    /// The settled level of each URL whose entries were sent with another one: its shortest
    /// link distance from a start URL (start URLs are 0). An entry is sent as soon as its
    /// URL is checked, with the level of the link that reached the URL first, which depends
    /// on the threads' timing; the levels here do not. [`Report::entries`] carry them
    /// already; a caller that keeps the streamed entries applies them with
    /// [`Report::settle_levels`].
    pub levels: HashMap<String, usize>,
    /// The source folders of the mdBooks checked as the sites they build
    /// ([`Config::mdbook`](crate::Config::mdbook)), as given, each with the number of pages
    /// given (the chapters its `SUMMARY.md` lists and the Markdown they include; `None`: no
    /// summary was read).
    pub mdbooks: Vec<(String, Option<usize>)>,
}

/// Broken entries a state file's `fail_after_runs` let pass this run (so the exit status can
/// be explained).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tolerated {
    /// Broken entries that did not fail the run.
    pub errors: usize,
    /// The consecutive broken runs a URL needs to fail the run.
    pub fail_after_runs: u32,
    /// The longest streak of consecutive broken runs among them, this run included.
    pub longest: u32,
}

impl Tolerated {
    /// Counts one tolerated entry whose URL has been broken in `runs` consecutive runs.
    pub fn add(tolerated: &mut Option<Tolerated>, fail_after_runs: u32, runs: u32) {
        let t = tolerated.get_or_insert(Tolerated {
            errors: 0,
            fail_after_runs,
            longest: 0,
        });
        t.errors += 1;
        t.longest = t.longest.max(runs);
    }
}

/// One shard's run of a check split by host: which shard, which phase, and the links it
/// exported to each shard (phase 1).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShardRun {
    /// The shard's index, from 0.
    pub index: usize,
    /// The number of shards.
    pub count: usize,
    /// 1: crawled its start sites and exported links; 2: checked the exported links it owns
    /// ([`Config::found_link`](crate::Config::found_link), or reused phase-1 results).
    pub phase: u8,
    /// Links exported to each shard (index = shard), one per link occurrence; all zero in
    /// phase 2.
    pub exported: Vec<usize>,
}

impl ShardRun {
    /// Phase `phase` of shard `index` of `count`, nothing exported yet.
    pub fn new(index: usize, count: usize, phase: u8) -> ShardRun {
        ShardRun {
            index,
            count,
            phase,
            exported: vec![0; count],
        }
    }
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

    /// Gives each of `entries` its URL's settled level ([`Report::levels`]). Entries that
    /// share a result keep sharing one copy.
    pub fn settle_levels(&self, entries: &mut [Entry]) {
        settle_levels(&self.levels, entries);
    }

    /// `result` at its URL's settled level, when that differs from the level it was made
    /// with (see [`settle_levels`](Self::settle_levels)).
    pub(crate) fn settled(&self, result: &Arc<CheckResult>) -> Option<Arc<CheckResult>> {
        let &level = self.levels.get(&result.url)?;
        (result.level != level).then(|| {
            let mut r = (**result).clone();
            r.level = level;
            Arc::new(r)
        })
    }
}

/// See [`Report::settle_levels`].
pub(crate) fn settle_levels(levels: &HashMap<String, usize>, entries: &mut [Entry]) {
    if levels.is_empty() {
        return;
    }
    // One new result per old one, so entries of one URL keep sharing it.
    let mut settled: HashMap<*const crate::model::outcome::CheckResult, Arc<_>> = HashMap::new();
    for e in entries {
        let Some(&level) = levels.get(&e.result.url) else {
            continue;
        };
        if e.result.level == level {
            continue;
        }
        let new = settled.entry(Arc::as_ptr(&e.result)).or_insert_with(|| {
            let mut r = (*e.result).clone();
            r.level = level;
            Arc::new(r)
        });
        e.result = new.clone();
    }
}
