//! The run-stopping error type. A broken link is never an `Error`: it is an
//! [`Outcome`](crate::Outcome) in the report.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::model::redact::redact_text;

/// What kind of run-stopping problem happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A start input is not a URL and not an existing path, or a scheme we cannot crawl.
    InvalidInput,
    /// A configuration value is out of range or a pattern does not compile; or `--resume`
    /// would continue a run started with other options deciding what is checked.
    InvalidConfig,
    /// The operating system refused something the run needs (a thread, a file).
    Io,
    /// Cancelled before the check started: while the inputs were read
    /// (`Inputs::cancel_handle`). Nothing was checked.
    Interrupted,
    /// The form login before the crawl (`Config::login`) failed: no form, a refused password,
    /// or no answer.
    Login,
}

/// A problem that prevents a check from running. Its message never shows the user name or
/// password of a URL it quotes (they read `***`); the error of the operating system or the
/// library behind it, if any, is its [`source`](std::error::Error::source).
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    /// Shared, so that `Error` stays `Clone` (an `io::Error` is not).
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    /// An error of `kind`. Credentials in URLs quoted by `message` are masked here, so no
    /// caller has to: messages quote inputs and settings as given, and those may not even
    /// parse as URLs.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let mut message = message.into();
        if let Cow::Owned(masked) = redact_text(&message) {
            message = masked;
        }
        Error {
            kind,
            message,
            source: None,
        }
    }

    /// The same error, caused by `source`.
    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Arc::new(source));
        self
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

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_mask_credentials() {
        let e = Error::new(
            ErrorKind::InvalidInput,
            "`http://u:s3cret@127.0.0.1:99999/' is not a valid URL: invalid port number",
        );
        assert_eq!(
            e.to_string(),
            "`http://***@127.0.0.1:99999/' is not a valid URL: invalid port number"
        );
    }

    #[test]
    fn an_error_from_the_system_is_its_source() {
        use std::error::Error as _;
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "no threads left");
        let e = Error::new(ErrorKind::Io, "cannot start a worker thread").with_source(io);
        let source = e.source().expect("a source");
        assert_eq!(source.to_string(), "no threads left");
        assert!(source.downcast_ref::<std::io::Error>().is_some());
        assert!(Error::new(ErrorKind::Io, "x").source().is_none());
    }
}
