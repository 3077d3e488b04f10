//! Criterion bench of the result cache: claiming new keys (first sight of a URL), claiming
//! keys already checked (the common case: a link seen before), and claims from several
//! threads at once on one mutex, as the workers make them.

use std::hint::black_box;
use std::sync::Arc;
use std::thread;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use linkpatrol::internals::Cache;

fn keys(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("https://example.org/section-{}/page-{i}.html", i % 97))
        .collect()
}

fn bench(c: &mut Criterion) {
    let parent: Arc<str> = Arc::from("https://example.org/index.html");
    let keys = keys(10_000);
    let mut g = c.benchmark_group("cache");
    g.throughput(Throughput::Elements(keys.len() as u64));
    g.bench_function("claim_new", |b| {
        b.iter(|| {
            let cache = Cache::new();
            for k in &keys {
                black_box(cache.claim(k, &parent, "page.html"));
            }
            cache
        })
    });
    let done = Arc::new(checked_cache(&keys, &parent));
    g.bench_function("claim_done", |b| {
        b.iter(|| {
            for k in &keys {
                black_box(done.claim(k, &parent, "page.html"));
            }
        })
    });
    for threads in [2, 8] {
        g.bench_with_input(
            BenchmarkId::new("claim_done_threads", threads),
            &threads,
            |b, &threads| {
                // Thread start-up is part of each iteration; 10,000 claims dwarf it.
                let keys = Arc::new(keys.clone());
                b.iter(|| {
                    let hs: Vec<_> = (0..threads)
                        .map(|t| {
                            let (done, keys, parent) = (done.clone(), keys.clone(), parent.clone());
                            thread::spawn(move || {
                                for k in keys.iter().skip(t).step_by(threads) {
                                    black_box(done.claim(k, &parent, "page.html"));
                                }
                            })
                        })
                        .collect();
                    for h in hs {
                        h.join().unwrap();
                    }
                })
            },
        );
    }
    g.finish();
}

/// A cache with every key of `keys` claimed and checked.
fn checked_cache(keys: &[String], parent: &Arc<str>) -> Cache {
    let c = Cache::new();
    for k in keys {
        c.claim(k, parent, "page.html");
        c.finish_ok(k);
    }
    c
}

criterion_group!(benches, bench);
criterion_main!(benches);
