//! Progress on stderr while a check runs: an indicatif line on a terminal, otherwise a plain
//! status line every few seconds (like LinkChecker's), or nothing with `--no-status`.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use linkpatrol::ProgressHandle;
use parking_lot::{Condvar, Mutex};

/// How often the terminal line is redrawn.
const TTY_INTERVAL: Duration = Duration::from_millis(150);
/// How often a plain status line is printed when stderr is not a terminal.
const PLAIN_INTERVAL: Duration = Duration::from_secs(5);

/// A running status display; [`StatusDisplay::stop`] ends it.
pub struct StatusDisplay {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

/// Counts shown next to the library's progress: errors seen by the reporter.
#[derive(Debug, Default)]
pub struct Counters {
    /// Broken entries seen so far.
    pub errors: AtomicUsize,
}

impl StatusDisplay {
    /// Starts the display thread, or returns `None` when there is nothing to show.
    pub fn start(
        progress: ProgressHandle,
        counters: Arc<Counters>,
        enabled: bool,
    ) -> Option<StatusDisplay> {
        if !enabled {
            return None;
        }
        let tty = std::io::stderr().is_terminal();
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let signal = stop.clone();
        let thread = thread::Builder::new()
            .name("linkpatrol-status".into())
            .spawn(move || {
                let bar = tty.then(|| {
                    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                    bar.set_style(
                        ProgressStyle::with_template("{spinner} {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    bar
                });
                let interval = if tty { TTY_INTERVAL } else { PLAIN_INTERVAL };
                let (lock, cv) = &*signal;
                let mut stopped = lock.lock();
                while !*stopped {
                    if cv.wait_for(&mut stopped, interval).timed_out() {
                        let line = status_line(&progress, &counters);
                        match &bar {
                            Some(b) => {
                                b.set_message(line);
                                b.tick();
                            }
                            None => stderr_line!("{line}"),
                        }
                    }
                }
                if let Some(b) = bar {
                    b.finish_and_clear();
                }
            })
            .ok()?;
        Some(StatusDisplay {
            stop,
            thread: Some(thread),
        })
    }

    /// Stops and clears the display.
    pub fn stop(mut self) {
        *self.stop.0.lock() = true;
        self.stop.1.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn status_line(progress: &ProgressHandle, counters: &Counters) -> String {
    let p = progress.snapshot();
    let secs = p.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        p.checked as f64 / secs
    } else {
        0.0
    };
    format!(
        "{:2} threads active, {:5} URLs queued, {:5} URLs checked, {} errors, {:.0} URLs/s, runtime {}s",
        p.active,
        p.queued,
        p.checked,
        counters.errors.load(Ordering::Relaxed),
        rate,
        p.elapsed.as_secs()
    )
}
