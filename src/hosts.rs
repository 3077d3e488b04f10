//! Per-host politeness: a minimum interval between requests, a cap on requests in flight, and
//! backoff when a host says it is overloaded.
//!
//! [`HostGate::wait_for_host`] reserves the host's next request slot under the gate's lock and
//! sleeps **after** releasing it, so a thread waiting for a slow host never delays a thread
//! bound for another host. Every redirect hop, retry and robots.txt fetch goes through it.
//!
//! The in-flight cap is a counter per host; a thread over the cap waits on the gate's condvar
//! (which releases the lock while waiting) and the [`HostPermit`] it finally gets lowers the
//! counter when dropped, even on panic.
//!
//! A 429 or 503 pushes the host's next slot to the time the server asked for (`Retry-After`) or
//! to an exponential backoff, so every thread bound for that host waits, not only the one that
//! got the answer; a 429 also doubles the host's interval for the rest of the run.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::cancel::CancelHandle;
use crate::host_rules::HostRules;

/// Longest politeness interval a host's 429s (or its robots.txt `Crawl-delay`) can impose.
pub(crate) const MAX_HOST_INTERVAL: Duration = Duration::from_secs(30);
/// Interval a host gets after its first 429 when it had none (or a shorter one).
const RATE_LIMITED_INTERVAL: Duration = Duration::from_millis(500);

/// Politeness bookkeeping for one host. All fields are guarded by [`HostGate::hosts`].
#[derive(Debug)]
struct HostState {
    /// The earliest instant at which the next request to this host may start. Moved forward
    /// by `interval` each time a thread reserves a slot, and by backoffs.
    next_slot: Instant,
    /// Minimum time between two request starts. From the rate setting; raised by
    /// `Crawl-delay` and by 429s.
    interval: Duration,
    /// Requests in flight allowed (0 = unlimited).
    max_in_flight: usize,
    /// Requests holding a permit now. Raised by `wait_for_host`, lowered by `HostPermit::drop`.
    in_flight: usize,
    /// Requests made (slots reserved) so far.
    requests: u64,
    /// Total time threads slept waiting for this host's slots.
    waited: Duration,
    /// Requests that were retries.
    retries: u64,
    /// 429 and 503 answers received.
    overloaded: u64,
    /// First and last slot reserved: the span for the effective rate.
    first: Option<Instant>,
    last: Option<Instant>,
}

/// Per-host request slots and in-flight caps, shared by all workers of one run.
#[derive(Debug)]
pub(crate) struct HostGate {
    /// Host key (`host:port`) → state. Held only to read and update numbers; never across a
    /// sleep or a request.
    hosts: Mutex<HashMap<String, HostState>>,
    /// Notified when a permit is returned (a host may have room again).
    room: Condvar,
    /// Request starts per second per host by default (0 = unlimited).
    per_second: f64,
    /// Requests in flight per host by default (0 = unlimited).
    max_in_flight: usize,
    /// Per-host overrides.
    rules: HostRules,
    /// Wakes sleeps early when the run is cancelled.
    cancel: CancelHandle,
}

/// Statistics of one host at the end of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct HostStats {
    /// The host key (`host:port`).
    pub host: String,
    /// Requests made to it (every redirect hop, retry and robots.txt fetch counts).
    pub requests: u64,
    /// Total time threads spent waiting for its politeness slots.
    pub waited: Duration,
    /// Requests that were retries of a failed or rate-limited one.
    pub retries: u64,
    /// 429 (Too Many Requests) and 503 answers.
    pub overloaded: u64,
    /// The minimum interval between requests at the end of the run.
    pub interval: Duration,
    /// Requests per second between the first and the last request (0 for one request).
    pub effective_rate: f64,
}

/// Proof that a request to a host may run now; returns the in-flight slot when dropped.
#[derive(Debug)]
pub(crate) struct HostPermit<'a> {
    gate: &'a HostGate,
    host: String,
}

impl Drop for HostPermit<'_> {
    fn drop(&mut self) {
        let mut hosts = self.gate.hosts.lock();
        if let Some(h) = hosts.get_mut(&self.host) {
            h.in_flight -= 1;
        }
        drop(hosts);
        self.gate.room.notify_all();
    }
}

fn interval_of(per_second: f64) -> Duration {
    if per_second > 0.0 {
        Duration::from_secs_f64(1.0 / per_second)
    } else {
        Duration::ZERO
    }
}

impl HostGate {
    /// A gate allowing `per_second` request starts per host (0 = unlimited) and
    /// `max_in_flight` concurrent requests per host (0 = unlimited), unless a rule says
    /// otherwise for a host.
    pub(crate) fn new(
        per_second: f64,
        max_in_flight: usize,
        rules: HostRules,
        cancel: CancelHandle,
    ) -> Self {
        HostGate {
            hosts: Mutex::new(HashMap::new()),
            room: Condvar::new(),
            per_second,
            max_in_flight,
            rules,
            cancel,
        }
    }

    fn state<'m>(
        &self,
        hosts: &'m mut HashMap<String, HostState>,
        host: &str,
    ) -> &'m mut HostState {
        hosts.entry(host.to_owned()).or_insert_with(|| HostState {
            next_slot: Instant::now(),
            interval: interval_of(self.rules.rate(host, self.per_second)),
            max_in_flight: self.rules.concurrency(host, self.max_in_flight),
            in_flight: 0,
            requests: 0,
            waited: Duration::ZERO,
            retries: 0,
            overloaded: 0,
            first: None,
            last: None,
        })
    }

    /// Blocks until a request to `host` may start, then returns its permit. Returns `None`
    /// when the run was cancelled meanwhile.
    pub(crate) fn wait_for_host(&self, host: &str) -> Option<HostPermit<'_>> {
        let due = {
            let mut hosts = self.hosts.lock();
            loop {
                if self.cancel.is_cancelled() {
                    return None;
                }
                let h = self.state(&mut hosts, host);
                if h.max_in_flight == 0 || h.in_flight < h.max_in_flight {
                    let now = Instant::now();
                    let due = h.next_slot.max(now);
                    h.next_slot = due + h.interval;
                    h.in_flight += 1;
                    h.requests += 1;
                    h.waited += due - now;
                    h.first.get_or_insert(due);
                    h.last = Some(due);
                    break due;
                }
                // Releases the lock while waiting; woken by a returned permit. The timeout only
                // bounds how late a cancel is noticed here.
                self.room.wait_for(&mut hosts, Duration::from_millis(100));
            }
        };
        let permit = HostPermit {
            gate: self,
            host: host.to_owned(),
        };
        // The sleep happens with no lock held.
        if due > Instant::now() && self.cancel.sleep_until(due) {
            return None;
        }
        Some(permit)
    }

    /// A 429 or 503 from `host`: no request to it starts before `until`. With `rate_limited`
    /// (a 429) the host's interval also doubles (at least [`RATE_LIMITED_INTERVAL`], at most
    /// [`MAX_HOST_INTERVAL`]) for the rest of the run.
    pub(crate) fn back_off(&self, host: &str, until: Instant, rate_limited: bool) {
        let mut hosts = self.hosts.lock();
        let h = self.state(&mut hosts, host);
        h.overloaded += 1;
        h.next_slot = h.next_slot.max(until);
        if rate_limited {
            h.interval = (h.interval * 2).clamp(RATE_LIMITED_INTERVAL, MAX_HOST_INTERVAL);
        }
    }

    /// Raises the host's interval to at least `delay` (robots.txt `Crawl-delay`).
    pub(crate) fn crawl_delay(&self, host: &str, delay: Duration) {
        let mut hosts = self.hosts.lock();
        let h = self.state(&mut hosts, host);
        h.interval = h.interval.max(delay.min(MAX_HOST_INTERVAL));
    }

    /// Counts a retry for statistics.
    pub(crate) fn note_retry(&self, host: &str) {
        let mut hosts = self.hosts.lock();
        self.state(&mut hosts, host).retries += 1;
    }

    /// Per-host statistics, sorted by host.
    pub(crate) fn stats(&self) -> Vec<HostStats> {
        let hosts = self.hosts.lock();
        let mut v: Vec<_> = hosts
            .iter()
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

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;
    use std::sync::Arc;
    use std::thread;

    fn gate(per_second: f64, in_flight: usize) -> HostGate {
        HostGate::new(
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
            stats[0].effective_rate > 15.0 && stats[0].effective_rate < 25.0,
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
        let gate = Arc::new(HostGate::new(0.1, 0, HostRules::default(), cancel.clone())); // 10 s apart
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
            crate::host_rules::HostRule::new(Regex::new("^slow:").unwrap())
                .max_requests_per_second(2.0),
        ]);
        let gate = HostGate::new(0.0, 0, rules, CancelHandle::new());
        drop(gate.wait_for_host("slow:80").unwrap());
        drop(gate.wait_for_host("fast:80").unwrap());
        let stats = gate.stats();
        assert_eq!(stats[0].interval, Duration::ZERO);
        assert_eq!(stats[1].interval, Duration::from_millis(500));
    }
}
