//! [`Checker`]: the public, blocking entry point. It spawns the worker threads, feeds the start
//! inputs, streams [`Entry`]s to the caller's thread as they finish, and ends the run — normally
//! when the queue is joined, or on cancel after the abort timeout.
//!
//! # Shutdown protocol
//! 1. A supervisor thread waits until the queue is idle (`unfinished_tasks == 0`) or shut down
//!    (cancel runs `queue.shutdown` through a cancel hook, discarding queued URLs).
//! 2. After a cancel it joins the queue for at most the abort timeout (URLs in flight may
//!    finish and are reported); then it closes every connection (`Agent::shutdown`) so blocked
//!    requests fail at once, and joins again briefly.
//! 3. It closes the queue (idle workers exit) and sends `Finished`. The caller's thread stops
//!    reading there, so a worker stuck beyond all of that (a DNS lookup cannot be interrupted)
//!    can never hold the report back; such a worker is left to end on its own.
//! 4. After a cancel, the caller's thread reports the redirects still waiting on a URL that was
//!    never checked (as not checked), then reads the URL counts from one snapshot of the cache:
//!    every claimed URL either has a reported verdict or is unchecked.
//! 5. A run of more than `BACKGROUND_RELEASE_URLS` URLs is freed on a detached thread
//!    (`release`), so tearing down millions of URLs holds back neither the report nor an exit.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;

use super::assemble::{Start, assemble, start_of};
use crate::config::Config;
use crate::engine::progress::ProgressHandle;
use crate::engine::run::{Message, Run};
use crate::engine::state_sink::StateSink;
use crate::fetch::Fetch;
use crate::model::cancel::CancelHandle;
use crate::model::error::{Error, ErrorKind};
use crate::model::outcome::Entry;
use crate::model::run_report::Report;
use crate::model::stats::Tally;

/// How long the result stream may pause before `run_with_idle` calls its `on_idle` (50 ms).
pub const IDLE_INTERVAL: Duration = Duration::from_millis(50);

/// How long a cancelled run waits, after interrupting connections, for workers to notice.
const INTERRUPT_GRACE: Duration = Duration::from_secs(2);

/// Messages the result channel holds before a worker waits for the consumer. Enough to ride
/// out a slow write of the consumer; small enough that a backlog costs a few MB, not the 226 MB
/// an unbounded channel piled up on a 2.9M-link folder.
const RESULT_CHANNEL_CAPACITY: usize = 4096;

/// The result channel's capacity when a state file is kept: what waits in the channel is lost
/// by a kill (`--resume` requests it again), so a consumer that falls behind (on a loaded
/// machine, 32 parsing workers leave it little CPU) holds the workers back after a few
/// messages per worker instead of after thousands of them. But at 32 messages the workers
/// waited on the channel: while the consumer sleeps a tick ([`DRAIN_TICK`]) they fill it and
/// stop, which caps a run at about a channel's worth of rows per tick. Measured:
/// - the first run of the 20,000-page site (`-t 32`, 7 alternating rounds, medians) took
///   1.26x a run without a state file at 32, 1.23x at 32 without the tick's sleep, 1.13x at
///   256 and 1.13x at 4,096;
/// - kill -9 of the 2,000-page site (`-t 32`) after ~1,100 requests, then `--resume`; URLs
///   requested in both runs: median 42 at 32 (27–62, 5 runs) against 46 at 256 in the same
///   alternating series (43–65), 47 at 256 over 15 runs (35–104); an older series had 44.5
///   at 32 and 65 at 256.
const STATE_RESULT_CHANNEL_CAPACITY: usize = 256;

/// While rows keep arriving, the consumer takes what piled up once per tick instead of being
/// woken for each row: a worker's send then costs no system call, where a wake-up per row
/// (one per checked URL) cost a fifth of a folder check's time in futex calls and context
/// switches. Rows wait at most this long. A drain that found half the channel's capacity or
/// more does not sleep: the workers fill it faster than a tick, and a sleep would hold them
/// back (a small channel, as with a state file, would then limit the run to a channel's worth
/// of rows per tick).
const DRAIN_TICK: Duration = Duration::from_millis(2);

/// A configured check, ready to run. `Send + Sync`; [`run`](Self::run) may be called more than
/// once (each run starts afresh).
#[derive(Debug)]
pub struct Checker {
    pub(super) config: Config,
    pub(super) starts: Vec<Start>,
    cancel: CancelHandle,
    progress: ProgressHandle,
    /// A fetcher in place of the run's `Router`: set only by the engine's tests.
    pub(super) fetch_override: Option<Arc<dyn Fetch>>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Checker>();
    assert_send_sync::<CancelHandle>();
    assert_send_sync::<Report>();
};

impl Checker {
    /// Validates the configuration and its inputs.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidInput`] when there is no input, an input is neither a URL nor an
    /// existing path, or its scheme cannot be crawled. [`ErrorKind::InvalidConfig`] when
    /// [`Config::proxy`] is not an http(s) proxy URL, a duration exceeds
    /// [`MAX_DURATION`](crate::config::MAX_DURATION), the timeout is 0, or a request rate
    /// implies more than that between two requests.
    pub fn new(config: Config) -> Result<Self, Error> {
        config.validate()?;
        if config.inputs.is_empty()
            && config.found_links.is_empty()
            && config.reused.is_empty()
            && config.shard.is_none()
        {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "nothing to check: give a URL or a path",
            ));
        }
        let starts = config
            .inputs
            .iter()
            .map(start_of)
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(proxy) = &config.proxy {
            crate::fetch::http::parse_proxy(proxy)
                .map_err(|m| Error::new(ErrorKind::InvalidConfig, m))?;
        }
        Ok(Checker {
            config,
            starts,
            cancel: CancelHandle::new(),
            progress: ProgressHandle::default(),
            fetch_override: None,
        })
    }

    /// Uses `fetch` for every URL instead of the network and the disk (engine tests).
    #[cfg(test)]
    pub(crate) fn with_fetch(mut self, fetch: Arc<dyn Fetch>) -> Self {
        self.fetch_override = Some(fetch);
        self
    }

    /// Uses `handle` (shared with other code) instead of the checker's own cancel handle.
    pub fn with_cancel_handle(mut self, handle: CancelHandle) -> Self {
        self.cancel = handle;
        self
    }

    /// A handle that cancels this checker's runs from any thread.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// A handle that reads the live progress of this checker's runs from any thread.
    pub fn progress(&self) -> ProgressHandle {
        self.progress.clone()
    }

    /// Runs the check to the end (or until cancelled) and returns the report.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] when a worker thread cannot be spawned. [`ErrorKind::InvalidConfig`]
    /// when [`Config::resume`](crate::Config::resume) would continue a run that was started
    /// with other options deciding what is checked (the message names the first one).
    pub fn run(&self) -> Result<Report, Error> {
        self.run_with(|_| {})
    }

    /// Like [`run`](Self::run), calling `on_entry` on the caller's thread for every entry as
    /// soon as it is known.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] when a worker thread cannot be spawned. [`ErrorKind::InvalidConfig`]
    /// when [`Config::resume`](crate::Config::resume) would continue a run that was started
    /// with other options deciding what is checked (the message names the first one).
    pub fn run_with(&self, on_entry: impl FnMut(&Entry)) -> Result<Report, Error> {
        self.run_with_idle(on_entry, || {})
    }

    /// Like [`run_with`](Self::run_with), also calling `on_idle` on the caller's thread each
    /// time no entry has arrived for [`IDLE_INTERVAL`] (so again and again while a run waits on
    /// slow servers). A consumer that buffers its output flushes it there: a finished row then
    /// reaches its file even when the run hangs afterwards, or is killed.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] when a worker thread cannot be spawned. [`ErrorKind::InvalidConfig`]
    /// when [`Config::resume`](crate::Config::resume) would continue a run that was started
    /// with other options deciding what is checked (the message names the first one).
    pub fn run_with_idle(
        &self,
        mut on_entry: impl FnMut(&Entry),
        mut on_idle: impl FnMut(),
    ) -> Result<Report, Error> {
        let started = Instant::now();
        let cfg = &self.config;
        let cancel = self.cancel.clone();
        let capacity = if cfg.state.file.is_some() {
            STATE_RESULT_CHANNEL_CAPACITY
        } else {
            RESULT_CHANNEL_CAPACITY
        };
        let (tx, rx) = crossbeam_channel::bounded(capacity);
        let mut run = assemble(
            cfg,
            &self.starts,
            self.fetch_override.as_ref(),
            &cancel,
            tx.clone(),
        )?;
        // Read before the first worker starts; this thread is the state file's only writer.
        let (remembered, state, state_warnings) =
            StateSink::open(cfg).map_err(|m| Error::new(ErrorKind::InvalidConfig, m))?;
        // Used by `take` and by the idle branch below, one at a time, on this thread only.
        let state = RefCell::new(state);
        run.remembered = remembered;
        let run = Arc::new(run);
        self.progress.attach(&run, started);
        let _hook = {
            // The URLs it discards stay pending in the cache: counted as unchecked at the end.
            let run = run.clone();
            cancel.on_cancel(move || {
                run.queue.shutdown();
            })
        };
        let threads = self.worker_count();
        let mut workers = Vec::with_capacity(threads);
        for i in 0..threads {
            let worker_run = run.clone();
            let spawned = thread::Builder::new()
                .name(format!("linkpatrol-worker-{i}"))
                .spawn(move || worker_run.work());
            match spawned {
                Ok(h) => workers.push(h),
                Err(e) => {
                    cancel.cancel();
                    run.queue.close();
                    return Err(Error::new(
                        ErrorKind::Io,
                        format!("cannot start a worker thread: {e}"),
                    ));
                }
            }
        }
        let abort_timeout = cfg.abort_timeout;
        let supervisor = {
            let (run, cancel) = (run.clone(), cancel.clone());
            let starts = self.starts.clone();
            // Lowest level first: a URL exported from pages at several levels is claimed at the
            // lowest, as a crawl, which reaches shallow pages first, mostly claims it (the
            // files' order would otherwise decide the result's level).
            let mut found = cfg.found_links.clone();
            found.sort_by_key(|link| link.level);
            let reused = cfg.reused.clone();
            thread::Builder::new()
                .name("linkpatrol-supervisor".into())
                .spawn(move || {
                    // Seeding can send rows (a start URL that is ignored, or given twice); the
                    // channel is bounded, so that must not happen on the consumer's thread
                    // before it reads. The queue cannot look idle before the last seed: only
                    // this thread waits for idleness, after seeding.
                    for s in starts {
                        run.seed(s.url, s.inline);
                    }
                    for result in reused {
                        run.seed_reused(&result);
                    }
                    for link in found {
                        run.seed_found(link);
                    }
                    run.queue.wait_idle_or_shutdown();
                    let mut idle = run.queue.unfinished() == 0;
                    if !idle && cancel.is_cancelled() {
                        idle = run.queue.join(Some(abort_timeout));
                        if !idle {
                            run.fetch.interrupt();
                            idle = run.queue.join(Some(INTERRUPT_GRACE));
                        }
                    }
                    run.queue.close();
                    let _ = run.tx.send(Message::Finished);
                    idle
                })
                .map_err(|e| Error::new(ErrorKind::Io, format!("cannot start a thread: {e}")))?
        };
        drop(tx);

        let mut report = Report {
            state_warnings,
            ..Report::default()
        };
        let mut tally = Tally::default();
        let mut take = |msg: Message, tally: &mut Tally| match msg {
            Message::Entry(e) => {
                on_entry(&e);
                // An exported link is another shard's to check and count.
                if e.result.exported_to.is_none() {
                    tally.add(&e);
                }
                state.borrow_mut().entry(&e);
                if state.borrow().fails(&e)
                    || (cfg.fail_on_blocked && e.result.outcome.is_blocked())
                {
                    report.failing += 1;
                }
                if cfg.keep_entries {
                    report.entries.push(e);
                }
            }
            Message::Counted(r) => {
                tally.add_url(&r);
                state.borrow_mut().result(&r);
            }
            Message::Page(key, page) => state.borrow_mut().page(key, page),
            Message::Robots(origin, body) => state.borrow_mut().robots(origin, body),
            Message::Unlinked(r) => state.borrow_mut().result(&r),
            Message::Finished => {}
        };
        'stream: loop {
            match rx.recv_timeout(IDLE_INTERVAL) {
                Ok(Message::Finished) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(msg) => take(msg, &mut tally),
                Err(RecvTimeoutError::Timeout) => {
                    on_idle();
                    state.borrow_mut().tick();
                    continue;
                }
            }
            // Busy: drain once per tick (at once while the channel fills up faster, see
            // `DRAIN_TICK`) until a drain brings nothing, then block again.
            loop {
                let mut got = 0;
                for msg in rx.try_iter() {
                    if matches!(msg, Message::Finished) {
                        break 'stream;
                    }
                    take(msg, &mut tally);
                    got += 1;
                }
                // Group commit: the channel is momentarily empty, so what was taken goes to
                // the state file's writer thread now, before this thread sleeps (a kill then
                // loses only the results still in flight; see `StateSink::commit`).
                state.borrow_mut().commit();
                if got == 0 {
                    break;
                }
                if got < capacity / 2 {
                    thread::sleep(DRAIN_TICK);
                }
            }
        }
        let all_idle = supervisor.join().unwrap_or(false);
        if cancel.is_cancelled() {
            // Redirects deferred on URLs the cancel left unchecked are reported now, with any
            // row a worker sent after `Finished`.
            // The channel is bounded and this thread is its only reader: the rows of
            // `abandon_waiting` are sent from another thread while this one drains them.
            thread::scope(|scope| {
                let abandon = scope.spawn(|| run.abandon_waiting());
                while !abandon.is_finished() {
                    if let Ok(msg) = rx.recv_timeout(Duration::from_millis(10)) {
                        take(msg, &mut tally);
                    }
                }
            });
            for msg in rx.try_iter() {
                take(msg, &mut tally);
            }
        }
        if all_idle {
            for w in workers {
                // A worker panic is caught per URL; a panic here is outside that and is ignored
                // so the report still comes back.
                let _ = w.join();
            }
        }
        tally.add_unreported(run.unreported.load(Ordering::Relaxed));
        // One snapshot of the cache: every URL has a verdict or is unchecked, never both.
        (report.urls, report.unchecked) = run.cache.counts();
        report.over_limit = run.over_limit.load(Ordering::Relaxed);
        report.interrupted = cancel.is_cancelled();
        if report.interrupted {
            // This run is over: a later run of the same checker starts uncancelled.
            cancel.reset();
        }
        report.duration = started.elapsed();
        report.hosts = run.gate.stats();
        report.stats = tally.finish(&report.hosts);
        report.stats.skipped = run.skipped.get();
        report.insecure = cfg.insecure;
        state.into_inner().finish(&mut report);
        self.progress.detach();
        // The cancel hook holds the run too; then the run's memory goes (see `release`).
        drop(_hook);
        release(run, report.urls);
        Ok(report)
    }
}

/// Runs that claimed more URLs than this are freed on a thread of their own (see `release`).
const BACKGROUND_RELEASE_URLS: usize = 10_000;

/// Frees a finished run: its cache (every URL, with the links still waiting on it), the rest
/// of its queue. For millions of URLs that takes seconds — 2.4 s for the 1.7M URLs of a
/// spider trap cancelled after 10 s, most of it the allocator taking back memory other threads
/// allocated — which would hold the report of a cancelled run, and the binary's exit, past
/// its abort timeout. So a large run is dropped on a detached thread while `run_with_idle`
/// returns. The memory is freed all the same, shortly after (an embedder that runs check
/// after check gets it back); a process that exits meanwhile, like the binary, skips the work.
fn release(run: Arc<Run>, urls: usize) {
    if urls > BACKGROUND_RELEASE_URLS {
        // Should the thread not start, `spawn` drops its closure, and the run with it, here.
        let _ = thread::Builder::new()
            .name("linkpatrol-release".into())
            .spawn(move || drop(run));
    }
}

impl Checker {
    /// Worker threads for this run: `Config::threads`, but no more than the cores when every
    /// start is local and external links are not checked. Such a run never waits on the
    /// network, so threads beyond the cores add only memory (a page in flight each).
    fn worker_count(&self) -> usize {
        let cfg = &self.config;
        let offline = !cfg.check_external
            && self
                .starts
                .iter()
                .all(|s| s.inline.is_some() || s.url.scheme() == "file");
        if offline {
            let cores = thread::available_parallelism().map_or(1, usize::from);
            cfg.threads.min(cores)
        } else {
            cfg.threads
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offline_folder_check_uses_no_more_threads_than_cores() {
        let site = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site");
        let cores = thread::available_parallelism().map_or(1, usize::from);
        let offline = Config::new()
            .input_path(site)
            .threads(cores + 30)
            .check_external(false);
        assert_eq!(Checker::new(offline).unwrap().worker_count(), cores);
        // External links go over the network: there the threads wait, not compute.
        let online = Config::new().input_path(site).threads(cores + 30);
        assert_eq!(Checker::new(online).unwrap().worker_count(), cores + 30);
        let web = Config::new()
            .input_url("http://127.0.0.1:9/")
            .threads(cores + 30)
            .check_external(false);
        assert_eq!(Checker::new(web).unwrap().worker_count(), cores + 30);
    }
}
