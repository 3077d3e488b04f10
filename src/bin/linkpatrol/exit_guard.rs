//! Whole reports on an immediate exit. The second Ctrl-C must end the process at once, but a
//! streamed report (CSV, NDJSON, JSON, failures) must not end in half a row, and the rows a
//! sorted report holds in memory (every `-F` row, without `--stream`) must reach their files.
//!
//! # Protocol
//! The main thread writes every entry, flushes and finishes the reports while holding
//! `ExitGuard::dirty`'s lock; `dirty` says whether rows were written since the last flush (so
//! part of one may be in the file and the rest in a buffer). The second Ctrl-C sets
//! `exit_now`. The main thread sees it at its next row boundary (after the entry it is
//! writing, or at the latest when the stream idles, every [`linkpatrol::IDLE_INTERVAL`]):
//! it finishes every report with the run's report so far (held rows written, sorted, and each
//! document closed) and exits. When the reports hold no rows (`--stream`) the handler does not
//! wait for that: it takes the lock, and when nothing is dirty every row written is whole in
//! its file, so it exits holding the lock and nothing more can be written. Only if the main
//! thread never gets to a boundary — its output blocked — does the handler exit anyway after
//! [`EXIT_GRACE`].

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use linkpatrol::report::Reporter;
use linkpatrol::{Entry, Report};
use parking_lot::Mutex;

/// Longest wait of the second Ctrl-C for the row being written.
pub const EXIT_GRACE: Duration = Duration::from_secs(3);

/// Shared by the main thread (writes) and the Ctrl-C handler (exit).
#[derive(Debug, Default)]
pub struct ExitGuard {
    /// `true` when rows were written since the last flush. The lock is held for every write,
    /// flush and finish of the reports.
    dirty: Mutex<bool>,
    /// Set by the second Ctrl-C; read by the main thread after each write. SeqCst: read once
    /// per row, nothing to gain from weaker orderings.
    exit_now: AtomicBool,
    /// The status to exit with.
    code: i32,
    /// The reports hold rows in memory until they finish (not `--stream`): only the main
    /// thread may end the process while it runs.
    holds_rows: bool,
}

impl ExitGuard {
    /// A guard that exits with `code`, for reports that hold their rows until they finish
    /// (`holds_rows`) or write them as they come.
    pub fn new(code: u8, holds_rows: bool) -> Self {
        ExitGuard {
            code: i32::from(code),
            holds_rows,
            ..ExitGuard::default()
        }
    }

    /// Writes one entry to `reporter`; when asked to exit, hands it to `before_exit` (which
    /// finishes the reports with what is known) and exits.
    pub fn entry(
        &self,
        reporter: &mut dyn Reporter,
        entry: &Entry,
        before_exit: impl FnOnce(&mut dyn Reporter),
    ) -> io::Result<()> {
        let mut dirty = self.dirty.lock();
        let written = reporter.entry(entry);
        *dirty = true;
        self.exit_if_asked(reporter, before_exit);
        written
    }

    /// Flushes what was written since the last flush (the stream is idle); exits like
    /// [`ExitGuard::entry`] when asked.
    pub fn idle(
        &self,
        reporter: &mut dyn Reporter,
        before_exit: impl FnOnce(&mut dyn Reporter),
    ) -> io::Result<()> {
        let mut dirty = self.dirty.lock();
        let flushed = if *dirty { reporter.flush() } else { Ok(()) };
        *dirty = false;
        self.exit_if_asked(reporter, before_exit);
        flushed
    }

    /// Finishes every report.
    pub fn finish(&self, reporter: &mut dyn Reporter, report: &Report) -> io::Result<()> {
        let mut dirty = self.dirty.lock();
        let finished = reporter.finish(report);
        *dirty = false;
        finished
    }

    /// Called with the lock held: if the second Ctrl-C came, lets `before_exit` finish every
    /// report with what is known (the rows are in memory: milliseconds) and exits.
    fn exit_if_asked(
        &self,
        reporter: &mut dyn Reporter,
        before_exit: impl FnOnce(&mut dyn Reporter),
    ) {
        if self.exit_now.load(Ordering::SeqCst) {
            before_exit(reporter);
            exit(self.code);
        }
    }

    /// The second Ctrl-C: exits as soon as every row written is whole in its file.
    pub fn exit_at_row_boundary(&self) -> ! {
        self.exit_now.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + EXIT_GRACE;
        while Instant::now() < deadline {
            if let Some(dirty) = self.dirty.try_lock_for(Duration::from_millis(10)) {
                if !*dirty && !self.holds_rows {
                    // Exits holding the lock: no write can start after this check.
                    exit(self.code);
                }
                drop(dirty);
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        exit(self.code)
    }
}

/// Exits without unwinding, after killing what the built-in plugins run outside the process
/// (`--render-js`'s browser): no destructor runs past `std::process::exit`.
fn exit(code: i32) -> ! {
    linkpatrol::plugins::release_builtins();
    std::process::exit(code)
}
