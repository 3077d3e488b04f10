//! [`HeldRows`]: the bytes of report rows a caller holds in memory, counted in the run's memory
//! budget as they are held.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes of report rows held outside the run (a [`SortedReporter`]'s, given with `counting`),
/// read by the run's memory budget (`Config::rows_held`) as part of what it holds. Clones
/// share one count.
///
/// [`SortedReporter`]: crate::report::SortedReporter
#[derive(Debug, Clone, Default)]
pub struct HeldRows(Arc<AtomicUsize>);

impl HeldRows {
    /// A count of none.
    pub fn new() -> Self {
        HeldRows::default()
    }

    /// `bytes` more are held.
    pub fn hold(&self, bytes: usize) {
        self.0.fetch_add(bytes, Ordering::Relaxed);
    }

    /// `bytes` are no longer held (written to disk, or written out); never below none.
    pub fn release(&self, bytes: usize) {
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_sub(bytes))
            });
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::HeldRows;

    #[test]
    fn clones_share_one_count_that_never_goes_below_none() {
        let a = HeldRows::new();
        let b = a.clone();
        a.hold(500);
        b.release(200);
        assert_eq!(a.bytes(), 300);
        b.release(1_000);
        assert_eq!(a.bytes(), 0);
    }
}
