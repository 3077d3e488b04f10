//! [`Checker`]: the public entry point. It validates a [`Config`], and its runs stream
//! [`Entry`]s to the caller's thread as they finish (`run`, `run_with`, `run_with_idle`, or the
//! iterator of [`spawn`](Checker::spawn)), ending normally when the queue is joined, or on
//! cancel after the abort timeout.
//!
//! How a run starts, is read and ends (the shutdown protocol) is in `check_run`.

use std::sync::Arc;
use std::thread;

use super::assemble::{Start, start_of};
use crate::config::Config;
use crate::engine::progress::ProgressHandle;
use crate::fetch::Fetch;
use crate::model::cancel::CancelHandle;
use crate::model::error::{Error, ErrorKind};
use crate::model::run_report::Report;

/// A configured check, ready to run. `Send + Sync`; [`run`](Self::run) may be called more than
/// once (each run starts afresh).
#[derive(Debug)]
pub struct Checker {
    pub(super) config: Config,
    pub(super) starts: Vec<Start>,
    cancel: CancelHandle,
    progress: ProgressHandle,
    /// A fetcher in place of the run's `Router`: set only by the engine's tests.
    pub(super) fetch_override: Option<Arc<dyn Fetch>>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Checker>();
    assert_send_sync::<CancelHandle>();
    assert_send_sync::<Report>();
};

impl Checker {
    /// Validates the configuration and its inputs.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidInput`] when there is no input, an input is neither a URL nor an
    /// existing path, or its scheme cannot be crawled. [`ErrorKind::InvalidConfig`] when
    /// [`Config::proxy`] is not an http(s) proxy URL, a duration exceeds
    /// [`MAX_DURATION`](crate::config::MAX_DURATION), the timeout is 0, a request rate is
    /// negative, not finite or implies more than that between two requests, or the user agent
    /// or a header has a control character (CR, LF, …).
    pub fn new(config: Config) -> Result<Self, Error> {
        config.validate()?;
        if config.inputs.is_empty()
            && config.found_links.is_empty()
            && config.reused.is_empty()
            && config.shard.is_none()
        {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "nothing to check: give a URL or a path",
            ));
        }
        crate::fetch::real_path::forget_folders();
        let starts = config
            .inputs
            .iter()
            .map(start_of)
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(proxy) = &config.proxy {
            crate::fetch::http::parse_proxy(proxy)
                .map_err(|m| Error::new(ErrorKind::InvalidConfig, m))?;
        }
        Ok(Checker {
            config,
            starts,
            cancel: CancelHandle::new(),
            progress: ProgressHandle::default(),
            fetch_override: None,
        })
    }

    /// Uses `fetch` for every URL instead of the network and the disk (engine tests).
    #[cfg(test)]
    pub(crate) fn with_fetch(mut self, fetch: Arc<dyn Fetch>) -> Self {
        self.fetch_override = Some(fetch);
        self
    }

    /// Uses `handle` (shared with other code) instead of the checker's own cancel handle.
    pub fn with_cancel_handle(mut self, handle: CancelHandle) -> Self {
        self.cancel = handle;
        self
    }

    /// A handle that cancels this checker's runs from any thread.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// A handle that reads the live progress of this checker's runs from any thread.
    pub fn progress(&self) -> ProgressHandle {
        self.progress.clone()
    }
}

impl Checker {
    /// Worker threads for this run: `Config::threads`, but no more than the cores when every
    /// start is local and external links are not checked. Such a run never waits on the
    /// network, so threads beyond the cores add only memory (a page in flight each).
    pub(super) fn worker_count(&self) -> usize {
        let cfg = &self.config;
        let offline = !cfg.check_external
            && self
                .starts
                .iter()
                .all(|s| s.inline.is_some() || s.url.scheme() == "file");
        if offline {
            let cores = thread::available_parallelism().map_or(1, usize::from);
            cfg.threads.min(cores)
        } else {
            cfg.threads
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offline_folder_check_uses_no_more_threads_than_cores() {
        let site = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site");
        let cores = thread::available_parallelism().map_or(1, usize::from);
        let offline = Config::new()
            .input_path(site)
            .threads(cores + 30)
            .check_external(false);
        assert_eq!(Checker::new(offline).unwrap().worker_count(), cores);
        // External links go over the network: there the threads wait, not compute.
        let online = Config::new().input_path(site).threads(cores + 30);
        assert_eq!(Checker::new(online).unwrap().worker_count(), cores + 30);
        let web = Config::new()
            .input_url("http://127.0.0.1:9/")
            .threads(cores + 30)
            .check_external(false);
        assert_eq!(Checker::new(web).unwrap().worker_count(), cores + 30);
    }
}
