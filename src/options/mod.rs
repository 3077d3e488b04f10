//! Every option of a check, defined once: its flag, type, default and help text are the
//! fields of [`CheckOptions`] (clap's derive), and [`CheckOptions::to_config`] is the one
//! mapping from options to a [`Config`](crate::Config) and the [`Inputs`](crate::Inputs)
//! rules. The command line flattens these flags into its own; the config file and Python hand
//! their values to the same parser as `--name=value` arguments
//! ([`CheckOptions::from_arguments`]), so a value means the same through every front door, and
//! the Python docstring and stubs are generated from [`CheckOptions::command`]. Options that
//! only shape the command's output stay in the binary.

mod described;
mod local;
mod patterns;
mod to_config;
pub mod values;

use std::path::PathBuf;

use crate::config::accept::DEFAULT_ACCEPT;
use crate::config::login::{
    DEFAULT_LOGIN_PASSWORD_FIELD, DEFAULT_LOGIN_USER_FIELD, DEFAULT_LOGOUT_PATTERN,
};
use crate::config::setting_syntax::PluginSpec;
use crate::config::shard::Shard;
use crate::config::state::{DEFAULT_FAIL_AFTER_RUNS, DEFAULT_MAX_CACHE_AGE};
use crate::config::{
    DEFAULT_ABORT_TIMEOUT, DEFAULT_HOST_CONCURRENCY, DEFAULT_MAX_BODY_SIZE, DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_REDIRECTS, DEFAULT_MAX_REQUESTS_PER_SECOND, DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_WAIT, DEFAULT_MAX_URLS, DEFAULT_THREADS, DEFAULT_TIMEOUT,
};
use values::{
    ByteSize, METHODS, byte_size, cache_age, fallback_extension, format_cache_age, header,
    host_header, host_method, index_file, non_negative, non_negative_secs, pattern_number,
    positive_secs, shard, thread_count, user_agent,
};

pub use described::{Described, Kind, describe};
pub use local::{
    Cap, Inside, LOCAL_MAX_BODY_SIZE, LOCAL_MAX_RETRIES, LOCAL_MAX_SECS, Local, Part, Trust,
};

/// The options whose empty list is a value of its own, not the default: `--index-files ''`
/// names no index file (every folder link is broken), while leaving it out keeps
/// `index.html,.`. The config file and Python pass an empty list of these as `--flag=`.
const EMPTY_LIST_IS_A_VALUE: [&str; 1] = ["index-files"];

/// `true` when an empty list given to the option `flag` (its long name) is a value of its own,
/// passed as `--flag=`, rather than the option left at its default.
pub fn empty_list_is_a_value(flag: &str) -> bool {
    EMPTY_LIST_IS_A_VALUE.contains(&flag)
}
pub use to_config::{LOGIN_PASSWORD_VARIABLE, OptionError};

/// The options of a check (every flag but those that shape the command's own output), with
/// the defaults the library uses. Each field's doc is its `--help` text, written for a terminal
/// (bare URLs included).
#[allow(rustdoc::bare_urls)]
#[derive(Debug, Clone, clap::Args)]
pub struct CheckOptions {
    /// Extensions to try, in order, for a local file that does not exist and whose name has no
    /// extension or `.html` (`md,html`: a link to ch1.html is good when ch1.md exists, and its
    /// headings are the anchors; ch1.png is not). A checked folder
    /// with a book.toml is read as an mdBook: its sources, with `md` tried first; its pages are
    /// the chapters src/SUMMARY.md lists (a link to a .md source it does not list is broken:
    /// mdBook does not render it).
    #[arg(
        help_heading = "Inputs",
        long,
        value_name = "EXT,…",
        value_delimiter = ',',
        value_parser = fallback_extension
    )]
    #[arg(add = Local::allowed("which files of the checked folder a link may name"))]
    pub fallback_extensions: Vec<String>,

    /// Read each local file through PROGRAM (lychee's --preprocess): it is run, without a
    /// shell, with the file's absolute path as its one argument, and what it prints on stdout
    /// is read instead of the file (HTML when it looks like HTML, else the file's own text
    /// format, else plain text). A program that fails, runs past --timeout or prints more than
    /// --max-body-size is an error for that file.
    #[arg(help_heading = "Inputs", long, value_name = "PROGRAM")]
    #[arg(add = Local::refused("runs a program of the file's choosing, with the user's rights, on every local file read"))]
    pub preprocess: Option<PathBuf>,
    /// The extensions of the files read in folder and glob walks (`md,html,txt`; without
    /// case) [default: Markdown's in a folder, every file a glob matches]. A file named as an
    /// input is read whatever its extension.
    #[arg(
        help_heading = "Inputs",
        long,
        value_name = "EXT,…",
        value_delimiter = ',',
        value_parser = fallback_extension
    )]
    #[arg(add = Local::allowed("which files of the checked folder are walked"))]
    pub extensions: Option<Vec<String>>,

    /// Read a local file whose name has no extension as if it had this one (`md`, `html`,
    /// `txt`), named, walked or linked [default: a named one is read as plain text, whose bare
    /// URLs are checked; any other is checked for existence only].
    #[arg(help_heading = "Inputs", long, value_name = "EXT", value_parser = fallback_extension)]
    #[arg(add = Local::allowed("how files of the checked folder without one are read"))]
    pub default_extension: Option<String>,

    /// Match glob patterns without regard to case (`'docs/*.MD'` finds a.md).
    #[arg(help_heading = "Inputs", long)]
    #[arg(add = Local::allowed("which files of the checked folder are walked"))]
    pub glob_ignore_case: bool,

    /// The names a link to a local folder stands for, tried in order; `.` is the folder itself
    /// (its listing). With none of them there the link is broken, so an empty list
    /// (`--index-files ''`) makes every folder link broken [default: index.html,.].
    #[arg(
        help_heading = "Inputs",
        long,
        value_name = "NAME,…",
        value_delimiter = ',',
        value_parser = index_file
    )]
    #[arg(add = Local::allowed("which file names of a linked folder stand for it (names, never paths)"))]
    pub index_files: Option<Vec<String>>,

    /// In a git checkout, check only the Markdown and HTML files changed since REF (committed,
    /// staged or not) and the files that name a file renamed, moved or deleted since then;
    /// inputs given limit it to their folders. Uses the git on PATH.
    #[arg(help_heading = "Inputs", long, value_name = "REF")]
    #[arg(add = Local::refused("runs git in the checkout, whose own git configuration (a .git/config in a tarball, a bare repository in a subfolder) can have git run commands (core.fsmonitor, filters)"))]
    pub changed_since: Option<String>,

    /// Walk folders and globs without reading .gitignore, .ignore and git's exclude files.
    #[arg(help_heading = "Inputs", long)]
    #[arg(add = Local::allowed("which files of the checked folder are walked"))]
    pub no_ignore: bool,

    /// Walk hidden files and folders too (names starting with `.`; .git never).
    #[arg(help_heading = "Inputs", long)]
    #[arg(add = Local::allowed("which files of the checked folder are walked"))]
    pub hidden: bool,

    /// Follow symbolic links when walking folders and globs (a link back into the walk is
    /// skipped; a link out of the folder only with --follow-outside-root).
    #[arg(help_heading = "Inputs", long)]
    #[arg(add = Local::refused("has the walk follow the checkout's symbolic links, which the checkout chooses"))]
    pub follow: bool,

    /// Leave out the files and folders whose path matches this regex (repeatable), whether
    /// walked or named.
    #[arg(help_heading = "Inputs", long, value_name = "REGEX")]
    #[arg(add = Local::allowed("narrows the walk").pattern(Part::Whole))]
    pub exclude_path: Vec<String>,

    /// Worker threads.
    #[arg(help_heading = "Politeness and threads", short = 't', long, default_value_t = DEFAULT_THREADS, value_parser = thread_count, allow_negative_numbers = true)]
    #[arg(add = Local::allowed("limits"))]
    pub threads: usize,

    /// Timeout for each phase of a request (connect, response, body): seconds, or a duration
    /// with a unit as for --max-cache-age (5s, 2m).
    #[arg(help_heading = "Requests", long, value_name = "SECS", default_value_t = DEFAULT_TIMEOUT.as_secs_f64(), value_parser = positive_secs, allow_negative_numbers = true)]
    #[arg(add = Local::allowed("limits").capped(Cap::Seconds(LOCAL_MAX_SECS)))]
    pub timeout: f64,

    /// Request starts per second per host; 0 means no limit. Loopback hosts (127.0.0.0/8, ::1,
    /// localhost) have none unless this is given.
    #[arg(help_heading = "Politeness and threads", long, value_name = "N", default_value_t = DEFAULT_MAX_REQUESTS_PER_SECOND, value_parser = non_negative, allow_negative_numbers = true)]
    #[arg(add = Local::allowed("politeness"))]
    pub max_requests_per_second: f64,

    /// Requests in flight per host; 0 means no limit beyond the thread count.
    #[arg(help_heading = "Politeness and threads", long, value_name = "N", default_value_t = DEFAULT_HOST_CONCURRENCY)]
    #[arg(add = Local::allowed("politeness"))]
    pub host_concurrency: usize,

    /// Recurse at most this deep from the start pages (0: check the start pages only).
    #[arg(help_heading = "Scope", short = 'r', long, value_name = "DEPTH")]
    #[arg(add = Local::allowed("scope"))]
    pub recursion_level: Option<usize>,

    /// Make no network request: check only links inside the start sites and local files
    /// (`../x.md` too, wherever it points); links to other sites are listed as ignored.
    #[arg(help_heading = "Scope", long)]
    #[arg(add = Local::allowed("scope"))]
    pub internal_only: bool,

    /// LinkChecker's option: `--check-extern` (or `true`) checks external links, as linkpatrol
    /// does by default; `false` checks none, as --internal-only.
    #[arg(help_heading = "Scope", long, hide = true, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    #[arg(add = Local::allowed("scope"))]
    pub check_extern: Option<bool>,

    /// Check only URLs matching this regex (repeatable). Start URLs are always checked.
    #[arg(help_heading = "Scope", long, value_name = "REGEX")]
    #[arg(add = Local::allowed("scope").pattern(Part::Whole))]
    pub include: Vec<String>,

    /// Do not check URLs matching this regex (repeatable); they are listed as ignored. So are
    /// those of a .linkpatrolignore file (one regex a line) at the checked folder's root
    /// (--root-dir, else the first folder given, else the current folder); pages leave links out with <!-- linkpatrol-ignore --> (the next
    /// link) and <!-- linkpatrol-ignore-start --> … <!-- linkpatrol-ignore-end -->.
    #[arg(
        help_heading = "Scope",
        long,
        alias = "ignore-url",
        value_name = "REGEX"
    )]
    #[arg(add = Local::allowed("scope").pattern(Part::Whole))]
    pub exclude: Vec<String>,

    /// Rewrite each link before it is checked, `REGEX REPLACEMENT` (repeatable; the first rule
    /// that matches applies; `$1` in the replacement is the first group). The report shows the
    /// link as written and the URL it was remapped to.
    #[arg(help_heading = "Scope", long, value_name = "REGEX REPLACEMENT")]
    #[arg(add = Local::refused("rewrites links before they are requested, so it can send each request (with the headers and cookies meant for the start sites) to a server the file names"))]
    pub remap: Vec<String>,

    /// Check URLs matching this regex but never recurse into them (repeatable).
    #[arg(
        help_heading = "Scope",
        long,
        alias = "no-follow-url",
        value_name = "REGEX"
    )]
    #[arg(add = Local::allowed("scope").pattern(Part::Whole))]
    pub no_follow: Vec<String>,

    /// Redirect hops to follow before reporting an error.
    #[arg(help_heading = "Requests", long, value_name = "N", default_value_t = DEFAULT_MAX_REDIRECTS)]
    #[arg(add = Local::allowed("limits").capped(Cap::Count { max: 20, zero_is_unlimited: false }))]
    pub max_redirects: usize,

    /// After Ctrl-C, wait this many seconds (or a duration: 30s, 1m) for requests in flight
    /// before interrupting them.
    #[arg(help_heading = "Politeness and threads", long, value_name = "SECS", default_value_t = DEFAULT_ABORT_TIMEOUT.as_secs_f64(), value_parser = non_negative_secs, allow_negative_numbers = true)]
    #[arg(add = Local::allowed("limits").capped(Cap::Seconds(LOCAL_MAX_SECS)))]
    pub abort_timeout: f64,

    /// The folder `/` means in links of local pages.
    #[arg(help_heading = "Inputs", long, value_name = "DIR")]
    #[arg(add = Local::inside(Inside::Paths, "a root outside the folder would have the crawl read, parse and report files the checkout does not contain (/etc, ~/.ssh)"))]
    pub root_dir: Option<std::path::PathBuf>,

    /// Also check the bare URLs (`https://…`, `www.…`, e-mail addresses) in the code spans and
    /// code blocks of Markdown pages and in the `pre` and `code` elements of HTML pages; by
    /// default code holds no links.
    #[arg(help_heading = "Scope", long)]
    #[arg(add = Local::allowed("scope: links in code of the pages checked"))]
    pub include_verbatim: bool,

    /// Read Obsidian's wikilinks in Markdown pages: `[[Page]]`, `[[Page#Heading]]`,
    /// `[[Page|text]]`. `[[Page]]` is the file Page.md of the checked files, found by name in
    /// any folder.
    #[arg(help_heading = "Scope", long)]
    #[arg(add = Local::allowed("scope: wikilinks of the pages checked, to files of the checked folders"))]
    pub include_wikilinks: bool,

    /// Do not fetch or obey robots.txt.
    #[arg(help_heading = "Scope", long)]
    #[arg(add = Local::allowed("politeness towards the sites checked"))]
    pub no_robots: bool,

    /// Read, parse and list local files outside the checked folders too (`../`, `..%2F`,
    /// symbolic links pointing out). By default they are checked for existence only.
    #[arg(help_heading = "Scope", long)]
    #[arg(add = Local::refused("lets a folder check read, parse and list files outside the folder (../, ..%2F, symbolic links pointing out), which the checkout's pages would then show"))]
    pub follow_outside_root: bool,

    /// Also crawl the sitemaps listed in a start site's robots.txt (`Sitemap:` lines).
    #[arg(help_heading = "Inputs", long)]
    #[arg(add = Local::allowed("crawls what robots.txt of a start site lists"))]
    pub sitemaps: bool,

    /// Retries of one URL (HEAD and GET together) after a timeout, a broken connection (also
    /// mid-body), a 429 or a 502/503/504 (never a 404).
    #[arg(help_heading = "Requests", long, value_name = "N", default_value_t = DEFAULT_MAX_RETRIES)]
    #[arg(add = Local::allowed("limits").capped(Cap::Count { max: LOCAL_MAX_RETRIES, zero_is_unlimited: false }))]
    pub max_retries: u32,

    /// Longest Retry-After (or backoff) honoured before a retry: seconds, or a duration (2m).
    #[arg(help_heading = "Requests", long, value_name = "SECS", default_value_t = DEFAULT_MAX_RETRY_WAIT.as_secs_f64(), value_parser = non_negative_secs, allow_negative_numbers = true)]
    #[arg(add = Local::allowed("limits").capped(Cap::Seconds(LOCAL_MAX_SECS)))]
    pub max_retry_wait: f64,

    /// Add a header to the requests to the start sites, `NAME: VALUE` (repeatable). It is
    /// never sent to another host, not even on a redirect (any header may be a secret: an API
    /// key, a token); use --host-header to send a header to other hosts.
    #[arg(help_heading = "Requests", short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = header)]
    #[arg(add = Local::allowed("headers of the file's own choosing, credentials aside; flags replace them, never join them").header(Part::Whole))]
    pub headers: Vec<(String, String)>,

    /// Request rate for hosts matching a regex (against host:port), `REGEX=N` (repeatable).
    #[arg(help_heading = "Politeness and threads", long, value_name = "REGEX=N", value_parser = pattern_number::<f64>)]
    #[arg(add = Local::allowed("politeness").pattern(Part::BeforeLast('=')))]
    pub host_rate: Vec<(String, f64)>,

    /// Requests in flight for hosts matching a regex, `REGEX=N` (repeatable).
    #[arg(help_heading = "Politeness and threads", long, value_name = "REGEX=N", value_parser = pattern_number::<usize>)]
    #[arg(add = Local::allowed("politeness").pattern(Part::BeforeLast('=')))]
    pub host_max_concurrency: Vec<(String, usize)>,

    /// A header for hosts matching a regex only (against host:port), `REGEX=NAME: VALUE`
    /// (repeatable); also for hosts that are not start sites.
    #[arg(help_heading = "Requests", long, value_name = "REGEX=NAME: VALUE", value_parser = host_header)]
    #[arg(add = Local::allowed("as header").pattern(Part::BeforeFirst('=')).header(Part::AfterFirst('=')))]
    pub host_header: Vec<(String, (String, String))>,

    /// Do not verify TLS certificates (the report says so).
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::refused("turns certificate checks off, so anyone on the network path can read and change the requests, the user's headers and cookies included"))]
    pub insecure: bool,

    /// Never request a private address (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7),
    /// however the link spells it, a name resolves or a redirect leads: not checked.
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::allowed("requests fewer addresses"))]
    pub exclude_private: bool,

    /// Never request a loopback address (127.0.0.0/8, ::1, 0.0.0.0): not checked.
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::allowed("requests fewer addresses"))]
    pub exclude_loopback: bool,

    /// Never request a link-local or cloud metadata address (169.254/16, the metadata
    /// service 169.254.169.254 among them; fe80::/10; fd00:ec2::254, 100.100.100.200 and the
    /// like): not checked. The default unless --allow-private, whatever the start sites.
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::allowed("requests fewer addresses"))]
    pub exclude_link_local: bool,

    /// Request loopback, private, link-local and cloud metadata addresses. By default,
    /// link-local and metadata addresses are never requested, and a check of public sites
    /// leaves all such links unchecked, so that a page cannot turn the machine running it
    /// into a proxy into its own network.
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::refused("lets the checkout's pages have requests made to this machine and its network (a CI runner's metadata service, its neighbours)"))]
    pub allow_private: bool,

    /// Send every request through this http(s) proxy, `http://[USER:PASSWORD@]HOST:PORT`
    /// (default: ALL_PROXY / HTTPS_PROXY / HTTP_PROXY, except NO_PROXY hosts).
    #[arg(help_heading = "Requests", long, value_name = "URL")]
    #[arg(add = Local::refused("sends every request through a server the file names, with the headers, cookies and passwords the user gives, which it can read and answer"))]
    pub proxy: Option<String>,

    /// Check at most N distinct URLs; links to further URLs are only counted, and the summary
    /// says the limit was reached. The memory budget (--max-memory) stops a spider trap (a site
    /// that makes up new links on every page) first; this count is a second brake (0: no limit).
    #[arg(help_heading = "Scope", long, value_name = "N", default_value_t = DEFAULT_MAX_URLS)]
    #[arg(add = Local::allowed("scope").capped(Cap::Count { max: DEFAULT_MAX_URLS as u64, zero_is_unlimited: true }))]
    pub max_urls: usize,

    /// Memory the run may hold for what grows with the site (the URLs found, the queued ones,
    /// the rows a sorted report keeps for the end), in bytes or with a unit: 512M, 2G. Past
    /// the queue's share (--queue-memory) the queued URLs wait on disk in a temporary file, and
    /// so do a sorted report's rows past a quarter of the budget; when the rest reaches the
    /// budget, links to new URLs are only counted, as with --max-urls, and the summary says
    /// so (0: no budget).
    #[arg(help_heading = "Scope", long, value_name = "SIZE", default_value = "1G", value_parser = byte_size)]
    #[arg(add = Local::allowed("limits").capped(Cap::Count { max: DEFAULT_MAX_MEMORY as u64, zero_is_unlimited: true }))]
    pub max_memory: ByteSize,

    /// Bytes of queued URLs kept in memory before the rest wait on disk, in bytes or with a
    /// unit (default: a quarter of --max-memory; 0: all but each host's next URL).
    #[arg(help_heading = "Scope", long, value_name = "SIZE", value_parser = byte_size)]
    #[arg(add = Local::allowed("limits: the queue's share counts toward --max-memory"))]
    pub queue_memory: Option<ByteSize>,

    /// Stop the check after this long (seconds, or a duration: 90s, 10m, 1h): no new URL is
    /// started, requests in flight get --abort-timeout, the reports are written and say so;
    /// exit status 124 (0: no limit).
    #[arg(help_heading = "Scope", long, value_name = "SECS", value_parser = non_negative_secs, allow_negative_numbers = true)]
    #[arg(add = Local::allowed("limits: it only shortens the run"))]
    pub max_run_time: Option<f64>,

    /// Bytes of a page read for link extraction.
    #[arg(help_heading = "Requests", long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_SIZE)]
    #[arg(add = Local::allowed("limits").capped(Cap::Count { max: LOCAL_MAX_BODY_SIZE, zero_is_unlimited: false }))]
    pub max_body_size: u64,

    /// The User-Agent header to send.
    #[arg(help_heading = "Requests", long, value_name = "STRING", value_parser = user_agent)]
    #[arg(add = Local::allowed("a header the file's author may choose"))]
    pub user_agent: Option<String>,

    /// Drop warnings with this tag, e.g. http-redirected (repeatable).
    #[arg(help_heading = "Output", long, value_name = "TAG")]
    #[arg(add = Local::allowed("the report's content"))]
    pub ignore_warning: Vec<String>,

    /// Exit with status 1 when bot protection answered for a link (a Cloudflare challenge,
    /// LinkedIn's 999: "blocked"), which otherwise only gets a warning.
    #[arg(help_heading = "Output", long)]
    #[arg(add = Local::allowed("the exit status"))]
    pub fail_on_blocked: bool,

    /// Keep state between runs in ./.linkpatrol-cache.sqlite: reuse recent results of
    /// external and leaf URLs, and record each link's broken history. A reused row has
    /// `from_state` set (JSON, NDJSON, CSV), and the summary counts the reused results.
    #[arg(help_heading = "State between runs", long)]
    #[arg(add = Local::allowed("the state file in the current folder, which may be the checkout's: it is written, and nothing in it is reused (Config::trust_state_file)"))]
    pub cache: bool,

    /// Keep state in this SQLite file (implies --cache).
    #[arg(help_heading = "State between runs", long, value_name = "PATH")]
    #[arg(add = Local::refused("creates and writes an SQLite file at any path (and moves a file it cannot read aside), outside the folder too"))]
    pub cache_file: Option<PathBuf>,

    /// Reuse results checked at most this long ago: 30m, 12h, 7d.
    #[arg(help_heading = "State between runs", long, value_name = "DURATION", default_value = format_cache_age(DEFAULT_MAX_CACHE_AGE), value_parser = cache_age)]
    #[arg(add = Local::allowed("which stored results are reused"))]
    pub max_cache_age: std::time::Duration,

    /// Reuse broken results from the state file too (by default they are checked again).
    #[arg(help_heading = "State between runs", long)]
    #[arg(add = Local::allowed("which stored results are reused"))]
    pub cache_failures: bool,

    /// Never reuse a stored result with one of these HTTP statuses (codes and ranges as for
    /// --accept: `429,500..=599`): such links are checked again (lychee's option).
    #[arg(help_heading = "State between runs", long, value_name = "RANGES")]
    #[arg(add = Local::allowed("which stored results are reused"))]
    pub cache_exclude_status: Option<String>,

    /// Continue the interrupted last run recorded in the state file (implies --cache): its
    /// finished results and pages are reused whatever their age, the rest is checked.
    #[arg(help_heading = "State between runs", long)]
    #[arg(add = Local::allowed("nothing: the state file it turns on is the checkout's, as for cache, and no run of it is resumed"))]
    pub resume: bool,

    /// With a state file, a broken link fails the run (exit 1) only once it has been broken in
    /// N consecutive runs; until then the summary says how many errors were tolerated.
    #[arg(help_heading = "State between runs", long, value_name = "N", default_value_t = DEFAULT_FAIL_AFTER_RUNS, value_parser = clap::value_parser!(u32).range(1..))]
    #[arg(add = Local::allowed("the exit status"))]
    pub fail_after_runs: u32,

    /// The public URL of the local site folder (--root-dir, or the folder given as input):
    /// links to URLs under it are checked in the folder instead, and a root-relative link
    /// (/x) means that site's /x, as a browser there sees it.
    #[arg(help_heading = "Inputs", long, value_name = "URL")]
    #[arg(add = Local::allowed("maps URLs onto the site folder, which stays inside"))]
    pub base_url: Option<String>,

    /// Send the cookies of this Netscape cookies.txt file (by domain, path, secure, expiry).
    #[arg(help_heading = "Requests", long, value_name = "FILE")]
    #[arg(add = Local::refused("reads a file at any path (its lines can end up in an error message) and sends cookies the user did not choose"))]
    pub cookie_file: Option<PathBuf>,

    /// A cookie jar kept between runs (lychee's --cookie-jar): its cookies are sent as those
    /// servers set during the run are, and at the end every cookie is saved back to it
    /// (Netscape cookies.txt, mode 0600; a symbolic link there is refused). Created when
    /// missing.
    #[arg(help_heading = "Requests", long, value_name = "FILE")]
    #[arg(add = Local::refused("reads and writes (replaces) a file at any path, and sends its cookies: cookies are credentials, the user's to keep"))]
    pub cookie_jar: Option<PathBuf>,

    /// Log in through the form of this page before the crawl, and check with the session's
    /// cookies. The password comes from LINKPATROL_LOGIN_PASSWORD (or, on the command line, a
    /// prompt on a terminal); never from an option or a config file. A refused login is an
    /// error.
    #[arg(help_heading = "Requests", long, value_name = "URL")]
    #[arg(add = Local::refused("the login sends the user's password to the form the page names, which could be a server of the checkout's choosing"))]
    pub login_url: Option<String>,

    /// The user name for --login-url.
    #[arg(help_heading = "Requests", long, value_name = "NAME")]
    #[arg(add = Local::refused("the user name is the user's to choose, and goes with the password"))]
    pub login_user: Option<String>,

    /// The name of the login form's user field.
    #[arg(help_heading = "Requests", long, value_name = "NAME", default_value = DEFAULT_LOGIN_USER_FIELD)]
    #[arg(add = Local::refused("chooses the form the password fills, so it could go in a search form's field to that form's host"))]
    pub login_user_field: String,

    /// The name of the login form's password field (an input of type password).
    #[arg(help_heading = "Requests", long, value_name = "NAME", default_value = DEFAULT_LOGIN_PASSWORD_FIELD)]
    #[arg(add = Local::refused("chooses the form the password fills, so it could go in a search form's field to that form's host"))]
    pub login_password_field: String,

    /// Also send NAME=VALUE with the login form (repeatable).
    #[arg(help_heading = "Requests", long, value_name = "NAME=VALUE")]
    #[arg(add = Local::refused("fields sent with the password: a redirect_uri, next or return_to of its choosing has the session's code sent to a server the file names"))]
    pub login_extra_field: Vec<String>,

    /// Links whose URL matches this regex (as written, or with its path and query
    /// percent-decoded) would end the login session: not requested.
    #[arg(help_heading = "Requests", long, value_name = "REGEX", default_value = DEFAULT_LOGOUT_PATTERN)]
    #[arg(add = Local::allowed("which links are not followed once logged in (only with login-url)").pattern(Part::Whole))]
    pub login_logout_pattern: String,

    /// The login's password, when the front door has one (a prompt); else it is read from
    /// [`LOGIN_PASSWORD_VARIABLE`]. Never a flag.
    #[arg(skip)]
    pub login_password: Option<String>,

    /// Statuses that count as valid: comma-separated codes and ranges `A..=B`, `A..B` (B
    /// excluded), `A..` (A and up).
    #[arg(
        help_heading = "Requests",
        long,
        value_name = "RANGES",
        default_value = DEFAULT_ACCEPT
    )]
    #[arg(add = Local::allowed("which statuses count as valid"))]
    pub accept: String,

    /// Count a link whose check timed out as valid, with the timeout-accepted warning
    /// instead of an error (lychee's --accept-timeouts): for servers known to be slow.
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::allowed("whether a timed-out link counts as valid"))]
    pub accept_timeouts: bool,

    /// Warn about an http:// link that works over https:// too (the http-has-https warning,
    /// lychee's --require-https): one more request per http:// link that works.
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::allowed("one more request to the https twin of a link checked anyway"))]
    pub require_https: bool,

    /// Request method of links that are only checked: head (falls back to GET when the server
    /// refuses HEAD) or get. Pages parsed for links are always fetched with GET.
    #[arg(help_heading = "Requests", long, value_name = "METHOD", default_value = "head", value_parser = METHODS)]
    #[arg(add = Local::allowed("HEAD or GET"))]
    pub method: String,

    /// The method of links that are only checked, for hosts matching a regex (against
    /// host:port), `REGEX=METHOD` (repeatable): get for a host whose HEAD answers 200 where GET
    /// answers 404 (a stale cache, HEAD routed apart), head to keep HEAD first on a host under
    /// --method get.
    #[arg(help_heading = "Requests", long, value_name = "REGEX=METHOD", value_parser = host_method)]
    #[arg(add = Local::allowed("HEAD or GET, per host").pattern(Part::BeforeLast('=')))]
    pub host_method: Vec<(String, String)>,

    /// Also look up the MX (else A/AAAA) records of mailto: domains, each domain once.
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::allowed("looks up mail domains with the system's own resolver"))]
    pub check_mx: bool,

    /// The DNS resolver for --check-mx, `IP` or `IP:PORT` [default: the first nameserver of
    /// /etc/resolv.conf]
    #[arg(help_heading = "Requests", long, value_name = "ADDR")]
    #[arg(add = Local::refused("sends the mail lookups to a resolver the file names, which learns every mail domain and decides every verdict"))]
    pub dns_server: Option<String>,

    /// For each broken http(s) link, ask the web archive for its closest snapshot and show it
    /// (one request per broken URL to the archive, with its host's politeness).
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::allowed("asks the default web archive (archive.org) about broken links"))]
    pub suggest: bool,

    /// The web archive's availability API that --suggest asks (`GET URL?url=BROKEN`, answered
    /// as the Wayback Machine does) [default: https://archive.org/wayback/available]
    #[arg(help_heading = "Requests", long, value_name = "URL")]
    #[arg(add = Local::refused("sends every broken URL to a server the file names, which also writes the suggestions the user is shown"))]
    pub archive_url: Option<String>,

    /// A GitHub access token, sent as `Authorization: Bearer TOKEN` to https://github.com and
    /// https://api.github.com only (and to what a --remap rule made of a link to them; never
    /// to another host, not even on a redirect; never shown), so GitHub's rate limit for
    /// anonymous requests is not hit. Also read from
    /// GITHUB_TOKEN when neither the flag, its variable nor the config file sets it
    /// [default: none]
    #[arg(
        help_heading = "Requests",
        long,
        value_name = "TOKEN",
        hide_env_values = true
    )]
    #[arg(add = Local::refused("a credential: a checkout that ships one would have the user's run speak to GitHub as the checkout's account"))]
    pub github_token: Option<String>,

    /// Warn (`soft-404`) about pages that answer 200 but are the site's "not found" page:
    /// each host is asked once for a made-up path, and a page whose title and text match that
    /// answer (the words of its own URL left out) is warned about. One extra request per host;
    /// http(s) links are checked with GET, as their bodies are compared
    #[arg(help_heading = "Requests", long)]
    #[arg(add = Local::allowed("one made-up path asked of each host checked, and GET for links"))]
    pub detect_soft_404: bool,

    /// `true` when the flag, its environment variable or the config file set
    /// --max-requests-per-second: then it holds for loopback hosts too; no flag.
    #[arg(skip)]
    pub rate_given: bool,

    /// Be shard I of N (0-based) of a check split by host: start sites on hosts other shards
    /// own are left to them, and links to such hosts are exported, not checked.
    #[arg(help_heading = "Sharding", long, value_name = "I/N", value_parser = shard)]
    #[arg(add = Local::refused("no config key: a shard's place is per run, never a saved setting"))]
    pub shard: Option<Shard>,

    /// Check that each link's #fragment names an anchor of its page (HTML ids and names,
    /// Markdown headings): the `anchors` plugin. On github.com pages (as linked, before
    /// --remap), a file view's line anchors (#L10, #L10-L20) are valid when the page is, and
    /// #foo finds GitHub's heading id `user-content-foo`. A text fragment (#:~:text=) must be
    /// in the page's visible text. A missing one is an error; `--plugin
    /// anchors:severity=warning` makes it a warning.
    #[arg(help_heading = "Plugins", long)]
    #[arg(add = Local::allowed("the anchors plugin: reads the pages being checked"))]
    pub check_anchors: bool,

    /// Render the site's HTML pages in headless Chromium (the `render-js` plugin) and check
    /// the links of the rendered page as well as those of its source: for sites whose pages
    /// JavaScript builds. Needs Debian's `chromium`. Links found only after rendering are
    /// marked `rendered` in the reports; with --check-anchors, ids that scripts create count.
    #[arg(help_heading = "Plugins", long)]
    #[arg(add = Local::refused("starts a browser that runs the sites' scripts: the user turns rendering on, never a checkout"))]
    pub render_js: bool,

    /// With --render-js: how many pages render at once (browser tabs, 1 to 64).
    #[arg(help_heading = "Plugins", long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=64))]
    #[arg(add = Local::refused("starts a browser that runs the sites' scripts: the user turns rendering on, never a checkout"))]
    pub render_tabs: u8,

    /// With --render-js: the longest a page may take to settle (no request in flight, the
    /// page unchanged for half a second), in seconds or a duration (10s); a page still busy
    /// then is read as it is, with a `render-timeout` warning.
    #[arg(help_heading = "Plugins", long, value_name = "SECS", default_value_t = 10.0, value_parser = positive_secs)]
    #[arg(add = Local::refused("starts a browser that runs the sites' scripts: the user turns rendering on, never a checkout"))]
    pub render_timeout: f64,

    /// Enable a plugin, `NAME` or `NAME:key=value[,key=value…]` (repeatable; settings of the
    /// same plugin add up). See --list-plugins.
    #[arg(help_heading = "Plugins", long = "plugin", value_name = "NAME[:KEY=VALUE]", value_parser = crate::config::setting_syntax::parse_plugin_spec)]
    #[arg(add = Local::allowed("the list itself; each plugin it names is judged as its [plugins.NAME] section"))]
    pub plugins: Vec<PluginSpec>,
}

/// The options alone as a command, for front doors that are not the command line: the
/// config file and Python parse their values with it, and their docs are written from it.
#[derive(Debug, clap::Parser)]
#[command(
    name = "linkpatrol",
    no_binary_name = true,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Alone {
    #[command(flatten)]
    options: CheckOptions,
}

impl CheckOptions {
    /// The clap command of these options alone (no help or version flag).
    pub fn command() -> clap::Command {
        <Alone as clap::CommandFactory>::command()
    }

    /// Options from `--name=value` arguments (`--name` alone for a switch), read by the
    /// flags' own parsers; unnamed options keep their defaults.
    pub fn from_arguments<I, S>(arguments: I) -> Result<CheckOptions, clap::Error>
    where
        I: IntoIterator<Item = S>,
        S: Into<std::ffi::OsString> + Clone,
    {
        let matches = Self::command().try_get_matches_from(arguments)?;
        let mut options = <CheckOptions as clap::FromArgMatches>::from_arg_matches(&matches)?;
        options.rate_given = matches.value_source("max_requests_per_second")
            == Some(clap::parser::ValueSource::CommandLine);
        Ok(options)
    }
}

impl Default for CheckOptions {
    /// Every option at its default.
    fn default() -> Self {
        Self::from_arguments(std::iter::empty::<String>()).expect("the defaults parse")
    }
}
