//! The plugin interface of linkpatrol: the [`Plugin`] trait, the small views a plugin sees, and
//! the [`Services`] the engine offers back (fetching through its politeness and cache).
//!
//! This crate is deliberately tiny and depends only on `url`, so that built-in plugins (each
//! its own crate under `plugins/`) can do exactly what a user's plugin can, no more.
//!
//! A plugin is called from many worker threads at once; its hooks take `&self`, so any state it
//! keeps (a cache) needs its own synchronisation. The engine holds none of its own locks while a
//! hook runs.
//!
//! The URLs of a [`ResponseView`] and a [`ContentView`] are the ones checked, with any
//! `user:password@` they carry, so that [`Services::fetch`] can use them (a [`LinkView`] shows
//! its target as reported, credentials masked as `***`). Reports mask those credentials; a
//! plugin that hands a URL to anything outside the process (a program, a file, a log) takes them
//! out first, as the `command` plugin does for `$LINKPATROL_URL`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod options;
pub mod testing;

pub use options::Options;
pub use url::Url;

/// What a plugin sees of one checked URL once its response (or file) is known.
#[derive(Debug, Clone)]
pub struct ResponseView<'a> {
    /// The URL that was checked (after normalisation, before redirects, without fragment).
    pub url: &'a Url,
    /// The URL the last redirect hop led to (a folder's `index.html`), or the URL itself.
    pub final_url: &'a Url,
    /// The final HTTP status, when the URL was fetched over HTTP and answered.
    pub status: Option<u16>,
    /// `true` when the check found the URL reachable (2xx, an existing file).
    pub ok: bool,
    /// The response headers of the final hop, as sent (names lower-case). Empty for files.
    pub headers: &'a [(String, String)],
    /// The media type without parameters, when known (`text/html`).
    pub content_type: Option<&'a str>,
    /// Inside the crawl's scope.
    pub internal: bool,
}

/// What a plugin sees of a page whose content the engine read and parsed.
#[derive(Debug, Clone)]
pub struct ContentView<'a> {
    /// The URL that was checked (before redirects, without fragment).
    pub url: &'a Url,
    /// The URL the content came from (after redirects; a folder's `index.html`).
    pub final_url: &'a Url,
    /// The media type without parameters (`text/html`), when known.
    pub content_type: Option<&'a str>,
    /// The content: decoded to UTF-8 for HTML, as read otherwise (capped at the body limit).
    pub body: &'a [u8],
    /// The links found in it, resolved against the page (those that resolve). Collected only
    /// when some configured plugin's [`Plugin::wants_links`] is `true`; empty otherwise.
    pub links: &'a [Url],
    /// Every non-empty `id` and `<a name>` of an HTML page, as written (character references
    /// decoded); of a Markdown page, its heading slugs (GitHub's rules), explicit heading ids
    /// and the `id`s and names of its raw HTML.
    pub anchors: &'a [String],
    /// Inside the crawl's scope.
    pub internal: bool,
}

/// One link with a fragment, as written on one page, and what its target turned out to be.
/// Seen by [`Plugin::check_link`] once the target's check has finished.
#[derive(Debug, Clone)]
pub struct LinkView<'a> {
    /// The target URL, without fragment.
    pub target: &'a Url,
    /// Where the target's redirects ended, when that differs from `target`.
    pub real_target: Option<&'a Url>,
    /// The target as written on the page, when a `--remap` rule rewrote it into `target`
    /// (credentials masked as `***`). Whose page the link means (a `github.com` page served
    /// from a mirror) is decided on this URL.
    pub written_target: Option<&'a Url>,
    /// The fragment as it is in the parsed URL (percent-encoded where the URL syntax requires).
    pub fragment: &'a str,
    /// The page that contains the link; empty for a start URL.
    pub parent: &'a str,
    /// `true` when the target was found reachable with a success status (a 2xx after
    /// redirects, an existing file). A page accepted with an error status (`--accept 404`) is
    /// not: as lychee does, its fragments are not looked for.
    pub target_ok: bool,
    /// The target's media type without parameters, when known.
    pub target_content_type: Option<&'a str>,
    /// The page that holds the link is a source of an mdBook checked as the site it builds:
    /// the link is followed on that site (mdBook's rules), not on GitHub's view of the file.
    pub from_mdbook: bool,
}

/// A page fetched through [`Services::fetch`]: the engine's verdict and its parse.
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// The URL the content came from, after redirects.
    pub final_url: Option<Url>,
    /// The final HTTP status, when fetched over HTTP.
    pub status: Option<u16>,
    /// `true` when reachable (2xx, an existing file).
    pub ok: bool,
    /// The media type without parameters.
    pub content_type: Option<String>,
    /// The content as read (HTML decoded to UTF-8), capped at the body limit.
    pub body: Vec<u8>,
    /// Every non-empty `id` and `<a name>` of an HTML page; the anchors of a Markdown page
    /// (see [`ContentView::anchors`]).
    pub anchors: Vec<String>,
    /// The text a reader sees on an HTML page, for text fragments (`#:~:text=`): the body's
    /// text (scripts, styles and the head left out), each run of whitespace one space, each
    /// block element (paragraph, heading, list item, cell) on a line of its own; at most
    /// 4 MiB. Of a Markdown page, the text it renders to, the same way. Empty for other types.
    pub text: String,
    /// Why the page could not be fetched, when it could not.
    pub error: Option<String>,
}

/// What a plugin found on a page beyond the engine's parse of its content: the page as a
/// browser shows it once its scripts ran. See [`Plugin::render`].
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// Every link of the rendered page, resolved (fragments kept). The engine checks those
    /// its own parse did not find, marked as found after rendering.
    pub links: Vec<Url>,
    /// The page's anchors once rendered (`id`s scripts created, routes such as `#/settings`).
    pub anchors: Vec<String>,
    /// Remarks about the page (a script that threw, a page that never settled).
    pub remarks: Vec<Remark>,
}

/// What the engine offers a plugin during a hook.
pub trait Services: Send + Sync {
    /// Fetches `url` (`http`, `https` or `file`) through the engine: the per-host politeness
    /// gate, robots.txt, headers, retries and redirects all apply, and the engine keeps the
    /// result for the run, so a URL asked for by several hooks (or plugins) is requested once.
    fn fetch(&self, url: &Url) -> std::sync::Arc<Page>;

    /// The DER bytes of the leaf certificate `host:port` presents over TLS, fetched once per
    /// `host:port` per run. `Err` with a reason when there is none (not https, no connection).
    fn peer_certificate(&self, url: &Url) -> Result<std::sync::Arc<Vec<u8>>, String>;

    /// The `Cookie` header the engine would send to `url` now (the login session's cookies,
    /// a `--cookie-file`'s), when it would send one. Defaults to none.
    fn cookie_header(&self, url: &Url) -> Option<String> {
        let _ = url;
        None
    }

    /// Waits until a request to `url` that the plugin makes outside the engine (a browser's
    /// request for a script) may start by the run's rules: robots.txt, the host's politeness
    /// interval and `--max-requests-per-second`, which it counts toward. `Err` with the reason
    /// when it may not be made at all. Defaults to `Ok` at once.
    fn pace(&self, url: &Url) -> Result<(), String> {
        let _ = url;
        Ok(())
    }
}

/// A remark a plugin adds to a result: a warning, plain information, or a verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remark {
    /// A warning with a stable tag (`anchor-not-found`) and a human message. Reports show the
    /// plugin's name in front of the message; the tag works with `--ignore-warning`.
    Warning {
        /// The stable tag.
        tag: &'static str,
        /// The message shown in reports.
        message: String,
    },
    /// Information shown in reports' info column; never affects the verdict.
    Info(String),
    /// The URL is broken for this plugin: a reachable URL is reported failed with this message.
    /// From [`Plugin::check_link`]: this occurrence of the link is broken (its fragment), while
    /// its target stays as checked for every other link to it.
    Broken(String),
}

impl Remark {
    /// A warning.
    pub fn warning(tag: &'static str, message: impl Into<String>) -> Remark {
        Remark::Warning {
            tag,
            message: message.into(),
        }
    }
}

/// A plugin: hooks called by the engine for each checked URL. Every hook defaults to no
/// remarks, so a plugin implements only the ones it needs.
///
/// Hooks take `&self` and may be called from many worker threads at once. The engine never
/// holds one of its own locks across a hook call, so a hook may block (fetch, run a program).
pub trait Plugin: Send + Sync {
    /// A short, stable name (`anchors`), used by `--plugin NAME` and shown with each remark.
    fn name(&self) -> &'static str;

    /// `true` when [`check_content`](Plugin::check_content) reads [`ContentView::links`]
    /// (collecting them costs a copy of every link of every page). Defaults to `false`.
    fn wants_links(&self) -> bool {
        false
    }

    /// Called once per checked URL (http, https, file) after its response or file is known.
    fn check_response(&self, response: &ResponseView<'_>, services: &dyn Services) -> Vec<Remark> {
        let _ = (response, services);
        Vec::new()
    }

    /// Called once per page whose content the engine read and parsed (internal pages).
    fn check_content(&self, content: &ContentView<'_>, services: &dyn Services) -> Vec<Remark> {
        let _ = (content, services);
        Vec::new()
    }

    /// Called for an HTML page of the site, before [`check_content`](Plugin::check_content)
    /// and when [`Services::fetch`] reads one: the page as rendered, when this plugin renders
    /// pages (`render-js`). `None` (the default) when it does not. May be called more than once
    /// for one URL; a plugin that renders keeps its answer.
    fn render(&self, content: &ContentView<'_>, services: &dyn Services) -> Option<Rendered> {
        let _ = (content, services);
        None
    }

    /// Called once when the run ends, however it ends (finished, cancelled, abandoned after
    /// `--abort-timeout`): a plugin releases what lives outside the process (a browser).
    fn finish(&self) {}

    /// Called once per occurrence of a link that has a fragment, after its target's check has
    /// finished. Warnings and a `Broken` verdict belong to this occurrence (the page that has
    /// it; a start URL with a fragment has no page, and its parent is empty); infos are dropped.
    fn check_link(&self, link: &LinkView<'_>, services: &dyn Services) -> Vec<Remark> {
        let _ = (link, services);
        Vec::new()
    }
}
