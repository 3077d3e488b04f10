//! The run-stopping error type. A broken link is never an `Error`: it is an
//! [`Outcome`](crate::Outcome) in the report.

use std::fmt;

/// What kind of run-stopping problem happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A start input is not a URL and not an existing path, or a scheme we cannot crawl.
    InvalidInput,
    /// A configuration value is out of range or a pattern does not compile.
    InvalidConfig,
    /// The operating system refused something the run needs (a thread, a file).
    Io,
}

/// A problem that prevents a check from running.
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// The kind of problem (match on this, not on the message).
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
