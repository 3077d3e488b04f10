//! [`CheckRun`]: a started check, read as an iterator of its entries on the caller's thread.
//! [`Checker::run_with_idle`] is a loop over the same parts.
//!
//! # Shutdown protocol
//! 1. A supervisor thread waits until the queue is idle (`unfinished_tasks == 0`) or shut down
//!    (cancel runs `queue.shutdown` through a cancel hook, discarding queued URLs). With a
//!    time limit (`Config::max_run_time`) it waits until the limit at most, then cancels the
//!    run itself and notes that the limit stopped it: the rest is a cancel's.
//! 2. After a cancel it joins the queue (URLs in flight may finish and are reported; the cache
//!    takes no new key, so they discover nothing); near the end of the abort timeout it closes
//!    every connection (`Agent::shutdown`) so blocked requests fail at once, and joins again
//!    until the abort timeout is over.
//! 3. It closes the queue (idle workers exit) and sends `Finished`. The reader stops there, so
//!    a worker stuck beyond all of that (a DNS lookup cannot be interrupted) can never hold the
//!    report back; such a worker is left to end on its own.
//! 4. After a cancel, the reader reports the redirects still waiting on a URL that was never
//!    checked (as not checked), then reads the URL counts from one snapshot of the cache:
//!    every claimed URL either has a reported verdict or is unchecked.
//! 5. A run of more than `BACKGROUND_RELEASE_URLS` URLs is freed on a detached thread
//!    (`release`), so tearing down millions of URLs holds back neither the report nor an exit.
//!
//! Only the thread that holds the `CheckRun` reads the result channel and writes the state
//! file; a dropped `CheckRun` cancels its run, and the run's threads end on their own (their
//! sends fail once the channel's reader is gone).

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, TryRecvError};

use super::assemble::assemble;
use super::login::SESSION_LOST;
use crate::engine::checker::Checker;
use crate::engine::progress::ProgressHandle;
use crate::engine::run::{Message, Run};
use crate::engine::state_sink::StateSink;
use crate::extract::format::is_parsed_at;
use crate::model::cancel::{CancelHandle, HookGuard};
use crate::model::error::{Error, ErrorKind};
use crate::model::outcome::{CheckResult, Entry, Outcome};
use crate::model::run_report::{Report, ShardRun, Tolerated, settle_levels};
use crate::model::stats::Tally;

/// How long the result stream may pause before `run_with_idle` calls its `on_idle` (50 ms).
pub const IDLE_INTERVAL: Duration = Duration::from_millis(50);

/// Most of the abort timeout a cancelled run keeps, after interrupting connections, for
/// workers to notice (a fifth of it when that is less).
const INTERRUPT_GRACE: Duration = Duration::from_secs(2);

/// Messages the result channel holds before a worker waits for the reader: enough to ride out
/// a slow write of the reader. The channel allocates and writes every slot when it is made
/// (230 KB; 4,096 slots were 0.9 MB of every run's fixed memory, a test keeps the bound).
const RESULT_CHANNEL_CAPACITY: usize = 1024;

/// The result channel's capacity when a state file is kept: what waits in the channel is lost
/// by a kill (`--resume` requests it again), so fewer messages wait; below 256 the workers
/// wait on the reader's [`DRAIN_TICK`] (figures in benches/RESULTS.md).
const STATE_RESULT_CHANNEL_CAPACITY: usize = 256;

/// While rows keep arriving, the reader takes what piled up once per tick instead of being
/// woken for each row (a wake-up per row cost a fifth of a folder check in futex calls). Rows
/// wait at most this long. A drain that found half the channel's capacity or more does not
/// sleep: the workers fill it faster than a tick, and a sleep would hold them back.
const DRAIN_TICK: Duration = Duration::from_millis(2);

/// What [`CheckRun::next_within`] found.
#[derive(Debug)]
#[non_exhaustive]
// Matched as soon as it is returned: a box would cost an allocation per entry.
#[allow(clippy::large_enum_variant)]
pub enum Step {
    /// The next entry.
    Entry(Entry),
    /// No entry arrived within the wait; the run goes on (a reader flushes its output here).
    Idle,
    /// The run has ended: [`CheckRun::finish`] returns its report at once.
    Finished,
}

/// What one [`CheckRun::pump`] did.
pub(super) enum Pumped {
    /// Took one message or more.
    Some,
    /// Nothing arrived within the wait.
    Idle,
    /// The run has ended; its report is ready.
    Ended,
}

/// A started check: an [`Iterator`] over its entries, in the order they are known, read on
/// the caller's thread. Made by [`Checker::spawn`]; [`finish`](Self::finish) returns the report.
///
/// ```
/// use linkpatrol::{Checker, Config};
///
/// let site = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site");
/// let mut run = Checker::new(Config::new().input_path(site).keep_entries(false))?.spawn()?;
/// let broken = run.by_ref().filter(|e| e.result.outcome.is_broken()).count();
/// let report = run.finish()?;
/// assert_eq!(broken, report.errors());
/// # Ok::<(), linkpatrol::Error>(())
/// ```
#[derive(Debug)]
pub struct CheckRun {
    /// `None` once the run has ended and been released.
    run: Option<Arc<Run>>,
    rx: Receiver<Message>,
    capacity: usize,
    supervisor: Option<thread::JoinHandle<Supervised>>,
    workers: Vec<thread::JoinHandle<()>>,
    cancel: CancelHandle,
    progress: ProgressHandle,
    /// Shuts the queue down on cancel; dropped at the end.
    hook: Option<HookGuard>,
    state: Option<StateSink>,
    tally: Tally,
    report: Report,
    keep_entries: bool,
    /// A link behind a bot wall fails the run (`Config::fail_on_blocked`).
    fail_on_blocked: bool,
    /// Start pages are read for links (`false` with a recursion level of 0): only then does a
    /// start page without links get named in the report.
    reads_starts: bool,
    insecure: bool,
    /// `Config::max_run_time`, for the report.
    max_run_time: Option<Duration>,
    started: Instant,
    /// Reading the channel without blocking until a drain finds it empty.
    draining: bool,
    /// Sleep a [`DRAIN_TICK`] before the next drain (the last one found little).
    nap: bool,
    /// Entries taken from the channel and not yet handed to the iterator's reader.
    pending: VecDeque<Entry>,
    /// `Some` once the run has ended, until `finish` hands it out.
    outcome: Option<Result<Report, Error>>,
}

impl Checker {
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
        let mut run = self.spawn()?;
        let mut sink = |entry: Entry| {
            on_entry(&entry);
            Some(entry)
        };
        loop {
            match run.pump(IDLE_INTERVAL, &mut sink) {
                Pumped::Idle => on_idle(),
                Pumped::Some => {}
                Pumped::Ended => return run.into_report(),
            }
        }
    }

    /// Starts the check and returns at once: the workers run while the caller reads the
    /// entries from the returned [`CheckRun`] (an iterator), then calls
    /// [`CheckRun::finish`] for the report. A caller that stops reading holds the run back once
    /// the result channel is full; one that drops the `CheckRun` cancels the run.
    ///
    /// # Errors
    /// The errors of [`run`](Self::run).
    pub fn spawn(&self) -> Result<CheckRun, Error> {
        let started = Instant::now();
        let cfg = &self.config;
        let cancel = self.cancel_handle();
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
        // Read before the first worker starts; the reader is the state file's only writer.
        let (remembered, state, state_warnings) =
            StateSink::open(cfg, &cancel).map_err(|m| Error::new(ErrorKind::InvalidConfig, m))?;
        run.remembered = remembered;
        if let Some(login) = &cfg.login {
            super::login::log_in(&run, login)?;
        }
        let run = Arc::new(run);
        let progress = self.progress();
        progress.attach(&run, started);
        let hook = {
            // The URLs it discards stay pending in the cache: counted as unchecked at the end.
            // No new URL is taken from then on: the pages still in flight are parsed, but a
            // link to a URL not seen yet is dropped, so a cancelled crawl stops growing.
            let run = run.clone();
            cancel.on_cancel(move || {
                run.cache.stop_new_keys();
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
                    progress.detach();
                    return Err(Error::new(
                        ErrorKind::Io,
                        format!("cannot start a worker thread: {e}"),
                    )
                    .with_source(e));
                }
            }
        }
        let supervisor = supervise(self, &run, &cancel).map_err(|e| {
            Error::new(ErrorKind::Io, format!("cannot start a thread: {e}")).with_source(e)
        })?;
        drop(tx);
        Ok(CheckRun {
            run: Some(run),
            rx,
            capacity,
            supervisor: Some(supervisor),
            workers,
            cancel,
            progress,
            hook: Some(hook),
            state: Some(state),
            tally: Tally::default(),
            report: Report {
                state_warnings,
                // Phase 2 checks what other runs found, or reuses phase 1's results.
                shard: cfg.shard.map(|s| {
                    let phase2 = !cfg.found_links.is_empty() || !cfg.reused.is_empty();
                    ShardRun::new(s.index(), s.count(), if phase2 { 2 } else { 1 })
                }),
                started_at: Some(std::time::SystemTime::now()),
                mdbooks: cfg
                    .mdbooks
                    .iter()
                    .map(|(src, chapters)| {
                        (src.display().to_string(), chapters.as_ref().map(Vec::len))
                    })
                    .collect(),
                ..Report::default()
            },
            keep_entries: cfg.keep_entries,
            fail_on_blocked: cfg.fail_on_blocked,
            reads_starts: cfg.recursion_level != Some(0),
            insecure: cfg.insecure,
            max_run_time: cfg.max_run_time,
            started,
            draining: false,
            nap: false,
            pending: VecDeque::new(),
            outcome: None,
        })
    }
}

/// Records `r` in [`Report::starts_without_links`] when it is a start input that was read for
/// links and held none (an empty file, a page without a link), once per URL.
fn note_start_without_links(report: &mut Report, r: &CheckResult) {
    if r.level == 0
        && r.links_found == 0
        && matches!(r.outcome, Outcome::Ok { .. })
        && r.real_url.is_none()
        && is_parsed_at(&r.url, r.content_type.as_deref())
        && !report.starts_without_links.contains(&r.url)
    {
        report.starts_without_links.push(r.url.clone());
    }
}

/// Starts the supervisor: it seeds the start inputs, waits for the queue to be idle (or for a
/// cancel or the time limit, and the abort timeout), closes the queue and sends `Finished`; it
/// returns whether every worker went idle and whether the time limit stopped the run.
fn supervise(
    checker: &Checker,
    run: &Arc<Run>,
    cancel: &CancelHandle,
) -> std::io::Result<thread::JoinHandle<Supervised>> {
    let cfg = &checker.config;
    let abort_timeout = cfg.abort_timeout;
    let (max_run_time, started) = (cfg.max_run_time, Instant::now());
    let (run, cancel) = (run.clone(), cancel.clone());
    let starts = checker.starts.clone();
    // Lowest level first: a URL exported from pages at several levels is claimed at the
    // lowest, as a crawl, which reaches shallow pages first, mostly claims it (the files'
    // order would otherwise decide the result's level).
    let mut found = cfg.found_links.clone();
    found.sort_by_key(|link| link.level);
    let reused = cfg.reused.clone();
    thread::Builder::new()
        .name("linkpatrol-supervisor".into())
        .spawn(move || {
            // Seeding can send rows (a start URL that is ignored, or given twice); the channel
            // is bounded, so that must not happen on the reader's thread before it reads. The
            // queue cannot look idle before the last seed: only this thread waits for
            // idleness, after seeding.
            for s in starts {
                run.seed(s.url, s.inline);
            }
            for result in reused {
                run.seed_reused(&result);
            }
            for link in found {
                run.seed_found(link);
            }
            // Measured from the spawn: seeding a long list counts against the limit too.
            let deadline = max_run_time.map(|t| started + t);
            let timed_out = run.queue.wait_idle_or_shutdown(deadline);
            // A cancel that came first (Ctrl-C) is a cancel, not the time limit.
            let time_limited = timed_out && !cancel.is_cancelled();
            if time_limited {
                cancel.cancel();
            }
            let mut idle = run.queue.unfinished() == 0;
            if cancel.is_cancelled() {
                // A browser a plugin runs goes first: its pages then fail at once.
                run.plugins_finish();
            }
            if !idle && cancel.is_cancelled() {
                // The wait, interrupting included, fits in the abort timeout: the last part
                // of it is left for the interrupted requests to fail.
                let deadline = Instant::now() + abort_timeout;
                let grace = (abort_timeout / 5).min(INTERRUPT_GRACE);
                idle = run.queue.join(Some(abort_timeout - grace));
                if !idle {
                    run.fetch.interrupt();
                    let left = deadline.saturating_duration_since(Instant::now());
                    idle = run.queue.join(Some(left));
                }
            }
            run.queue.close();
            run.plugins_finish();
            let _ = run.tx.send(Message::Finished);
            Supervised { idle, time_limited }
        })
}

/// How the supervisor saw the run end.
#[derive(Debug, Default)]
struct Supervised {
    /// Every worker went idle.
    idle: bool,
    /// The time limit cancelled the run.
    time_limited: bool,
}

impl CheckRun {
    /// Waits at most `wait` for the next entry. A reader that must look at something else on a
    /// fixed tick (signals, a deadline, its own buffers) calls this instead of `next`.
    pub fn next_within(&mut self, wait: Duration) -> Step {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Step::Entry(e);
            }
            if self.outcome.is_some() || self.run.is_none() {
                return Step::Finished;
            }
            let mut pending = std::mem::take(&mut self.pending);
            let keep = self.keep_entries;
            let pumped = self.pump(wait, &mut |entry| {
                if keep {
                    pending.push_back(entry.clone());
                    Some(entry)
                } else {
                    pending.push_back(entry);
                    None
                }
            });
            self.pending = pending;
            if let Pumped::Idle = pumped {
                return Step::Idle;
            }
        }
    }

    /// Asks the run to stop: URLs in flight finish (within the abort timeout), the rest are
    /// counted as not checked, and the report says it was interrupted.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// A handle that cancels this run from any thread (a signal handler, a watchdog).
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// The report as it stands, without waiting for the run: the counts of the entries read
    /// so far, marked interrupted, without [`Report::entries`] and with each URL at the level
    /// of the link that reached it first ([`Report::levels`] is empty). For a process that
    /// must end at once (a second Ctrl-C) and still finish its reports with what is known; the
    /// run goes on until [`CheckRun::finish`] or a drop.
    pub fn report_so_far(&mut self) -> Report {
        let entries = std::mem::take(&mut self.report.entries);
        let mut report = self.report.clone();
        self.report.entries = entries;
        report.urls = self.tally.urls();
        report.interrupted = true;
        report.duration = self.started.elapsed();
        if let Some(run) = &self.run {
            report.unchecked = run.cache.counts().1;
            report.over_limit = run.over_limit.load(Ordering::Relaxed);
            report.url_limit = run.max_urls;
            report.memory_limit = run.budget.reached();
            report.spilled = run.queue.spill_report().0;
            report.hosts = run.gate.stats();
            report.stats.skipped = run.skipped.get();
        }
        let skipped = report.stats.skipped;
        report.stats = self.tally.statistics(&report.hosts);
        report.stats.skipped = skipped;
        report.insecure = self.insecure;
        report
    }

    /// Waits for the end of the run, passing over the entries not read yet, and returns its
    /// report.
    ///
    /// # Errors
    /// The errors of [`Checker::run`].
    pub fn finish(mut self) -> Result<Report, Error> {
        self.pending.clear();
        while !matches!(
            self.pump(Duration::from_secs(3600), &mut Some),
            Pumped::Ended
        ) {}
        self.into_report()
    }

    /// The report of an ended run.
    pub(super) fn into_report(mut self) -> Result<Report, Error> {
        self.outcome.take().unwrap_or_else(|| {
            Err(Error::new(
                ErrorKind::Io,
                "the run's report was asked for before the run ended",
            ))
        })
    }

    /// Takes what the result channel has within `wait`, handing each entry to `sink` (which
    /// hands it back when the report keeps it), and ends the run at its `Finished`.
    pub(super) fn pump(
        &mut self,
        wait: Duration,
        sink: &mut dyn FnMut(Entry) -> Option<Entry>,
    ) -> Pumped {
        if self.run.is_none() {
            return Pumped::Ended;
        }
        if !self.draining {
            return match self.rx.recv_timeout(wait) {
                Ok(Message::Finished) | Err(RecvTimeoutError::Disconnected) => {
                    self.end(sink);
                    Pumped::Ended
                }
                Ok(msg) => {
                    self.take(msg, sink);
                    self.draining = true;
                    self.nap = false;
                    Pumped::Some
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(state) = self.state.as_mut() {
                        state.tick();
                    }
                    Pumped::Idle
                }
            };
        }
        if self.nap {
            thread::sleep(DRAIN_TICK);
        }
        // At most a channel's worth per call, so a reader's queue of entries stays bounded.
        let mut got = 0;
        while got < self.capacity {
            match self.rx.try_recv() {
                Ok(Message::Finished) | Err(TryRecvError::Disconnected) => {
                    self.end(sink);
                    return Pumped::Ended;
                }
                Ok(msg) => {
                    self.take(msg, sink);
                    got += 1;
                }
                Err(TryRecvError::Empty) => break,
            }
        }
        // Group commit: the channel is momentarily empty, so what was taken goes to the
        // state file's writer thread now, before this thread sleeps (a kill then loses only
        // the results still in flight; see `StateSink::commit`).
        if let Some(state) = self.state.as_mut() {
            state.commit();
        }
        if got == 0 {
            self.draining = false;
        } else {
            self.nap = got < self.capacity / 2;
        }
        Pumped::Some
    }

    /// Takes one message of the result channel.
    fn take(&mut self, msg: Message, sink: &mut dyn FnMut(Entry) -> Option<Entry>) {
        let Some(state) = self.state.as_mut() else {
            return;
        };
        match msg {
            Message::Entry(e) => {
                // An exported link is another shard's to check and count.
                match e.result.exported_to {
                    None => {
                        self.tally.add(&e);
                        if self.reads_starts {
                            note_start_without_links(&mut self.report, &e.result);
                        }
                    }
                    Some(owner) => {
                        if let Some(n) = self
                            .report
                            .shard
                            .as_mut()
                            .and_then(|s| s.exported.get_mut(owner))
                        {
                            *n += 1;
                        }
                    }
                }
                state.entry(&e);
                if state.fails(&e)
                    || (self.fail_on_blocked && e.result.outcome.is_blocked())
                    || e.result.warnings.iter().any(|w| w.tag == SESSION_LOST)
                {
                    self.report.failing += 1;
                } else if let Some((after, runs)) = state.tolerates(&e) {
                    Tolerated::add(&mut self.report.tolerated, after, runs);
                }
                if let Some(e) = sink(e)
                    && self.keep_entries
                {
                    if let Some(run) = &self.run {
                        run.budget.add_row(e.held_bytes());
                    }
                    self.report.entries.push(e);
                }
            }
            Message::Counted(r) => {
                self.tally.add_url(&r);
                if self.reads_starts {
                    note_start_without_links(&mut self.report, &r);
                }
                state.result(&r);
            }
            Message::Page(key, page) => state.page(key, page),
            Message::Robots(origin, body) => state.robots(origin, body),
            Message::Unlinked(r) => state.result(&r),
            Message::Finished => {}
        }
    }

    /// Ends the run after its `Finished`: the rows a cancel left, the counts, the state file's
    /// totals; then the run's memory is released.
    fn end(&mut self, sink: &mut dyn FnMut(Entry) -> Option<Entry>) {
        let Some(run) = self.run.clone() else {
            return;
        };
        let supervised = self
            .supervisor
            .take()
            .and_then(|s| s.join().ok())
            .unwrap_or_default();
        let all_idle = supervised.idle;
        if self.cancel.is_cancelled() {
            // Redirects deferred on URLs the cancel left unchecked are reported now, with any
            // row a worker sent after `Finished`. The channel is bounded and this thread is
            // its only reader: the rows of `abandon_waiting` are sent from another thread
            // while this one takes them.
            let rx = self.rx.clone();
            thread::scope(|scope| {
                let abandon = scope.spawn(|| run.abandon_waiting());
                while !abandon.is_finished() {
                    if let Ok(msg) = rx.recv_timeout(Duration::from_millis(10)) {
                        self.take(msg, sink);
                    }
                }
            });
            while let Ok(msg) = self.rx.try_recv() {
                self.take(msg, sink);
            }
        }
        if all_idle {
            for w in self.workers.drain(..) {
                // A worker panic is caught per URL; a panic here is outside that and is
                // ignored so the report still comes back.
                let _ = w.join();
            }
        }
        let mut report = std::mem::take(&mut self.report);
        let mut tally = std::mem::take(&mut self.tally);
        tally.add_unreported(run.unreported.load(Ordering::Relaxed));
        // "URLs checked" is the distinct URLs of the rows (`Report::urls`), counted by the
        // tally as rows stream by (kept or not): not the cache's keys, which include redirect
        // hops no link names and URLs a cancel left unchecked.
        report.urls = tally.urls();
        report.unchecked = run.cache.counts().1;
        // Every worker is done: the link graph is whole (see `cache/levels.rs`).
        report.levels = run.cache.settled_levels();
        settle_levels(&report.levels, &mut report.entries);
        report.over_limit = run.over_limit.load(Ordering::Relaxed);
        report.url_limit = run.max_urls;
        report.memory_limit = run.budget.reached();
        let (spilled, lost, spill_error) = run.queue.spill_report();
        report.spilled = spilled;
        if let Some(e) = spill_error {
            report.warnings.push(format!(
                "{e}; the queue kept the rest of its URLs in memory{}",
                if lost > 0 {
                    format!(
                        ", and {lost} queued URL{} could not be read back: not checked",
                        if lost == 1 { "" } else { "s" }
                    )
                } else {
                    String::new()
                }
            ));
        }
        report.interrupted = self.cancel.is_cancelled();
        report.time_limit_reached = self.max_run_time.filter(|_| supervised.time_limited);
        if report.interrupted {
            // This run is over: a later run of the same checker starts uncancelled.
            self.cancel.reset();
        }
        report.duration = self.started.elapsed();
        report.session_lost = run.session_lost.get().cloned();
        report.warnings.extend(run.session_lost.get().cloned());
        report
            .warnings
            .extend(run.robots.as_ref().and_then(|r| r.budget_note()));
        report.hosts = run.gate.stats();
        report.stats = tally.finish(&report.hosts);
        report.stats.skipped = run.skipped.get();
        report.insecure = self.insecure;
        if let Some((path, cookies)) = &run.cookie_jar {
            let text = cookies.netscape(std::time::SystemTime::now());
            if let Err(e) = crate::fetch::cookie_jar_file::save(path, &text) {
                report.warnings.push(format!(
                    "cannot save the cookie jar `{}': {e}",
                    path.display()
                ));
            }
        }
        if let Some(state) = self.state.take() {
            state.finish(&mut report);
        }
        self.progress.detach();
        // The cancel hook holds the run too; then the run's memory goes (see `release`).
        self.hook = None;
        drop(run);
        if let Some(run) = self.run.take() {
            release(run, report.urls);
        }
        self.outcome = Some(Ok(report));
    }
}

impl Iterator for CheckRun {
    type Item = Entry;

    /// The next entry, waiting as long as the run needs; `None` once the run has ended.
    fn next(&mut self) -> Option<Entry> {
        loop {
            match self.next_within(Duration::from_secs(3600)) {
                Step::Entry(e) => return Some(e),
                Step::Idle => {}
                Step::Finished => return None,
            }
        }
    }
}

impl Drop for CheckRun {
    fn drop(&mut self) {
        if self.run.is_some() {
            self.cancel.cancel();
            self.progress.detach();
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_channel_stays_small_when_made() {
        // The channel writes every slot when it is made: part of every run's fixed memory.
        let slot = std::mem::size_of::<Message>() + std::mem::size_of::<usize>();
        assert!(
            slot * RESULT_CHANNEL_CAPACITY <= 256 * 1024,
            "{slot} B a slot x {RESULT_CHANNEL_CAPACITY}"
        );
    }
}
