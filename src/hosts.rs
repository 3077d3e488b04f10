//! Per-host politeness: a minimum interval between requests and a cap on requests in flight.
//!
//! [`HostGate::wait_for_host`] reserves the host's next request slot under the gate's lock and
//! sleeps **after** releasing it, so a thread waiting for a slow host never delays a thread
//! bound for another host. Every redirect hop and every retry goes through it again.
//!
//! The in-flight cap is a counter per host; a thread over the cap waits on the gate's condvar
//! (which releases the lock while waiting) and the [`HostPermit`] it finally gets lowers the
//! counter when dropped, even on panic.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::cancel::CancelHandle;

/// Politeness bookkeeping for one host. All fields are guarded by [`HostGate::hosts`].
#[derive(Debug)]
struct HostState {
    /// The earliest instant at which the next request to this host may start. Moved forward
    /// by `interval` each time a thread reserves a slot.
    next_slot: Instant,
    /// Requests holding a permit now. Raised by `wait_for_host`, lowered by `HostPermit::drop`.
    in_flight: usize,
    /// Requests made (slots reserved) so far, for statistics.
    requests: u64,
    /// Total time threads slept waiting for this host's slots.
    waited: Duration,
}

/// Per-host request slots and in-flight caps, shared by all workers of one run.
#[derive(Debug)]
pub(crate) struct HostGate {
    /// Host key (`host:port`) → state. Held only to read and update numbers; never across a
    /// sleep or a request.
    hosts: Mutex<HashMap<String, HostState>>,
    /// Notified when a permit is returned (a host may have room again).
    room: Condvar,
    /// Minimum time between two request starts to one host; zero means no limit.
    interval: Duration,
    /// Maximum requests in flight per host; 0 means no limit.
    max_in_flight: usize,
    /// Wakes sleeps early when the run is cancelled.
    cancel: CancelHandle,
}

/// Statistics of one host at the end of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostStats {
    /// The host key (`host:port`).
    pub host: String,
    /// Requests made to it (every redirect hop counts).
    pub requests: u64,
    /// Total time threads spent waiting for its politeness slots.
    pub waited: Duration,
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

impl HostGate {
    /// A gate allowing `per_second` request starts per host (0 = unlimited) and
    /// `max_in_flight` concurrent requests per host (0 = unlimited).
    pub(crate) fn new(per_second: f64, max_in_flight: usize, cancel: CancelHandle) -> Self {
        let interval = if per_second > 0.0 {
            Duration::from_secs_f64(1.0 / per_second)
        } else {
            Duration::ZERO
        };
        HostGate {
            hosts: Mutex::new(HashMap::new()),
            room: Condvar::new(),
            interval,
            max_in_flight,
            cancel,
        }
    }

    /// Blocks until a request to `host` may start, then returns its permit. Returns `None`
    /// when the run was cancelled meanwhile.
    pub(crate) fn wait_for_host(&self, host: &str) -> Option<HostPermit<'_>> {
        let now = Instant::now();
        let due = {
            let mut hosts = self.hosts.lock();
            loop {
                if self.cancel.is_cancelled() {
                    return None;
                }
                let h = hosts.entry(host.to_owned()).or_insert_with(|| HostState {
                    next_slot: now,
                    in_flight: 0,
                    requests: 0,
                    waited: Duration::ZERO,
                });
                if self.max_in_flight == 0 || h.in_flight < self.max_in_flight {
                    let now = Instant::now();
                    let due = h.next_slot.max(now);
                    h.next_slot = due + self.interval;
                    h.in_flight += 1;
                    h.requests += 1;
                    h.waited += due - now;
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

    /// Per-host statistics, sorted by host.
    pub(crate) fn stats(&self) -> Vec<HostStats> {
        let hosts = self.hosts.lock();
        let mut v: Vec<_> = hosts
            .iter()
            .map(|(k, h)| HostStats {
                host: k.clone(),
                requests: h.requests,
                waited: h.waited,
            })
            .collect();
        v.sort_by(|a, b| a.host.cmp(&b.host));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn interval_spaces_one_host_but_not_another() {
        let gate = Arc::new(HostGate::new(20.0, 0, CancelHandle::new())); // 50 ms apart
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
        assert!(tb.elapsed() < Duration::from_millis(40));
        assert!(t0.elapsed() >= Duration::from_millis(150));
        let stats = gate.stats();
        assert_eq!(stats[0].requests, 5);
        assert!(stats[0].waited >= Duration::from_millis(150));
    }

    #[test]
    fn a_sleeping_host_does_not_block_other_hosts() {
        let gate = Arc::new(HostGate::new(1.0, 0, CancelHandle::new())); // 1 s apart
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
        let gate = Arc::new(HostGate::new(0.0, 2, CancelHandle::new()));
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
        let gate = Arc::new(HostGate::new(0.1, 0, cancel.clone())); // 10 s apart
        drop(gate.wait_for_host("h:80").unwrap());
        let g = gate.clone();
        let t = Instant::now();
        let waiter = thread::spawn(move || g.wait_for_host("h:80").is_none());
        cancel.cancel();
        assert!(waiter.join().unwrap());
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}
