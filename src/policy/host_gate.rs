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
//! The table lives inside the work queue's lock, because the queue hands out a task only when
//! its host may start a request and reserves that request's slot in the same step. So the gate
//! reaches the table through [`Politeness`], which the engine's queue implements: this layer
//! states what it needs from that lock, the engine provides it. The gate's tests run over the
//! real queue, in the engine (`engine/gate_tests.rs`).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::host_table::HostTable;
use crate::model::host_stats::HostStats;

/// What the gate needs from the lock that guards the [`HostTable`] (the work queue).
pub(crate) trait Politeness: Send + Sync + fmt::Debug {
    /// Blocks until a request to `host` may start and counts it in flight; `false` when the
    /// run was cancelled meanwhile (nothing is then held).
    fn acquire(&self, host: &str) -> bool;
    /// Like `acquire`, but when the request's slot is not due yet, gives the slot back and
    /// returns its due time (`Err`) instead of sleeping: the caller hands its task back to the
    /// queue, which hands it out again when the host's slot is due.
    fn acquire_or_defer(&self, host: &str) -> Result<bool, Instant>;
    /// Frees a slot taken by `acquire`.
    fn release(&self, host: &str);
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
}

impl Drop for HostPermit<'_> {
    fn drop(&mut self) {
        self.gate.core.release(&self.host);
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
}

impl HostGate {
    /// The gate of the table that `core` (the run's work queue) guards.
    pub(crate) fn over(core: Arc<dyn Politeness>) -> Self {
        HostGate { core }
    }

    /// Blocks until a request to `host` may start, then returns its permit. Returns `None`
    /// when the run was cancelled meanwhile.
    pub(crate) fn wait_for_host(&self, host: &str) -> Option<HostPermit<'_>> {
        self.core.acquire(host).then(|| HostPermit {
            gate: self,
            host: host.to_owned(),
        })
    }

    /// [`wait_for_host`](Self::wait_for_host), or with `may_defer`, [`Turn::Later`] when the
    /// request would have to wait for its slot: its task goes back to the queue instead of
    /// parking the worker.
    pub(crate) fn permit_or_later(&self, host: &str, may_defer: bool) -> Turn<'_> {
        if !may_defer {
            return self.wait_for_host(host).map_or(Turn::Cancelled, Turn::Now);
        }
        match self.core.acquire_or_defer(host) {
            Ok(true) => Turn::Now(HostPermit {
                gate: self,
                host: host.to_owned(),
            }),
            Ok(false) => Turn::Cancelled,
            Err(due) => Turn::Later(due),
        }
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
