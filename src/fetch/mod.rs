//! Fetching one URL: over HTTP with a shared `ureq` agent (`http`), or from disk (`file`).
//! The engine fetches every URL through the [`Fetch`] seam; [`Router`](router::Router) is the
//! one place the URL's scheme picks the fetcher. The fetch layer also holds the rest of the
//! crawl's I/O, which the engine calls directly: DNS for the optional MX check (`dns`,
//! `mail_mx`), the certificate read for the cert-expiry plugin (`tls`, over a connection of its
//! own that `tunnel` opens through the run's proxy; `accept_any_cert` is the verifier that
//! accepts any certificate; all three only with the `plugin-cert-expiry` feature) and the
//! folder test behind the `file-no-index` warning (`FileScope::is_folder_without_index`).
//!
//! A fetch never parses: it returns the verdict, the redirect chain, the headers we report and,
//! when the caller asked for it and the content is one we parse (`extract::format`), the body
//! bytes (capped).

// The certificate read serves only the cert-expiry plugin: a build without it links none
// of it, and `tls_off` says so to a plugin that asks.
#[cfg(feature = "plugin-cert-expiry")]
pub(crate) mod accept_any_cert;
pub(crate) mod book_redirects;
pub(crate) mod bounded_command;
pub(crate) mod connection;
pub(crate) mod cookie_jar_file;
pub(crate) mod dns;
pub(crate) mod file;
pub(crate) mod github_auth;
pub(crate) mod http;
pub(crate) mod mail_mx;
pub(crate) mod preprocess;
pub(crate) mod real_path;
pub(crate) mod request_extras;
pub(crate) mod resolver;
pub(crate) mod router;
pub(crate) mod session_cookies;
pub(crate) mod sibling_hint;
pub(crate) mod start_address;
#[cfg(feature = "plugin-cert-expiry")]
pub(crate) mod tls;
#[cfg(not(feature = "plugin-cert-expiry"))]
#[path = "tls_off.rs"]
pub(crate) mod tls;
#[cfg(feature = "plugin-cert-expiry")]
pub(crate) mod tunnel;
pub(crate) mod walked;
pub(crate) mod work_tree;

use std::fmt;
use std::time::{Duration, Instant};

use url::Url;

use crate::model::outcome::{FailKind, Hop, Outcome, Warning};

/// Fetches one URL, whatever its scheme: the seam between the engine and the network or disk.
/// The run's [`Router`](router::Router) dispatches on the scheme; engine tests put a fake with
/// canned answers in its place.
pub(crate) trait Fetch: Send + Sync + fmt::Debug {
    /// Checks `url`, following redirects. With `want_body`, a body we parse is returned.
    /// `chain` says how many hops came before `url` and is asked before each hop is requested
    /// (see [`Chain`]); a hop it hands to a check of its own ends the fetch there
    /// ([`Fetched::stopped_at`]).
    fn fetch(&self, url: &Url, want_body: bool, chain: Chain<'_>) -> Fetched;
    /// [`fetch`](Self::fetch) with the body, asking the server (first hop only) to answer
    /// `304 Not Modified` when the content still matches `validators`. A fetcher that cannot
    /// ask fetches in full.
    fn fetch_if_changed(&self, url: &Url, validators: &Validators, chain: Chain<'_>) -> Fetched {
        let _ = validators;
        self.fetch(url, true, chain)
    }
    /// [`fetch`](Self::fetch) for a task that may be handed back to the queue: when the
    /// first request of the URL (not of a redirect hop) would have to wait for its host's slot
    /// — a robots.txt `Crawl-delay` after the robots.txt request, a pause after a 429 or 503 —
    /// it returns at once with [`Fetched::deferred`] set instead of sleeping, holding nothing.
    /// `resume` carries what an earlier try of the same task learned. The default never
    /// defers.
    fn fetch_deferrable(
        &self,
        url: &Url,
        want_body: bool,
        chain: Chain<'_>,
        resume: &Resume,
    ) -> Fetched {
        let _ = resume;
        self.fetch(url, want_body, chain)
    }
    /// The body of a robots.txt; `None` when there is none to obey.
    fn fetch_robots(&self, url: &Url) -> Option<Vec<u8>>;
    /// The body of a small http(s) resource (a web archive's answer), up to `limit` bytes,
    /// following a few redirects; `None` unless it answered 200. The default fetches nothing.
    fn fetch_small(&self, _url: &Url, _limit: u64) -> Option<Vec<u8>> {
        None
    }
    /// One http(s) page exchange outside the crawl, for the login before it: `fields` sent
    /// with `method` (none: a plain GET), redirects followed, cookies kept for the crawl.
    /// `Err` quotes the URL and why, never the fields. The default has no network.
    fn exchange_page(
        &self,
        url: &Url,
        _method: http::FormMethod,
        _fields: &[(String, String)],
    ) -> Result<http::PageAnswer, String> {
        Err(format!("{url}: this fetcher sends no forms"))
    }
    /// The `Cookie` header a request to `url` would carry now (the user's cookies, the login
    /// session's), for a browser that renders the page. The default has none.
    fn cookie_header(&self, _url: &Url) -> Option<String> {
        None
    }
    /// Waits for `url`'s host's next turn at the politeness gate, for a request made outside
    /// the fetcher (a browser rendering a page): it counts toward the host's interval and the
    /// run's rate. `Err` when the run was cancelled or the host given up. The default waits not.
    fn pace(&self, _url: &Url) -> Result<(), String> {
        Ok(())
    }
    /// Makes requests blocked in other threads return at once (a cancelled run's last step).
    fn interrupt(&self);
}

/// The redirect chain a fetch goes on with. One chain has one budget: a hop handed to a check
/// of its own (its scope differs) hands on the count of hops so far, so `max_redirects` spans
/// every check the chain passes through, however often it changes hands.
#[derive(Clone, Copy)]
pub(crate) struct Chain<'a> {
    /// Hops that earlier checks took before they handed the chain to this URL (0: the chain
    /// starts here). They count against `max_redirects` with the fetch's own.
    pub(crate) before: usize,
    /// Asked before each hop is requested, with the hop's URL and the chain's hops up to it
    /// (`before` included): `true` means the caller claimed the URL as another name of this
    /// check, to be requested now; `false` means the URL is checked on its own (known
    /// already, or just queued with those hops behind it), and the fetch stops there.
    pub(crate) claim: &'a dyn Fn(&Url, usize) -> bool,
    /// The fetch only tries the URL (`--require-https`'s twin): a DNS, connect or TLS failure
    /// gives no host up, since the twin may share its `host:port` with a working `http:` URL.
    pub(crate) probe: bool,
}

impl Chain<'static> {
    /// A chain that starts at the fetched URL and requests every hop itself, claiming nothing:
    /// for fetches outside the crawl's result cache (plugins, probes, parse jobs).
    pub(crate) const OWN: Chain<'static> = Chain {
        before: 0,
        claim: &|_, _| true,
        probe: false,
    };

    /// [`Chain::OWN`] for a URL only tried (see [`Chain::probe`]).
    pub(crate) const PROBE: Chain<'static> = Chain {
        probe: true,
        ..Chain::OWN
    };
}

/// What identified a page's content when it was last fetched: sent back as `If-None-Match`
/// and `If-Modified-Since`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Validators {
    /// The `ETag` it was served with.
    pub(crate) etag: Option<String>,
    /// Its `Last-Modified`.
    pub(crate) last_modified: Option<String>,
}

/// What a deferred fetch hands on to the next try of its task (see
/// [`Fetch::fetch_deferrable`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Resume {
    /// Retries spent already: they count against the URL's retry budget, so a host that
    /// answers 429 forever still ends the task.
    pub(crate) retries: u32,
    /// Ask with GET even where HEAD would do (a 503 answered a HEAD).
    pub(crate) get: bool,
    /// Warnings found so far (`http-rate-limited`).
    pub(crate) warnings: Vec<Warning>,
}

/// What a fetch learned about a URL.
#[derive(Debug)]
pub(crate) struct Fetched {
    /// The verdict.
    pub(crate) outcome: Outcome,
    /// The URL the content came from (after redirects; `index.html` for a folder).
    pub(crate) final_url: Url,
    /// Redirect hops, in order.
    pub(crate) redirects: Vec<Hop>,
    /// Media type without parameters, lower-case.
    pub(crate) content_type: Option<String>,
    /// The `charset` of the Content-Type header, when sent.
    pub(crate) charset: Option<String>,
    /// `content_type` was sniffed from the body: the server sent none we could use.
    pub(crate) sniffed: bool,
    /// Requests that were retries.
    pub(crate) retries: u32,
    /// The body, when it was asked for, the verdict is OK and the content is one we parse.
    pub(crate) body: Option<Vec<u8>>,
    /// Bytes read, or the announced length.
    pub(crate) size: Option<u64>,
    /// Time spent reading the body.
    pub(crate) download_time: Option<Duration>,
    /// `Last-Modified` (HTTP) or the file's modification time.
    pub(crate) modified: Option<String>,
    /// The final response's `ETag` (HTTP only).
    pub(crate) etag: Option<String>,
    /// Warnings found on the way.
    pub(crate) warnings: Vec<Warning>,
    /// The final response's headers (lower-case names), kept only for plugins.
    pub(crate) headers: Vec<(String, String)>,
    /// Redirect targets this fetch claimed in the cache and requested itself: each key with the
    /// index in `redirects` where its own chain starts (`redirects.len()` for the final URL).
    pub(crate) owned: Vec<(String, usize)>,
    /// The key of an already claimed URL the redirect chain reached and did not request again;
    /// the verdict is that URL's (see `cache::ResultCache::defer`).
    pub(crate) stopped_at: Option<String>,
    /// Set only by [`Fetch::fetch_deferrable`]: no verdict yet; the first request may start
    /// at this instant. `retries` and `warnings` hold what the next try resumes with.
    pub(crate) deferred: Option<(Instant, bool)>,
}

impl Fetched {
    /// A fetch that ended in `outcome` with nothing else learned.
    pub(crate) fn bare(url: &Url, outcome: Outcome) -> Self {
        Fetched {
            outcome,
            final_url: url.clone(),
            redirects: Vec::new(),
            content_type: None,
            charset: None,
            sniffed: false,
            retries: 0,
            body: None,
            size: None,
            download_time: None,
            modified: None,
            etag: None,
            warnings: Vec::new(),
            headers: Vec::new(),
            owned: Vec::new(),
            stopped_at: None,
            deferred: None,
        }
    }

    /// A failed fetch.
    pub(crate) fn failed(url: &Url, kind: FailKind, message: impl Into<String>) -> Self {
        Self::bare(
            url,
            Outcome::Failed {
                kind,
                message: message.into(),
            },
        )
    }
}
