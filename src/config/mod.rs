//! [`Config`]: every knob of a check, with its default as a `pub const DEFAULT_*` so the CLI and
//! the library cannot drift apart. The library never parses command-line flags; the binary
//! turns them into a `Config` in one place.
//!
//! The config layer: `Config` and the values it holds (accepted statuses, credentials,
//! cookies, per-host rules, the built-in plugins by name). Depends only on the model.

pub(crate) mod accept;
pub(crate) mod basic_auth;
#[cfg(feature = "state")]
pub(crate) mod checked_options;
pub(crate) mod cookies;
pub(crate) mod github_token;
pub(crate) mod host_rules;
pub(crate) mod login;
pub(crate) mod plugins;
pub(crate) mod preprocess;
pub(crate) mod remap;
pub(crate) mod setting_syntax;
pub(crate) mod shard;
pub(crate) mod state;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use regex::Regex;
use url::Url;

use crate::config::accept::AcceptStatus;
use crate::config::basic_auth::BasicAuth;
use crate::config::cookies::CookieJar;
use crate::config::host_rules::HostRule;
use crate::config::plugins::PluginList;
use crate::config::shard::{FoundLink, Shard};
use crate::model::error::{Error, ErrorKind};

/// Worker threads. Defaults to 16: enough to keep several hosts busy, while the per-host
/// politeness limits keep any one host from being flooded.
pub const DEFAULT_THREADS: usize = 16;
/// Timeout of each phase of a request (resolve, connect, response headers, body). 30 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Request starts per second per host. Defaults to 10 (LinkChecker's default); 0 = no limit.
/// Loopback hosts are exempt unless [`Config::loopback_unthrottled`] is turned off.
pub const DEFAULT_MAX_REQUESTS_PER_SECOND: f64 = 10.0;
/// The web archive's availability API that `--suggest` asks when no other is configured.
pub const DEFAULT_ARCHIVE_URL: &str = "https://archive.org/wayback/available";
/// Requests in flight per host. Defaults to 16; 0 = no limit beyond the thread count.
pub const DEFAULT_HOST_CONCURRENCY: usize = 16;
/// Redirect hops followed before giving up. Defaults to 10.
pub const DEFAULT_MAX_REDIRECTS: usize = 10;
/// The file extensions read as Markdown, compared without case: in a folder walk and for a
/// local file. Quarto (`.qmd`), R Markdown (`.Rmd`) and MDX (`.mdx`, whose JSX is read as HTML
/// and whose Markdown as Markdown) are Markdown with extras, as lychee reads them.
pub const MARKDOWN_EXTENSIONS: [&str; 8] = [
    "md", "markdown", "mdown", "mkd", "mkdn", "qmd", "rmd", "mdx",
];

/// The names a folder link stands for by default: its `index.html`, else the folder itself
/// (its listing).
pub const DEFAULT_INDEX_FILES: [&str; 2] = ["index.html", "."];

/// `true` when `path`'s extension is one of [`MARKDOWN_EXTENSIONS`].
pub(crate) fn is_markdown_path(path: &std::path::Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        MARKDOWN_EXTENSIONS
            .iter()
            .any(|m| e.eq_ignore_ascii_case(m))
    })
}

/// Bytes of a page read for link extraction. Defaults to 10 MiB; a larger page is parsed up to
/// the cap and warned about (`content-too-large`).
pub const DEFAULT_MAX_BODY_SIZE: u64 = 10 * 1024 * 1024;

/// Distinct URLs a run keeps track of before it stops discovering more (`--max-urls`):
/// 10,000,000. The memory budget ([`DEFAULT_MAX_MEMORY`]) is the brake on a spider trap (a
/// site that makes up new links on every page): it stops one at some 1.8 million URLs and 1 GB
/// (figures in benches/RESULTS.md, "A memory budget"); the count stays as a second brake, far
/// above any real site (a 20,000-page site has some 30,000 URLs).
pub const DEFAULT_MAX_URLS: usize = 10_000_000;

/// Memory a run may hold for what grows with the site (`--max-memory`): 1 GiB, which a
/// laptop and a CI runner both have to spare. Past a quarter of it the queue's tail waits on
/// disk; when the rest reaches it the run stops discovering URLs (see `engine/memory.rs`).
pub const DEFAULT_MAX_MEMORY: usize = 1 << 30;

/// Largest robots.txt read: a longer one is cut here, when fetched and when read back from
/// the state file (`--resume`). 500 KiB, as Google reads: what follows is ignored.
pub(crate) const ROBOTS_TXT_LIMIT: u64 = 500 * 1024;

/// How long a cancelled run waits for URLs in flight before interrupting them. Defaults to 10 s.
pub const DEFAULT_ABORT_TIMEOUT: Duration = Duration::from_secs(10);
/// Retries of a request that failed transiently (timeout, reset, 502/503/504) or was rate
/// limited (429). Defaults to 2. A 404 is never retried.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// Base of the exponential backoff between retries (doubled each retry, plus up to 25 %
/// jitter) when the server gives no `Retry-After`. Defaults to 1 s.
pub const DEFAULT_RETRY_BACKOFF: Duration = Duration::from_secs(1);
/// Longest wait a `Retry-After` (or a backoff) may impose before a retry. A server asking for
/// more gets no retry: its 429/503 is the result. Defaults to 60 s.
pub const DEFAULT_MAX_RETRY_WAIT: Duration = Duration::from_secs(60);
/// Longest duration any setting accepts: a timeout, a wait, or the interval between two
/// requests that a rate implies (one year). [`Checker::new`](crate::Checker::new) rejects longer
/// ones: they would overflow the clock arithmetic, and no check needs them.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 60 * 60);
/// The User-Agent header sent with every request.
pub const DEFAULT_USER_AGENT: &str = concat!(
    "Mozilla/5.0 (compatible; linkpatrol/",
    env!("CARGO_PKG_VERSION"),
    ")"
);

/// The first `nameserver` of a `resolv.conf` text (port 53), for
/// [`Config::mx_resolver`]. The caller reads the file (usually `/etc/resolv.conf`).
pub fn resolver_from_resolv_conf(text: &str) -> Option<SocketAddr> {
    text.lines().find_map(|l| {
        let mut words = l.split_whitespace();
        (words.next() == Some("nameserver"))
            .then(|| words.next())
            .flatten()
            .and_then(|a| a.split('%').next()?.parse::<std::net::IpAddr>().ok())
            .map(|ip| SocketAddr::new(ip, 53))
    })
}

/// Something to check: the start of a crawl.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Input {
    /// A URL (`http`, `https` or `file`).
    Url(String),
    /// A local file or folder; a folder means its `index.html`.
    Path(PathBuf),
    /// An HTML document held in memory, with the URL its links are resolved against.
    Html {
        /// The document.
        html: String,
        /// Its URL (links are resolved against it; its scheme and host define "internal").
        base: String,
    },
}

/// How a check runs. Build it with [`Config::new`] and the chained setters.
///
/// ```
/// use linkpatrol::Config;
/// let config = Config::new()
///     .input_url("http://127.0.0.1:8080/")
///     .threads(4)
///     .max_requests_per_second(0.0);
/// assert_eq!(config.inputs().len(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct Config {
    pub(crate) inputs: Vec<Input>,
    pub(crate) threads: usize,
    pub(crate) timeout: Duration,
    pub(crate) max_requests_per_second: f64,
    pub(crate) loopback_unthrottled: bool,
    /// Address classes never connected to: loopback, private, link-local
    /// (`exclude_loopback`…).
    pub(crate) exclude_addresses: [bool; 3],
    /// Loopback, private and link-local addresses may be requested even when every start
    /// site is public (`allow_private`).
    pub(crate) allow_private: bool,
    pub(crate) host_concurrency: usize,
    pub(crate) max_redirects: usize,
    pub(crate) max_body_size: u64,
    pub(crate) abort_timeout: Duration,
    /// Log in through a form before the crawl (`login`).
    pub(crate) login: Option<login::FormLogin>,
    /// Stop starting new URLs this long after the start (`max_run_time`).
    pub(crate) max_run_time: Option<Duration>,
    pub(crate) user_agent: String,
    pub(crate) recursion_level: Option<usize>,
    pub(crate) check_external: bool,
    pub(crate) include: Vec<Regex>,
    pub(crate) exclude: Vec<Regex>,
    pub(crate) ignore_file: Vec<Regex>,
    pub(crate) no_follow: Vec<Regex>,
    pub(crate) remap: Vec<remap::Remap>,
    pub(crate) max_retries: u32,
    pub(crate) retry_backoff: Duration,
    pub(crate) max_retry_wait: Duration,
    pub(crate) robots: bool,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) host_rules: Vec<HostRule>,
    pub(crate) insecure: bool,
    pub(crate) fail_on_blocked: bool,
    pub(crate) suggest: bool,
    pub(crate) archive_url: Url,
    pub(crate) github_token: Option<github_token::GithubToken>,
    pub(crate) detect_soft_404: bool,
    pub(crate) proxy: Option<String>,
    pub(crate) proxy_from_env: bool,
    pub(crate) max_urls: Option<usize>,
    pub(crate) max_memory: Option<usize>,
    pub(crate) queue_memory: Option<usize>,
    pub(crate) rows_held: Option<crate::HeldRows>,
    pub(crate) ignore_warnings: Vec<String>,
    pub(crate) seed_sitemaps: bool,
    pub(crate) root_dir: Option<PathBuf>,
    pub(crate) follow_outside_root: bool,
    pub(crate) include_verbatim: bool,
    pub(crate) include_wikilinks: bool,
    pub(crate) fallback_extensions: Vec<String>,
    pub(crate) readme_as_index: bool,
    /// How a local file without an extension is read (`default_extension`).
    pub(crate) default_extension: Option<String>,
    /// The names a folder link stands for, in order; `.` is the folder itself (`index_files`).
    pub(crate) index_files: Vec<String>,
    /// Start files read as plain text when their type is not read (`input_named_file`).
    pub(crate) named_files: Vec<PathBuf>,
    /// Folders walked, with the files each walk kept (`walked_folder`).
    pub(crate) walked_folders: Vec<(PathBuf, Arc<Vec<PathBuf>>)>,
    pub(crate) mdbooks: Vec<(PathBuf, Option<Vec<PathBuf>>)>,
    /// The pages mdBooks' redirect tables create: `(src, page, target)` (`mdbook_redirect`).
    pub(crate) mdbook_redirects: Vec<(PathBuf, String, String)>,
    /// GitHub repositories and the folders of their checkouts (`github_checkout`).
    pub(crate) github_checkouts: Vec<(String, PathBuf)>,
    /// Folders that are the root of a deployed site, with its public URL (`site_root`).
    pub(crate) site_roots: Vec<(PathBuf, Option<String>)>,
    pub(crate) keep_entries: bool,
    pub(crate) only_problems: bool,
    pub(crate) plugins: PluginList,
    // Inputs and requests.
    pub(crate) base_url: Option<String>,
    pub(crate) always_get: bool,
    pub(crate) cookies: CookieJar,
    /// The cookie jar file read at the start of a run and saved at its end (`cookie_jar`).
    pub(crate) cookie_jar: Option<PathBuf>,
    /// The program each local file is read through (`preprocess`).
    pub(crate) preprocess: Option<PathBuf>,
    pub(crate) basic_auth: Vec<BasicAuth>,
    pub(crate) accept: AcceptStatus,
    /// A link whose check timed out counts as valid, with a warning (`accept_timeouts`).
    pub(crate) accept_timeouts: bool,
    /// An `http:` link whose `https:` twin works is warned about (`require_https`).
    pub(crate) require_https: bool,
    pub(crate) mx_resolver: Option<SocketAddr>,
    // Sharding by host (shard.rs).
    pub(crate) shard: Option<Shard>,
    pub(crate) found_links: Vec<FoundLink>,
    pub(crate) reused: Vec<std::sync::Arc<crate::model::outcome::CheckResult>>,
    pub(crate) state: state::StateOptions,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            inputs: Vec::new(),
            threads: DEFAULT_THREADS,
            timeout: DEFAULT_TIMEOUT,
            max_requests_per_second: DEFAULT_MAX_REQUESTS_PER_SECOND,
            loopback_unthrottled: true,
            exclude_addresses: [false; 3],
            allow_private: false,
            host_concurrency: DEFAULT_HOST_CONCURRENCY,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            max_body_size: DEFAULT_MAX_BODY_SIZE,
            abort_timeout: DEFAULT_ABORT_TIMEOUT,
            max_run_time: None,
            login: None,
            user_agent: DEFAULT_USER_AGENT.to_owned(),
            recursion_level: None,
            check_external: true,
            include: Vec::new(),
            exclude: Vec::new(),
            ignore_file: Vec::new(),
            no_follow: Vec::new(),
            remap: Vec::new(),
            max_retries: DEFAULT_MAX_RETRIES,
            retry_backoff: DEFAULT_RETRY_BACKOFF,
            max_retry_wait: DEFAULT_MAX_RETRY_WAIT,
            robots: true,
            headers: Vec::new(),
            host_rules: Vec::new(),
            insecure: false,
            fail_on_blocked: false,
            suggest: false,
            archive_url: Url::parse(DEFAULT_ARCHIVE_URL).expect("a valid default"),
            github_token: None,
            detect_soft_404: false,
            proxy: None,
            proxy_from_env: true,
            max_urls: Some(DEFAULT_MAX_URLS),
            max_memory: Some(DEFAULT_MAX_MEMORY),
            queue_memory: None,
            rows_held: None,
            ignore_warnings: Vec::new(),
            seed_sitemaps: false,
            root_dir: None,
            follow_outside_root: false,
            include_verbatim: false,
            include_wikilinks: false,
            fallback_extensions: Vec::new(),
            readme_as_index: false,
            default_extension: None,
            index_files: DEFAULT_INDEX_FILES
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            named_files: Vec::new(),
            walked_folders: Vec::new(),
            mdbooks: Vec::new(),
            mdbook_redirects: Vec::new(),
            site_roots: Vec::new(),
            github_checkouts: Vec::new(),
            keep_entries: true,
            only_problems: false,
            plugins: PluginList::default(),
            base_url: None,
            always_get: false,
            cookies: CookieJar::default(),
            cookie_jar: None,
            preprocess: None,
            basic_auth: Vec::new(),
            accept: AcceptStatus::default(),
            accept_timeouts: false,
            require_https: false,
            mx_resolver: None,
            shard: None,
            found_links: Vec::new(),
            reused: Vec::new(),
            state: state::StateOptions::default(),
        }
    }
}

impl Config {
    /// A configuration with every default and no inputs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a plugin; its hooks run for every checked URL, in the order plugins were added.
    /// Built-in plugins come from [`plugins::builtin`](crate::config::plugins::builtin).
    pub fn plugin(mut self, plugin: std::sync::Arc<dyn crate::plugin::Plugin>) -> Self {
        self.plugins.1.push(plugin.name().to_owned());
        self.plugins.0.push(plugin);
        self
    }

    /// [`plugin`](Self::plugin) for a built-in made from `settings`, which its `Debug` shows.
    #[cfg(feature = "options")]
    pub(crate) fn builtin_plugin(
        mut self,
        plugin: std::sync::Arc<dyn crate::plugin::Plugin>,
        settings: &linkpatrol_plugin_api::Options,
    ) -> Self {
        let pairs: Vec<String> = settings
            .pairs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        self.plugins.0.push(plugin);
        self.plugins
            .1
            .push(format!("{}:{}", settings.plugin(), pairs.join(",")));
        self
    }

    /// The names of the configured plugins, in order.
    pub fn plugin_names(&self) -> Vec<&'static str> {
        self.plugins.0.iter().map(|p| p.name()).collect()
    }

    /// Adds a start input.
    pub fn input(mut self, input: Input) -> Self {
        self.inputs.push(input);
        self
    }

    /// Adds a start URL.
    pub fn input_url(self, url: impl Into<String>) -> Self {
        self.input(Input::Url(url.into()))
    }

    /// Adds a local file or folder to check.
    pub fn input_path(self, path: impl Into<PathBuf>) -> Self {
        self.input(Input::Path(path.into()))
    }

    /// Adds an in-memory HTML document whose links resolve against `base`.
    pub fn input_html(self, html: impl Into<String>, base: impl Into<String>) -> Self {
        self.input(Input::Html {
            html: html.into(),
            base: base.into(),
        })
    }

    /// The inputs added so far.
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }

    /// Worker threads; at least 1. Defaults to [`DEFAULT_THREADS`].
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n.max(1);
        self
    }

    /// Timeout per request phase; a plugin's certificate read (`Services::peer_certificate`)
    /// gets it once for the whole read: lookup, connect, proxy tunnel and handshake. Defaults
    /// to [`DEFAULT_TIMEOUT`].
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// Request starts per second per host; 0 = unlimited. Defaults to
    /// [`DEFAULT_MAX_REQUESTS_PER_SECOND`]. A rate set here holds for loopback hosts too: it
    /// turns [`loopback_unthrottled`](Self::loopback_unthrottled) off. A negative or
    /// non-finite rate is refused by `Checker::new`, never read as unlimited.
    pub fn max_requests_per_second(mut self, n: f64) -> Self {
        self.max_requests_per_second = n;
        self.loopback_unthrottled = false;
        self
    }

    /// With `true`, loopback hosts (`127.0.0.0/8`, `[::1]`, `localhost`) get no per-host
    /// rate limit: a local development server is checked as fast as it answers. A host rule
    /// ([`HostRule::max_requests_per_second`]) still applies to them. Defaults to `true`;
    /// [`max_requests_per_second`](Self::max_requests_per_second) sets it to `false`, so call
    /// this after it to keep loopback exempt from an explicit rate.
    pub fn loopback_unthrottled(mut self, on: bool) -> Self {
        self.loopback_unthrottled = on;
        self
    }

    /// Never connects to a loopback address (127.0.0.0/8, `::1`, 0.0.0.0), however the URL
    /// spells it and wherever a name or redirect leads: such a link is not checked
    /// (`Outcome::Ignored`). Defaults to `false`.
    pub fn exclude_loopback(mut self, yes: bool) -> Self {
        self.exclude_addresses[0] = yes;
        self
    }

    /// Never connects to a private address (10/8, 172.16/12, 192.168/16, 100.64/10,
    /// fc00::/7), as [`exclude_loopback`](Self::exclude_loopback). Defaults to `false`.
    pub fn exclude_private(mut self, yes: bool) -> Self {
        self.exclude_addresses[1] = yes;
        self
    }

    /// Never connects to a link-local address (169.254/16, with the cloud metadata address
    /// 169.254.169.254; fe80::/10) or to a cloud metadata service elsewhere (`fd00:ec2::254`,
    /// `fd20:ce::254`, `100.100.100.200`, `192.0.0.192`, `168.63.129.16`), as
    /// [`exclude_loopback`](Self::exclude_loopback). Without
    /// [`allow_private`](Self::allow_private) they are left out anyway. Defaults to `false`.
    pub fn exclude_link_local(mut self, yes: bool) -> Self {
        self.exclude_addresses[2] = yes;
        self
    }

    /// Link-local and cloud metadata addresses (see
    /// [`exclude_link_local`](Self::exclude_link_local)) are never requested, whatever the
    /// start sites: a checked folder's links cannot reach a CI runner's credentials. When
    /// every start site is public (an http(s) start whose host is not, and does not resolve
    /// to, a loopback, private or link-local address), loopback and private addresses are
    /// not requested either: a page cannot make the machine that runs the check a proxy into
    /// its own network. `true` requests them all. A check with a local start site (or none, a
    /// folder), or with [`remap`](Self::remap) rules, may request loopback and private
    /// addresses; the `exclude_*` settings apply whatever the start sites. The start sites'
    /// own hosts are requested on loopback and private addresses, but on a link-local or
    /// metadata address only when this is `true`. Defaults to `false`.
    pub fn allow_private(mut self, yes: bool) -> Self {
        self.allow_private = yes;
        self
    }

    /// Requests in flight per host; 0 = unlimited. Defaults to [`DEFAULT_HOST_CONCURRENCY`].
    pub fn host_concurrency(mut self, n: usize) -> Self {
        self.host_concurrency = n;
        self
    }

    /// Redirect hops followed, counted over the whole chain (also where it changes hosts and
    /// is handed to a check of its own). Defaults to [`DEFAULT_MAX_REDIRECTS`].
    pub fn max_redirects(mut self, n: usize) -> Self {
        self.max_redirects = n;
        self
    }

    /// Bytes of a page read for parsing. Defaults to [`DEFAULT_MAX_BODY_SIZE`].
    pub fn max_body_size(mut self, n: u64) -> Self {
        self.max_body_size = n;
        self
    }

    /// How long a cancelled run waits for requests in flight. Defaults to
    /// [`DEFAULT_ABORT_TIMEOUT`].
    pub fn abort_timeout(mut self, t: Duration) -> Self {
        self.abort_timeout = t;
        self
    }

    /// Stop the run this long after it started (LinkChecker's `maxrunseconds`): no new URL is
    /// started, URLs in flight get the [abort timeout](Self::abort_timeout), the rest are
    /// counted as not checked, and the report says so
    /// ([`Report::time_limit_reached`](crate::Report::time_limit_reached)). Defaults to
    /// `None`: no limit. `Some(Duration::ZERO)` also means no limit.
    pub fn max_run_time(mut self, t: Option<Duration>) -> Self {
        self.max_run_time = t.filter(|t| !t.is_zero());
        self
    }

    /// Log in through a form before the crawl and check with the session's cookies
    /// (LinkChecker's `loginurl`). The run starts only once the login succeeded:
    /// [`Checker::spawn`](crate::Checker::spawn) fails with [`ErrorKind::Login`](crate::ErrorKind::Login)
    /// when the form is missing, comes back after the submission, or is answered 401 or 403.
    /// Links matching the login's logout pattern are not followed, and a page that sends the
    /// crawl back to the login page is named in [`Report::warnings`](crate::Report::warnings),
    /// once. Defaults to `None`.
    pub fn login(mut self, login: Option<login::FormLogin>) -> Self {
        self.login = login;
        self
    }

    /// The User-Agent header. Defaults to [`DEFAULT_USER_AGENT`].
    pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
        self.user_agent = ua.into();
        self
    }

    /// How deep to recurse from the start pages (0 = check the start pages only).
    /// Defaults to `None`: unlimited.
    pub fn recursion_level(mut self, level: Option<usize>) -> Self {
        self.recursion_level = level;
        self
    }

    /// Whether links outside the start sites are checked (never recursed). Defaults to `true`.
    /// `false` stops network requests only: a local `file:` link is checked wherever it points
    /// (read only inside the checked folders, see [`Config::follow_outside_root`]).
    pub fn check_external(mut self, yes: bool) -> Self {
        self.check_external = yes;
        self
    }

    /// Only URLs matching one of these patterns (or start URLs) are checked. Defaults to empty:
    /// everything in scope is checked. `exclude` wins over `include`.
    pub fn include(mut self, pattern: Regex) -> Self {
        self.include.push(pattern);
        self
    }

    /// URLs matching one of these patterns are not checked (reported as ignored). Defaults to
    /// empty. Thousands of patterns are best joined into alternations (`(?:a)|(?:b)|…`, a
    /// thousand a regex, as the command line does): each `Regex` holds some 5 KB and is tried
    /// on every URL, while an alternation of literal URLs is one Aho-Corasick search that
    /// takes a fraction of that per pattern (figures in benches/RESULTS.md).
    pub fn exclude(mut self, pattern: Regex) -> Self {
        self.exclude.push(pattern);
        self
    }

    /// Do not check URLs matching this pattern of an ignore file (the binary reads the checked
    /// folder's `.linkpatrolignore`): as [`exclude`](Self::exclude), but counted and reported
    /// as ignored by that file. Defaults to empty.
    pub fn ignore_file_pattern(mut self, pattern: Regex) -> Self {
        self.ignore_file.push(pattern);
        self
    }

    /// URLs matching one of these patterns are checked but never recursed into.
    pub fn no_follow(mut self, pattern: Regex) -> Self {
        self.no_follow.push(pattern);
        self
    }

    /// Rewrites each link found on a page before it is checked (production URLs to a local
    /// folder or a staging host); the first rule that matches applies. Scope, patterns and
    /// the cache see the remapped URL; the entry's [`Referrer::remapped_from`] keeps the URL
    /// as written. Start inputs are not remapped. Defaults to no rules.
    ///
    /// [`Referrer::remapped_from`]: crate::Referrer::remapped_from
    pub fn remap(mut self, rule: remap::Remap) -> Self {
        self.remap.push(rule);
        self
    }

    /// Retries of one URL — its HEAD, GET and body reads together — after a transient failure
    /// or a 429/502/503/504. A request lost on a stale kept-alive connection is resent at once
    /// and does not count. Defaults to [`DEFAULT_MAX_RETRIES`].
    pub fn max_retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }

    /// Base of the exponential backoff between retries. Defaults to [`DEFAULT_RETRY_BACKOFF`].
    pub fn retry_backoff(mut self, base: Duration) -> Self {
        self.retry_backoff = base;
        self
    }

    /// Longest `Retry-After` or backoff honoured before a retry. Defaults to
    /// [`DEFAULT_MAX_RETRY_WAIT`].
    pub fn max_retry_wait(mut self, t: Duration) -> Self {
        self.max_retry_wait = t;
        self
    }

    /// Whether robots.txt is fetched and obeyed (`Disallow`, `Crawl-delay`). Defaults to `true`.
    pub fn robots(mut self, yes: bool) -> Self {
        self.robots = yes;
        self
    }

    /// A header sent with every request to the start sites' origins, and never to another
    /// origin (not even on a redirect): any header may carry a secret (`Authorization`,
    /// `Cookie`, `X-Api-Key`, `PRIVATE-TOKEN`). Use a [`HostRule`] to send one elsewhere.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Rate, concurrency and headers for some hosts. Earlier rules win.
    pub fn host_rule(mut self, rule: HostRule) -> Self {
        self.host_rules.push(rule);
        self
    }

    /// Skip TLS certificate verification (the report says so). Defaults to `false`.
    pub fn insecure(mut self, yes: bool) -> Self {
        self.insecure = yes;
        self
    }

    /// Count links that bot protection answered for ([`Outcome::Blocked`](crate::Outcome),
    /// a Cloudflare challenge, LinkedIn's `999`) in [`Report::failing`](crate::Report::failing),
    /// as broken links are. Defaults to `false`: such a link could not be verified, and a
    /// browser may well see its page.
    pub fn fail_on_blocked(mut self, yes: bool) -> Self {
        self.fail_on_blocked = yes;
        self
    }

    /// For each broken http(s) URL, ask the web archive ([`archive_url`](Self::archive_url))
    /// for its closest snapshot and report it as
    /// [`CheckResult::suggestion`](crate::CheckResult). One request per broken URL to the
    /// archive's host, with that host's politeness. Defaults to `false`: nothing is looked up.
    pub fn suggest(mut self, yes: bool) -> Self {
        self.suggest = yes;
        self
    }

    /// The web archive's availability API that [`suggest`](Self::suggest) asks
    /// (`GET <url>?url=<broken URL>`, answered as the Wayback Machine does). Defaults to
    /// [`DEFAULT_ARCHIVE_URL`].
    ///
    /// # Errors
    /// `InvalidConfig` when `url` is not an http(s) URL.
    pub fn archive_url(mut self, url: &str) -> Result<Self, Error> {
        let parsed = Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidConfig,
                    format!("archive URL `{url}' is not an http(s) URL"),
                )
            })?;
        self.archive_url = parsed;
        Ok(self)
    }

    /// Warn about pages that answer 200 but are a site's "not found" page (a soft 404): each
    /// origin is asked once for a made-up path, and when that answers 200 with HTML, a page
    /// whose title and text say the same (the words of each page's own URL left out) gets the
    /// `soft-404` warning. At most one extra request per origin; http(s) links are then
    /// checked with GET, as their bodies are compared. Defaults to `false`.
    pub fn detect_soft_404(mut self, yes: bool) -> Self {
        self.detect_soft_404 = yes;
        self
    }

    /// A GitHub access token, sent as `Authorization: Bearer <token>` to requests for
    /// `https://github.com` and `https://api.github.com` on port 443 (and to what a
    /// [`remap`](Self::remap) rule made of such a link), never to another host, not even on a
    /// redirect, and never shown in a report or message. Unauthenticated requests hit
    /// GitHub's rate limit quickly. Defaults to none.
    ///
    /// # Errors
    /// `InvalidConfig` when `token` is empty or not one header value (visible ASCII); the
    /// message does not quote it.
    pub fn github_token(mut self, token: &str) -> Result<Self, Error> {
        let token = github_token::GithubToken::parse(token)
            .map_err(|why| Error::new(ErrorKind::InvalidConfig, why))?;
        self.github_token = Some(token);
        Ok(self)
    }

    /// Sends every http(s) request, and every certificate read of a plugin, through this
    /// proxy: `http://[user:password@]host[:port]` (or `https://…`), which is asked to
    /// `CONNECT` to each host — also for plain `http` links. Overrides the environment (and its `NO_PROXY`). Defaults to none. A URL that is
    /// not an http(s) proxy makes [`Checker::new`](crate::Checker::new) fail.
    pub fn proxy(mut self, url: impl Into<String>) -> Self {
        self.proxy = Some(url.into());
        self
    }

    /// Without [`proxy`](Self::proxy): use the proxy of the environment, as curl does — the
    /// first of `ALL_PROXY`, `HTTPS_PROXY`, `HTTP_PROXY` that is set (upper or lower case) for
    /// both schemes, except for the hosts listed in `NO_PROXY`. A socks proxy there is ignored
    /// (not supported). Defaults to `true`; `false` connects directly.
    pub fn proxy_from_env(mut self, yes: bool) -> Self {
        self.proxy_from_env = yes;
        self
    }

    /// Check at most this many distinct URLs. A link to a new URL found after that is not
    /// stored nor reported, only counted ([`Report::over_limit`](crate::Report::over_limit)),
    /// so the run's memory stays bounded by the limit. Defaults to
    /// `Some(`[`DEFAULT_MAX_URLS`]`)`, which stops a spider trap. `None` means no limit, and so
    /// does `Some(0)`, as 0 does for the other limits (a run that may check nothing would be
    /// of no use).
    pub fn max_urls(mut self, n: Option<usize>) -> Self {
        self.max_urls = n.filter(|&n| n > 0);
        self
    }

    /// The memory budget of the run in bytes, for what grows with the site: the URLs found
    /// (the result cache), the queued URLs and the report rows held for a sorted report (the
    /// entries kept, or a caller's: [`rows_held`](Self::rows_held)).
    /// Past the queue's share ([`queue_memory`](Self::queue_memory)) the tail of each host's
    /// queue waits on disk, in a temporary SQLite file removed at exit (the `state` feature;
    /// without it the queue stays in memory). When the rest reaches the budget, links to new
    /// URLs are only counted, as past [`max_urls`](Self::max_urls), and
    /// [`Report::memory_limit`](crate::Report::memory_limit) says so. Defaults to
    /// `Some(`[`DEFAULT_MAX_MEMORY`]`)`; `None` (or `Some(0)`) means no budget: nothing
    /// spills and nothing stops. The figures are the engine's estimates of its own data, not
    /// the process's resident size (see benches/RESULTS.md for how they compare).
    pub fn max_memory(mut self, bytes: Option<usize>) -> Self {
        self.max_memory = bytes.filter(|&n| n > 0);
        self
    }

    /// Counts `rows`, the report rows a caller holds in memory (a
    /// [`SortedReporter`](crate::report::SortedReporter) given them with `counting`), in the
    /// run's memory budget, as the entries it keeps itself are counted. Defaults to none.
    pub fn rows_held(mut self, rows: crate::HeldRows) -> Self {
        self.rows_held = Some(rows);
        self
    }

    /// Bytes of rows a sorted report keeps in memory before the rest waits on disk
    /// ([`SortedReporter::spill_past`](crate::report::SortedReporter::spill_past)): a quarter
    /// of the memory budget; `None` without one.
    pub fn report_share(&self) -> Option<usize> {
        self.max_memory.map(|m| m / 4)
    }

    /// Bytes of queued URLs kept in memory before the tail of each host's queue waits on
    /// disk (see [`max_memory`](Self::max_memory)); a host's next URL always stays in memory.
    /// `None` (the default): a quarter of the memory budget, and nothing spills without one.
    /// `Some(0)`: every queued URL but each host's next one waits on disk.
    pub fn queue_memory(mut self, bytes: Option<usize>) -> Self {
        self.queue_memory = bytes;
        self
    }

    /// Also crawl the sitemaps that a start site's robots.txt lists (`Sitemap:` lines), so
    /// pages no link reaches are checked too. Defaults to `false`.
    pub fn seed_sitemaps(mut self, yes: bool) -> Self {
        self.seed_sitemaps = yes;
        self
    }

    /// The folder that a root-relative link (`/about.html`) on a local page points into.
    /// Defaults to the first folder given as input (a single file input has no root: its
    /// root-relative links point to the file system's root).
    pub fn root_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.root_dir = Some(dir.into());
        self
    }

    /// Whether local files outside the checked folders (the folders given as input, their
    /// [`root_dir`](Self::root_dir)) are read. Defaults to `false`: a link that leaves them —
    /// `../`, an encoded `..%2F`, a symbolic link pointing out — is checked for existence only,
    /// never read, parsed or listed, and gets the warning `outside-root`. The folders a check
    /// is given may come from someone else (a pull request); what lies beside them may not be
    /// theirs to show. Inside the git work tree that holds a checked folder (the nearest folder
    /// above it with a `.git` entry), a file is read for its anchors, as GitHub shows the
    /// whole tree; it is still not parsed for links or listed.
    pub fn follow_outside_root(mut self, yes: bool) -> Self {
        self.follow_outside_root = yes;
        self
    }

    /// Whether the autolink literals (a bare `https://…`, `www.…`, an e-mail address) in the
    /// code spans and code blocks of Markdown pages are checked too. Defaults to `false`:
    /// code holds no links, as on GitHub.
    pub fn include_verbatim(mut self, yes: bool) -> Self {
        self.include_verbatim = yes;
        self
    }

    /// Read Obsidian's wikilinks in Markdown pages (`[[Page]]`, `[[Page#Heading]]`,
    /// `[[Page|text]]`, `![[image.png]]`), as lychee's `--include-wikilinks`. A name without
    /// an extension is a Markdown page (`Page.md`), looked up by its file name (any case) in
    /// the checked folders' walk, the shortest path first, as Obsidian finds it; a name no
    /// walked file has is a path relative to the page. A heading is matched by its GitHub
    /// slug under `--check-anchors`. Defaults to `false`: `[[Page]]` is text.
    pub fn include_wikilinks(mut self, yes: bool) -> Self {
        self.include_wikilinks = yes;
        self
    }

    /// Extensions tried, in order, for a local file that does not exist: with `md`, a link to
    /// `ch1.html` is good when `ch1.md` exists, and is read there (its headings are its
    /// anchors). Only a name with no extension or with the rendered one (`.html`, `.htm`) is
    /// swapped, as a renderer does: `ch1.png` stays missing. As lychee's
    /// `--fallback-extensions`. Defaults to none.
    pub fn fallback_extensions(mut self, extensions: Vec<String>) -> Self {
        self.fallback_extensions = extensions
            .into_iter()
            .map(|e| e.trim().trim_start_matches('.').to_owned())
            .filter(|e| !e.is_empty())
            .collect();
        self
    }

    /// Whether a missing `index.html` is read from its folder's `README.md`, as mdBook renders
    /// it. Defaults to `false`; the binary turns it on for an mdBook folder.
    pub fn readme_as_index(mut self, yes: bool) -> Self {
        self.readme_as_index = yes;
        self
    }

    /// How a local file whose name has no extension is read: as a file with this extension
    /// (`md`, `html`, `txt`), in a folder walk, as a start file and as a linked page, as
    /// lychee's `--default-extension`. Defaults to none: such a file is checked for existence
    /// only, or read as plain text when it is a start file named as such.
    pub fn default_extension(mut self, extension: Option<String>) -> Self {
        self.default_extension = extension
            .map(|e| e.trim().trim_start_matches('.').to_owned())
            .filter(|e| !e.is_empty());
        self
    }

    /// The names a link to a local folder stands for, tried in order: the first that is a
    /// file is read; `.` is the folder itself (its listing when no earlier name exists). With
    /// none of them there, the link is broken, so an empty list makes every folder link
    /// broken, as lychee's `--index-files`. Defaults to [`DEFAULT_INDEX_FILES`].
    pub fn index_files(mut self, names: Vec<String>) -> Self {
        self.index_files = names
            .into_iter()
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect();
        self
    }

    /// Adds a local file as a start input that is read whatever its extension: as its type
    /// when that is a type read (HTML, Markdown, …), as plain text, whose bare URLs are
    /// checked, when its type is unknown (`.log`, no extension) or text not read (`.js`,
    /// `.json`); an image or an archive is only warned about. [`Inputs`](crate::Inputs) adds
    /// every file named (not walked) this way.
    pub fn input_named_file(mut self, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        self.named_files.push(path.clone());
        self.input(Input::Path(path))
    }

    /// The files a walk of `folder` kept (its ignore files, hidden files and exclusions
    /// applied): the listing of a folder without `index.html` inside it then names only these
    /// and the folders that hold them, so what the walk left out is not read through a
    /// listing. Defaults to none: a listing names every entry but hidden ones.
    pub fn walked_folder(mut self, folder: impl Into<PathBuf>, kept: Vec<PathBuf>) -> Self {
        self.walked_folders.push((folder.into(), Arc::new(kept)));
        self
    }

    /// An mdBook whose sources are in `src`, checked as the site it builds: named in the
    /// report's summary ([`Report::mdbooks`](crate::Report::mdbooks)), and, when `chapters`
    /// (its pages, relative to `src`: the files its `SUMMARY.md` lists, and the Markdown they
    /// `{{#include}}`) is given, a link to any other `.md` file under `src` is broken — mdBook
    /// renders only the chapters its summary lists (and `404.md`); `SUMMARY.md` itself, the
    /// book's entry, is read. Such a link from a page that is no source of a book (the
    /// repository's README) is good: GitHub shows the file. Combine with
    /// [`fallback_extensions`](Self::fallback_extensions) `md` and
    /// [`readme_as_index`](Self::readme_as_index), as the binary does. Defaults to none.
    pub fn mdbook(mut self, src: impl Into<PathBuf>, chapters: Option<Vec<PathBuf>>) -> Self {
        self.mdbooks.push((src.into(), chapters));
        self
    }

    /// A page the `[output.html.redirect]` table of the mdBook with sources in `src` creates:
    /// `page` (as written in book.toml: relative to the book's root) sends the browser to
    /// `target` (relative to `page`'s folder, or a URL), keeping the link's fragment. A link to
    /// `page`, which has no source, is as good as a link to `target` when that is in the book
    /// (its anchors are the target's); a target outside the book is not checked. Only the book's
    /// sources are looked at. Defaults to none.
    pub fn mdbook_redirect(
        mut self,
        src: impl Into<PathBuf>,
        page: impl Into<String>,
        target: impl Into<String>,
    ) -> Self {
        self.mdbook_redirects
            .push((src.into(), page.into(), target.into()));
        self
    }

    /// A folder that is the root of a deployed site, deployed at `public_url` when known. A
    /// link from a page inside it that climbs out of it (`../std/index.html` from an mdBook's
    /// sources: another book on the same host) is no missing file: with `public_url` it is
    /// checked there, as the page's deployed URL resolves it (an external link, which
    /// `check_external(false)` leaves out); without, it is not checked and counted in
    /// [`Skipped::offline`](crate::Skipped::offline). An mdBook's sources
    /// ([`mdbook`](Self::mdbook)) are such a root without being named here (pages there are
    /// deployed as `.html`, a `README.md` as `index.html`); so is the site folder of
    /// [`base_url`](Self::base_url), deployed there. Defaults to none.
    pub fn site_root(mut self, folder: impl Into<PathBuf>, public_url: Option<String>) -> Self {
        self.site_roots.push((folder.into(), public_url));
        self
    }

    /// `folder` is a checkout of the GitHub repository `repository`
    /// (`https://github.com/OWNER/REPO`): a link to one of its files or folders there
    /// (`/blob/REF/path#anchor`, `/tree/REF/path`) is checked in `folder` instead, like a
    /// relative link (so with [`check_external(false)`](Self::check_external) too), and the
    /// report keeps the link as written. The local checkout stands for any branch or tag REF;
    /// a full commit id is a permalink and stays a link to GitHub. [`Inputs`](crate::Inputs)
    /// sets it from the `origin` remote of the checked folder's work tree. Defaults to none.
    pub fn github_checkout(
        mut self,
        repository: impl Into<String>,
        folder: impl Into<PathBuf>,
    ) -> Self {
        self.github_checkouts
            .push((repository.into(), folder.into()));
        self
    }

    /// Whether [`Report::entries`](crate::Report::entries) keeps every entry. Defaults to
    /// `true`. A caller that consumes the stream itself (`run_with`) can turn it off, so a huge
    /// crawl's memory does not grow with every link occurrence; the report's counts and
    /// statistics are complete either way.
    pub fn keep_entries(mut self, yes: bool) -> Self {
        self.keep_entries = yes;
        self
    }

    /// Delivers only the entries that are problems — broken, or carrying a warning, what
    /// [`Verbosity::Problems`](crate::report::Verbosity::Problems) shows — to
    /// [`run_with`](crate::Checker::run_with) and [`Report::entries`](crate::Report::entries).
    /// Defaults to `false` (every entry). The other entries are counted in the report's
    /// statistics but never built, which saves most of the time and memory of a large crawl
    /// whose report lists problems only.
    pub fn only_problems(mut self, yes: bool) -> Self {
        self.only_problems = yes;
        self
    }

    /// The public URL of the local site folder ([`root_dir`](Self::root_dir), or the first
    /// folder given as input): a link on a local page to a URL under it is checked in the
    /// folder instead (`https://example.org/about/` → `<folder>/about/`). Defaults to `None`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Use GET for every request, also for links that are only checked (some servers answer
    /// HEAD wrongly). Defaults to `false`: HEAD, with a GET fallback when HEAD is refused.
    /// A [`HostRule::always_get`] decides for the hosts it matches.
    pub fn always_get(mut self, yes: bool) -> Self {
        self.always_get = yes;
        self
    }

    /// Cookies sent with the requests they match (domain, path, secure, expiry). Defaults to
    /// none.
    pub fn cookies(mut self, jar: CookieJar) -> Self {
        self.cookies = jar;
        self
    }

    /// Basic-auth credentials for the URLs matching a pattern; the first match wins.
    pub fn basic_auth(mut self, auth: BasicAuth) -> Self {
        self.basic_auth.push(auth);
        self
    }

    /// The HTTP statuses that count as valid. Defaults to `100..=399` (below 400).
    pub fn accept(mut self, accept: AcceptStatus) -> Self {
        self.accept = accept;
        self
    }

    /// A link whose check timed out (after its retries) counts as valid, with the
    /// `timeout-accepted` warning instead of the `timeout` error, as lychee's
    /// `--accept-timeouts`: for servers known to be slow. Such a result is not kept in the
    /// state file. Defaults to `false`.
    pub fn accept_timeouts(mut self, yes: bool) -> Self {
        self.accept_timeouts = yes;
        self
    }

    /// An `http:` link that works and whose `https:` twin (the same host, port, path and
    /// query) works too gets the `http-has-https` warning naming the twin, as lychee's
    /// `--require-https` reports it: each such URL costs one more request. Such a result is
    /// not kept in the state file, and no stored `http:` result is reused. Defaults to `false`.
    pub fn require_https(mut self, yes: bool) -> Self {
        self.require_https = yes;
        self
    }

    /// Also look up the MX records of `mailto:` domains with this DNS resolver (each domain
    /// once per run; no MX but an A/AAAA record passes; a null MX fails). Defaults to `None`:
    /// addresses are checked for syntax only, with no network.
    pub fn mx_resolver(mut self, server: Option<SocketAddr>) -> Self {
        self.mx_resolver = server;
        self
    }

    /// Drops warnings with this tag (`http-redirected`) from every result.
    pub fn ignore_warning(mut self, tag: impl Into<String>) -> Self {
        self.ignore_warnings.push(tag.into());
        self
    }
}

impl Config {
    /// Makes this run one shard of a check split by host ([`Shard`]), phase 1: start inputs
    /// on hosts other shards own are left to them, and every external link, and every link to
    /// a page of a start site another shard owns, is exported to the owner of its host, not
    /// checked (its entry's result has [`exported_to`](crate::CheckResult::exported_to) set;
    /// it counts in no statistic). Phase 2 is a run of the same shard over the exported links
    /// it owns ([`found_link`](Self::found_link)), which are checked, never exported again.
    /// Every entry is delivered, as with `only_problems(false)`. Defaults to `None`.
    pub fn shard(mut self, shard: Shard) -> Self {
        self.shard = Some(shard);
        self
    }

    /// Takes `result` as this run's result for its URL, without a request: a link to that URL
    /// gets a row with it. Phase 2 of a sharded check reuses its phase-1 results this way
    /// (read back with [`merge_ndjson`](crate::report::merge_ndjson)), so a link exported to
    /// a URL the shard already checked is not requested again. The first result given for a
    /// URL wins. Defaults to none.
    pub fn reuse_result(
        mut self,
        result: std::sync::Arc<crate::model::outcome::CheckResult>,
    ) -> Self {
        self.reused.push(result);
        self
    }

    /// The shard this run is ([`shard`](Self::shard)), if any.
    pub fn sharding(&self) -> Option<Shard> {
        self.shard
    }

    /// Adds a link another run found (a shard's export): it is checked and reported as if
    /// found on its page, and never recursed into. A run of found links alone needs no
    /// inputs. Defaults to none.
    pub fn found_link(mut self, link: FoundLink) -> Self {
        self.found_links.push(link);
        self
    }

    /// Rejects values the run cannot honour: durations over [`MAX_DURATION`], a zero timeout,
    /// request rates that are negative or so low that the interval between two requests would
    /// exceed it, a user agent or header that no request can carry (a control character).
    pub(crate) fn validate(&self) -> Result<(), Error> {
        let bad = |m: String| Err(Error::new(ErrorKind::InvalidConfig, m));
        if setting_syntax::bad_header_value(&self.user_agent) {
            return bad(format!(
                "user agent `{}' has a control character (CR, LF, …), which a header cannot carry",
                self.user_agent.escape_debug()
            ));
        }
        let headers = self.host_rules.iter().flat_map(|r| &r.headers);
        for (name, value) in self.headers.iter().chain(headers) {
            if setting_syntax::bad_header_name(name) {
                return bad(format!(
                    "`{}' is not a valid header name",
                    name.escape_debug()
                ));
            }
            if setting_syntax::bad_header_value(value) {
                return bad(format!(
                    "the value of header `{name}' has a control character (CR, LF, …), which a \
                     header cannot carry"
                ));
            }
        }
        for ext in &self.fallback_extensions {
            if let Err(e) = setting_syntax::fallback_extension(ext) {
                return bad(format!("fallback extensions: {e}"));
            }
        }
        if let Some(ext) = &self.default_extension
            && let Err(e) = setting_syntax::fallback_extension(ext)
        {
            return bad(format!("default extension: {e}"));
        }
        for name in &self.index_files {
            if let Err(e) = setting_syntax::index_file(name) {
                return bad(format!("index files: {e}"));
            }
        }
        let max = MAX_DURATION.as_secs();
        for (name, d) in [
            ("timeout", self.timeout),
            ("abort timeout", self.abort_timeout),
            ("max run time", self.max_run_time.unwrap_or_default()),
            ("retry backoff", self.retry_backoff),
            ("max retry wait", self.max_retry_wait),
            ("max cache age", self.state.max_age),
        ] {
            if d > MAX_DURATION {
                return bad(format!(
                    "{name} of {} s is too long: at most {max} s (one year)",
                    d.as_secs()
                ));
            }
        }
        if self.timeout.is_zero() {
            return bad("timeout must be more than 0 s".into());
        }
        let rates = std::iter::once((None, self.max_requests_per_second)).chain(
            self.host_rules
                .iter()
                .filter_map(|r| Some((Some(r.pattern.as_str()), r.max_requests_per_second?))),
        );
        for (pattern, rate) in rates {
            let whose = pattern.map_or_else(String::new, |p| format!(" for hosts `{p}'"));
            if !(rate >= 0.0 && rate.is_finite()) {
                return bad(format!(
                    "request rate{whose} of {rate} per second is not a number of 0 or more \
                     (0: no limit)"
                ));
            }
            if rate > 0.0 && 1.0 / rate > MAX_DURATION.as_secs_f64() {
                return bad(format!(
                    "request rate{whose} of {rate} per second is too low: one request in more than \
                     a year (use 0 for no limit)"
                ));
            }
        }
        Ok(())
    }
}
