//! The cancel handle: one thread trips it, every part of a run notices.
//!
//! Tripping it sets a flag (read by workers between URLs), wakes every politeness sleep at
//! once, and runs the hooks a running check registered (the checker registers one that shuts
//! the queue). It is the library's only stop mechanism: signal handling belongs to the binary.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

type Hook = Box<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct Inner {
    /// Set by `cancel`; cleared by `reset` when the cancelled run has returned. SeqCst: it is read rarely and must order with the
    /// hooks list, so there is nothing to gain from a weaker ordering.
    cancelled: AtomicBool,
    /// Hooks to run on cancel, with their registration ids. Guarded for bookkeeping only: hooks
    /// are taken out and run after the lock is released.
    hooks: Mutex<Vec<(u64, Hook)>>,
    /// Source of hook ids.
    next_id: AtomicU64,
    /// Paired with `sleepers` to wake interruptible sleeps.
    sleep_lock: Mutex<()>,
    /// Notified (all) by `cancel`.
    sleepers: Condvar,
}

/// A handle that stops a running check from another thread. `Send + Sync + Clone`; every clone
/// trips the same run.
///
/// After [`cancel`](Self::cancel), the run stops taking new URLs, waits up to its abort
/// timeout for URLs in flight, interrupts what is left, and returns a report marked
/// interrupted with every result finished so far. The run clears the handle as it returns, so
/// a later run of the same checker is not cancelled too; a cancel while no run is going on
/// stops the next run at once.
#[derive(Clone, Default)]
pub struct CancelHandle {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CancelHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelHandle")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// Removes a hook when dropped.
#[derive(Debug)]
pub(crate) struct HookGuard {
    handle: CancelHandle,
    id: u64,
}

impl Drop for HookGuard {
    fn drop(&mut self) {
        self.handle
            .inner
            .hooks
            .lock()
            .retain(|(id, _)| *id != self.id);
    }
}

impl CancelHandle {
    /// A new, untripped handle.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trips the handle. Idempotent; returns at once.
    pub fn cancel(&self) {
        if self.inner.cancelled.swap(true, Ordering::SeqCst) {
            return;
        }
        {
            let _g = self.inner.sleep_lock.lock();
            self.inner.sleepers.notify_all();
        }
        let hooks = std::mem::take(&mut *self.inner.hooks.lock());
        for (_, hook) in &hooks {
            hook();
        }
    }

    /// Clears the flag once a cancelled run has returned, so the next run of the same checker
    /// starts afresh (called by `Checker::run_with` on its way out).
    pub(crate) fn reset(&self) {
        self.inner.cancelled.store(false, Ordering::SeqCst);
    }

    /// `true` once [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Runs `hook` on cancel (at once if already cancelled). The hook is removed when the
    /// returned guard drops.
    pub(crate) fn on_cancel(&self, hook: impl Fn() + Send + Sync + 'static) -> HookGuard {
        let id = self.inner.next_id.fetch_add(1, Ordering::SeqCst);
        self.inner.hooks.lock().push((id, Box::new(hook)));
        if self.is_cancelled() {
            // cancel() may have taken the list before our push: run whatever is still ours.
            let mine: Vec<_> = {
                let mut hooks = self.inner.hooks.lock();
                let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut *hooks)
                    .into_iter()
                    .partition(|(i, _)| *i == id);
                *hooks = rest;
                mine
            };
            for (_, hook) in &mine {
                hook();
            }
        }
        HookGuard {
            handle: self.clone(),
            id,
        }
    }

    /// Sleeps until `deadline` or until cancelled, whichever comes first. Returns `true` when
    /// it was cancelled.
    pub(crate) fn sleep_until(&self, deadline: Instant) -> bool {
        let mut g = self.inner.sleep_lock.lock();
        while !self.is_cancelled() {
            if self.inner.sleepers.wait_until(&mut g, deadline).timed_out() {
                break;
            }
        }
        self.is_cancelled()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[test]
    fn cancel_wakes_sleepers_and_runs_hooks() {
        let h = CancelHandle::new();
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let _guard = h.on_cancel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        });
        let h2 = h.clone();
        let t = Instant::now();
        let sleeper =
            std::thread::spawn(move || h2.sleep_until(Instant::now() + Duration::from_secs(30)));
        h.cancel();
        h.cancel();
        assert!(sleeper.join().unwrap());
        assert!(t.elapsed() < Duration::from_secs(5));
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        // a hook registered after cancel runs at once
        let r = ran.clone();
        let _g2 = h.on_cancel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(ran.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn sleep_without_cancel_lasts() {
        let h = CancelHandle::new();
        let t = Instant::now();
        assert!(!h.sleep_until(t + Duration::from_millis(50)));
        assert!(t.elapsed() >= Duration::from_millis(50));
    }
}
