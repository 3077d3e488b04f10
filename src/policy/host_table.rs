//! Per-host politeness: a minimum interval between request starts, a cap on requests in flight,
//! and pauses when a host says it is overloaded. The gate every request passes is
//! `host_gate`.
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
//! # Dead hosts
//! A request that fails at the DNS, connect or TLS level fails the same way for every URL of
//! its host, so the fetcher gives the host up at once ([`HostTable::mark_down`]); a timeout
//! (after its URL's retries) counts, and [`TIMEOUTS_BEFORE_DOWN`] in a row with no answer in
//! between give it up too ([`HostTable::note_timeout`]; any answer resets the count). A host
//! given up keeps its first reason ([`HostDown`]). From then on its lane is due at once,
//! whatever its interval, pauses, cap or running first task: its tasks are handed out without
//! a slot, and each request of theirs is refused by the gate without waiting, so they fail at
//! once with the reason ("not requested: host … unreachable, as for URL …"). The host is
//! named in the statistics (`HostStats::unreachable`). Nothing here sleeps: the table is only
//! ever changed under the queue's lock, which is never held across a sleep or a request.
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
use std::time::{Duration, Instant};

use foldhash::fast::RandomState;

use crate::config::host_rules::HostRules;
use crate::model::host_stats::HostStats;
use crate::model::outcome::FailKind;
use crate::policy::wait_spans::WaitSpans;

/// Longest politeness interval a host's 429s (or its robots.txt `Crawl-delay`) can impose.
pub(crate) const MAX_HOST_INTERVAL: Duration = Duration::from_secs(30);
/// Interval a host gets after its first 429 when it had none (or a shorter one).
pub(crate) const RATE_LIMITED_INTERVAL: Duration = Duration::from_millis(500);
/// Answers after which an interval raised by 429s halves again (down to the host's own).
pub(crate) const RECOVER_AFTER_ANSWERS: u32 = 10;
/// Largest random delay added to the end of a pause.
const MAX_PAUSE_JITTER: Duration = Duration::from_millis(250);

/// Timeouts (each after its URL's retries, with no answer from the host in between) before a
/// host is given up: a couple of probes, since one slow page is no dead host.
pub(crate) const TIMEOUTS_BEFORE_DOWN: u32 = 2;

/// Why a host was given up: the failure of the request that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostDown {
    /// The failure class: `Dns`, `Connect`, `Tls` or `Timeout`.
    pub(crate) kind: FailKind,
    /// The failure's message.
    pub(crate) message: String,
    /// The URL whose request failed so.
    pub(crate) url: String,
}

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
    /// Start of the latest slot taken (or, for a run that continues another, when the host was
    /// first seen): the interval that ends at `next_slot` began there. `None` before the first.
    previous_slot: Option<Instant>,
    /// Minimum time between two request starts. From the rate setting; raised by
    /// `Crawl-delay` and by 429s.
    interval: Duration,
    /// The interval without 429s: from the rate setting, raised by `Crawl-delay`.
    own_interval: Duration,
    /// Answers since the last 429 or 503 (or the last recovery step) while `interval` is
    /// above `own_interval`.
    calm_answers: u32,
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
    /// When requests waited for their slots (in the queue or asleep in the gate): the union of
    /// their waits, so the total is wall time, not a sum over requests.
    waited: WaitSpans,
    /// Requests that were retries.
    retries: u64,
    /// 429 and 503 answers received.
    overloaded: u64,
    /// First and last request start: the span for the effective rate.
    first: Option<Instant>,
    last: Option<Instant>,
    /// The host failed at the DNS, connect or TLS level (or timed out again and again), and
    /// when: its other tasks are handed out at once, whatever its slots and caps, and fail
    /// without a request (see the module docs, "Dead hosts").
    down: Option<(HostDown, Instant)>,
    /// Requests in a row that timed out (reset by any answer).
    timeouts: u32,
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
    /// Looked up several times per request under the queue's lock: foldhash, seeded per map
    /// (host names come from pages we read), not SipHash.
    hosts: HashMap<String, HostState, RandomState>,
    /// Request starts per second per host by default (0 = unlimited).
    per_second: f64,
    /// Loopback hosts get no rate limit by default (a rule may still set one).
    loopback_unthrottled: bool,
    /// Requests in flight per host by default (0 = unlimited).
    max_in_flight: usize,
    /// Per-host overrides.
    rules: HostRules,
    /// A host's first task runs alone (it fetches robots.txt).
    probe_first: bool,
    /// Every host may have been requested just before this run (phase 2 of a sharded check
    /// follows phase 1 on the same hosts): a host's first slot is one interval after it is
    /// first seen, not at once.
    continues: bool,
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
            hosts: HashMap::default(),
            per_second,
            loopback_unthrottled: false,
            max_in_flight,
            rules,
            probe_first,
            continues: false,
            rng: fastrand::Rng::new(),
        }
    }

    /// With `on`, loopback hosts (see [`is_loopback`]) get no rate limit unless a rule sets one.
    pub(crate) fn loopback_unthrottled(mut self, on: bool) -> Self {
        self.loopback_unthrottled = on;
        self
    }

    /// With `on`, a host's first slot is one interval after the host is first seen: the run
    /// continues an earlier one that may have requested it just before (see `continues`).
    pub(crate) fn continues(mut self, on: bool) -> Self {
        self.continues = on;
        self
    }

    /// Uses a fixed jitter seed (tests).
    #[cfg(test)]
    pub(crate) fn seeded(mut self, seed: u64) -> Self {
        self.rng = fastrand::Rng::with_seed(seed);
        self
    }

    /// The state of `host`, made on first use. Called several times per request under the
    /// queue's lock: a known host costs two lookups, no allocation.
    fn state(&mut self, host: &str, now: Instant) -> &mut HostState {
        if !self.hosts.contains_key(host) {
            let state = self.new_state(host, now);
            self.hosts.insert(host.to_owned(), state);
        }
        self.hosts.get_mut(host).expect("inserted above")
    }

    /// The state of a host seen first at `now`.
    fn new_state(&self, host: &str, now: Instant) -> HostState {
        let per_second = if self.loopback_unthrottled && is_loopback(host) {
            0.0
        } else {
            self.per_second
        };
        let continues = self.continues;
        let interval = interval_of(self.rules.rate(host, per_second));
        HostState {
            next_slot: if continues { now + interval } else { now },
            previous_slot: continues.then_some(now),
            interval,
            own_interval: interval,
            calm_answers: 0,
            paused_until: None,
            generation: 0,
            last_start: None,
            max_in_flight: self.rules.concurrency(host, self.max_in_flight),
            in_flight: 0,
            waiting: 0,
            tasks_running: 0,
            tasks_done: 0,
            answered: false,
            requests: 0,
            waited: WaitSpans::default(),
            retries: 0,
            overloaded: 0,
            first: None,
            last: None,
            down: None,
            timeouts: 0,
        }
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
        if let Some((_, since)) = &h.down {
            // Its tasks make no request: due since the host went down, caps aside.
            return Some(*since);
        }
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

    /// A request's slot is free again: its permit dropped. `answered`: a response came (which
    /// ends a run of timeouts). An interval raised by 429s halves after each
    /// [`RECOVER_AFTER_ANSWERS`] answers without a 429 or 503, back to the host's own interval
    /// once it would go below [`RATE_LIMITED_INTERVAL`]: a few 429s do not slow a host down for
    /// the rest of the run.
    pub(crate) fn release(&mut self, host: &str, answered: bool, now: Instant) {
        let h = self.state(host, now);
        h.answered = true;
        if answered {
            h.timeouts = 0;
            if h.interval > h.own_interval {
                h.calm_answers += 1;
                if h.calm_answers >= RECOVER_AFTER_ANSWERS {
                    h.calm_answers = 0;
                    let half = h.interval / 2;
                    h.interval = if half < RATE_LIMITED_INTERVAL {
                        h.own_interval
                    } else {
                        half.max(h.own_interval)
                    };
                }
            }
        }
        self.free(host, now);
    }

    /// Gives `host` up (the first reason stays): its queued tasks become due at once and
    /// fail without a request.
    pub(crate) fn mark_down(&mut self, host: &str, down: HostDown, now: Instant) {
        let h = self.state(host, now);
        if h.down.is_none() {
            h.down = Some((down, now));
        }
    }

    /// A request to `host` timed out (after its retries): gives the host up after
    /// [`TIMEOUTS_BEFORE_DOWN`] in a row. Returns `true` when it is down.
    pub(crate) fn note_timeout(&mut self, host: &str, down: HostDown, now: Instant) -> bool {
        let h = self.state(host, now);
        h.timeouts += 1;
        if h.timeouts >= TIMEOUTS_BEFORE_DOWN {
            self.mark_down(host, down, now);
        }
        self.hosts.get(host).is_some_and(|h| h.down.is_some())
    }

    /// Why `host` was given up, if it was.
    pub(crate) fn down(&self, host: &str) -> Option<&HostDown> {
        self.hosts.get(host)?.down.as_ref().map(|(d, _)| d)
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
    /// also doubles (at least [`RATE_LIMITED_INTERVAL`], at most [`MAX_HOST_INTERVAL`]) until
    /// calm answers bring it back (see [`release`](Self::release)).
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
        h.calm_answers = 0;
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
        h.own_interval = h.own_interval.max(delay);
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
            .filter(|(_, h)| h.requests > 0 || h.overloaded > 0 || h.down.is_some())
            .map(|(k, h)| {
                let span = match (h.first, h.last) {
                    (Some(a), Some(b)) => (b - a).as_secs_f64(),
                    _ => 0.0,
                };
                HostStats {
                    host: k.clone(),
                    requests: h.requests,
                    waited: h.waited.total(),
                    retries: h.retries,
                    overloaded: h.overloaded,
                    interval: h.interval,
                    effective_rate: if span > 0.0 {
                        (h.requests - 1) as f64 / span
                    } else {
                        0.0
                    },
                    unreachable: h
                        .down
                        .as_ref()
                        .map(|(d, _)| format!("{}: {}", d.kind.as_str(), d.message)),
                }
            })
            .collect();
        v.sort_by(|a, b| a.host.cmp(&b.host));
        v
    }
}

/// `true` when the host part of the key `host:port` is a loopback address (`127.0.0.0/8`,
/// `[::1]`) or `localhost`.
pub(crate) fn is_loopback(key: &str) -> bool {
    let host = key.rsplit_once(':').map_or(key, |(host, _)| host);
    let host = host.trim_end_matches('.');
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    match bare.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// Takes the next slot of `h` (not before `now`, nor inside a pause) and moves `next_slot` on.
fn take_slot(h: &mut HostState, now: Instant, wanted: Instant) -> Slot {
    let earliest = h.next_slot.max(h.paused_until.unwrap_or(h.next_slot));
    let due = earliest.max(now);
    // Politeness held the request back during the interval that ends at `next_slot` (from the
    // previous slot's start, or from when it was wanted if later) and during a pause. Time
    // spent before that, waiting for a free worker, is not politeness: with no interval and no
    // pause nothing is counted, however long the queue.
    if let Some(previous) = h.previous_slot {
        h.waited.add(wanted.max(previous), h.next_slot.min(due));
    }
    if let Some(paused_until) = h.paused_until {
        h.waited.add(wanted, paused_until.min(due));
    }
    h.previous_slot = Some(due);
    h.next_slot = due + h.interval;
    Slot {
        due,
        generation: h.generation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn table(per_second: f64, in_flight: usize) -> HostTable {
        HostTable::new(per_second, in_flight, HostRules::default(), false).seeded(7)
    }

    #[test]
    fn an_interval_raised_by_429s_recovers_after_calm_answers() {
        let t0 = Instant::now();
        let mut t = table(0.0, 0);
        let mut now = t0;
        let answer = |t: &mut HostTable, now: &mut Instant| {
            let slot = t.reserve("a:80", *now, *now);
            *now = (*now).max(slot.due);
            t.confirm("a:80", slot, *now).unwrap();
            t.release("a:80", true, *now);
        };
        // Three 429s: 500 ms, 1 s, 2 s between requests.
        for _ in 0..3 {
            answer(&mut t, &mut now);
            t.back_off("a:80", now, true, now);
        }
        let interval = |t: &HostTable| t.stats()[0].interval;
        assert_eq!(interval(&t), 2000 * MS);
        for _ in 0..RECOVER_AFTER_ANSWERS - 1 {
            answer(&mut t, &mut now);
        }
        assert_eq!(interval(&t), 2000 * MS, "not yet");
        answer(&mut t, &mut now);
        assert_eq!(interval(&t), 1000 * MS);
        // A 429 (or 503) starts the count again.
        for _ in 0..RECOVER_AFTER_ANSWERS - 1 {
            answer(&mut t, &mut now);
        }
        t.back_off("a:80", now, false, now);
        for _ in 0..RECOVER_AFTER_ANSWERS - 1 {
            answer(&mut t, &mut now);
        }
        assert_eq!(interval(&t), 1000 * MS);
        answer(&mut t, &mut now);
        assert_eq!(interval(&t), 500 * MS);
        // Then back to the host's own (none: unthrottled), never below it.
        for _ in 0..RECOVER_AFTER_ANSWERS {
            answer(&mut t, &mut now);
        }
        assert_eq!(interval(&t), Duration::ZERO);
        let mut t = table(0.0, 0);
        t.crawl_delay("a:80", 1000 * MS, t0);
        let mut now = t0;
        answer(&mut t, &mut now);
        t.back_off("a:80", now, true, now);
        assert_eq!(interval(&t), 2000 * MS);
        for _ in 0..3 * RECOVER_AFTER_ANSWERS {
            answer(&mut t, &mut now);
        }
        assert_eq!(interval(&t), 1000 * MS, "the Crawl-delay holds");
    }

    #[test]
    fn a_run_that_continues_another_waits_one_interval_before_a_hosts_first_slot() {
        let t0 = Instant::now();
        let mut t = table(5.0, 0).continues(true);
        assert_eq!(t.reserve("a:80", t0, t0).due, t0 + 200 * MS);
        assert_eq!(t.reserve("a:80", t0, t0).due, t0 + 400 * MS);
        // an unthrottled host is not delayed
        let mut t = table(0.0, 0).continues(true);
        assert_eq!(t.reserve("a:80", t0, t0).due, t0);
    }

    #[test]
    fn only_the_wait_politeness_imposes_is_counted_not_the_wait_for_a_worker() {
        let t0 = Instant::now();
        // No interval: requests wanted at t0 and started later (all workers were busy) did
        // not wait for politeness.
        let mut t = table(0.0, 0);
        for i in 0..5 {
            let slot = t.reserve("a:80", t0 + i * 100 * MS, t0);
            assert_eq!(t.confirm("a:80", slot, slot.due), Ok(()));
        }
        assert_eq!(t.stats()[0].waited, Duration::ZERO);
        // 10 per second: five requests wanted at t0, taken by workers only at 300 ms, then
        // wait 0, 100, … 400 ms for their slots: the host was waited for during 400 ms.
        let mut t = table(10.0, 0);
        for _ in 0..5 {
            let slot = t.reserve("a:80", t0 + 300 * MS, t0);
            assert_eq!(t.confirm("a:80", slot, slot.due), Ok(()));
        }
        assert_eq!(t.stats()[0].waited, 400 * MS);
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
        t.release("a:80", true, t0);
        assert_eq!(t.task_start("a:80", t0), Some(t0));
        t.give_back("a:80", b, t0);
        // a redirect hop of a running task waits for room: it goes before new tasks
        let _c = t.reserve("a:80", t0, t0);
        t.waiting("a:80", t0, true);
        t.release("a:80", true, t0);
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
        t.release("b:80", true, t0);
        assert_eq!(t.task_start("b:80", t0), Some(t0));
        // an unused slot given back is no answer
        t.task_started("c:80", t0);
        let unused = t.reserve("c:80", t0, t0);
        t.give_back("c:80", unused, t0);
        assert_eq!(t.task_start("c:80", t0), None);
    }

    #[test]
    fn loopback_hosts_are_unthrottled_unless_a_rule_sets_a_rate() {
        let t0 = Instant::now();
        let rules = HostRules::new(vec![
            crate::config::host_rules::HostRule::new(
                regex::Regex::new("^localhost:8081$").unwrap(),
            )
            .max_requests_per_second(10.0),
        ]);
        let mut t = HostTable::new(10.0, 0, rules, false).loopback_unthrottled(true);
        for host in [
            "127.0.0.1:8080",
            "127.1.2.3:80",
            "[::1]:8080",
            "localhost:8080",
            "LocalHost.:80",
        ] {
            let a = t.reserve(host, t0, t0);
            let b = t.reserve(host, t0, t0);
            assert_eq!((a.due, b.due), (t0, t0), "{host} is throttled");
        }
        // other hosts keep the default rate, and a rule holds for loopback too
        for host in [
            "example.org:80",
            "128.0.0.1:80",
            "[::2]:80",
            "localhost:8081",
        ] {
            t.reserve(host, t0, t0);
            assert_eq!(t.reserve(host, t0, t0).due, t0 + 100 * MS, "{host}");
        }
        // without the exemption, loopback gets the default rate
        let mut t = table(10.0, 0);
        t.reserve("127.0.0.1:8080", t0, t0);
        assert_eq!(t.reserve("127.0.0.1:8080", t0, t0).due, t0 + 100 * MS);
    }

    #[test]
    fn is_loopback_reads_the_host_part_of_the_key() {
        assert!(is_loopback("127.0.0.1:80"));
        assert!(is_loopback("[::1]:443"));
        assert!(is_loopback("localhost:3000"));
        assert!(!is_loopback("localhost.example:80"));
        assert!(!is_loopback("[::ffff:1.2.3.4]:80"));
        assert!(!is_loopback("10.0.0.1:80"));
    }
}
