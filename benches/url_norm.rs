//! Criterion bench of URL handling per link: the cache key of an already-parsed URL, and the
//! whole per-link path (resolve the link against its page, then the cache key).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use linkpatrol::internals::cache_key;
use url::Url;

/// Links as pages write them: relative, absolute, with fragments, queries and escapes.
const LINKS: &[&str] = &[
    "../../std/primitive.usize.html",
    "struct.Vec.html#method.push",
    "https://example.org/docs/index.html",
    "/search?q=rust&page=2",
    "#line-123",
    "img/logo%2epng",
    "https://Example.ORG./a/%7Euser/b%2fc",
    "mailto:someone@example.org",
];

fn bench(c: &mut Criterion) {
    let page = Url::parse("https://example.org/std/vec/struct.Vec.html").unwrap();
    let parsed: Vec<Url> = LINKS.iter().map(|l| page.join(l).unwrap()).collect();
    let mut g = c.benchmark_group("url_norm");
    g.throughput(Throughput::Elements(LINKS.len() as u64));
    g.bench_function("cache_key", |b| {
        b.iter(|| {
            for u in &parsed {
                black_box(cache_key(black_box(u)));
            }
        })
    });
    g.bench_function("join_and_cache_key", |b| {
        b.iter(|| {
            for l in LINKS {
                let u = page.join(black_box(l)).unwrap();
                black_box(cache_key(&u));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
