//! Memory per unique URL of the crawl frontier (target <= 512 B/URL at 1,000,000 URLs).
//!
//! Claims N distinct URLs into the result cache, each with the one occurrence that found it
//! (sharing its page's URL, as a crawl does), and queues each as a crawl task would be queued
//! (the parsed `Url` and its key), then prints the growth of the resident set per URL. Run:
//! `cargo bench --bench frontier_memory` (100,000 and 1,000,000 URLs) or with counts as
//! arguments: `cargo bench --bench frontier_memory -- 100000`. Linux only (reads
//! `/proc/self/statm`); the bench uses the system allocator, like any embedder of the library.

use std::sync::Arc;

use linkpatrol::internals::cache_key;
use linkpatrol::internals::{Cache, Queue};
use url::Url;

/// Resident set size in bytes, from `/proc/self/statm` (0 where it cannot be read).
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// Claims and queues `n` distinct URLs found on pages of 50 links each; returns bytes/URL.
fn frontier(n: usize) -> f64 {
    let before = rss_bytes();
    let cache = Cache::new();
    let queue: Queue<(Url, String)> = Queue::new();
    let mut parent: Arc<str> = Arc::from("https://example.org/index.html");
    for i in 0..n {
        if i % 50 == 0 {
            parent = Arc::from(format!(
                "https://example.org/section-{}/page-{i}.html",
                i % 97
            ));
        }
        let raw = format!("../section-{}/page-{i}.html", (i + 1) % 97);
        let url = Url::parse(&format!(
            "https://example.org/section-{}/page-{i}.html",
            (i + 1) % 97
        ))
        .expect("valid URL");
        let key = cache_key(&url);
        if cache.claim(&key, &parent, &raw) {
            queue.put((url, key));
        }
    }
    assert_eq!(cache.len(), n, "every URL is distinct");
    let after = rss_bytes();
    let per_url = after.saturating_sub(before) as f64 / n as f64;
    drop(queue);
    drop(cache);
    per_url
}

fn main() {
    // `cargo bench` passes `--bench`; every numeric argument is a count.
    let mut counts: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if counts.is_empty() {
        counts = vec![100_000, 1_000_000];
    }
    for n in counts {
        let per_url = frontier(n);
        let verdict = if per_url <= 512.0 { "within" } else { "OVER" };
        println!(
            "frontier_memory: {n} URLs claimed and queued: {per_url:.0} bytes/URL of resident \
             memory ({verdict} the 512 B/URL target)"
        );
    }
}
