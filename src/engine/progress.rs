//! Live numbers of a running check, for progress displays: read from any thread while
//! [`Checker::run_with`](crate::Checker::run_with) blocks another.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::engine::run::Run;

/// A snapshot of a run's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Progress {
    /// URLs waiting in the queue.
    pub queued: usize,
    /// URLs being checked by a worker now.
    pub active: usize,
    /// URLs whose check finished.
    pub checked: usize,
    /// Distinct URLs seen so far.
    pub urls: usize,
    /// Time since the run started.
    pub elapsed: Duration,
}

/// Reads the progress of the checker's current run. `Send + Sync + Clone`.
#[derive(Debug, Clone, Default)]
pub struct ProgressHandle {
    /// The running run and its start, set by `run_with` for its duration. Weak, so a handle
    /// kept after the run does not keep the run's memory alive.
    current: Arc<Mutex<Option<Attached>>>,
}

/// The run a handle reads, and when it started.
type Attached = (Weak<Run>, Instant);

impl ProgressHandle {
    /// The numbers now; all zero when no run is going on.
    pub fn snapshot(&self) -> Progress {
        let current = self.current.lock().clone();
        let Some((run, started)) = current else {
            return Progress::default();
        };
        let Some(run) = run.upgrade() else {
            return Progress::default();
        };
        let (queued, unfinished) = run.queue.counts();
        Progress {
            queued,
            active: unfinished.saturating_sub(queued),
            checked: run.checked(),
            urls: run.cache.len(),
            elapsed: started.elapsed(),
        }
    }

    pub(crate) fn attach(&self, run: &Arc<Run>, started: Instant) {
        *self.current.lock() = Some((Arc::downgrade(run), started));
    }

    pub(crate) fn detach(&self) {
        *self.current.lock() = None;
    }
}
