//! The state file knobs of a [`Config`]: where the SQLite state lives, how long a result
//! stays fresh, whether failures are cached, and when a broken link fails the run.

use std::path::PathBuf;
use std::time::Duration;

use crate::config::Config;
use crate::config::accept::AcceptStatus;

/// How long a checked result stays fresh in the state file: one day.
pub const DEFAULT_MAX_CACHE_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// Consecutive broken runs before a broken link fails the run: one, every broken link counts.
pub const DEFAULT_FAIL_AFTER_RUNS: u32 = 1;

/// The state file's name in the current folder when `--cache` is given without a path.
pub const DEFAULT_STATE_FILE: &str = ".linkpatrol-cache.sqlite";

/// The state file settings a [`Config`] holds (see [`Config::state_file`]).
#[derive(Debug, Clone)]
pub(crate) struct StateOptions {
    /// The SQLite file; `None`: no state kept.
    pub(crate) file: Option<PathBuf>,
    /// Results older than this are checked again.
    pub(crate) max_age: Duration,
    /// Broken results are reused too, not only working ones.
    pub(crate) cache_failures: bool,
    /// Results with one of these HTTP statuses are never reused (`None`: none excluded).
    pub(crate) exclude_status: Option<AcceptStatus>,
    /// A broken link fails the run only after this many consecutive broken runs.
    pub(crate) fail_after_runs: u32,
    /// Continue the interrupted last run (`Config::resume`).
    pub(crate) resume: bool,
    /// What the file holds may be reused (`Config::trust_state_file`).
    pub(crate) trusted: bool,
}

impl StateOptions {
    /// `true` when a stored result with `status` may not be reused
    /// ([`Config::cache_exclude_status`]).
    pub(crate) fn excludes(&self, status: Option<u16>) -> bool {
        matches!((&self.exclude_status, status), (Some(set), Some(s)) if set.contains(s))
    }
}

impl Default for StateOptions {
    fn default() -> Self {
        StateOptions {
            file: None,
            max_age: DEFAULT_MAX_CACHE_AGE,
            cache_failures: false,
            exclude_status: None,
            fail_after_runs: DEFAULT_FAIL_AFTER_RUNS,
            resume: false,
            trusted: true,
        }
    }
}

impl Config {
    /// Keeps state between runs in this SQLite file (created when missing): results of
    /// external and leaf URLs checked within [`max_cache_age`](Self::max_cache_age) are reused
    /// instead of requested again, and every URL's broken history is recorded. A file that
    /// cannot be used (corrupt, not SQLite, written by a newer version, in a read-only folder,
    /// held by another run) never stops the check: the run goes on without it and
    /// [`Report::state_warnings`](crate::Report::state_warnings) says why. Needs the crate's
    /// `state` feature (on by default); without it the file is ignored with a warning.
    /// Defaults to `None` (no state).
    pub fn state_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.state.file = Some(path.into());
        self
    }

    /// How old a result in the state file may be and still be reused. Defaults to
    /// [`DEFAULT_MAX_CACHE_AGE`] (one day).
    pub fn max_cache_age(mut self, age: Duration) -> Self {
        self.state.max_age = age;
        self
    }

    /// Reuses broken results from the state file too (by default they are checked again).
    /// Defaults to `false`.
    pub fn cache_failures(mut self, yes: bool) -> Self {
        self.state.cache_failures = yes;
        self
    }

    /// Never reuses a stored result whose HTTP status is in `statuses` (lychee's
    /// `--cache-exclude-status`): such a URL is requested again, and its new result stored.
    /// A result without a status (a timeout, a refused connection) is not excluded by it, and
    /// the results of a run [`resume`](Self::resume) continues are that run's own, always
    /// reused. Defaults to no status excluded.
    pub fn cache_exclude_status(mut self, statuses: AcceptStatus) -> Self {
        self.state.exclude_status = Some(statuses);
        self
    }

    /// A broken link counts in [`Report::failing`](crate::Report::failing) only once it has
    /// been broken in `runs` consecutive runs recorded in the state file (without a state file,
    /// every broken link counts). Defaults to 1.
    pub fn fail_after_runs(mut self, runs: u32) -> Self {
        self.state.fail_after_runs = runs.max(1);
        self
    }

    /// Continues the interrupted run recorded last in the state file (Ctrl-C, a crash, a
    /// SIGKILL): the run reuses that run's results whatever their age (failures too), replays
    /// the stored links of the pages that run parsed instead of requesting them again, checks
    /// what it had not finished, and reports the whole run. "The interrupted run" is the
    /// latest run in the file when it has no normal end (it was killed, or stopped by Ctrl-C);
    /// when the latest run ended normally (or the file has none) the check is as without
    /// `resume`, and [`Report::state_warnings`](crate::Report::state_warnings) says so. The
    /// resumed run keeps that run's row in the `runs` table (broken streaks count it once).
    /// Needs [`state_file`](Self::state_file); defaults to `false`.
    pub fn resume(mut self, yes: bool) -> Self {
        self.state.resume = yes;
        self
    }

    /// Whether what the state file holds may be reused: its results, the links of its pages
    /// (for a 304), its robots.txt files, the run [`resume`](Self::resume) continues. A stored
    /// result is reused without a request, so whoever can write the file decides those
    /// verdicts: `false` for a file someone else may have written (the CLI sets it when only a
    /// config file found in the current folder, untrusted, turned the cache on). The run
    /// then reuses nothing, requests everything, and only records its results and reads
    /// the broken streaks (which can only make a link fail sooner). Defaults to `true`: the
    /// file is the caller's own cache.
    pub fn trust_state_file(mut self, yes: bool) -> Self {
        self.state.trusted = yes;
        self
    }

    /// The state file, if one is set.
    pub fn state_file_path(&self) -> Option<&std::path::Path> {
        self.state.file.as_deref()
    }
}
