//! One run, driven from Python: the engine runs on a thread of its own (`linkpatrol-driver`),
//! which hands each entry over a bounded channel; the Python thread that called `run` or
//! `iter` drains the channel with the GIL released, and takes the GIL back only to check for
//! signals and to hand a result to Python.
//!
//! Invariants:
//! - No engine thread (driver, supervisor, workers) ever touches Python: the driver's
//!   `on_entry` only sends an `Entry` (plain Rust data) into the channel.
//! - The last message of a run is `Done`, sent after every `Entry`; the channel is FIFO, so
//!   once `Done` is read, every entry of the run has been read.
//! - A `KeyboardInterrupt` seen while waiting cancels the run through its `CancelHandle` and
//!   is swallowed: the drain goes on until `Done` (within the abort timeout), so the caller
//!   gets what was finished, with `interrupted` set. Any other exception from a signal handler
//!   cancels the run and propagates.
//! - Dropping a `Drive` before `Done` (an abandoned iterator) cancels the run; the driver
//!   thread then ends on its own (its sends fail once the receiver is gone) and is not joined.

use std::thread;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, bounded};
use linkpatrol::{CancelHandle, Checker, Entry, Report};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;

use crate::errors::engine_error;

/// How long the calling thread waits, GIL released, before it looks at signals again.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Entries in flight between the driver and the Python thread (back-pressure beyond that: a
/// slow consumer of `iter` slows the run, it does not grow memory).
const CHANNEL_CAPACITY: usize = 4096;

/// A message from the driver thread.
enum Message {
    Entry(Entry),
    Done(Result<Report, linkpatrol::Error>),
}

/// A run in progress.
pub struct Drive {
    rx: Receiver<Message>,
    cancel: CancelHandle,
    /// `Some` until `Done` is read.
    thread: Option<thread::JoinHandle<()>>,
}

/// What the next call to [`Drive::next`] found.
pub enum Step {
    Entry(Entry),
    Done(Report),
}

impl Drive {
    /// Starts `checker` on a thread of its own.
    pub fn start(checker: Checker) -> PyResult<Drive> {
        let cancel = checker.cancel_handle();
        let (tx, rx) = bounded(CHANNEL_CAPACITY);
        let thread = thread::Builder::new()
            .name("linkpatrol-driver".into())
            .spawn(move || {
                let result = checker.run_with(|entry| {
                    // A failed send means the receiver is gone (the run was abandoned and
                    // cancelled): nothing is waiting for the entry.
                    let _ = tx.send(Message::Entry(entry.clone()));
                });
                let _ = tx.send(Message::Done(result));
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the run: {e}")))?;
        Ok(Drive {
            rx,
            cancel,
            thread: Some(thread),
        })
    }

    /// A handle that cancels this run.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// Waits (GIL released) for the next entry or the end of the run. `None` once the run
    /// has ended and its report was handed out.
    pub fn next(&mut self, py: Python<'_>) -> PyResult<Option<Step>> {
        if self.thread.is_none() {
            return Ok(None);
        }
        loop {
            let rx = &self.rx;
            let got = py.detach(|| rx.recv_timeout(SIGNAL_POLL));
            match got {
                Ok(Message::Entry(e)) => return Ok(Some(Step::Entry(e))),
                Ok(Message::Done(result)) => {
                    if let Some(t) = self.thread.take() {
                        // It has sent its last message: it ends at once.
                        let _ = py.detach(|| t.join());
                    }
                    return result.map(|r| Some(Step::Done(r))).map_err(engine_error);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.thread = None;
                    return Err(PyRuntimeError::new_err(
                        "the run ended without a report (its thread panicked)",
                    ));
                }
            }
            if let Err(e) = py.check_signals() {
                self.cancel.cancel();
                if !e.is_instance_of::<PyKeyboardInterrupt>(py) {
                    return Err(e);
                }
            }
        }
    }
}

impl Drop for Drive {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.cancel.cancel();
        }
    }
}
