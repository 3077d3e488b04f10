//! Internals for the criterion benches and the fuzz targets, behind the `internals` feature:
//! the joinable queue, the result cache and the cache key. Not part of the stable API.

use std::time::Duration;

use url::Url;

use crate::engine::queue::HostLaneQueue;

/// The result cache's key of `url`: its normalised form without fragment.
pub fn cache_key(url: &Url) -> String {
    crate::policy::url_norm::cache_key(url)
}

/// A thin wrapper around the crawler's joinable queue.
#[derive(Debug, Default)]
pub struct Queue<T>(HostLaneQueue<T>);

impl<T> Queue<T> {
    /// An empty queue.
    pub fn new() -> Self {
        Queue(HostLaneQueue::new())
    }
    /// See the queue module: adds an item.
    pub fn put(&self, item: T) -> bool {
        self.0.put(item)
    }
    /// Takes an item, blocking; `None` once closed and empty.
    pub fn get(&self) -> Option<T> {
        self.0.get()
    }
    /// Marks a taken item done.
    pub fn task_done(&self) {
        self.0.task_done()
    }
    /// Waits until every item is done.
    pub fn join(&self) -> bool {
        self.0.join(None)
    }
    /// `true` when every item is done already.
    pub fn join_now(&self) -> bool {
        self.0.join(Some(Duration::ZERO))
    }
    /// Lets idle getters return `None`.
    pub fn close(&self) {
        self.0.close()
    }
}

/// The result cache, for `benches/cache.rs` and `benches/frontier_memory.rs`.
#[derive(Debug, Default)]
pub struct Cache(crate::engine::cache::ResultCache);

impl Cache {
    /// An empty cache.
    pub fn new() -> Self {
        Cache::default()
    }

    /// Claims `key` with one occurrence found on `parent`, written as `raw`, as a crawl does.
    /// `true` when the key was new (the caller would queue it).
    pub fn claim(&self, key: &str, parent: &std::sync::Arc<str>, raw: &str) -> bool {
        let occurrence = crate::engine::cache::Occurrence::at_top_of(parent.clone(), raw);
        matches!(
            self.0.claim(key, occurrence),
            crate::engine::cache::Claim::New
        )
    }

    /// Finishes `key` as a good link; returns how many occurrences it handed back.
    pub fn finish_ok(&self, key: &str) -> usize {
        let result = crate::model::outcome::CheckResult::immediate(
            key.to_owned(),
            crate::model::outcome::Outcome::Ok { status: Some(200) },
            0,
        );
        self.0
            .finish(key, result)
            .iter()
            .map(|(_, o)| o.len())
            .sum()
    }

    /// Keys claimed so far.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `true` when nothing was claimed.
    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }
}
