//! Library errors as Python exceptions: a bad input or configuration is a `ValueError`, an
//! I/O failure an `OSError`, anything else a `RuntimeError`; the message is the library's, with
//! credentials masked.

use linkpatrol::{Error, ErrorKind};
use pyo3::PyErr;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};

/// `e` as the Python exception that fits its kind.
pub fn engine_error(e: Error) -> PyErr {
    let text = linkpatrol::redact_text(&e.to_string()).into_owned();
    match e.kind() {
        ErrorKind::InvalidInput | ErrorKind::InvalidConfig => PyValueError::new_err(text),
        ErrorKind::Io => PyOSError::new_err(text),
        _ => PyRuntimeError::new_err(text),
    }
}
