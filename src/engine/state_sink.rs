//! The consumer thread's end of the state file: opens it before the run, hands each finished
//! result to the one writer, writes the run's totals at the end, and tells which broken
//! entries fail the run (`Config::fail_after_runs`). Without the `state` feature a configured
//! file only yields a warning.

use std::sync::Arc;
use std::time::SystemTime;

use url::Url;

use crate::config::Config;
use crate::model::cancel::CancelHandle;
use crate::model::outcome::{CheckResult, Entry};
use crate::model::run_report::Report;
use crate::policy::parse_near::parse_near;
use crate::policy::url_norm::cache_key;
use crate::state::{Remembered, StoredPage};

/// What [`StateSink::open`] gives: what the workers may reuse, the sink, the warnings.
pub(super) type Opened = (Option<Remembered>, StateSink, Vec<String>);

/// The state file as the consumer thread sees it. Not shared: only that thread has it.
#[derive(Debug)]
pub(super) struct StateSink {
    #[cfg(feature = "state")]
    writer: Option<crate::state::Writer>,
    /// A state file is in use (so entries carry their broken streak).
    active: bool,
    /// Consecutive broken runs before a broken entry fails the run.
    fail_after_runs: u32,
    /// The URL of the last result kept: the next one, most often of the same site, is parsed
    /// near it (`policy::parse_near`), its host not parsed again.
    last: Option<Url>,
}

impl StateSink {
    /// Opens `cfg`'s state file, if any: what the workers may reuse, the sink, and the
    /// warnings to report. `Err`: why the run must not start (`--resume` with options that
    /// change what the interrupted run checked).
    pub(super) fn open(cfg: &Config, cancel: &CancelHandle) -> Result<Opened, String> {
        let fail_after_runs = cfg.state.fail_after_runs;
        #[cfg(feature = "state")]
        {
            let (opened, warnings) = crate::state::open(cfg, SystemTime::now(), cancel)?;
            let (remembered, writer) = opened.map_or((None, None), |(r, w)| (Some(r), Some(w)));
            let sink = StateSink {
                active: writer.is_some(),
                writer,
                fail_after_runs,
                last: None,
            };
            Ok((remembered, sink, warnings))
        }
        #[cfg(not(feature = "state"))]
        {
            let _ = (SystemTime::now, cancel);
            let warnings = cfg
                .state
                .file
                .as_ref()
                .map(|p| {
                    format!(
                        "state file {}: this build has no `state` feature; running without it",
                        p.display()
                    )
                })
                .into_iter()
                .collect();
            let sink = StateSink {
                active: false,
                fail_after_runs,
                last: None,
            };
            Ok((None, sink, warnings))
        }
    }

    /// Takes one report row: its result is kept when this is its first row.
    pub(super) fn entry(&mut self, e: &Entry) {
        if !e.cached {
            self.result(&e.result);
        }
    }

    /// Takes a finished result (its first row, or its count when no row was built).
    pub(super) fn result(&mut self, r: &Arc<CheckResult>) {
        #[cfg(feature = "state")]
        if let Some(w) = &mut self.writer
            && let Ok(url) = match &self.last {
                Some(near) => parse_near(near, &r.url),
                None => Url::parse(&r.url),
            }
            && matches!(url.scheme(), "http" | "https")
        {
            w.add(cache_key(&url), r.clone());
            self.last = Some(url);
        }
        #[cfg(not(feature = "state"))]
        let _ = (r, Url::parse, cache_key, parse_near, &self.last);
    }

    /// Takes a parsed page's links.
    pub(super) fn page(&mut self, key: String, page: StoredPage) {
        #[cfg(feature = "state")]
        if let Some(w) = &mut self.writer {
            w.add_page(key, page);
        }
        #[cfg(not(feature = "state"))]
        let _ = (key, page);
    }

    /// Takes a fetched robots.txt.
    pub(super) fn robots(&mut self, origin: String, body: Option<Vec<u8>>) {
        #[cfg(feature = "state")]
        if let Some(w) = &mut self.writer {
            w.add_robots(origin, body);
        }
        #[cfg(not(feature = "state"))]
        let _ = (origin, body);
    }

    /// Hands every result taken so far to the state file's writer thread (called each time
    /// the result channel is found empty: a group commit), which commits it with its next
    /// transaction; this thread does not wait for that (see `state::Writer`).
    pub(super) fn commit(&mut self) {
        #[cfg(feature = "state")]
        if let Some(w) = &mut self.writer {
            w.flush();
        }
    }

    /// Hands a due batch to the writer thread (called while the stream is quiet).
    pub(super) fn tick(&mut self) {
        #[cfg(feature = "state")]
        if let Some(w) = &mut self.writer {
            w.tick();
        }
    }

    /// `true` when a broken entry fails the run: always without a state file, else once its
    /// URL has been broken in `fail_after_runs` consecutive runs.
    pub(super) fn fails(&self, e: &Entry) -> bool {
        e.result.outcome.is_broken()
            && (!self.active || e.result.broken_runs >= self.fail_after_runs)
    }

    /// For a broken entry that does not fail the run only because its URL has not been broken
    /// in `fail_after_runs` consecutive runs yet: (`fail_after_runs`, its streak).
    pub(super) fn tolerates(&self, e: &Entry) -> Option<(u32, u32)> {
        (e.result.outcome.is_broken() && self.active && !self.fails(e))
            .then_some((self.fail_after_runs, e.result.broken_runs))
    }

    /// Writes the rest and the run's totals; a write failure becomes a report warning.
    pub(super) fn finish(self, report: &mut Report) {
        #[cfg(feature = "state")]
        if let Some(w) = self.writer {
            let totals = crate::state::Totals {
                urls: report.urls,
                links: report.stats.links,
                errors: report.stats.errors,
                broken_urls: report.stats.broken_urls,
                interrupted: report.interrupted,
            };
            report.state_warnings.extend(w.finish(totals));
        }
        #[cfg(not(feature = "state"))]
        let _ = report;
    }
}
