//! The politeness gate over the real work queue: intervals, caps, pauses and cancel, measured
//! with real threads and clocks.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use regex::Regex;

use super::queue::HostLaneQueue;
use crate::config::host_rules::HostRules;
use crate::model::cancel::CancelHandle;
use crate::policy::host_gate::HostGate;
use crate::policy::host_table::{HostTable, RATE_LIMITED_INTERVAL};

/// A gate with a table of its own (and an empty queue around it), for requests that are
/// not scheduled by a queue.
fn new_gate(
    per_second: f64,
    max_in_flight: usize,
    rules: HostRules,
    cancel: CancelHandle,
) -> HostGate {
    let table = HostTable::new(per_second, max_in_flight, rules, false);
    HostGate::over(Arc::new(HostLaneQueue::<()>::with_hosts(table, cancel)))
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
    // Slots are booked 50 ms apart from the first; a wait may end late, never early. (The gap
    // between two returns can be shorter when the first one ended late.)
    for (k, start) in starts.iter().enumerate() {
        let booked = Duration::from_millis(49) * k as u32;
        assert!(*start - t0 >= booked, "slot {k}: {:?}", *start - t0);
    }
    // host b's first slot is immediate although host a is booked ahead
    let _p = gate.wait_for_host("a:80").unwrap();
    let _q = gate.wait_for_host("b:80").unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(150));
    let stats = gate.stats();
    assert_eq!(stats[0].requests, 5);
    assert!(stats[0].waited >= Duration::from_millis(150));
    // host a is booked 250 ms past t0; host b did not wait for it
    assert_eq!((stats[1].requests, stats[1].waited), (1, Duration::ZERO));
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
