//! The verdict on one URL and the records reports are made of.
//!
//! A broken link is data, not an error: [`Outcome`] says what happened to a URL,
//! [`CheckResult`] carries it with everything measured on the way, and an [`Entry`] pairs a
//! result with one page that links to it (one CSV row, one JUnit testcase).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use url::Url;

use crate::model::redact::redact_text;

/// Declares [`FailKind`] with each kind's name: the list of every kind ([`FailKind::ALL`]) and
/// the names come from the declaration itself, so no kind can be left out of either.
macro_rules! fail_kinds {
    ($($(#[doc = $doc:literal])* $kind:ident = $name:literal,)*) => {
        /// Why a URL could not be fetched or was found broken, short of an HTTP status.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum FailKind {
            $($(#[doc = $doc])* $kind,)*
        }

        impl FailKind {
            /// Every kind, in declaration order: for reading a name back
            /// ([`as_str`](Self::as_str)) and for listing them (the SARIF rules).
            pub const ALL: [FailKind; [$($name),*].len()] = [$(FailKind::$kind),*];

            /// A short, stable, lower-case name (`timeout`, `redirect-loop`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(FailKind::$kind => $name,)*
                }
            }
        }
    };
}

fail_kinds! {
    /// The link could not be parsed as a URL.
    InvalidUrl = "invalid-url",
    /// The host name could not be resolved.
    Dns = "dns",
    /// The TCP connection was refused or could not be made.
    Connect = "connect",
    /// A connect, response or body timeout passed.
    Timeout = "timeout",
    /// A TLS handshake or certificate problem.
    Tls = "tls",
    /// The server broke the HTTP protocol (malformed status line, bad headers).
    Protocol = "protocol",
    /// The connection broke while reading (reset, unexpected EOF).
    Io = "io",
    /// A redirect led back to a URL already in its chain.
    RedirectLoop = "redirect-loop",
    /// More redirect hops than allowed.
    TooManyRedirects = "too-many-redirects",
    /// A redirect without a usable `Location`.
    BadRedirect = "bad-redirect",
    /// A local file or directory that does not exist.
    FileNotFound = "file-not-found",
    /// A mail address with invalid syntax.
    BadMailAddress = "bad-mail-address",
    /// The run was cancelled while this URL was in flight.
    Interrupted = "interrupted",
    /// A bug: the check of this URL panicked (the run went on).
    Internal = "internal",
    /// A plugin found the URL broken (its message says which and why).
    Plugin = "plugin",
    /// This link's `#fragment` names nothing on its page (the `anchors` plugin). The URL itself
    /// is fine: only the entries of links with that fragment carry this verdict.
    Fragment = "fragment",
    /// A Markdown reference (`[text][label]`, `[label][]`) whose label no definition names:
    /// it renders as literal text.
    UndefinedReference = "undefined-reference",
    /// A URL longer than the run requests (8,192 characters, `policy::url_cap`): not
    /// requested, as a server would refuse it.
    UrlTooLong = "url-too-long",
}

impl FailKind {
    /// The kind named `name` (the inverse of [`as_str`](Self::as_str)).
    pub fn from_name(name: &str) -> Option<FailKind> {
        FailKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// What happened to one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Reachable: an HTTP 2xx (after redirects), an existing file, a well-formed mail address.
    Ok {
        /// The final HTTP status, when fetched over HTTP.
        status: Option<u16>,
    },
    /// The server answered with an error status (4xx or 5xx) after any redirects.
    Broken {
        /// The HTTP status code.
        status: u16,
    },
    /// The URL could not be checked to a status: see the kind and message.
    Failed {
        /// The class of failure.
        kind: FailKind,
        /// A human-readable detail.
        message: String,
    },
    /// The server's bot protection answered instead of the page (a Cloudflare challenge,
    /// LinkedIn's `999`): a browser may well see the page, so the link is neither valid nor
    /// broken. Not an error unless the run is told so (`--fail-on-blocked`).
    Blocked {
        /// The HTTP status of the denial.
        status: u16,
        /// Which protection answered, as named from its headers or status
        /// (`Cloudflare bot challenge`).
        reason: String,
    },
    /// Not checked by design: a scheme we cannot check (`javascript:`, `tel:`), or a filter.
    Ignored {
        /// Why it was not checked.
        reason: String,
    },
}

impl Outcome {
    /// `true` for a link that is broken: an error status or a failure.
    pub fn is_broken(&self) -> bool {
        matches!(self, Outcome::Broken { .. } | Outcome::Failed { .. })
    }

    /// The state the reports name: `ok`, `broken` (an error status), `failed`, `blocked`
    /// (bot protection answered) or `ignored`.
    pub fn state_name(&self) -> &'static str {
        match self {
            Outcome::Ok { .. } => "ok",
            Outcome::Broken { .. } => "broken",
            Outcome::Failed { .. } => "failed",
            Outcome::Blocked { .. } => "blocked",
            Outcome::Ignored { .. } => "ignored",
        }
    }

    /// `true` when bot protection answered instead of the page ([`Outcome::Blocked`]).
    pub fn is_blocked(&self) -> bool {
        matches!(self, Outcome::Blocked { .. })
    }

    /// `true` when the URL was not checked by design.
    pub fn is_ignored(&self) -> bool {
        matches!(self, Outcome::Ignored { .. })
    }

    /// The HTTP status, when the outcome has one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Outcome::Ok { status } => *status,
            Outcome::Broken { status } | Outcome::Blocked { status, .. } => Some(*status),
            Outcome::Failed { .. } | Outcome::Ignored { .. } => None,
        }
    }
}

impl fmt::Display for Outcome {
    /// The result text LinkChecker users know: `200 OK`, `404 Not Found`, `Error: timeout: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ok { status: Some(s) } => write!(f, "{s} {}", reason(*s)),
            Outcome::Ok { status: None } => f.write_str("Valid"),
            Outcome::Broken { status } => write!(f, "{status} {}", reason(*status)),
            Outcome::Failed { kind, message } => write!(f, "{}: {message}", kind.as_str()),
            Outcome::Blocked {
                status,
                reason: why,
            } => {
                let phrase = reason(*status);
                let sep = if phrase.is_empty() { "" } else { " " };
                write!(f, "blocked: {status}{sep}{phrase} ({why})")
            }
            Outcome::Ignored { reason } => write!(f, "ignored: {reason}"),
        }
    }
}

fn reason(status: u16) -> &'static str {
    ureq::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("")
}

/// A warning attached to a result, with a stable tag (`http-redirected`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Warning {
    /// Stable tag, as LinkChecker names its warnings.
    pub tag: &'static str,
    /// Human-readable message.
    pub message: String,
}

impl Warning {
    /// `http-empty-content`: an HTTP 200 answer or a regular file with zero bytes.
    pub(crate) fn empty_content() -> Self {
        Warning {
            tag: "http-empty-content",
            message: "The page has no content.".into(),
        }
    }
}

/// One redirect hop: the URL that answered and the status it answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hop {
    /// The URL requested in this hop.
    pub url: Url,
    /// Its 3xx status.
    pub status: u16,
}

/// Everything known about one checked URL. Shared (`Arc`) by every [`Entry`] that links to it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CheckResult {
    /// The URL as checked: resolved, without fragment.
    pub url: String,
    /// Where the redirects ended, when that differs from `url`.
    pub real_url: Option<Url>,
    /// The redirect chain, in order (empty without redirects).
    pub redirects: Vec<Hop>,
    /// The verdict.
    pub outcome: Outcome,
    /// Warnings found while checking.
    pub warnings: Vec<Warning>,
    /// Informational remarks.
    pub infos: Vec<String>,
    /// Media type without parameters, when known.
    pub content_type: Option<String>,
    /// Body bytes read (or the announced length when the body was not read).
    pub size: Option<u64>,
    /// Time spent downloading the body.
    pub download_time: Option<Duration>,
    /// Wall time of the whole check, politeness waits excluded.
    pub check_time: Duration,
    /// Recursion level: the number of links from a start URL (start URLs are 0). An entry
    /// sent while the run goes on has the level of the link that reached the URL first, which
    /// depends on the threads' timing; at the end, [`Report::levels`](crate::Report::levels)
    /// holds the settled level of each URL, its shortest link distance from a start URL, which
    /// [`Report::entries`](crate::Report::entries) and the binary's reports carry.
    pub level: usize,
    /// `true` when the URL is inside the crawl's scope (recursed into when a page).
    pub internal: bool,
    /// Number of links found in its content (0 when it was not parsed).
    pub links_found: usize,
    /// HTTP `Last-Modified`, when sent.
    pub modified: Option<String>,
    /// Requests that were retries (after a timeout, a broken connection, a stale pooled one
    /// included, a 429 or a 5xx): the requests sent for the URL, less one.
    pub retries: u32,
    /// The shard that checks this URL, when this run is a shard
    /// ([`Config::shard`](crate::Config::shard)) and exported the URL instead of checking it
    /// (the outcome is then `Ignored`). `None` for every URL this run checked.
    pub exported_to: Option<usize>,
    /// When the result was checked, if it was served from the state file
    /// ([`Config::state_file`](crate::Config::state_file)) instead of being requested again:
    /// "reused from the state file" (`from_state` in JSON, NDJSON and CSV), not to be confused
    /// with an entry's [`cached`](Entry::cached) (LinkChecker's meaning: the URL was seen
    /// before in this run).
    pub cached_from: Option<SystemTime>,
    /// With a state file: when this URL was first found broken in the runs it has been broken
    /// in without a break (`None` when it is not broken).
    pub broken_since: Option<SystemTime>,
    /// With a state file: in how many consecutive runs that checked this URL it was broken,
    /// this run included (0 when it is not broken or no state file is used).
    pub broken_runs: u32,
    /// With [`Config::suggest`](crate::Config::suggest): the closest snapshot of this broken
    /// URL in the web archive, when it has one.
    pub suggestion: Option<String>,
}

/// The info of a page answered 304 (not modified since the run that stored it) whose links
/// come from the state file.
pub(crate) const NOT_MODIFIED: &str =
    "not modified since the last run: its links come from the state file";

impl CheckResult {
    /// `true` for a page answered 304 whose links came from the state file.
    pub fn not_modified(&self) -> bool {
        self.infos.iter().any(|i| i == NOT_MODIFIED)
    }

    /// A result that needed no network: ignored schemes, invalid URLs, mail syntax checks.
    pub(crate) fn immediate(url: String, outcome: Outcome, level: usize) -> Self {
        CheckResult {
            url,
            real_url: None,
            redirects: Vec::new(),
            outcome,
            warnings: Vec::new(),
            infos: Vec::new(),
            content_type: None,
            size: None,
            download_time: None,
            check_time: Duration::ZERO,
            level,
            internal: false,
            links_found: 0,
            modified: None,
            retries: 0,
            exported_to: None,
            cached_from: None,
            broken_since: None,
            broken_runs: 0,
            suggestion: None,
        }
    }
}

impl CheckResult {
    /// The result with every user name and password in its URLs and texts masked (`***`).
    /// Applied once where a result is stored for reporting (`cache`), so no report can show
    /// credentials.
    pub(crate) fn without_credentials(mut self) -> Self {
        let mask = |s: &mut String| {
            if let Cow::Owned(m) = redact_text(s) {
                *s = m;
            }
        };
        mask(&mut self.url);
        if let Some(u) = &mut self.real_url {
            mask_url(u);
        }
        for hop in &mut self.redirects {
            mask_url(&mut hop.url);
        }
        match &mut self.outcome {
            Outcome::Failed { message, .. } => mask(message),
            Outcome::Ignored { reason } | Outcome::Blocked { reason, .. } => mask(reason),
            Outcome::Ok { .. } | Outcome::Broken { .. } => {}
        }
        for w in &mut self.warnings {
            mask(&mut w.message);
        }
        self.infos.iter_mut().for_each(mask);
        if let Some(s) = &mut self.suggestion {
            mask(s);
        }
        self
    }
}

/// Replaces a URL's user name and password with `***`.
pub(crate) fn mask_url(url: &mut Url) {
    if !url.username().is_empty() || url.password().is_some() {
        let _ = url.set_password(None);
        let _ = url.set_username("***");
    }
}

impl Referrer {
    /// `raw`, written on `parent` at `line`, `column`, with no text, base, warning or remap:
    /// the referrer report tests build rows with.
    #[cfg(test)]
    pub(crate) fn at(parent: &str, raw: &str, line: usize, column: usize) -> Self {
        Referrer {
            parent: parent.into(),
            raw: raw.into(),
            line: Some(line),
            column: Some(column),
            name: String::new(),
            base: None,
            warnings: Vec::new(),
            remapped_from: None,
            rendered: false,
        }
    }

    /// The referrer with credentials masked in every field that may quote a URL.
    pub(crate) fn without_credentials(mut self) -> Self {
        for s in [&mut self.parent, &mut self.raw, &mut self.name] {
            if let Cow::Owned(m) = redact_text(s) {
                *s = m;
            }
        }
        for s in [&mut self.base, &mut self.remapped_from]
            .into_iter()
            .flatten()
        {
            if let Cow::Owned(m) = redact_text(s) {
                *s = m;
            }
        }
        for w in &mut self.warnings {
            if let Cow::Owned(m) = redact_text(&w.message) {
                w.message = m;
            }
        }
        self
    }
}

/// Where a link was found: the page, the place in it, and how it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Referrer {
    /// The page that contains the link.
    pub parent: String,
    /// The link as written in the page (`../x.html#top`).
    pub raw: String,
    /// 1-based line of the element, when known.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the element, when known.
    pub column: Option<usize>,
    /// The link text or alt text.
    pub name: String,
    /// The document's `<base href>`, when it had one.
    pub base: Option<String>,
    /// Warnings about this occurrence only (`url-whitespace`: the link as written here).
    pub warnings: Vec<Warning>,
    /// The link's URL (resolved, as written) before a remap rule
    /// ([`Config::remap`](crate::Config::remap)) rewrote it into the result's URL; `None`
    /// when no rule applied.
    pub remapped_from: Option<String>,
    /// The link was found only once the page was rendered in a browser (`--render-js`): its
    /// scripts made it; the page's source does not have it (nor a line for it).
    pub rendered: bool,
}

impl Entry {
    /// The warnings of the URL's check followed by those of this occurrence.
    pub fn warnings(&self) -> impl Iterator<Item = &Warning> {
        self.result
            .warnings
            .iter()
            .chain(self.referrer.iter().flat_map(|r| r.warnings.iter()))
    }
}

/// One occurrence of a link and the verdict on its URL: a row of a report.
///
/// A URL is checked once; it yields one entry per page that links to it (or one with no
/// referrer for a start URL). Entries stream out as they become known.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Entry {
    /// The shared result of the URL's check.
    pub result: Arc<CheckResult>,
    /// The page that links to it; `None` for a start URL.
    pub referrer: Option<Referrer>,
    /// The fragment of the link as written (`top` in `page.html#top`), if any.
    pub fragment: Option<String>,
    /// `false` for the first entry of a result, `true` for every later one (its URL was not
    /// checked again): LinkChecker's `cached` column.
    pub cached: bool,
}

/// Bytes a report row held in memory costs besides its strings: the entry, its referrer and
/// the allocator's share (a verbose sorted CSV of the 10k bench site held 401,335 rows in
/// 175 MB above a streamed run's peak: about 430 bytes a row, with strings of some 60).
const ROW_BYTES: usize = 400;

impl Entry {
    /// Bytes this row costs held in memory for a sorted report: its fixed part and its own
    /// strings (its result is shared by every row of its URL, and counted where it is kept).
    pub(crate) fn held_bytes(&self) -> usize {
        ROW_BYTES
            + self.fragment.as_ref().map_or(0, String::len)
            + self.referrer.as_ref().map_or(0, |r| {
                r.parent.len()
                    + r.raw.len()
                    + r.name.len()
                    + r.base.as_ref().map_or(0, String::len)
                    + r.remapped_from.as_ref().map_or(0, String::len)
                    + r.warnings
                        .iter()
                        .map(|w| 40 + w.message.len())
                        .sum::<usize>()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::FailKind;

    /// Every name is distinct and reads back.
    #[test]
    fn all_lists_every_kind_once_and_names_read_back() {
        let mut names: Vec<&str> = FailKind::ALL.iter().map(|k| k.as_str()).collect();
        for kind in FailKind::ALL {
            assert_eq!(FailKind::from_name(kind.as_str()), Some(kind));
        }
        assert_eq!(FailKind::from_name("no-such-kind"), None);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FailKind::ALL.len());
    }
}
