//! [`Router`]: the run's [`Fetch`], choosing the fetcher by the URL's scheme — the one place
//! that does.

use std::sync::Arc;

use url::Url;

use super::file::{self, FileScope};
use super::http::{FormMethod, HttpFetcher, PageAnswer};
use super::preprocess::Preprocess;
use super::{Chain, Fetch, Fetched, Resume, Validators};
use crate::model::outcome::FailKind;

/// http(s) through the shared agent, `file:` from disk; any other scheme fails.
#[derive(Debug)]
pub(crate) struct Router {
    /// The HTTP side: agent, retries, redirects, politeness.
    pub(crate) http: HttpFetcher,
    /// Bytes of a local file read for parsing.
    pub(crate) max_body: u64,
    /// The folders whose files may be read (shared with the engine).
    pub(crate) files: Arc<FileScope>,
    /// The program local files are read through (`Config::preprocess`).
    pub(crate) preprocess: Option<Preprocess>,
}

impl Fetch for Router {
    fn fetch(&self, url: &Url, want_body: bool, chain: Chain<'_>) -> Fetched {
        match url.scheme() {
            "file" => match &self.preprocess {
                Some(p) if want_body => p.fetch(url, &self.files),
                _ => file::fetch(url, want_body, self.max_body, &self.files),
            },
            "http" | "https" => self.http.fetch(url, want_body, chain, None),
            other => Fetched::failed(
                url,
                FailKind::InvalidUrl,
                format!("cannot fetch {other}: URLs"),
            ),
        }
    }

    fn fetch_if_changed(&self, url: &Url, validators: &Validators, chain: Chain<'_>) -> Fetched {
        match url.scheme() {
            "http" | "https" => self
                .http
                .fetch_with(url, true, Some(validators), chain, None),
            _ => self.fetch(url, true, chain),
        }
    }

    fn fetch_deferrable(
        &self,
        url: &Url,
        want_body: bool,
        chain: Chain<'_>,
        resume: &Resume,
    ) -> Fetched {
        match url.scheme() {
            "http" | "https" => self.http.fetch(url, want_body, chain, Some(resume)),
            _ => self.fetch(url, want_body, chain),
        }
    }

    fn fetch_robots(&self, url: &Url) -> Option<Vec<u8>> {
        self.http.fetch_robots(url)
    }

    fn fetch_small(&self, url: &Url, limit: u64) -> Option<Vec<u8>> {
        matches!(url.scheme(), "http" | "https")
            .then(|| self.http.fetch_small(url, limit))
            .flatten()
    }

    fn exchange_page(
        &self,
        url: &Url,
        method: FormMethod,
        fields: &[(String, String)],
    ) -> Result<PageAnswer, String> {
        match url.scheme() {
            "http" | "https" => self.http.exchange_page(method, url, fields),
            other => Err(format!("{url}: a login page must be http(s), not {other}:")),
        }
    }

    fn cookie_header(&self, url: &Url) -> Option<String> {
        let host = super::http::response::host_key(url);
        matches!(url.scheme(), "http" | "https")
            .then(|| self.http.cookie_header(url, &host))
            .flatten()
    }

    fn pace(&self, url: &Url) -> Result<(), String> {
        match url.scheme() {
            "http" | "https" => self.http.pace(url),
            _ => Ok(()),
        }
    }

    fn interrupt(&self) {
        self.http.interrupt();
    }
}
