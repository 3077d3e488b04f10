//! Library errors as Python exceptions of Python's own hierarchy: an error the operating
//! system gave (a missing input path, a state file that cannot be opened) is the `OSError`
//! subclass of its kind (`FileNotFoundError`, `PermissionError`, …) with its `errno`; another
//! bad input or configuration is a `ValueError`, another I/O failure an `OSError`, anything
//! else a `RuntimeError`. The message is the library's, with credentials masked.

use std::error::Error as _;
use std::io;

use linkpatrol::{Error, ErrorKind};
use pyo3::exceptions::{
    PyBlockingIOError, PyBrokenPipeError, PyConnectionAbortedError, PyConnectionRefusedError,
    PyConnectionResetError, PyFileExistsError, PyFileNotFoundError, PyInterruptedError,
    PyIsADirectoryError, PyNotADirectoryError, PyOSError, PyPermissionError, PyRuntimeError,
    PyTimeoutError, PyValueError,
};
use pyo3::{PyErr, PyErrArguments};

/// `e` as the Python exception that fits its kind.
pub fn engine_error(e: Error) -> PyErr {
    let text = linkpatrol::redact_text(&e.to_string()).into_owned();
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<io::Error>() {
            return os_error(io, text);
        }
        source = s.source();
    }
    match e.kind() {
        ErrorKind::InvalidInput | ErrorKind::InvalidConfig => PyValueError::new_err(text),
        ErrorKind::Io => PyOSError::new_err(text),
        _ => PyRuntimeError::new_err(text),
    }
}

/// `e` as the `OSError` subclass Python raises for it, with `message` as its text and, when
/// the system gave one, its `errno` (as `OSError(errno, message)`).
pub fn os_error(e: &io::Error, message: String) -> PyErr {
    match e.raw_os_error() {
        Some(errno) => os_error_of(e.kind(), (errno, message)),
        None => os_error_of(e.kind(), message),
    }
}

fn os_error_of<A: PyErrArguments + Send + Sync + 'static>(kind: io::ErrorKind, args: A) -> PyErr {
    use io::ErrorKind as K;
    match kind {
        K::NotFound => PyFileNotFoundError::new_err(args),
        K::PermissionDenied => PyPermissionError::new_err(args),
        K::AlreadyExists => PyFileExistsError::new_err(args),
        K::IsADirectory => PyIsADirectoryError::new_err(args),
        K::NotADirectory => PyNotADirectoryError::new_err(args),
        K::WouldBlock => PyBlockingIOError::new_err(args),
        K::Interrupted => PyInterruptedError::new_err(args),
        K::BrokenPipe => PyBrokenPipeError::new_err(args),
        K::ConnectionRefused => PyConnectionRefusedError::new_err(args),
        K::ConnectionReset => PyConnectionResetError::new_err(args),
        K::ConnectionAborted => PyConnectionAbortedError::new_err(args),
        K::TimedOut => PyTimeoutError::new_err(args),
        _ => PyOSError::new_err(args),
    }
}
