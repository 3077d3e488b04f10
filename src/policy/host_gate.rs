//! [`HostGate`]: the fetchers' view of the [`HostTable`]. [`HostGate::wait_for_host`] returns a
//! [`HostPermit`] once a request may start. The first request of a task uses the slot the
//! queue reserved when it handed the task out (so it never waits); later requests of the same
//! task — the page after its host's robots.txt, redirect hops, retries — reserve a slot of their
//! own and sleep until it with **no lock held**, so they delay only their own thread, and only
//! for their own host. They are rare next to first requests. Two of them would park a worker
//! for long, so they do not wait: a task's first request to its URL after the host's
//! robots.txt (a `Crawl-delay`) and its retry after a 429 or 503 (the host's pause) get
//! [`Turn::Later`] from [`HostGate::permit_or_later`], and the engine puts the task back in
//! the queue, which hands it out again when the host's slot is due (see `engine/queue.rs`,
//! "Deferred tasks").
//!
//! A host given up as unreachable (`host_table`, "Dead hosts") gets [`Turn::Down`] instead of a
//! permit: the fetcher reports the host's failure for the URL without a request. The fetcher
//! gives a host up through [`HostGate::host_down`] and [`HostGate::timed_out`].
//!
//! The table lives inside the work queue's lock, because the queue hands out a task only when
//! its host may start a request and reserves that request's slot in the same step. So the gate
//! reaches the table through [`Politeness`], which the engine's queue implements: this layer
//! states what it needs from that lock, the engine provides it. The gate's tests run over the
//! real queue, in the engine (`engine/gate_tests.rs`).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::host_table::{HostDown, HostTable};
use crate::model::host_stats::HostStats;

/// What [`Politeness::acquire`] got.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Grant {
    /// The request may start now; it is counted in flight.
    Now,
    /// The run was cancelled; nothing is held.
    Cancelled,
    /// (With `defer` only.) The slot is due at this instant; it was given back.
    Later(Instant),
    /// The host was given up; nothing is held and no request is to be made.
    Down(HostDown),
}

/// What the gate needs from the lock that guards the [`HostTable`] (the work queue).
pub(crate) trait Politeness: Send + Sync + fmt::Debug {
    /// Blocks until a request to `host` may start and counts it in flight ([`Grant::Now`]).
    /// With `defer`, when the request's slot is not due yet, gives the slot back and returns
    /// its due time ([`Grant::Later`]) instead of sleeping: the caller hands its task back to
    /// the queue, which hands it out again when the host's slot is due. A host given up gets
    /// [`Grant::Down`] at once, also while waiting.
    fn acquire(&self, host: &str, defer: bool) -> Grant;
    /// Frees a slot taken by `acquire`; `answered`: a response came.
    fn release(&self, host: &str, answered: bool);
    /// Runs `change` on the table under the lock, then reschedules `host`'s waiting tasks.
    fn update(&self, host: &str, change: &mut dyn FnMut(&mut HostTable, Instant));
    /// Per-host statistics, sorted by host.
    fn stats(&self) -> Vec<HostStats>;
}

/// Per-host request slots and in-flight caps, shared by all workers of one run: the fetchers'
/// view of the [`HostTable`] the work queue holds.
#[derive(Debug)]
pub(crate) struct HostGate {
    core: Arc<dyn Politeness>,
}

/// Proof that a request to a host may run now; returns the in-flight slot when dropped.
#[derive(Debug)]
pub(crate) struct HostPermit<'a> {
    gate: &'a HostGate,
    host: String,
    answered: bool,
}

impl HostPermit<'_> {
    /// The host answered this request (it is alive: a run of timeouts ends).
    pub(crate) fn answered(&mut self) {
        self.answered = true;
    }
}

impl Drop for HostPermit<'_> {
    fn drop(&mut self) {
        self.gate.core.release(&self.host, self.answered);
    }
}

/// What [`HostGate::permit_or_later`] found.
#[derive(Debug)]
pub(crate) enum Turn<'a> {
    /// The request may start now.
    Now(HostPermit<'a>),
    /// The host's next slot is due at this instant; nothing is held.
    Later(Instant),
    /// The run was cancelled.
    Cancelled,
    /// The host was given up: no request is to be made.
    Down(HostDown),
}

impl HostGate {
    /// The gate of the table that `core` (the run's work queue) guards.
    pub(crate) fn over(core: Arc<dyn Politeness>) -> Self {
        HostGate { core }
    }

    /// Blocks until a request to `host` may start, then returns its permit. Returns `None`
    /// when the run was cancelled meanwhile or the host was given up. (The fetchers ask
    /// [`permit_or_later`](Self::permit_or_later), which tells those apart.)
    #[cfg(test)]
    pub(crate) fn wait_for_host(&self, host: &str) -> Option<HostPermit<'_>> {
        match self.permit_or_later(host, false) {
            Turn::Now(permit) => Some(permit),
            _ => None,
        }
    }

    /// [`wait_for_host`](Self::wait_for_host), or with `may_defer`, [`Turn::Later`] when the
    /// request would have to wait for its slot: its task goes back to the queue instead of
    /// parking the worker.
    pub(crate) fn permit_or_later(&self, host: &str, may_defer: bool) -> Turn<'_> {
        match self.core.acquire(host, may_defer) {
            Grant::Now => Turn::Now(HostPermit {
                gate: self,
                host: host.to_owned(),
                answered: false,
            }),
            Grant::Cancelled => Turn::Cancelled,
            Grant::Later(due) => Turn::Later(due),
            Grant::Down(down) => Turn::Down(down),
        }
    }

    /// `host` failed with a definitive error (DNS, connect, TLS): give it up, so its other
    /// URLs fail at once without a request.
    pub(crate) fn host_down(&self, host: &str, down: HostDown) {
        self.core
            .update(host, &mut |t, now| t.mark_down(host, down.clone(), now));
    }

    /// A request to `host` timed out after its retries: the host is given up after
    /// [`TIMEOUTS_BEFORE_DOWN`](super::host_table::TIMEOUTS_BEFORE_DOWN) in a row.
    pub(crate) fn timed_out(&self, host: &str, down: HostDown) {
        self.core.update(host, &mut |t, now| {
            t.note_timeout(host, down.clone(), now);
        });
    }

    /// A 429 or 503 from `host`: see [`HostTable::back_off`].
    pub(crate) fn back_off(&self, host: &str, until: Instant, rate_limited: bool) {
        self.core.update(host, &mut |t, now| {
            t.back_off(host, until, rate_limited, now)
        });
    }

    /// Raises the host's interval to at least `delay` (robots.txt `Crawl-delay`).
    pub(crate) fn crawl_delay(&self, host: &str, delay: Duration) {
        self.core
            .update(host, &mut |t, now| t.crawl_delay(host, delay, now));
    }

    /// Counts a retry for statistics.
    pub(crate) fn note_retry(&self, host: &str) {
        self.core
            .update(host, &mut |t, now| t.note_retry(host, now));
    }

    /// Per-host statistics, sorted by host.
    pub(crate) fn stats(&self) -> Vec<HostStats> {
        self.core.stats()
    }
}
