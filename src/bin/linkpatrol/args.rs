//! Command-line flags (clap derive): definitions and validation only. `settings` turns them
//! into a library `Config`.

use std::path::PathBuf;

use clap::Parser;
use linkpatrol::report::Format;

use crate::values::{
    AuthSection, FileOutput, HostSection, cache_age, file_output, format_parser, header,
    host_header, non_negative, non_negative_secs, pattern_number, positive_secs, shard,
    thread_count, user_agent,
};

use linkpatrol::{
    DEFAULT_ABORT_TIMEOUT, DEFAULT_HOST_CONCURRENCY, DEFAULT_MAX_BODY_SIZE, DEFAULT_MAX_REDIRECTS,
    DEFAULT_MAX_REQUESTS_PER_SECOND, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_WAIT, DEFAULT_THREADS,
    DEFAULT_TIMEOUT,
};

/// Check the links of a web site or local files: broken links, redirects, bad anchors.
// `args_override_self`: a flag of one value given twice takes the last (`-o json -o csv`
// writes CSV), as ripgrep does, so a wrapper's defaults (the GitHub Action's `-o github`)
// yield to the user's own flags after them; a repeatable flag adds up.
#[derive(Debug, Parser)]
#[command(name = "linkpatrol", version, args_override_self = true)]
pub struct Args {
    /// URLs (http, https, file), local files and folders, glob patterns (`'docs/**/*.md'`), or
    /// `-` (URLs on stdin) to check. A folder without index.html stands for its Markdown files,
    /// walked as ripgrep walks: .gitignore (in a git repository), .ignore and git's exclude
    /// files honoured, hidden files skipped, symbolic links not followed.
    #[arg(value_name = "URL_OR_PATH")]
    pub inputs: Vec<String>,

    /// Extensions to try, in order, for a local file that does not exist and whose name has no
    /// extension or `.html` (`md,html`: a link to ch1.html is good when ch1.md exists, and its
    /// headings are the anchors; ch1.png is not). A checked folder
    /// with a book.toml is read as an mdBook: its sources, with `md` tried first; its pages are
    /// the chapters src/SUMMARY.md lists (a link to a .md source it does not list is broken:
    /// mdBook does not render it).
    #[arg(long, value_name = "EXT,…", value_delimiter = ',')]
    pub fallback_extensions: Vec<String>,

    /// In a git checkout, check only the Markdown and HTML files changed since REF (committed,
    /// staged or not) and the files that name a file renamed, moved or deleted since then;
    /// inputs given limit it to their folders. Uses the git on PATH.
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,

    /// Walk folders and globs without reading .gitignore, .ignore and git's exclude files.
    #[arg(long)]
    pub no_ignore: bool,

    /// Walk hidden files and folders too (names starting with `.`; .git never).
    #[arg(long)]
    pub hidden: bool,

    /// Follow symbolic links when walking folders and globs (a link back into the walk is
    /// skipped; a link out of the folder only with --follow-outside-root).
    #[arg(long)]
    pub follow: bool,

    /// Leave out the files and folders whose path matches this regex (repeatable), whether
    /// walked or named.
    #[arg(long, value_name = "REGEX")]
    pub exclude_path: Vec<String>,

    /// Worker threads.
    #[arg(short = 't', long, default_value_t = DEFAULT_THREADS, value_parser = thread_count, allow_negative_numbers = true)]
    pub threads: usize,

    /// Timeout for each phase of a request (connect, response, body): seconds, or a duration
    /// with a unit as for --max-cache-age (5s, 2m).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TIMEOUT.as_secs_f64(), value_parser = positive_secs, allow_negative_numbers = true)]
    pub timeout: f64,

    /// Request starts per second per host; 0 means no limit. Loopback hosts (127.0.0.0/8, ::1,
    /// localhost) have none unless this is given.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_REQUESTS_PER_SECOND, value_parser = non_negative, allow_negative_numbers = true)]
    pub max_requests_per_second: f64,

    /// Requests in flight per host; 0 means no limit beyond the thread count.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_HOST_CONCURRENCY)]
    pub host_concurrency: usize,

    /// Recurse at most this deep from the start pages (0: check the start pages only).
    #[arg(short = 'r', long, value_name = "DEPTH")]
    pub recursion_level: Option<usize>,

    /// Make no network request: check only links inside the start sites and local files
    /// (`../x.md` too, wherever it points); links to other sites are listed as ignored.
    #[arg(long)]
    pub internal_only: bool,

    /// Accepted for LinkChecker users: external links are checked by default.
    #[arg(long, hide = true)]
    pub check_extern: bool,

    /// Check only URLs matching this regex (repeatable). Start URLs are always checked.
    #[arg(long, value_name = "REGEX")]
    pub include: Vec<String>,

    /// Do not check URLs matching this regex (repeatable); they are listed as ignored. So are
    /// those of a .linkpatrolignore file (one regex a line) at the checked folder's root (else
    /// the current folder); pages leave links out with <!-- linkpatrol-ignore --> (the next
    /// link) and <!-- linkpatrol-ignore-start --> … <!-- linkpatrol-ignore-end -->.
    #[arg(long, alias = "ignore-url", value_name = "REGEX")]
    pub exclude: Vec<String>,

    /// Rewrite each link before it is checked, `REGEX REPLACEMENT` (repeatable; the first rule
    /// that matches applies; `$1` in the replacement is the first group). The report shows the
    /// link as written and the URL it was remapped to.
    #[arg(long, value_name = "REGEX REPLACEMENT")]
    pub remap: Vec<String>,

    /// Check URLs matching this regex but never recurse into them (repeatable).
    #[arg(long, alias = "no-follow-url", value_name = "REGEX")]
    pub no_follow: Vec<String>,

    /// Redirect hops to follow before reporting an error.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_REDIRECTS)]
    pub max_redirects: usize,

    /// After Ctrl-C, wait this many seconds (or a duration: 30s, 1m) for requests in flight
    /// before interrupting them.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_ABORT_TIMEOUT.as_secs_f64(), value_parser = non_negative_secs, allow_negative_numbers = true)]
    pub abort_timeout: f64,

    /// The folder `/` means in links of local pages.
    #[arg(long, value_name = "DIR")]
    pub root_dir: Option<std::path::PathBuf>,

    /// Also check the bare URLs (`https://…`, `www.…`, e-mail addresses) in the code spans and
    /// code blocks of Markdown pages; by default code holds no links.
    #[arg(long)]
    pub include_verbatim: bool,

    /// Do not fetch or obey robots.txt.
    #[arg(long)]
    pub no_robots: bool,

    /// Read, parse and list local files outside the checked folders too (`../`, `..%2F`,
    /// symbolic links pointing out). By default they are checked for existence only.
    #[arg(long)]
    pub follow_outside_root: bool,

    /// Also crawl the sitemaps listed in a start site's robots.txt (`Sitemap:` lines).
    #[arg(long)]
    pub sitemaps: bool,

    /// Retries of one URL (HEAD and GET together) after a timeout, a broken connection (also
    /// mid-body), a 429 or a 502/503/504 (never a 404).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_RETRIES)]
    pub max_retries: u32,

    /// Longest Retry-After (or backoff) honoured before a retry: seconds, or a duration (2m).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_MAX_RETRY_WAIT.as_secs_f64(), value_parser = non_negative_secs, allow_negative_numbers = true)]
    pub max_retry_wait: f64,

    /// Add a header to the requests to the start sites, `NAME: VALUE` (repeatable). It is
    /// never sent to another host, not even on a redirect (any header may be a secret: an API
    /// key, a token); use --host-header to send a header to other hosts.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = header)]
    pub headers: Vec<(String, String)>,

    /// Request rate for hosts matching a regex (against host:port), `REGEX=N` (repeatable).
    #[arg(long, value_name = "REGEX=N", value_parser = pattern_number::<f64>)]
    pub host_rate: Vec<(String, f64)>,

    /// Requests in flight for hosts matching a regex, `REGEX=N` (repeatable).
    #[arg(long, value_name = "REGEX=N", value_parser = pattern_number::<usize>)]
    pub host_max_concurrency: Vec<(String, usize)>,

    /// A header for hosts matching a regex only (against host:port), `REGEX=NAME: VALUE`
    /// (repeatable); also for hosts that are not start sites.
    #[arg(long, value_name = "REGEX=NAME: VALUE", value_parser = host_header)]
    pub host_header: Vec<(String, (String, String))>,

    /// Do not verify TLS certificates (the report says so).
    #[arg(long)]
    pub insecure: bool,

    /// Never request a private address (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7),
    /// however the link spells it, a name resolves or a redirect leads: not checked.
    #[arg(long)]
    pub exclude_private: bool,

    /// Never request a loopback address (127.0.0.0/8, ::1, 0.0.0.0): not checked.
    #[arg(long)]
    pub exclude_loopback: bool,

    /// Never request a link-local or cloud metadata address (169.254/16, the metadata
    /// service 169.254.169.254 among them; fe80::/10; fd00:ec2::254, 100.100.100.200 and the
    /// like): not checked. The default unless --allow-private, whatever the start sites.
    #[arg(long)]
    pub exclude_link_local: bool,

    /// Request loopback, private, link-local and cloud metadata addresses. By default,
    /// link-local and metadata addresses are never requested, and a check of public sites
    /// leaves all such links unchecked, so that a page cannot turn the machine running it
    /// into a proxy into its own network.
    #[arg(long)]
    pub allow_private: bool,

    /// Send every request through this http(s) proxy, `http://[USER:PASSWORD@]HOST:PORT`
    /// (default: ALL_PROXY / HTTPS_PROXY / HTTP_PROXY, except NO_PROXY hosts).
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,

    /// Check at most N distinct URLs; links to further URLs are only counted, in the summary
    /// (0: no limit).
    #[arg(long, value_name = "N")]
    pub max_urls: Option<usize>,

    /// Stop the check after this long (seconds, or a duration: 90s, 10m, 1h): no new URL is
    /// started, requests in flight get --abort-timeout, the reports are written and say so;
    /// exit status 124 (0: no limit).
    #[arg(long, value_name = "SECS", value_parser = non_negative_secs, allow_negative_numbers = true)]
    pub max_run_time: Option<f64>,

    /// Bytes of a page read for link extraction.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_SIZE)]
    pub max_body_size: u64,

    /// The User-Agent header to send.
    #[arg(long, value_name = "STRING", value_parser = user_agent)]
    pub user_agent: Option<String>,

    /// Report format on stdout (see also -F).
    #[arg(short = 'o', long, alias = "format", value_name = "TYPE", default_value = "text", value_parser = format_parser(), ignore_case = true)]
    pub output: Format,

    /// Colour the text and compact reports on stdout: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,

    /// Group the text report by page (each page, then its problems by line) or by url (each
    /// broken URL, then the pages that link to it, as LinkChecker does).
    #[arg(long, value_name = "BY", default_value = "page", value_parser = ["page", "url"])]
    pub group_by: String,

    /// Also write a report of TYPE to FILE (repeatable; each TYPE's default FILE is listed
    /// under -o). Without --stream the rows are written when the run ends (Ctrl-C, even twice,
    /// still writes them): a killed run keeps its finished rows only in the state file (--cache).
    #[arg(short = 'F', long = "file-output", value_name = "TYPE[/FILE]", value_parser = file_output)]
    pub file_outputs: Vec<FileOutput>,

    /// Write each row as its link finishes (CSV, NDJSON, JSON entries, failures, compact and
    /// github lines), in an order that changes from run to run, with the level of the link
    /// that reached its URL first. By default every format is written at the end, ordered by
    /// page, line and column (ties by URL), each URL at its shortest link distance from a
    /// start URL: the same whatever the thread count.
    #[arg(long)]
    pub stream: bool,

    /// No report on stdout (files given with -F are still written).
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// Field delimiter of the CSV output.
    #[arg(long, value_name = "CHAR", default_value_t = ';')]
    pub csv_delimiter: char,

    /// No progress display on stderr.
    #[arg(long)]
    pub no_status: bool,

    /// Drop warnings with this tag, e.g. http-redirected (repeatable).
    #[arg(long, value_name = "TAG")]
    pub ignore_warning: Vec<String>,

    /// Exit with status 1 when there are warnings, even without broken links.
    #[arg(long)]
    pub fail_on_warnings: bool,

    /// Exit with status 1 when bot protection answered for a link (a Cloudflare challenge,
    /// LinkedIn's 999: "blocked"), which otherwise only gets a warning.
    #[arg(long)]
    pub fail_on_blocked: bool,

    /// Keep state between runs in ./.linkpatrol-cache.sqlite: reuse recent results of
    /// external and leaf URLs, and record each link's broken history. A reused row has
    /// `from_state` set (JSON, NDJSON, CSV), and the summary counts the reused results.
    #[arg(long)]
    pub cache: bool,

    /// Keep state in this SQLite file (implies --cache).
    #[arg(long, value_name = "PATH")]
    pub cache_file: Option<PathBuf>,

    /// Reuse results checked at most this long ago: 30m, 12h, 7d.
    #[arg(long, value_name = "DURATION", default_value = "1d", value_parser = cache_age)]
    pub max_cache_age: std::time::Duration,

    /// Reuse broken results from the state file too (by default they are checked again).
    #[arg(long)]
    pub cache_failures: bool,

    /// Continue the interrupted last run recorded in the state file (implies --cache): its
    /// finished results and pages are reused whatever their age, the rest is checked.
    #[arg(long)]
    pub resume: bool,

    /// With a state file, a broken link fails the run (exit 1) only once it has been broken in
    /// N consecutive runs; until then the summary says how many errors were tolerated.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub fail_after_runs: u32,
    /// Start CSV output with a UTF-8 byte-order mark (for Excel).
    #[arg(long)]
    pub csv_bom: bool,

    /// Write CSV cells as found. By default a text cell that a spreadsheet would run as a
    /// formula (it starts with =, +, -, @, a tab or a carriage return) gets a leading ' and
    /// control characters are spelled out (\e, \n, \u{7}).
    #[arg(long)]
    pub csv_raw: bool,

    /// Report every checked link, not only broken ones and warnings.
    #[arg(short = 'v', long)]
    pub verbose: bool,

    // ---- Config file, inputs and requests. Headings: see `help.rs`. ----
    /// Read settings from this TOML file [default: ./linkpatrol.toml, else
    /// $XDG_CONFIG_HOME/linkpatrol/config.toml]
    #[arg(short = 'c', long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Read no config file (not even the default ones).
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,

    /// Trust a ./linkpatrol.toml found in the current folder: let it set the keys that run
    /// programs, write files, reroute requests or read outside the folder (the command plugin,
    /// file-output, proxy, …), which it may not set otherwise. A file given with -c and the
    /// user's own config file are always trusted.
    #[arg(long)]
    pub trust_config: bool,

    /// Print the effective configuration (file < environment < flags) as TOML and exit.
    #[arg(long)]
    pub print_config: bool,

    /// Also check the URLs read from stdin, one per line (`#` comments and blank lines
    /// skipped). An input `-` means the same.
    #[arg(long)]
    pub stdin: bool,

    /// Also check the URLs (or paths) listed in FILE, one per line, `#` comments (repeatable).
    #[arg(long, value_name = "FILE")]
    pub input_file: Vec<PathBuf>,

    /// The public URL of the local site folder (--root-dir, or the folder given as input):
    /// links to URLs under it are checked in the folder instead.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Send the cookies of this Netscape cookies.txt file (by domain, path, secure, expiry).
    #[arg(long, value_name = "FILE")]
    pub cookie_file: Option<PathBuf>,

    /// Log in through the form of this page before the crawl, and check with the session's
    /// cookies. The password comes from LINKPATROL_LOGIN_PASSWORD, or a prompt on a terminal;
    /// never from a flag or a config file. A refused login exits 2.
    #[arg(long, value_name = "URL")]
    pub login_url: Option<String>,

    /// The user name for --login-url.
    #[arg(long, value_name = "NAME")]
    pub login_user: Option<String>,

    /// The name of the login form's user field.
    #[arg(long, value_name = "NAME", default_value = linkpatrol::DEFAULT_LOGIN_USER_FIELD)]
    pub login_user_field: String,

    /// The name of the login form's password field.
    #[arg(long, value_name = "NAME", default_value = linkpatrol::DEFAULT_LOGIN_PASSWORD_FIELD)]
    pub login_password_field: String,

    /// Also send NAME=VALUE with the login form (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    pub login_extra_field: Vec<String>,

    /// Links whose URL matches this regex would end the login session: not requested.
    #[arg(long, value_name = "REGEX", default_value = linkpatrol::DEFAULT_LOGOUT_PATTERN)]
    pub login_logout_pattern: String,

    /// Statuses that count as valid: comma-separated codes and ranges `A..=B` or `A..B`.
    #[arg(long, value_name = "RANGES", default_value = "100..=399")]
    pub accept: String,

    /// Request method of links that are only checked: head (falls back to GET when the server
    /// refuses HEAD) or get. Pages parsed for links are always fetched with GET.
    #[arg(long, value_name = "METHOD", default_value = "head", value_parser = ["head", "get"])]
    pub method: String,

    /// Also look up the MX (else A/AAAA) records of mailto: domains, each domain once.
    #[arg(long)]
    pub check_mx: bool,

    /// The DNS resolver for --check-mx, `IP` or `IP:PORT` [default: the first nameserver of
    /// /etc/resolv.conf]
    #[arg(long, value_name = "ADDR")]
    pub dns_server: Option<String>,

    /// For each broken http(s) link, ask the web archive for its closest snapshot and show it
    /// (one request per broken URL to the archive, with its host's politeness).
    #[arg(long)]
    pub suggest: bool,

    /// The web archive's availability API that --suggest asks (`GET URL?url=BROKEN`, answered
    /// as the Wayback Machine does) [default: https://archive.org/wayback/available]
    #[arg(long, value_name = "URL")]
    pub archive_url: Option<String>,

    /// A GitHub access token, sent as `Authorization: Bearer TOKEN` to https://github.com and
    /// https://api.github.com only (and to what a --remap rule made of a link to them; never
    /// to another host, not even on a redirect; never shown), so GitHub's rate limit for
    /// anonymous requests is not hit. Also read from
    /// GITHUB_TOKEN when neither the flag, its variable nor the config file sets it
    /// [default: none]
    #[arg(long, value_name = "TOKEN", hide_env_values = true)]
    pub github_token: Option<String>,

    /// Warn (`soft-404`) about pages that answer 200 but are the site's "not found" page:
    /// each host is asked once for a made-up path, and a page whose title and text match that
    /// answer (the words of its own URL left out) is warned about. One extra request per host;
    /// http(s) links are checked with GET, as their bodies are compared
    #[arg(long)]
    pub detect_soft_404: bool,

    /// `true` when the flag, its environment variable or the config file set
    /// --max-requests-per-second: then it holds for loopback hosts too; no flag.
    #[arg(skip)]
    pub rate_given: bool,

    /// Warnings about the config file, printed before the run (a local config asked for more
    /// than it may set); no flag.
    #[arg(skip)]
    pub config_warnings: Vec<String>,

    /// `true` when only an untrusted config file found in the current folder turned the state
    /// file on (`cache`, `resume`): the file may come from the checkout, so nothing in it is
    /// reused (`Config::trust_state_file`); no flag.
    #[arg(skip)]
    pub state_untrusted: bool,

    /// The per-host sections (`[[hosts]]`) of the config file; no flag.
    #[arg(skip)]
    pub hosts: Vec<HostSection>,

    /// The basic-auth sections (`[[auth]]`) of the config file; no flag, so that no password
    /// is ever typed on a command line.
    #[arg(skip)]
    pub auth: Vec<AuthSection>,

    // ---- Sharding by host: `shard_files.rs`. ----
    /// Be shard I of N (0-based) of a check split by host: start sites on hosts other shards
    /// own are left to them, and links to such hosts are exported, not checked.
    #[arg(long, value_name = "I/N", value_parser = shard)]
    pub shard: Option<linkpatrol::Shard>,

    /// Phase 1 of a sharded check: write the links this shard exports to FILE (NDJSON).
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub export_external: Option<PathBuf>,

    /// Phase 2 of a sharded check: check the links of this export (of any shard) that this
    /// shard owns, as found on their pages (repeatable; no start URL needed).
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub external_from: Vec<PathBuf>,

    /// Phase 2 of a sharded check: this shard's phase-1 NDJSON report (written with -v); a
    /// link already checked there gets that result, with no new request.
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub reuse_results: Option<PathBuf>,

    // ---- Plugins: parsing and building in `plugin_flags.rs`. ----
    /// Check that each link's #fragment names an anchor of its page (HTML ids and names,
    /// Markdown headings): the `anchors` plugin. On github.com pages (as linked, before
    /// --remap), a file view's line anchors (#L10, #L10-L20) are valid when the page is, and
    /// #foo finds GitHub's heading id `user-content-foo`. A missing one is an error; `--plugin
    /// anchors:severity=warning` makes it a warning.
    #[arg(long)]
    pub check_anchors: bool,

    /// Enable a plugin, `NAME` or `NAME:key=value[,key=value…]` (repeatable; settings of the
    /// same plugin add up). See --list-plugins.
    #[arg(long = "plugin", value_name = "NAME[:KEY=VALUE]", value_parser = crate::plugin_flags::parse_spec)]
    pub plugins: Vec<crate::plugin_flags::PluginSpec>,

    /// List the plugins of this build with their settings, then exit.
    #[arg(long)]
    pub list_plugins: bool,

    // ---- Shell integration: written in `generate.rs`. ----
    /// Print a completion script for a shell (bash, zsh, fish, powershell, elvish) or the man
    /// page (man), then exit.
    #[arg(long, value_name = "WHAT", value_enum)]
    pub generate: Option<crate::generate::Generated>,
}
