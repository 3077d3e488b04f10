//! The run's memory budget (`Config::max_memory`): what the run holds where it grows with the
//! site, accounted in bytes, and the two decisions taken from it.
//!
//! - The queue keeps at most `queue_share` bytes of tasks in memory; the rest of each host's
//!   lane waits on disk (`queue_spill`), in order, and comes back as the lane runs short.
//! - A caller's sorted report (the binary's unless `--stream`) keeps at most a quarter of the
//!   budget of rows in memory (`Config::report_share`) and the rest on disk
//!   (`report/row_spill.rs`); what it holds is counted as rows (`Config::rows_held`).
//! - The result cache (a key and a slot per URL found, the results kept) and the entries the
//!   run keeps itself (`Config::keep_entries`) cannot go to disk: once they, the rows and the
//!   queue's share reach the budget, the run stops discovering URLs, as `--max-urls` does,
//!   and the summary says so.
//!
//! The figures are estimates kept next to the data (a key's length and a fixed cost per
//! slot, a task's strings, a row's strings), not the allocator's: `benches/RESULTS.md` has
//! how they compare with peak RSS. Every counter is written by the one place that changes
//! what it counts, under that place's own lock, and read with `Relaxed` loads: a decision
//! that reads a figure a moment old only moves the point where it is taken by a few rows.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::model::held_rows::HeldRows;

/// Bytes a URL costs the result cache besides its key, once it is checked: the map's entry and
/// table bucket, the slot, the result kept, the allocator's share, and the end of the run
/// (levels settled, the report). A spider trap checked to its end within the budget peaked at
/// 570 bytes a URL (peak RSS over URLs, keys of some 30 bytes); see benches/RESULTS.md, "A
/// memory budget".
pub(crate) const CACHE_BYTES_PER_KEY: usize = 560;

/// What a run may hold, and what it holds.
#[derive(Debug, Default)]
pub(crate) struct MemoryBudget {
    /// The whole budget in bytes; `None`: no budget (nothing spills, nothing stops).
    limit: Option<usize>,
    /// Bytes of queued tasks kept in memory before the rest of a lane spills.
    queue_share: Option<usize>,
    /// The cache's bytes, set by the cache under its lock whenever it inserts a key.
    cache: AtomicUsize,
    /// Bytes of report rows held for the end, raised by the thread that holds them.
    rows: AtomicUsize,
    /// Bytes of rows a caller holds outside the run (a sorted report's), set by the caller.
    caller_rows: Option<HeldRows>,
    /// Bytes of tasks in the queue's memory, set by the queue under its lock.
    queue: AtomicUsize,
    /// Set once the budget stopped a new URL; never cleared.
    reached: AtomicBool,
}

impl MemoryBudget {
    /// A budget of `limit` bytes (`None`: none) whose queue keeps `queue_share` bytes of tasks
    /// in memory (`None`: a quarter of `limit`).
    pub(crate) fn new(limit: Option<usize>, queue_share: Option<usize>) -> Self {
        MemoryBudget {
            limit,
            queue_share: queue_share.or(limit.map(|l| l / 4)),
            ..MemoryBudget::default()
        }
    }

    /// Counts the rows a caller holds outside the run too (`Config::rows_held`).
    pub(crate) fn with_rows_held(mut self, rows: Option<HeldRows>) -> Self {
        self.caller_rows = rows;
        self
    }

    /// Bytes of rows held: the run's own and a caller's.
    fn rows(&self) -> usize {
        self.rows.load(Ordering::Relaxed) + self.caller_rows.as_ref().map_or(0, HeldRows::bytes)
    }

    /// Bytes of tasks the queue keeps in memory before it spills (`None`: it never does).
    pub(crate) fn queue_share(&self) -> Option<usize> {
        self.queue_share
    }

    /// Records the cache's bytes (called by the cache, under its lock).
    pub(crate) fn set_cache(&self, bytes: usize) {
        self.cache.store(bytes, Ordering::Relaxed);
    }

    /// Records the queue's bytes in memory (called by the queue, under its lock).
    pub(crate) fn set_queue(&self, bytes: usize) {
        self.queue.store(bytes, Ordering::Relaxed);
    }

    /// Adds one held report row of `bytes` (`Entry::held_bytes`).
    pub(crate) fn add_row(&self, bytes: usize) {
        self.rows.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Bytes accounted now.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.cache.load(Ordering::Relaxed) + self.rows() + self.queue.load(Ordering::Relaxed)
    }

    /// `true` when a new URL of `key_bytes` would take the run past its budget: the caller
    /// does not store it. Remembers that the budget was reached, for the summary.
    pub(crate) fn refuses_new_key(&self, cache_bytes: usize, key_bytes: usize) -> bool {
        let Some(limit) = self.limit else {
            return false;
        };
        let after = cache_bytes
            + CACHE_BYTES_PER_KEY
            + key_bytes
            + self.rows()
            + self.queue.load(Ordering::Relaxed);
        let over = after > limit;
        if over {
            self.reached.store(true, Ordering::Relaxed);
        }
        over
    }

    /// The budget, when one stopped a new URL during the run.
    pub(crate) fn reached(&self) -> Option<usize> {
        self.limit.filter(|_| self.reached.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_is_refused_once_cache_rows_and_queue_reach_the_budget() {
        let b = MemoryBudget::new(Some(10_000), None);
        assert_eq!(b.queue_share(), Some(2_500));
        assert!(!b.refuses_new_key(5_000, 100));
        assert_eq!(b.reached(), None);
        // The cache's 5,000 and the new key, the row, and the queue: just past 10,000.
        b.set_queue(10_001 - 5_000 - CACHE_BYTES_PER_KEY - 100 - 2_000);
        b.add_row(2_000);
        assert!(b.refuses_new_key(5_000, 100));
        assert_eq!(b.reached(), Some(10_000));
        assert_eq!(b.held(), 10_001 - 5_000 - CACHE_BYTES_PER_KEY - 100);
    }

    #[test]
    fn rows_a_caller_holds_count_toward_the_budget() {
        let held = HeldRows::new();
        let b = MemoryBudget::new(Some(10_000), None).with_rows_held(Some(held.clone()));
        assert!(!b.refuses_new_key(5_000, 100));
        held.hold(5_000);
        assert!(b.refuses_new_key(5_000, 100), "the caller's rows fill it");
        held.release(5_000);
        assert!(
            !b.refuses_new_key(5_000, 100),
            "written to disk: room again"
        );
    }

    #[test]
    fn without_a_budget_nothing_is_refused_or_spilled() {
        let b = MemoryBudget::new(None, None);
        assert!(!b.refuses_new_key(usize::MAX / 2, 1 << 20));
        assert_eq!((b.queue_share(), b.reached()), (None, None));
        assert_eq!(MemoryBudget::new(None, Some(64)).queue_share(), Some(64));
    }
}
