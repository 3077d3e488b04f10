//! What a run knows from earlier runs, loaded once before the workers start and only read
//! afterwards: the fresh results it may reuse and the URLs that were broken when last checked.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use foldhash::fast::RandomState;

use crate::model::date::format_date;
use crate::model::outcome::CheckResult;

/// How the info that a reuse adds about a result's origin starts (`cached from <date>`).
const CACHED_FROM: &str = "cached from ";

/// How the info about a broken URL's history starts (`broken since <date> (N runs)`).
const BROKEN_SINCE: &str = "broken since ";

/// The info of a result reused from the state file: when it was checked.
pub(crate) fn cached_from_info(when: SystemTime) -> String {
    format!("{CACHED_FROM}{}", format_date(when))
}

/// `true` for an info made from the state file's history (`cached from`, `broken since`):
/// not stored with a result, as a reuse makes it again.
#[cfg(feature = "state")]
pub(crate) fn is_history_info(info: &str) -> bool {
    info.starts_with(CACHED_FROM) || info.starts_with(BROKEN_SINCE)
}

/// A URL broken when it was last checked: since when, and in how many consecutive runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Streak {
    /// When it was first found broken in this streak.
    pub(crate) since: SystemTime,
    /// Consecutive runs that found it broken.
    pub(crate) runs: u32,
}

/// A page parsed by an earlier run: what its server called that version, and its links.
#[derive(Debug, Clone)]
pub(crate) struct StoredPage {
    /// `ETag` of the version parsed.
    pub(crate) etag: Option<String>,
    /// `Last-Modified` of the version parsed.
    pub(crate) last_modified: Option<String>,
    /// Its media type.
    pub(crate) content_type: Option<String>,
    /// Its links, packed (`page_blob`).
    pub(crate) links: Vec<u8>,
    /// Parsed by the interrupted run that this run resumes (`Config::resume`): replayed
    /// without a request when its result was kept too. Never written.
    pub(crate) resumed: bool,
}

/// The state file's contents a run reads. Built by `state::open`, then shared read-only by
/// the workers (no lock: nothing changes it after the run starts).
#[derive(Debug, Default)]
pub(crate) struct Remembered {
    /// Cache key → a result checked within the max age that may be reused (working, or broken
    /// under `cache_failures`), its `cached_from` set.
    pub(crate) fresh: HashMap<String, Arc<CheckResult>, RandomState>,
    /// Cache key → its streak, for URLs broken when last checked.
    pub(crate) broken: HashMap<String, Streak, RandomState>,
    /// Cache key → the page as last parsed, for conditional requests.
    pub(crate) pages: HashMap<String, StoredPage, RandomState>,
    /// Under `Config::resume`, the `runs.id` of the interrupted run this run continues (and
    /// writes as).
    pub(crate) resuming: Option<i64>,
    /// Keys whose result in `fresh` comes from that run: reused whatever its age or outcome,
    /// and its broken streak already counts this run.
    pub(crate) resumed: HashSet<String, RandomState>,
    /// Under `Config::resume`, origin (`http://host:port`) → the robots.txt the interrupted run
    /// obeyed there (`None`: none), at most `ROBOTS_TXT_LIMIT` bytes: used instead of fetching
    /// it again, so the resumed run decides as that run did.
    pub(crate) robots: HashMap<String, Option<Vec<u8>>, RandomState>,
    /// A line for `Report::state_warnings` (`--resume` found nothing to resume).
    #[cfg(feature = "state")]
    pub(crate) notice: Option<String>,
}

impl Remembered {
    /// The reusable result stored for `key`, if any.
    pub(crate) fn cached(&self, key: &str) -> Option<&Arc<CheckResult>> {
        self.fresh.get(key)
    }

    /// The page stored for `key`, if any.
    pub(crate) fn page(&self, key: &str) -> Option<&StoredPage> {
        self.pages.get(key)
    }

    /// The robots.txt the interrupted run obeyed at `origin`, when this run resumes it and
    /// that run fetched it: `Some(None)` when there was none to obey.
    pub(crate) fn robots_txt(&self, origin: &str) -> Option<Option<&[u8]>> {
        self.robots.get(origin).map(Option::as_deref)
    }

    /// Adds this run to the history of a result about to be stored: a broken result
    /// continues the URL's streak (or starts one `now`) and says so in its infos; a working
    /// one has none.
    pub(crate) fn annotate(&self, key: &str, now: SystemTime, result: &mut CheckResult) {
        if !result.outcome.is_broken() {
            result.broken_since = None;
            result.broken_runs = 0;
            return;
        }
        // Whole seconds, as the file keeps them.
        let now = now.duration_since(UNIX_EPOCH).map_or(UNIX_EPOCH, |d| {
            UNIX_EPOCH + Duration::from_secs(d.as_secs())
        });
        // A result of the resumed run: its streak already counts this (the same) run.
        let this_run = u32::from(!self.resumed.contains(key));
        let streak = self.broken.get(key).map_or(
            Streak {
                since: now,
                runs: 1,
            },
            |s| Streak {
                since: s.since,
                runs: s.runs.saturating_add(this_run).max(1),
            },
        );
        result.broken_since = Some(streak.since);
        result.broken_runs = streak.runs;
        let plural = if streak.runs == 1 { "" } else { "s" };
        result.infos.push(format!(
            "{BROKEN_SINCE}{} ({} run{plural})",
            format_date(streak.since),
            streak.runs
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::outcome::Outcome;

    fn broken() -> CheckResult {
        CheckResult::immediate("http://a.test/x".into(), Outcome::Broken { status: 404 }, 1)
    }

    #[test]
    fn a_broken_url_continues_its_streak_or_starts_one() {
        let mut known = Remembered::default();
        let since = UNIX_EPOCH + Duration::from_secs(86_400);
        known.broken.insert("k".into(), Streak { since, runs: 2 });
        let now = UNIX_EPOCH + Duration::from_secs(10 * 86_400);
        let mut r = broken();
        known.annotate("k", now, &mut r);
        assert_eq!((r.broken_since, r.broken_runs), (Some(since), 3));
        assert_eq!(r.infos, ["broken since 1970-01-02 00:00 UTC (3 runs)"]);
        let mut first = broken();
        known.annotate("other", now, &mut first);
        assert_eq!((first.broken_since, first.broken_runs), (Some(now), 1));
        let mut ok = CheckResult::immediate("u".into(), Outcome::Ok { status: Some(200) }, 0);
        known.annotate("k", now, &mut ok);
        assert_eq!(
            (ok.broken_since, ok.broken_runs, ok.infos.len()),
            (None, 0, 0)
        );
    }

    #[test]
    fn a_resumed_result_keeps_its_streak() {
        let mut known = Remembered::default();
        let since = UNIX_EPOCH + Duration::from_secs(86_400);
        known.broken.insert("k".into(), Streak { since, runs: 2 });
        known.resumed.insert("k".into());
        let mut r = broken();
        known.annotate("k", since, &mut r);
        assert_eq!((r.broken_since, r.broken_runs), (Some(since), 2));
    }
}
