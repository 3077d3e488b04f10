//! Internals exposed for the criterion benches only (`benches/queue.rs`). Not part of the
//! stable API: hidden from the docs and may change at any time.

use std::time::Duration;

use crate::queue::UrlQueue;

/// A thin wrapper around the crawler's joinable queue.
#[derive(Debug, Default)]
pub struct Queue<T>(UrlQueue<T>);

impl<T> Queue<T> {
    /// An empty queue.
    pub fn new() -> Self {
        Queue(UrlQueue::new())
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
pub struct Cache(crate::cache::ResultCache);

impl Cache {
    /// An empty cache.
    pub fn new() -> Self {
        Cache::default()
    }

    /// Claims `key` with one occurrence found on `parent`, written as `raw`, as a crawl does.
    /// `true` when the key was new (the caller would queue it).
    pub fn claim(&self, key: &str, parent: &std::sync::Arc<str>, raw: &str) -> bool {
        let occurrence = crate::cache::Occurrence::at_top_of(parent.clone(), raw);
        matches!(self.0.claim(key, occurrence), crate::cache::Claim::New)
    }

    /// Finishes `key` as a good link; returns how many occurrences it handed back.
    pub fn finish_ok(&self, key: &str) -> usize {
        let result = crate::outcome::CheckResult::immediate(
            key.to_owned(),
            crate::outcome::Outcome::Ok { status: Some(200) },
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
