//! The plugin interface of linkpatrol: the [`Plugin`] trait and the small views a plugin sees.
//!
//! This crate is deliberately tiny and depends only on `url`, so that built-in plugins (each
//! its own crate under `plugins/`) can do exactly what a user's plugin can, no more.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use url::Url;

/// What a plugin sees of one checked URL after its connection check.
#[derive(Debug, Clone)]
pub struct ResponseView<'a> {
    /// The URL that was checked (after normalisation, before redirects).
    pub url: &'a Url,
    /// The URL the last redirect hop led to, or the URL itself.
    pub final_url: &'a Url,
    /// The HTTP status code, when the URL was fetched over HTTP.
    pub status: Option<u16>,
    /// The media type without parameters, when known (`text/html`).
    pub content_type: Option<&'a str>,
    /// The body that was read for parsing, when the content was read at all.
    pub body: Option<&'a [u8]>,
}

/// A remark a plugin adds to a result: a warning tag and message, or plain information.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remark {
    /// A warning with a stable tag (`anchor-not-found`) and a human message.
    Warning {
        /// The stable tag, usable with `--ignore-warning`.
        tag: String,
        /// The message shown in reports.
        message: String,
    },
    /// Information shown in reports; never affects the verdict.
    Info(String),
}

/// A plugin: hooks called by the engine for each checked URL.
///
/// Hooks take `&self` and may be called from many worker threads at once. The engine never
/// holds one of its own locks across a hook call.
pub trait Plugin: Send + Sync {
    /// A short, stable name (`anchors`), used by `--plugin NAME`.
    fn name(&self) -> &str;

    /// Called once per checked URL after its content was fetched. Returns remarks to attach.
    /// Defaults to no remarks.
    fn check_content(&self, response: &ResponseView<'_>) -> Vec<Remark> {
        let _ = response;
        Vec::new()
    }
}
