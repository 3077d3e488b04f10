//! The wall time a host had requests waiting for politeness: the union of the waits of its
//! requests, not their sum. Twenty requests queued together behind a 10-per-second limit
//! wait 0.1 s, 0.2 s, … 2 s: 21 s in sum, but the host was waited for during 2 s, and that
//! is the figure a report shows next to a run's wall time.
//!
//! [`WaitSpans`] keeps the waits as sorted, disjoint spans and merges each new one in. Waits
//! that overlap or touch merge, so a steadily busy host has one span. At most [`MAX_SPANS`]
//! spans are kept: beyond that the two spans with the smallest gap between them become one,
//! which counts that gap as waited. The total then can only grow towards the span from the
//! first wait to the last, so it never exceeds the run's wall time.

use std::time::{Duration, Instant};

/// Most disjoint spans kept per host (see the module doc).
pub(crate) const MAX_SPANS: usize = 64;

/// The union of the waits of one host's requests.
#[derive(Debug, Clone, Default)]
pub(crate) struct WaitSpans {
    /// Sorted by start, disjoint and not touching.
    spans: Vec<(Instant, Instant)>,
}

impl WaitSpans {
    /// Adds the wait from `from` to `to` (nothing when `to` is not after `from`).
    pub(crate) fn add(&mut self, from: Instant, to: Instant) {
        if to <= from {
            return;
        }
        let (mut start, mut end) = (from, to);
        // The spans before the new one end before it starts; those that overlap or touch it
        // are merged into it.
        let first = self.spans.partition_point(|&(_, e)| e < start);
        let mut last = first;
        while last < self.spans.len() && self.spans[last].0 <= end {
            start = start.min(self.spans[last].0);
            end = end.max(self.spans[last].1);
            last += 1;
        }
        self.spans.splice(first..last, [(start, end)]);
        if self.spans.len() > MAX_SPANS {
            self.merge_closest();
        }
    }

    /// Joins the two neighbouring spans with the smallest gap between them.
    fn merge_closest(&mut self) {
        let Some(i) = (0..self.spans.len() - 1).min_by_key(|&i| {
            self.spans[i + 1]
                .0
                .saturating_duration_since(self.spans[i].1)
        }) else {
            return;
        };
        self.spans[i].1 = self.spans[i + 1].1;
        self.spans.remove(i + 1);
    }

    /// The time covered by at least one wait.
    pub(crate) fn total(&self) -> Duration {
        self.spans.iter().map(|&(s, e)| e - s).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn overlapping_waits_count_once() {
        let t0 = Instant::now();
        let mut w = WaitSpans::default();
        // Twenty requests queued at t0 behind a 100 ms interval: 2 s of waiting, not 19 s.
        for i in 1..=20 {
            w.add(t0, t0 + 100 * i * MS);
        }
        assert_eq!(w.total(), 2000 * MS);
    }

    #[test]
    fn gaps_between_waits_are_not_counted() {
        let t0 = Instant::now();
        let mut w = WaitSpans::default();
        w.add(t0 + 50 * MS, t0 + 60 * MS);
        w.add(t0, t0 + 10 * MS);
        w.add(t0 + 5 * MS, t0 + 20 * MS);
        w.add(t0 + 20 * MS, t0 + 30 * MS);
        w.add(t0 + 40 * MS, t0 + 40 * MS);
        assert_eq!(w.total(), 40 * MS);
        // One wait across everything covers the gap.
        w.add(t0, t0 + 100 * MS);
        assert_eq!(w.total(), 100 * MS);
        assert_eq!(w.spans.len(), 1);
    }

    #[test]
    fn many_disjoint_waits_stay_within_their_span() {
        let t0 = Instant::now();
        let mut w = WaitSpans::default();
        for i in 0..1000u32 {
            w.add(t0 + 10 * i * MS, t0 + (10 * i + 1) * MS);
        }
        assert!(w.spans.len() <= MAX_SPANS);
        assert!(w.total() >= 1000 * MS, "{:?}", w.total());
        assert!(w.total() <= 9991 * MS, "{:?}", w.total());
    }
}
