//! One run, driven from Python through the library's [`CheckRun`]: the engine runs on a thread
//! of its own; the Python thread that called `run` or `iter` waits for entries with the GIL
//! released, and takes the GIL back only to check for signals and to hand a result to Python.
//!
//! Invariants:
//! - No engine thread ever touches Python: they hand plain Rust `Entry` values to `CheckRun`.
//! - Signals are checked at least every [`SIGNAL_POLL`], however fast entries arrive, so a
//!   Ctrl-C during a busy crawl is seen at once.
//! - A `KeyboardInterrupt` cancels the run through `CheckRun::cancel` and is swallowed: the
//!   drain goes on until the run ends (within the abort timeout), so the caller gets what was
//!   finished, with `interrupted` set. Any other exception from a signal handler cancels the
//!   run and propagates.
//! - Dropping a `Drive` before the end (an abandoned iterator) cancels the run (`CheckRun`'s
//!   own `Drop`).

use std::time::{Duration, Instant};

use linkpatrol::{CancelHandle, CheckRun, Checker, Entry, Report};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;

use crate::errors::engine_error;

/// The longest time between two looks at Python's signals.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// A run in progress.
pub struct Drive {
    /// `Some` until the report is handed out.
    run: Option<CheckRun>,
    cancel: CancelHandle,
    /// When signals were last checked.
    checked: Instant,
}

/// What the next call to [`Drive::next`] found. An entry is unboxed (a box would cost an
/// allocation per row); the report, which comes once, is boxed so a step stays entry-sized.
#[allow(clippy::large_enum_variant)]
pub enum Step {
    Entry(Entry),
    Done(Box<Report>),
}

impl Drive {
    /// Starts `checker` on a thread of its own. Without the GIL: a form login
    /// (`login_url`) makes requests before the run starts, and other Python threads (a
    /// server in this very process) go on meanwhile.
    pub fn start(py: Python<'_>, checker: Checker) -> PyResult<Drive> {
        let run = py
            .detach(|| checker.spawn())
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the run: {e}")))?;
        Ok(Drive {
            cancel: run.cancel_handle(),
            run: Some(run),
            checked: Instant::now(),
        })
    }

    /// A handle that cancels this run.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// Waits (GIL released) for the next entry or the end of the run. `None` once the run
    /// has ended and its report was handed out.
    pub fn next(&mut self, py: Python<'_>) -> PyResult<Option<Step>> {
        loop {
            let Some(run) = self.run.as_mut() else {
                return Ok(None);
            };
            let wait = SIGNAL_POLL.saturating_sub(self.checked.elapsed());
            let step = py.detach(|| run.next_within(wait));
            if self.checked.elapsed() >= SIGNAL_POLL {
                self.checked = Instant::now();
                if let Err(e) = py.check_signals() {
                    self.cancel.cancel();
                    if !e.is_instance_of::<PyKeyboardInterrupt>(py) {
                        return Err(e);
                    }
                }
            }
            match step {
                linkpatrol::Step::Entry(e) => return Ok(Some(Step::Entry(e))),
                linkpatrol::Step::Finished => {
                    // Ended: `finish` returns the report at once.
                    let Some(run) = self.run.take() else { continue };
                    let report = py.detach(|| run.finish());
                    return report
                        .map(|r| Some(Step::Done(Box::new(r))))
                        .map_err(engine_error);
                }
                _ => {}
            }
        }
    }
}
