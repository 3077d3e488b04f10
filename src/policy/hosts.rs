//! Per-host politeness: a minimum interval between request starts, a cap on requests in flight,
//! pauses when a host says it is overloaded, and the gate every request passes.
//!
//! [`HostTable`] is the bookkeeping, with no lock and no clock of its own: every method is
//! given `now`, so the scheduling rules are tested with made-up instants. The table lives
//! inside the work queue's lock (see `queue`), because the queue hands out a task only when
//! its host may start a request, and reserves that request's slot in the same step.
//!
//! [`HostGate`] is the view the fetchers use: [`HostGate::wait_for_host`] returns a
//! [`HostPermit`] once a request may start. The first request of a task uses the slot the
//! queue reserved when it handed the task out (so it never waits); later requests of the same
//! task — the page after its host's robots.txt, redirect hops, retries — reserve a slot of their
//! own and sleep until it with **no lock held**, so they delay only their own thread, and only
//! for their own host. They are rare next to first requests.
//!
//! # Slots, pauses and generations
//! A slot is a start time taken from the host's `next_slot`, which then moves on by the
//! host's interval. A 429 or 503 ([`HostTable::back_off`]) or a longer robots.txt
//! `Crawl-delay` ([`HostTable::crawl_delay`]) moves `next_slot` later and bumps the host's
//! `generation`: a slot reserved before that is void, and its holder takes a new one when it
//! wakes ([`HostTable::confirm`]). So a pause holds for every request to that host — also those
//! already reserved — and for no other host. A pause gets up to 1/16 of its length (at most
//! [`MAX_PAUSE_JITTER`]) of random jitter, so the requests waiting for it do not all arrive at
//! the server on the same instant the pause ends.
//!
//! # Caps
//! `in_flight` counts the slots held, from their reservation until the [`HostPermit`] drops
//! (or an unused reservation is given back). A host at its cap gets no new task from the queue
//! and no new slot in `wait_for_host` until a permit returns.
//!
//! # robots.txt
//! With `probe_first`, a host's first task runs alone until the host answered its first
//! request — that task's robots.txt fetch — or the task finished: only then are the host's
//! other tasks handed out. So a worker does not block waiting for another worker's robots.txt
//! fetch while other hosts' work is ready (and a slow first page does not hold the host's
//! other pages). The exception: a host whose first answer came to a redirect hop from another
//! host, or whose robots.txt is retried after a 429 with no politeness interval, may have a
//! few tasks wait for its robots.txt.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::host_rules::HostRules;
use crate::model::host_stats::HostStats;

/// Longest politeness interval a host's 429s (or its robots.txt `Crawl-delay`) can impose.
pub(crate) const MAX_HOST_INTERVAL: Duration = Duration::from_secs(30);
/// Interval a host gets after its first 429 when it had none (or a shorter one).
const RATE_LIMITED_INTERVAL: Duration = Duration::from_millis(500);
/// Largest random delay added to the end of a pause.
const MAX_PAUSE_JITTER: Duration = Duration::from_millis(250);

/// A reserved request start: when, and the host's generation at the time (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    /// The instant the request may start.
    pub(crate) due: Instant,
    generation: u64,
}

/// Politeness bookkeeping for one host. Guarded by the lock of the queue holding the table.
#[derive(Debug)]
struct HostState {
    /// The earliest start of the next slot. Moved forward by `interval` by each reservation,
    /// to the end of a pause by `back_off`, by `crawl_delay`; moved back only by `give_back`
    /// of the last slot reserved.
    next_slot: Instant,
    /// Minimum time between two request starts. From the rate setting; raised by
    /// `Crawl-delay` and by 429s.
    interval: Duration,
    /// No request starts before this (the latest pause asked for, jitter included).
    paused_until: Option<Instant>,
    /// Bumped by each pause or interval raise: slots of an older generation are void.
    generation: u64,
    /// Due time of the latest request that started (confirmed slot).
    last_start: Option<Instant>,
    /// Slots held allowed at once (0 = unlimited).
    max_in_flight: usize,
    /// Slots held now. Raised by `reserve`, lowered by `release` and `give_back`.
    in_flight: usize,
    /// Requests of running tasks (redirect hops, retries) waiting for room under the cap;
    /// while there are any, no new task of the host is handed out. Changed by `waiting`.
    waiting: usize,
    /// Tasks of this host handed out and not finished (`task_started` / `task_finished`).
    tasks_running: usize,
    /// Tasks of this host finished.
    tasks_done: u64,
    /// Set when a request to this host got its answer (a permit was released).
    answered: bool,
    /// Requests started (confirmed slots).
    requests: u64,
    /// Total time requests waited for their slots (in the queue or asleep in the gate).
    waited: Duration,
    /// Requests that were retries.
    retries: u64,
    /// 429 and 503 answers received.
    overloaded: u64,
    /// First and last request start: the span for the effective rate.
    first: Option<Instant>,
    last: Option<Instant>,
}

fn interval_of(per_second: f64) -> Duration {
    if per_second > 0.0 {
        Duration::from_secs_f64(1.0 / per_second)
    } else {
        Duration::ZERO
    }
}

/// Every host's slots, caps and pauses. Not synchronised: its owner's lock guards it.
#[derive(Debug)]
pub(crate) struct HostTable {
    /// Host key (`host:port`) → state, created on first use.
    hosts: HashMap<String, HostState>,
    /// Request starts per second per host by default (0 = unlimited).
    per_second: f64,
    /// Requests in flight per host by default (0 = unlimited).
    max_in_flight: usize,
    /// Per-host overrides.
    rules: HostRules,
    /// A host's first task runs alone (it fetches robots.txt).
    probe_first: bool,
    /// Jitter source.
    rng: fastrand::Rng,
}

impl HostTable {
    /// A table allowing `per_second` request starts per host (0 = unlimited) and
    /// `max_in_flight` slots per host (0 = unlimited), unless a rule says otherwise. With
    /// `probe_first`, a host's first task runs alone.
    pub(crate) fn new(
        per_second: f64,
        max_in_flight: usize,
        rules: HostRules,
        probe_first: bool,
    ) -> Self {
        HostTable {
            hosts: HashMap::new(),
            per_second,
            max_in_flight,
            rules,
            probe_first,
            rng: fastrand::Rng::new(),
        }
    }

    /// Uses a fixed jitter seed (tests).
    #[cfg(test)]
    pub(crate) fn seeded(mut self, seed: u64) -> Self {
        self.rng = fastrand::Rng::with_seed(seed);
        self
    }

    fn state(&mut self, host: &str, now: Instant) -> &mut HostState {
        let (rules, per_second, max_in_flight) = (&self.rules, self.per_second, self.max_in_flight);
        self.hosts
            .entry(host.to_owned())
            .or_insert_with(|| HostState {
                next_slot: now,
                interval: interval_of(rules.rate(host, per_second)),
                paused_until: None,
                generation: 0,
                last_start: None,
                max_in_flight: rules.concurrency(host, max_in_flight),
                in_flight: 0,
                waiting: 0,
                tasks_running: 0,
                tasks_done: 0,
                answered: false,
                requests: 0,
                waited: Duration::ZERO,
                retries: 0,
                overloaded: 0,
                first: None,
                last: None,
            })
    }

    /// `true` when `host` is under its in-flight cap.
    pub(crate) fn has_room(&mut self, host: &str, now: Instant) -> bool {
        let h = self.state(host, now);
        h.max_in_flight == 0 || h.in_flight < h.max_in_flight
    }

    /// When a new task of `host` may start its first request; `None` while the host is at its
    /// cap, a request of a running task waits for room, or its first task (robots.txt) runs.
    pub(crate) fn task_start(&mut self, host: &str, now: Instant) -> Option<Instant> {
        let probe_first = self.probe_first;
        let h = self.state(host, now);
        let probing = probe_first && h.tasks_done == 0 && !h.answered && h.tasks_running > 0;
        let room = h.max_in_flight == 0 || h.in_flight < h.max_in_flight;
        (room && h.waiting == 0 && !probing)
            .then(|| h.next_slot.max(h.paused_until.unwrap_or(h.next_slot)))
    }

    /// A request of a running task starts (`true`) or stops (`false`) waiting for room under
    /// the host's cap: requests under way go before new tasks.
    pub(crate) fn waiting(&mut self, host: &str, now: Instant, waiting: bool) {
        let h = self.state(host, now);
        if waiting {
            h.waiting += 1;
        } else {
            h.waiting -= 1;
        }
    }

    /// Reserves the next slot of `host` (not before `now`) and counts it in flight. `wanted`
    /// is when the request became wanted (for the `waited` statistic). The caller checked the
    /// cap.
    pub(crate) fn reserve(&mut self, host: &str, now: Instant, wanted: Instant) -> Slot {
        let h = self.state(host, now);
        h.in_flight += 1;
        take_slot(h, now, wanted)
    }

    /// Checks a reserved slot at its due time: `Ok` when the request may start now (it is
    /// counted), else the void slot is replaced by a new one (still in flight) to wait for.
    pub(crate) fn confirm(&mut self, host: &str, slot: Slot, now: Instant) -> Result<(), Slot> {
        let h = self.state(host, now);
        if slot.generation != h.generation {
            return Err(take_slot(h, now, now));
        }
        debug_assert!(slot.due <= now, "confirmed before its due time");
        h.requests += 1;
        h.first.get_or_insert(slot.due);
        h.last = Some(slot.due);
        h.last_start = Some(h.last_start.map_or(slot.due, |s| s.max(slot.due)));
        Ok(())
    }

    /// A request's slot is free again: its permit dropped, the host answered.
    pub(crate) fn release(&mut self, host: &str, now: Instant) {
        self.state(host, now).answered = true;
        self.free(host, now);
    }

    /// Lowers the slots held.
    fn free(&mut self, host: &str, now: Instant) {
        let h = self.state(host, now);
        h.in_flight = h
            .in_flight
            .checked_sub(1)
            .expect("a slot released more often than reserved");
    }

    /// A reserved slot that was never used (the task needed no request): frees it, and hands
    /// its start time back when no later slot was reserved since.
    pub(crate) fn give_back(&mut self, host: &str, slot: Slot, now: Instant) {
        self.free(host, now);
        let h = self.state(host, now);
        if slot.generation == h.generation && h.next_slot == slot.due + h.interval {
            h.next_slot = slot.due;
        }
    }

    /// A task of `host` was handed out.
    pub(crate) fn task_started(&mut self, host: &str, now: Instant) {
        self.state(host, now).tasks_running += 1;
    }

    /// A task of `host` finished.
    pub(crate) fn task_finished(&mut self, host: &str, now: Instant) {
        let h = self.state(host, now);
        h.tasks_running = h.tasks_running.saturating_sub(1);
        h.tasks_done += 1;
    }

    /// A 429 or 503 from `host`: no request to it starts before `until` (plus jitter), and
    /// every slot reserved before is void. With `rate_limited` (a 429) the host's interval
    /// also doubles (at least [`RATE_LIMITED_INTERVAL`], at most [`MAX_HOST_INTERVAL`]) for
    /// the rest of the run.
    pub(crate) fn back_off(
        &mut self,
        host: &str,
        until: Instant,
        rate_limited: bool,
        now: Instant,
    ) {
        let pause = until.saturating_duration_since(now);
        let most = (pause / 16).min(MAX_PAUSE_JITTER);
        let jitter = most.mul_f64(self.rng.f64());
        let h = self.state(host, now);
        h.overloaded += 1;
        if rate_limited {
            h.interval = (h.interval * 2).clamp(RATE_LIMITED_INTERVAL, MAX_HOST_INTERVAL);
        }
        let end = (until + jitter).max(h.paused_until.unwrap_or(now));
        h.paused_until = Some(end);
        h.next_slot = end;
        h.generation += 1;
    }

    /// Raises the host's interval to at least `delay` (robots.txt `Crawl-delay`), counted from
    /// the last request that started; slots reserved at the old interval are void.
    pub(crate) fn crawl_delay(&mut self, host: &str, delay: Duration, now: Instant) {
        let h = self.state(host, now);
        let delay = delay.min(MAX_HOST_INTERVAL);
        if delay <= h.interval {
            return;
        }
        h.interval = delay;
        if let Some(last) = h.last_start {
            h.next_slot = (last + delay).max(h.paused_until.unwrap_or(last));
        }
        h.generation += 1;
    }

    /// Counts a retry for statistics.
    pub(crate) fn note_retry(&mut self, host: &str, now: Instant) {
        self.state(host, now).retries += 1;
    }

    /// Per-host statistics, sorted by host.
    pub(crate) fn stats(&self) -> Vec<HostStats> {
        let mut v: Vec<_> = self
            .hosts
            .iter()
            .filter(|(_, h)| h.requests > 0 || h.overloaded > 0)
            .map(|(k, h)| {
                let span = match (h.first, h.last) {
                    (Some(a), Some(b)) => (b - a).as_secs_f64(),
                    _ => 0.0,
                };
                HostStats {
                    host: k.clone(),
                    requests: h.requests,
                    waited: h.waited,
                    retries: h.retries,
                    overloaded: h.overloaded,
                    interval: h.interval,
                    effective_rate: if span > 0.0 {
                        (h.requests - 1) as f64 / span
                    } else {
                        0.0
                    },
                }
            })
            .collect();
        v.sort_by(|a, b| a.host.cmp(&b.host));
        v
    }
}

/// Takes the next slot of `h` (not before `now`, nor inside a pause) and moves `next_slot` on.
fn take_slot(h: &mut HostState, now: Instant, wanted: Instant) -> Slot {
    let earliest = h.next_slot.max(h.paused_until.unwrap_or(h.next_slot));
    let due = earliest.max(now);
    h.next_slot = due + h.interval;
    h.waited += earliest.min(due).saturating_duration_since(wanted);
    Slot {
        due,
        generation: h.generation,
    }
}

/// What the gate needs from the lock that guards the [`HostTable`] (the work queue).
pub(crate) trait Politeness: Send + Sync + fmt::Debug {
    /// Blocks until a request to `host` may start and counts it in flight; `false` when the
    /// run was cancelled meanwhile (nothing is then held).
    fn acquire(&self, host: &str) -> bool;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cancel::CancelHandle;
    use parking_lot::Mutex;
    use regex::Regex;
    use std::thread;

    /// A gate with a table of its own (and an empty queue around it), for requests that are
    /// not scheduled by a queue.
    fn new_gate(
        per_second: f64,
        max_in_flight: usize,
        rules: HostRules,
        cancel: CancelHandle,
    ) -> HostGate {
        let table = HostTable::new(per_second, max_in_flight, rules, false);
        HostGate::over(Arc::new(crate::engine::queue::UrlQueue::<()>::with_hosts(
            table, cancel,
        )))
    }

    const MS: Duration = Duration::from_millis(1);

    fn table(per_second: f64, in_flight: usize) -> HostTable {
        HostTable::new(per_second, in_flight, HostRules::default(), false).seeded(7)
    }

    #[test]
    fn slots_follow_the_interval_and_an_unused_one_is_given_back() {
        let t0 = Instant::now();
        let mut t = table(10.0, 0);
        let a = t.reserve("a:80", t0, t0);
        let b = t.reserve("a:80", t0, t0);
        assert_eq!((a.due, b.due), (t0, t0 + 100 * MS));
        assert_eq!(t.confirm("a:80", a, t0), Ok(()));
        // b is never used: its start time goes back to the host
        t.give_back("a:80", b, t0);
        assert_eq!(t.task_start("a:80", t0), Some(t0 + 100 * MS));
        // another host is not affected
        assert_eq!(t.reserve("b:80", t0, t0).due, t0);
        let s = t.stats();
        assert_eq!(
            (s[0].requests, s.len()),
            (1, 1),
            "only started requests count"
        );
    }

    #[test]
    fn a_pause_voids_reserved_slots_of_that_host_only() {
        let t0 = Instant::now();
        let mut t = table(10.0, 0);
        let reserved = t.reserve("a:80", t0, t0);
        let later = t.reserve("a:80", t0, t0);
        let other = t.reserve("b:80", t0, t0);
        t.back_off("a:80", t0 + 2000 * MS, true, t0);
        // both slots reserved before the 429 are void; the new ones start after the pause,
        // with at most 1/16 of it as jitter, and 500 ms apart
        let retry = t.confirm("a:80", reserved, t0).unwrap_err();
        assert!(retry.due >= t0 + 2000 * MS && retry.due <= t0 + 2125 * MS);
        let next = t.confirm("a:80", later, later.due).unwrap_err();
        assert_eq!(next.due, retry.due + RATE_LIMITED_INTERVAL);
        assert_eq!(t.confirm("b:80", other, t0), Ok(()));
        assert_eq!(t.confirm("a:80", retry, retry.due), Ok(()));
        // a shorter pause later does not shorten the first one
        t.back_off("a:80", t0 + 100 * MS, false, t0);
        assert!(t.task_start("a:80", t0).unwrap() >= retry.due);
    }

    #[test]
    fn crawl_delay_counts_from_the_last_start_and_voids_older_slots() {
        let t0 = Instant::now();
        let mut t = table(10.0, 0);
        let robots = t.reserve("a:80", t0, t0);
        t.confirm("a:80", robots, t0).unwrap();
        let page = t.reserve("a:80", t0, t0);
        assert_eq!(page.due, t0 + 100 * MS);
        t.crawl_delay("a:80", Duration::from_secs(3), t0);
        let page = t.confirm("a:80", page, page.due).unwrap_err();
        assert_eq!(page.due, t0 + 3000 * MS);
        // a delay below the interval changes nothing; above the maximum is clamped
        t.crawl_delay("a:80", Duration::from_secs(1), t0);
        assert_eq!(t.confirm("a:80", page, page.due), Ok(()));
        t.crawl_delay("a:80", Duration::from_secs(3600), t0);
        assert_eq!(t.stats()[0].interval, MAX_HOST_INTERVAL);
    }

    #[test]
    fn caps_and_the_first_task_gate_new_tasks() {
        let t0 = Instant::now();
        let mut t = table(0.0, 2);
        let a = t.reserve("a:80", t0, t0);
        assert_eq!(t.task_start("a:80", t0), Some(t0));
        let b = t.reserve("a:80", t0, t0);
        assert_eq!(t.task_start("a:80", t0), None, "at the cap of 2");
        t.release("a:80", t0);
        assert_eq!(t.task_start("a:80", t0), Some(t0));
        t.give_back("a:80", b, t0);
        // a redirect hop of a running task waits for room: it goes before new tasks
        let _c = t.reserve("a:80", t0, t0);
        t.waiting("a:80", t0, true);
        t.release("a:80", t0);
        assert_eq!(
            t.task_start("a:80", t0),
            None,
            "room is kept for the waiting hop"
        );
        t.waiting("a:80", t0, false);
        assert_eq!(t.task_start("a:80", t0), Some(t0));
        let _ = a;
        // with probe_first, a host's first task runs alone until it finished…
        let mut t = HostTable::new(0.0, 0, HostRules::default(), true);
        assert_eq!(t.task_start("a:80", t0), Some(t0));
        t.task_started("a:80", t0);
        assert_eq!(t.task_start("a:80", t0), None);
        assert_eq!(t.task_start("b:80", t0), Some(t0), "other hosts go on");
        t.task_finished("a:80", t0);
        t.task_started("a:80", t0);
        assert_eq!(t.task_start("a:80", t0), Some(t0));
        // …or the host answered its first request (robots.txt)
        t.task_started("b:80", t0);
        let robots = t.reserve("b:80", t0, t0);
        t.confirm("b:80", robots, t0).unwrap();
        assert_eq!(t.task_start("b:80", t0), None);
        t.release("b:80", t0);
        assert_eq!(t.task_start("b:80", t0), Some(t0));
        // an unused slot given back is no answer
        t.task_started("c:80", t0);
        let unused = t.reserve("c:80", t0, t0);
        t.give_back("c:80", unused, t0);
        assert_eq!(t.task_start("c:80", t0), None);
    }

    fn gate(per_second: f64, in_flight: usize) -> HostGate {
        new_gate(
            per_second,
            in_flight,
            HostRules::default(),
            CancelHandle::new(),
        )
    }

    #[test]
    fn interval_spaces_one_host_but_not_another() {
        let gate = Arc::new(gate(20.0, 0)); // 50 ms apart
        let t0 = Instant::now();
        let starts: Vec<Instant> = (0..4)
            .map(|_| {
                let _p = gate.wait_for_host("a:80").unwrap();
                Instant::now()
            })
            .collect();
        for w in starts.windows(2) {
            assert!(
                w[1] - w[0] >= Duration::from_millis(45),
                "{:?}",
                w[1] - w[0]
            );
        }
        // host b's first slot is immediate although host a is booked ahead
        let _p = gate.wait_for_host("a:80").unwrap();
        let tb = Instant::now();
        let _q = gate.wait_for_host("b:80").unwrap();
        // host a is booked 250 ms past t0; host b does not wait for it
        assert!(
            tb.elapsed() < Duration::from_millis(150),
            "{:?}",
            tb.elapsed()
        );
        assert!(t0.elapsed() >= Duration::from_millis(150));
        let stats = gate.stats();
        assert_eq!(stats[0].requests, 5);
        assert!(stats[0].waited >= Duration::from_millis(150));
        assert!(
            // at most the configured 20/s; the lower bound is loose because sleeps overshoot
            // on a loaded machine
            stats[0].effective_rate > 2.0 && stats[0].effective_rate < 25.0,
            "{}",
            stats[0].effective_rate
        );
    }

    #[test]
    fn a_sleeping_host_does_not_block_other_hosts() {
        let gate = Arc::new(gate(1.0, 0)); // 1 s apart
        drop(gate.wait_for_host("slow:80").unwrap());
        let g = gate.clone();
        let sleeper = thread::spawn(move || drop(g.wait_for_host("slow:80").unwrap()));
        // while that thread sleeps ~1 s for "slow", other hosts pass at once
        let t = Instant::now();
        for i in 0..20 {
            drop(gate.wait_for_host(&format!("fast{i}:80")).unwrap());
        }
        assert!(
            t.elapsed() < Duration::from_millis(200),
            "{:?}",
            t.elapsed()
        );
        sleeper.join().unwrap();
    }

    #[test]
    fn in_flight_cap() {
        let gate = Arc::new(gate(0.0, 2));
        let peak = Arc::new(Mutex::new((0usize, 0usize)));
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let (gate, peak) = (gate.clone(), peak.clone());
                thread::spawn(move || {
                    for _ in 0..20 {
                        let _p = gate.wait_for_host("h:80").unwrap();
                        {
                            let mut pk = peak.lock();
                            pk.0 += 1;
                            pk.1 = pk.1.max(pk.0);
                        }
                        thread::yield_now();
                        peak.lock().0 -= 1;
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert!(peak.lock().1 <= 2);
    }

    #[test]
    fn cancel_wakes_a_waiting_thread() {
        let cancel = CancelHandle::new();
        let gate = Arc::new(new_gate(0.1, 0, HostRules::default(), cancel.clone())); // 10 s apart
        drop(gate.wait_for_host("h:80").unwrap());
        let g = gate.clone();
        let t = Instant::now();
        let waiter = thread::spawn(move || g.wait_for_host("h:80").is_none());
        cancel.cancel();
        assert!(waiter.join().unwrap());
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn back_off_delays_the_whole_host_and_429_lowers_its_rate() {
        let gate = gate(0.0, 0);
        drop(gate.wait_for_host("h:80").unwrap());
        let t = Instant::now();
        gate.back_off("h:80", t + Duration::from_millis(100), true);
        drop(gate.wait_for_host("h:80").unwrap());
        assert!(t.elapsed() >= Duration::from_millis(100));
        let s = &gate.stats()[0];
        assert_eq!((s.overloaded, s.interval), (1, RATE_LIMITED_INTERVAL));
        gate.crawl_delay("h:80", Duration::from_secs(3));
        assert_eq!(gate.stats()[0].interval, Duration::from_secs(3));
    }

    #[test]
    fn rules_override_rate_and_concurrency() {
        let rules = HostRules::new(vec![
            crate::config::host_rules::HostRule::new(Regex::new("^slow:").unwrap())
                .max_requests_per_second(2.0),
        ]);
        let gate = new_gate(0.0, 0, rules, CancelHandle::new());
        drop(gate.wait_for_host("slow:80").unwrap());
        drop(gate.wait_for_host("fast:80").unwrap());
        let stats = gate.stats();
        assert_eq!(stats[0].interval, Duration::ZERO);
        assert_eq!(stats[1].interval, Duration::from_millis(500));
    }
}
