//! Criterion bench of the joinable queue: put/get/task_done round trips, single-threaded and
//! with worker threads that are also producers (the crawler's shape).

use std::hint::black_box;
use std::sync::Arc;
use std::thread;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use linkpatrol::internals::Queue;

/// One thread: put then get then task_done, `n` times.
fn single_thread(n: u64) {
    let q = Queue::new();
    for i in 0..n {
        q.put(i);
        black_box(q.get());
        q.task_done();
    }
    assert!(q.join_now());
}

/// `threads` workers drain a binary tree of tasks in which every task puts its two children
/// before its task_done, until depth 0; the main thread joins.
fn tree(threads: usize, depth: u32) {
    let q = Arc::new(Queue::new());
    q.put(depth);
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let q = q.clone();
            thread::spawn(move || {
                while let Some(d) = q.get() {
                    if d > 0 {
                        q.put(d - 1);
                        q.put(d - 1);
                    }
                    q.task_done();
                }
            })
        })
        .collect();
    q.join();
    q.close();
    for w in workers {
        w.join().unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("queue");
    let n = 10_000u64;
    g.throughput(Throughput::Elements(n));
    g.bench_function("put_get_done_1_thread", |b| b.iter(|| single_thread(n)));
    let depth = 13; // 16383 tasks
    g.throughput(Throughput::Elements((1 << (depth + 1)) - 1));
    for threads in [1, 4, 16] {
        g.bench_with_input(
            BenchmarkId::new("tree_workers", threads),
            &threads,
            |b, &t| b.iter(|| tree(t, depth)),
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
