//! The joinable work queue: an unbounded FIFO of URLs to check plus the count of tasks that
//! are queued or in progress.
//!
//! # Termination invariant
//!
//! `unfinished_tasks` counts every item that was `put` and has not yet been marked with
//! [`UrlQueue::task_done`]. A worker calls `task_done` for an item only **after** it has put
//! every child that item produced. So while any item is in progress the count is at least 1,
//! and it reaches 0 only when no item is queued and none is being worked on — at which point no
//! new work can appear. [`UrlQueue::join`] waits for exactly that moment.
//!
//! # Shutdown
//!
//! [`UrlQueue::shutdown`] (abort, Ctrl-C) clears the queued items, lowers `unfinished_tasks` by
//! their number, wakes every waiter, and makes every later `put` a refused no-op. Refusal is
//! decided under the same lock as the flag, so no `put` can slip in after shutdown. Items in
//! progress still end with their `task_done`, so `join` then waits only for work in flight.
//!
//! The queue is unbounded on purpose: workers are also producers, and a bounded frontier
//! would deadlock when every worker blocks putting children into a full queue.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

/// The fields guarded by [`UrlQueue::state`].
#[derive(Debug)]
struct State<T> {
    /// Items waiting for a worker. Pushed by `put`, popped by `get`, cleared by `shutdown`.
    items: VecDeque<T>,
    /// Items put and not yet `task_done`: queued plus in progress. Raised by `put`, lowered by
    /// `task_done` and by `shutdown` (by the number of items it discards).
    unfinished_tasks: usize,
    /// Set once by `shutdown` or `close`; never cleared. When set, `put` refuses items.
    shut: bool,
    /// Set once by `close` or `shutdown`; `get` returns `None` once the queue is empty.
    closed: bool,
}

/// An unbounded, joinable FIFO queue shared by the worker threads.
#[derive(Debug)]
pub(crate) struct UrlQueue<T> {
    /// One lock for the items, the task count and the flags.
    state: Mutex<State<T>>,
    /// Signalled when an item is put or the queue is closed (wakes `get`).
    not_empty: Condvar,
    /// Signalled when `unfinished_tasks` reaches 0 or the queue shuts down (wakes `join`).
    all_done: Condvar,
}

impl<T> Default for UrlQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> UrlQueue<T> {
    /// An empty, open queue.
    pub(crate) fn new() -> Self {
        UrlQueue {
            state: Mutex::new(State {
                items: VecDeque::new(),
                unfinished_tasks: 0,
                shut: false,
                closed: false,
            }),
            not_empty: Condvar::new(),
            all_done: Condvar::new(),
        }
    }

    /// Adds an item and counts it as unfinished. Returns `false`, dropping the item, after
    /// [`shutdown`](Self::shutdown).
    pub(crate) fn put(&self, item: T) -> bool {
        let mut st = self.state.lock();
        if st.shut {
            return false;
        }
        st.items.push_back(item);
        st.unfinished_tasks += 1;
        drop(st);
        self.not_empty.notify_one();
        true
    }

    /// Takes the next item, blocking while the queue is empty. Returns `None` once the queue is
    /// closed (or shut down) and empty: the worker should then exit.
    pub(crate) fn get(&self) -> Option<T> {
        let mut st = self.state.lock();
        loop {
            if let Some(item) = st.items.pop_front() {
                return Some(item);
            }
            if st.closed {
                return None;
            }
            self.not_empty.wait(&mut st);
        }
    }

    /// Marks one item taken with `get` as finished. Call it only after every child of the item
    /// was put (see the module docs).
    pub(crate) fn task_done(&self) {
        let mut st = self.state.lock();
        // The caller has put all its children already, so reaching 0 here means the crawl is over.
        st.unfinished_tasks = st
            .unfinished_tasks
            .checked_sub(1)
            .expect("task_done called more often than put");
        if st.unfinished_tasks == 0 {
            self.all_done.notify_all();
        }
    }

    /// Waits until every put item is done. Returns `true` when the count reached 0, `false`
    /// when `timeout` passed first. `None` waits without limit.
    pub(crate) fn join(&self, timeout: Option<Duration>) -> bool {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = self.state.lock();
        while st.unfinished_tasks > 0 {
            match deadline {
                Some(d) => {
                    if self.all_done.wait_until(&mut st, d).timed_out() {
                        return st.unfinished_tasks == 0;
                    }
                }
                None => self.all_done.wait(&mut st),
            }
        }
        true
    }

    /// Waits until every put item is done or the queue was shut down, whichever comes first.
    pub(crate) fn wait_idle_or_shutdown(&self) {
        let mut st = self.state.lock();
        while st.unfinished_tasks > 0 && !st.shut {
            self.all_done.wait(&mut st);
        }
    }

    /// Stops the queue: discards queued items (returned to the caller so they can be counted),
    /// refuses later puts, and wakes every waiter. Idempotent.
    pub(crate) fn shutdown(&self) -> Vec<T> {
        let mut st = self.state.lock();
        let dropped: Vec<T> = st.items.drain(..).collect();
        st.unfinished_tasks -= dropped.len();
        st.shut = true;
        st.closed = true;
        drop(st);
        self.not_empty.notify_all();
        self.all_done.notify_all();
        dropped
    }

    /// Lets idle workers exit: once empty, `get` returns `None`. Used after `join` succeeded.
    pub(crate) fn close(&self) {
        let mut st = self.state.lock();
        st.closed = true;
        st.shut = true;
        drop(st);
        self.not_empty.notify_all();
    }

    /// Items waiting and items put but not yet done, read together.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let st = self.state.lock();
        (st.items.len(), st.unfinished_tasks)
    }

    /// Number of items put and not yet done.
    pub(crate) fn unfinished(&self) -> usize {
        self.state.lock().unfinished_tasks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;

    #[test]
    fn fifo_and_join() {
        let q = UrlQueue::new();
        assert!(q.join(Some(Duration::ZERO)), "empty queue is joined");
        q.put(1);
        q.put(2);
        assert_eq!(q.unfinished(), 2);
        assert_eq!(q.get(), Some(1));
        assert_eq!(q.get(), Some(2));
        q.task_done();
        assert!(!q.join(Some(Duration::from_millis(1))));
        q.task_done();
        assert!(q.join(Some(Duration::ZERO)));
    }

    /// Many threads that are both consumers and producers: each item n > 0 puts two children
    /// n-1 before its task_done. The total processed must be exact and join must not return early.
    #[test]
    fn producers_and_consumers_tree() {
        for threads in [1, 4, 16] {
            let q = Arc::new(UrlQueue::new());
            let processed = Arc::new(AtomicUsize::new(0));
            let depth = 10u32; // 2^11 - 1 nodes
            q.put(depth);
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    let (q, processed) = (q.clone(), processed.clone());
                    thread::spawn(move || {
                        while let Some(n) = q.get() {
                            if n > 0 {
                                q.put(n - 1);
                                q.put(n - 1);
                            }
                            processed.fetch_add(1, Ordering::SeqCst);
                            q.task_done();
                        }
                    })
                })
                .collect();
            assert!(q.join(Some(Duration::from_secs(30))));
            // join returned: every node was processed, none can still be in flight.
            assert_eq!(processed.load(Ordering::SeqCst), (1 << (depth + 1)) - 1);
            q.close();
            for w in workers {
                w.join().unwrap();
            }
        }
    }

    #[test]
    fn join_timeout_returns_on_time() {
        let q = UrlQueue::new();
        q.put(());
        let t = Instant::now();
        assert!(!q.join(Some(Duration::from_millis(100))));
        let e = t.elapsed();
        assert!(e >= Duration::from_millis(100), "{e:?}");
        assert!(e < Duration::from_secs(2), "{e:?}");
    }

    #[test]
    fn shutdown_wakes_every_waiter_and_refuses_puts() {
        let q = Arc::new(UrlQueue::<u32>::new());
        q.put(7);
        assert_eq!(q.get(), Some(7)); // one item in progress
        q.put(8); // one queued
        let getters: Vec<_> = (0..4)
            .map(|_| {
                let q = q.clone();
                thread::spawn(move || q.get())
            })
            .collect();
        let joiner = {
            let q = q.clone();
            thread::spawn(move || q.join(None))
        };
        let dropped = q.shutdown();
        // one getter may have taken item 8 before shutdown; the rest see None
        let got: Vec<_> = getters.into_iter().map(|g| g.join().unwrap()).collect();
        assert_eq!(got.iter().flatten().count() + dropped.len(), 1);
        assert!(!q.put(9), "put after shutdown is refused");
        for _ in got.iter().flatten() {
            q.task_done();
        }
        q.task_done(); // the in-progress item 7 finishes
        assert!(joiner.join().unwrap());
        assert_eq!(q.unfinished(), 0);
    }
}
