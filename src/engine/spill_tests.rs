//! The queue with a tiny memory share: every item is handed out once, in its lane's order,
//! from memory, the outbox and the disk, and the joinable count holds throughout.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use super::memory::MemoryBudget;
use super::queue::HostLaneQueue;
use super::queue_spill::{REFILL, SpillCodec};

fn codec() -> SpillCodec<String> {
    SpillCodec {
        size: |s| s.len() + 24,
        encode: |s, out| {
            out.extend_from_slice(s.as_bytes());
            true
        },
        decode: |b| String::from_utf8(b.to_vec()).ok(),
    }
}

/// A queue keeping `share` bytes of items in memory.
fn spilling(share: usize) -> (HostLaneQueue<String>, Arc<MemoryBudget>) {
    let budget = Arc::new(MemoryBudget::new(None, Some(share)));
    (
        HostLaneQueue::new().spilling(codec(), budget.clone()),
        budget,
    )
}

#[test]
fn a_spilled_queue_hands_out_every_item_once_in_each_lanes_order() {
    let (q, budget) = spilling(200);
    let hosts = ["a:80", "b:80", "c:80"];
    for i in 0..3_000 {
        let host = hosts[i % 3];
        q.put_for(Some(host.to_owned()), format!("{host} {i}"));
        if i % 6 == 0 {
            q.put_for(None, format!("local {i}"));
        }
    }
    assert!(budget.held() < 200 + 300 * 1024, "{}", budget.held());
    let (spilled, lost, error) = q.spill_report();
    assert!(spilled > 2_900, "{spilled}");
    assert_eq!((lost, error), (0, None));
    let mut last: HashMap<String, usize> = HashMap::new();
    let mut n = 0;
    while q.counts().0 > 0 {
        let item = q.get().expect("an item");
        let (lane, i) = item.split_once(' ').unwrap();
        let i: usize = i.parse().unwrap();
        if let Some(prev) = last.insert(lane.to_owned(), i) {
            assert!(prev < i, "{lane}: {i} after {prev}");
        }
        q.task_done();
        n += 1;
    }
    assert_eq!(n, 3_000 + 500);
    assert!(q.join(None));
    assert_eq!(q.unfinished(), 0);
}

#[test]
fn many_workers_over_a_spilled_queue_finish_every_item_and_join() {
    for threads in [1, 8] {
        let (q, _) = spilling(100);
        let q = Arc::new(q);
        // A tree: item n puts n children of depth n - 1 (3 levels of fan-out 40 and more).
        let done = Arc::new(AtomicUsize::new(0));
        for root in 0..40 {
            q.put_for(Some(format!("h{}", root % 4)), format!("2 {root}"));
        }
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (q, done) = (q.clone(), done.clone());
                thread::spawn(move || {
                    while let Some(item) = q.get() {
                        let depth: u32 = item.split(' ').next().unwrap().parse().unwrap();
                        if depth > 0 {
                            for c in 0..40 {
                                let child = format!("{} {item}/{c}", depth - 1);
                                q.put_for((c % 2 == 0).then(|| format!("h{c}")), child);
                            }
                        }
                        done.fetch_add(1, Ordering::SeqCst);
                        q.task_done();
                    }
                })
            })
            .collect();
        assert!(q.join(None));
        q.close();
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(
            done.load(Ordering::SeqCst),
            40 + 40 * 40 + 40 * 40 * 40,
            "{threads}"
        );
        assert!(q.spill_report().0 > 1_000, "{threads} threads");
    }
}

#[test]
fn shutdown_drops_the_spilled_items_from_the_count() {
    let (q, budget) = spilling(50);
    for i in 0..1_000 {
        q.put_for(Some("a:80".into()), format!("a {i}"));
    }
    let first = q.get().expect("an item");
    assert_eq!(first, "a 0");
    let dropped = q.shutdown();
    // The first get refilled the lane: a batch of at most `REFILL` is back in memory.
    assert!(dropped.len() <= REFILL, "in memory: {}", dropped.len());
    assert_eq!(q.unfinished(), 1, "only the item in progress");
    assert_eq!(budget.held(), 0);
    q.task_done();
    assert!(q.join(None));
}
