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
