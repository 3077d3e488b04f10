//! Watching a long walk: a cancel (Ctrl-C while a huge folder is read) ends it with an
//! [`ErrorKind::Interrupted`] error, and a caller may be told every [`PROGRESS_EVERY`] files
//! how far it got.

use std::cell::Cell;
use std::sync::Arc;

use crate::model::cancel::CancelHandle;
use crate::model::error::{Error, ErrorKind};

/// Files found between two calls of the progress callback.
pub(super) const PROGRESS_EVERY: usize = 10_000;

/// The callback told how many files the walks found so far.
#[derive(Clone)]
pub(super) struct Progress(pub(super) Arc<dyn Fn(usize) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// What one resolve of the inputs counts and watches, over all its walks.
#[derive(Debug, Default)]
pub(super) struct WalkWatch {
    /// Tripped to stop the walks.
    cancel: Option<CancelHandle>,
    /// Told every [`PROGRESS_EVERY`] files.
    progress: Option<Progress>,
    /// Files the walks found so far (each walk's files, before the sort and the rules that
    /// drop some).
    found: Cell<usize>,
}

impl WalkWatch {
    pub(super) fn new(cancel: Option<CancelHandle>, progress: Option<Progress>) -> Self {
        WalkWatch {
            cancel,
            progress,
            found: Cell::new(0),
        }
    }

    /// Fails with [`ErrorKind::Interrupted`] once cancelled; called between inputs and for
    /// each entry a walk reads.
    pub(super) fn check(&self) -> Result<(), Error> {
        if self.cancel.as_ref().is_some_and(CancelHandle::is_cancelled) {
            let n = self.found.get();
            return Err(Error::new(
                ErrorKind::Interrupted,
                format!(
                    "interrupted while reading the inputs ({n} file{} found): nothing was \
                     checked",
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
        Ok(())
    }

    /// Counts one file found, telling the progress callback at each [`PROGRESS_EVERY`].
    pub(super) fn found_one(&self) {
        let n = self.found.get() + 1;
        self.found.set(n);
        if n.is_multiple_of(PROGRESS_EVERY)
            && let Some(Progress(tell)) = &self.progress
        {
            tell(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn tells_progress_and_stops_once_cancelled() {
        let told = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&told);
        let cancel = CancelHandle::new();
        let watch = WalkWatch::new(
            Some(cancel.clone()),
            Some(Progress(Arc::new(move |n| seen.store(n, Ordering::SeqCst)))),
        );
        for _ in 0..PROGRESS_EVERY * 2 + 1 {
            watch.found_one();
        }
        assert_eq!(told.load(Ordering::SeqCst), PROGRESS_EVERY * 2);
        assert!(watch.check().is_ok());
        cancel.cancel();
        let e = watch.check().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Interrupted);
        assert!(e.to_string().contains("20001 files found"), "{e}");
    }
}
