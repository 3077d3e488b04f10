//! Keyword options → `linkpatrol::Config`. The names are the CLI's long flags with `_` for `-`
//! (`recursion_level` for `--recursion-level`) and the values are checked the way the CLI checks
//! them (src/bin/linkpatrol/values.rs and settings.rs). An unknown name, or a CLI flag that
//! only shapes the command's output, is a `ValueError` naming it; a value of the wrong type is a
//! `TypeError`, a value out of range a `ValueError`, both naming the option.

use std::time::Duration;

use linkpatrol::plugin::Options;
use linkpatrol::{AcceptStatus, Config, CookieJar, HostRule, Inputs, MAX_DURATION, Remap};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The links another shard exported (`Result.to_dict()` of rows with `exported_to` set) that
/// `shard` owns, as found links: url, fragment, parent, urlname, line, column, name, base,
/// level.
pub fn found_links(
    shard: Option<linkpatrol::Shard>,
    rows: &Bound<'_, PyAny>,
) -> PyResult<Vec<linkpatrol::FoundLink>> {
    let mut out = Vec::new();
    for row in rows.try_iter()? {
        let row = row?;
        let row = row
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("found: each link is a dict (Result.to_dict())"))?;
        let text = |key: &str| -> PyResult<Option<String>> {
            match row.get_item(key)? {
                Some(v) if !v.is_none() => Ok(Some(v.extract()?)),
                _ => Ok(None),
            }
        };
        let number = |key: &str| -> PyResult<Option<usize>> {
            match row.get_item(key)? {
                Some(v) if !v.is_none() => Ok(Some(v.extract()?)),
                _ => Ok(None),
            }
        };
        let missing = |k: &str| PyValueError::new_err(format!("found: a link without `{k}'"));
        let url = text("url")?.ok_or_else(|| missing("url"))?;
        let parent = text("parent")?.ok_or_else(|| missing("parent"))?;
        let level = number("level")?.ok_or_else(|| missing("level"))?;
        let full = match text("fragment")? {
            Some(f) => format!("{url}#{f}"),
            None => url,
        };
        if let (Some(shard), Ok(parsed)) = (shard, url::Url::parse(&full))
            && !shard.owns(&parsed)
        {
            continue;
        }
        out.push(
            linkpatrol::FoundLink::new(full, parent, text("urlname")?.unwrap_or_default(), level)
                .at(number("line")?, number("column")?)
                .name(text("name")?.unwrap_or_default())
                .base(text("base")?),
        );
    }
    Ok(out)
}
use regex::Regex;

/// The options part of the docstrings of `Checker` and `check` (`help(linkpatrol.Checker)`):
/// every name of [`OPTIONS`], in its order, as `name: type = default` and what it does. The
/// Python tests check that each option is here, and stubtest that the stubs match.
#[macro_export]
macro_rules! options_doc {
    () => {
        "Options (keyword arguments: the command line's long flags with ``_`` for ``-``; a
repeatable flag takes a str or a list of str):

threads: int = 16
    Worker threads (1 to 1024).
timeout: float = 30.0
    Seconds for each phase of a request (connect, response, body).
max_requests_per_second: float = 10.0
    Request starts per second per host; 0 means no limit. Loopback hosts have no limit
    unless this is given.
host_concurrency: int = 16
    Requests in flight per host; 0 means no limit beyond the thread count.
recursion_level: int | None = None
    Recurse at most this deep from the start pages (0: the start pages only; None: no limit).
internal_only: bool = False
    Make no network request to other sites: links to them are listed as ignored.
check_extern: bool = True
    LinkChecker's option: False checks no external link (as internal_only=True).
include: str | list[str] = []
    Check only URLs matching these regexes (start URLs are always checked).
exclude: str | list[str] = []
    Do not check URLs matching these regexes; they are listed as ignored.
no_follow: str | list[str] = []
    Check URLs matching these regexes but never recurse into them.
max_redirects: int = 10
    Redirect hops to follow before reporting an error.
abort_timeout: float = 10.0
    After Ctrl-C or cancel(), seconds to wait for requests in flight before interrupting them.
root_dir: str | os.PathLike = None
    The folder `/` means in links of local pages (default: the first folder given).
no_robots: bool = False
    Do not fetch or obey robots.txt.
follow_outside_root: bool = False
    Read, parse and list local files outside the checked folders too.
include_verbatim: bool = False
    Also check the bare URLs in the code spans and code blocks of Markdown pages.
fallback_extensions: str | list[str] = []
    Extensions to try, in order, for a local file that does not exist (['md', 'html']).
no_ignore: bool = False
    Walk folders and globs without reading .gitignore, .ignore and git's exclude files.
hidden: bool = False
    Walk hidden files and folders too (.git never).
follow: bool = False
    Follow symbolic links when walking folders and globs.
exclude_path: str | list[str] = []
    Leave out the files and folders whose path matches these regexes, walked or named.
changed_since: str = None
    In a git checkout, check only the Markdown and HTML files changed since this git
    reference, and the files that name one renamed or deleted; folder inputs limit it.
sitemaps: bool = False
    Also crawl the sitemaps listed in a start site's robots.txt.
max_retries: int = 2
    Retries of one URL after a timeout, a broken connection, a 429 or a 502/503/504.
max_retry_wait: float = 60.0
    Longest Retry-After (or backoff) in seconds honoured before a retry.
header: str | list[str] = []
    Headers for the requests to the start sites, 'NAME: VALUE'.
host_rate: str | list[str] = []
    Request rate for hosts matching a regex (against host:port), 'REGEX=N'.
host_max_concurrency: str | list[str] = []
    Requests in flight for hosts matching a regex, 'REGEX=N'.
host_header: str | list[str] = []
    A header for hosts matching a regex only, 'REGEX=NAME: VALUE'.
insecure: bool = False
    Do not verify TLS certificates (the report says so).
fail_on_blocked: bool = False
    Count a link that bot protection answered for (state 'blocked') in Report.failing.
proxy: str = None
    Send every request through this http(s) proxy (default: ALL_PROXY, HTTPS_PROXY,
    HTTP_PROXY, except NO_PROXY hosts).
max_urls: int = 0
    Check at most this many distinct URLs (0: no limit).
max_run_time: float = 0.0
    Stop the check after this many seconds (0: no limit): no new URL is started, requests in
    flight get abort_timeout, and the report says the time limit stopped it.
max_body_size: int = 10485760
    Bytes of a page read for link extraction.
user_agent: str = 'Mozilla/5.0 (compatible; linkpatrol/VERSION)'
    The User-Agent header to send.
ignore_warning: str | list[str] = []
    Drop warnings with these tags (e.g. 'http-redirected').
base_url: str = None
    The public URL of the local site folder: links under it are checked in the folder.
cookie_file: str | os.PathLike = None
    Send the cookies of this Netscape cookies.txt file.
login_url: str = None
    Log in through the form of this page before the crawl (the password from the
    LINKPATROL_LOGIN_PASSWORD variable, never an option); a refused login raises RuntimeError.
login_user: str = None
    The user name for login_url.
login_user_field: str = 'login'
    The name of the login form's user field.
login_password_field: str = 'password'
    The name of the login form's password field.
login_extra_field: str | list[str] = []
    Also send these NAME=VALUE fields with the login form.
login_logout_pattern: str = '(?i)log-?out|sign-?out'
    Links whose URL matches this regex would end the login session: not requested.
accept: str = '100..=399'
    Statuses that count as valid: comma-separated codes and ranges 'A..=B' or 'A..B'.
method: 'head' | 'get' = 'head'
    Request method of links that are only checked (pages are always fetched with GET).
check_mx: bool = False
    Also look up the MX (else A/AAAA) records of mailto: domains.
dns_server: str = None
    The DNS resolver for check_mx, 'IP' or 'IP:PORT' (default: /etc/resolv.conf's first).
suggest: bool = False
    For each broken http(s) link, ask the web archive for its closest snapshot
    (Result.suggestion).
archive_url: str = 'https://archive.org/wayback/available'
    The web archive's availability API that suggest asks.
github_token: str = None
    Sent as 'Authorization: Bearer' to https://github.com and https://api.github.com (port
    443) only (default: the GITHUB_TOKEN environment variable, read when the options are
    read); never shown.
detect_soft_404: bool = False
    Warn (soft-404) about pages that answer 200 but are the site's 'not found' page: each
    host is asked once for a made-up path. http(s) links are then checked with GET.
exclude_private: bool = False
    Never request a private address (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7).
exclude_loopback: bool = False
    Never request a loopback address (127.0.0.0/8, ::1, 0.0.0.0).
exclude_link_local: bool = False
    Never request a link-local or cloud metadata address (169.254/16, fe80::/10,
    fd00:ec2::254, 100.100.100.200, ...): the default unless allow_private.
allow_private: bool = False
    Request loopback, private, link-local and cloud metadata addresses. By default link-local
    and metadata addresses are never requested, and loopback and private ones are not when
    every start site is public.
remap: str | list[str] = []
    Rewrite each link before it is checked, 'REGEX REPLACEMENT' (the first rule that matches).
check_anchors: bool = False
    Check that each link's #fragment names an anchor of its page (the anchors plugin).
plugin: str | list[str] = []
    Enable plugins, 'NAME' or 'NAME:key=value[,key=value...]'.
cache: bool = False
    Keep state between runs in ./.linkpatrol-cache.sqlite: reuse recent results of external
    and leaf URLs, and record each link's broken history.
cache_file: str | os.PathLike = None
    Keep state in this SQLite file (implies cache).
max_cache_age: float = 86400.0
    Reuse results checked at most this many seconds ago.
cache_failures: bool = False
    Reuse broken results from the state file too (by default they are checked again).
resume: bool = False
    Continue the interrupted last run recorded in the state file (implies cache).
fail_after_runs: int = 1
    With a state file, a broken link counts in Report.failing only once it has been broken in
    this many consecutive runs.
shard: str | tuple[int, int] = None
    Be shard I of N ('I/N' or (I, N)) of a check split by host (see linkpatrol.dask).
"
    };
}

/// Every option `Checker(**options)` takes, in the order docs/src/python.md lists them.
pub const OPTIONS: &[&str] = &[
    "threads",
    "timeout",
    "max_requests_per_second",
    "host_concurrency",
    "recursion_level",
    "internal_only",
    "check_extern",
    "include",
    "exclude",
    "no_follow",
    "max_redirects",
    "abort_timeout",
    "root_dir",
    "no_robots",
    "follow_outside_root",
    "include_verbatim",
    "fallback_extensions",
    "no_ignore",
    "hidden",
    "follow",
    "exclude_path",
    "changed_since",
    "sitemaps",
    "max_retries",
    "max_retry_wait",
    "header",
    "host_rate",
    "host_max_concurrency",
    "host_header",
    "insecure",
    "fail_on_blocked",
    "proxy",
    "max_urls",
    "max_run_time",
    "max_body_size",
    "user_agent",
    "ignore_warning",
    "base_url",
    "cookie_file",
    "login_url",
    "login_user",
    "login_user_field",
    "login_password_field",
    "login_extra_field",
    "login_logout_pattern",
    "accept",
    "method",
    "check_mx",
    "dns_server",
    "suggest",
    "archive_url",
    "github_token",
    "detect_soft_404",
    "exclude_private",
    "exclude_loopback",
    "exclude_link_local",
    "allow_private",
    "remap",
    "check_anchors",
    "plugin",
    "cache",
    "cache_file",
    "max_cache_age",
    "cache_failures",
    "resume",
    "fail_after_runs",
    "shard",
];

/// CLI flags that shape the command's own output or input (its folder walk), not the check.
const CLI_ONLY: &[&str] = &[
    "output",
    "file_output",
    "quiet",
    "csv_delimiter",
    "csv_bom",
    "csv_raw",
    "no_status",
    "stream",
    "verbose",
    "fail_on_warnings",
    "config",
    "no_config",
    "trust_config",
    "print_config",
    "stdin",
    "input_file",
    "list_plugins",
    "export_external",
    "external_from",
    "reuse_results",
    "color",
    "group_by",
    "list_plugins",
    "generate",
    "stream",
];

/// The configuration `options` describe (no inputs yet), and how the inputs of each run are
/// read (the folder walk, `changed_since`): the library's `Inputs` without inputs.
pub fn config_from(options: Option<&Bound<'_, PyDict>>) -> PyResult<(Config, Inputs)> {
    let mut config = Config::new();
    let mut inputs = Inputs::new();
    let mut plugins: Vec<Options> = Vec::new();
    let mut method_get = false;
    let mut accept: Option<AcceptStatus> = None;
    let mut mx_given = false;
    let mut dns_server: Option<String> = None;
    let mut token_given = false;
    let mut check_anchors = false;
    let (mut cache, mut cache_file, mut resume) = (false, None, false);
    let mut login = LoginOptions::default();
    let Some(options) = options else {
        return Ok((config, inputs));
    };
    for (key, value) in options.iter() {
        let name: String = key.extract()?;
        let v = Value {
            name: &name,
            value: &value,
        };
        config = match name.as_str() {
            "threads" => {
                let n = v.int()?;
                if !(1..=1024).contains(&n) {
                    return Err(v.bad("a thread count from 1 to 1024"));
                }
                config.threads(n as usize)
            }
            "timeout" => {
                let d = v.secs()?;
                if d.is_zero() {
                    return Err(v.bad("a positive number of seconds"));
                }
                config.timeout(d)
            }
            "max_requests_per_second" => {
                let rate = v.rate()?;
                // Given explicitly, the rate holds for loopback hosts too (as the CLI's flag).
                config
                    .max_requests_per_second(rate)
                    .loopback_unthrottled(false)
            }
            "host_concurrency" => config.host_concurrency(v.count()?),
            "recursion_level" => {
                if v.value.is_none() {
                    config.recursion_level(None)
                } else {
                    config.recursion_level(Some(v.count()?))
                }
            }
            "internal_only" => config.check_external(!v.flag()?),
            // LinkChecker's option: False checks no external link, as `internal_only`.
            "check_extern" => {
                if v.flag()? {
                    config
                } else {
                    config.check_external(false)
                }
            }
            // How each run's inputs are read: the CLI's walk, by the same library type.
            "no_ignore" => {
                inputs = inputs.no_ignore(v.flag()?);
                config
            }
            "hidden" => {
                inputs = inputs.hidden(v.flag()?);
                config
            }
            "follow" => {
                inputs = inputs.follow(v.flag()?);
                config
            }
            "exclude_path" => {
                v.regexes()?;
                inputs = v.strings()?.into_iter().fold(inputs, Inputs::exclude_path);
                config
            }
            "changed_since" => {
                inputs = inputs.changed_since(v.string()?);
                config
            }
            "include" => v.regexes()?.into_iter().fold(config, Config::include),
            "exclude" => v.regexes()?.into_iter().fold(config, Config::exclude),
            "no_follow" => v.regexes()?.into_iter().fold(config, Config::no_follow),
            "max_redirects" => config.max_redirects(v.count()?),
            "abort_timeout" => config.abort_timeout(v.secs()?),
            "root_dir" => config.root_dir(v.path()?),
            "no_robots" => config.robots(!v.flag()?),
            "follow_outside_root" => config.follow_outside_root(v.flag()?),
            "include_verbatim" => config.include_verbatim(v.flag()?),
            "fallback_extensions" => config.fallback_extensions(v.strings()?),
            "sitemaps" => config.seed_sitemaps(v.flag()?),
            "max_retries" => {
                config.max_retries(u32::try_from(v.count()?).map_err(|_| v.bad("a count"))?)
            }
            "max_retry_wait" => config.max_retry_wait(v.secs()?),
            "header" => {
                for h in v.strings()? {
                    let (name, value) = header(&h).map_err(|m| v.bad_text(&m))?;
                    config = config.header(name, value);
                }
                config
            }
            "host_rate" => {
                for s in v.strings()? {
                    let (pattern, n) =
                        linkpatrol::parse_pattern_number::<f64>(&s).map_err(|m| v.bad_text(&m))?;
                    let n = checked_rate(&v, n)?;
                    config = config
                        .host_rule(HostRule::new(v.regex(&pattern)?).max_requests_per_second(n));
                }
                config
            }
            "host_max_concurrency" => {
                for s in v.strings()? {
                    let (pattern, n) = linkpatrol::parse_pattern_number::<usize>(&s)
                        .map_err(|m| v.bad_text(&m))?;
                    config = config.host_rule(HostRule::new(v.regex(&pattern)?).concurrency(n));
                }
                config
            }
            "host_header" => {
                for s in v.strings()? {
                    let (pattern, h) = s
                        .split_once('=')
                        .ok_or_else(|| v.bad_text(&format!("`{s}' is not REGEX=NAME: VALUE")))?;
                    let (name, value) = header(h).map_err(|m| v.bad_text(&m))?;
                    config = config.host_rule(HostRule::new(v.regex(pattern)?).header(name, value));
                }
                config
            }
            "insecure" => config.insecure(v.flag()?),
            "fail_on_blocked" => config.fail_on_blocked(v.flag()?),
            "proxy" => config.proxy(v.string()?),
            "max_urls" => config.max_urls(Some(v.count()?).filter(|&n| n > 0)),
            "max_run_time" => config.max_run_time(Some(v.secs()?)),
            "max_body_size" => config.max_body_size(v.count()? as u64),
            "user_agent" => config.user_agent(v.string()?),
            "ignore_warning" => v
                .strings()?
                .into_iter()
                .fold(config, Config::ignore_warning),
            "base_url" => config.base_url(v.string()?),
            "cookie_file" => {
                let path = v.path()?;
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    let message = format!(
                        "option `{}': cannot read cookie file `{}': {e}",
                        v.name,
                        path.display()
                    );
                    crate::errors::os_error(&e, message)
                })?;
                let jar =
                    CookieJar::parse_netscape(&text).map_err(|e| v.bad_text(&e.to_string()))?;
                config.cookies(jar)
            }
            "login_url" => {
                login.url = Some(v.string()?);
                config
            }
            "login_user" => {
                login.user = Some(v.string()?);
                config
            }
            "login_user_field" => {
                login.user_field = Some(v.string()?);
                config
            }
            "login_password_field" => {
                login.password_field = Some(v.string()?);
                config
            }
            "login_extra_field" => {
                for field in v.strings()? {
                    let (name, value) = field
                        .split_once('=')
                        .filter(|(n, _)| !n.is_empty())
                        .ok_or_else(|| v.bad_text(&format!("`{field}' is not NAME=VALUE")))?;
                    login.extra.push((name.to_owned(), value.to_owned()));
                }
                config
            }
            "login_logout_pattern" => {
                login.logout = Some(v.regex(&v.string()?)?);
                config
            }
            "accept" => {
                accept = Some(
                    AcceptStatus::parse(&v.string()?).map_err(|e| v.bad_text(&e.to_string()))?,
                );
                config
            }
            "method" => {
                let m = v.string()?;
                method_get = match m.to_ascii_lowercase().as_str() {
                    "head" => false,
                    "get" => true,
                    _ => return Err(v.bad("`head' or `get'")),
                };
                config
            }
            "check_mx" => {
                mx_given = v.flag()?;
                config
            }
            "dns_server" => {
                dns_server = Some(v.string()?);
                config
            }
            "plugin" => {
                for spec in v.strings()? {
                    add_plugin_spec(&mut plugins, &spec).map_err(|m| v.bad_text(&m))?;
                }
                config
            }
            "remap" => {
                for rule in v.strings()? {
                    config = config.remap(Remap::parse(&rule).map_err(|m| v.bad_text(&m))?);
                }
                config
            }
            "check_anchors" => {
                check_anchors = v.flag()?;
                config
            }
            "cache" => {
                cache = v.flag()?;
                config
            }
            "cache_file" => {
                cache_file = Some(v.path()?);
                config
            }
            "max_cache_age" => config.max_cache_age(v.secs()?),
            "cache_failures" => config.cache_failures(v.flag()?),
            "resume" => {
                resume = v.flag()?;
                config.resume(resume)
            }
            "fail_after_runs" => {
                let n = v.count()?;
                if n == 0 {
                    return Err(v.bad("a count >= 1"));
                }
                config.fail_after_runs(u32::try_from(n).map_err(|_| v.bad("a count"))?)
            }
            "shard" => config.shard(parse_shard(&v)?),
            "suggest" => config.suggest(v.flag()?),
            "detect_soft_404" => config.detect_soft_404(v.flag()?),
            "exclude_private" => config.exclude_private(v.flag()?),
            "exclude_loopback" => config.exclude_loopback(v.flag()?),
            "exclude_link_local" => config.exclude_link_local(v.flag()?),
            "allow_private" => config.allow_private(v.flag()?),
            "archive_url" => config
                .archive_url(&v.string()?)
                .map_err(|e| v.bad_text(&e.to_string()))?,
            // A secret: no message quotes it (`Config::github_token`'s errors do not).
            "github_token" => {
                token_given = true;
                config
                    .github_token(&v.string()?)
                    .map_err(|e| v.bad_text(&e.to_string()))?
            }
            other if CLI_ONLY.contains(&other) => {
                return Err(PyValueError::new_err(format!(
                    "option `{other}' shapes the command's output, not the check: \
                     use Report.write(path, format=...) or the CLI"
                )));
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown option `{other}' (options: {})",
                    OPTIONS.join(", ")
                )));
            }
        };
    }
    if let Some(accept) = accept {
        config = config.accept(accept);
    }
    config = config.login(login.build()?);
    // As the CLI: a state file when one is named, or the default one for `cache` and `resume`.
    if let Some(path) = cache_file {
        config = config.state_file(path);
    } else if cache || resume {
        config = config.state_file(linkpatrol::DEFAULT_STATE_FILE);
    }
    // `check_anchors` is the anchors plugin, whose settings (when also given) still apply.
    if check_anchors && !plugins.iter().any(|o| o.plugin() == "anchors") {
        plugins.push(Options::new("anchors".to_owned()));
    }
    config = config.always_get(method_get);
    // As the command line: GitHub's usual variable when the option is not given.
    if !token_given
        && let Ok(token) = std::env::var("GITHUB_TOKEN")
        && !token.trim().is_empty()
    {
        config = config
            .github_token(&token)
            .map_err(|e| PyValueError::new_err(format!("GITHUB_TOKEN: {e}")))?;
    }
    // A bad dns_server is an error even without check_mx, which alone asks it.
    let resolver = dns_server
        .as_deref()
        .map(|s| mx_resolver(Some(s)))
        .transpose()?;
    if mx_given {
        let resolver = resolver.map_or_else(|| mx_resolver(None), Ok)?;
        config = config.mx_resolver(Some(resolver));
    }
    for options in &plugins {
        let plugin = linkpatrol::plugins::builtin(options.plugin(), options)
            .map_err(|e| PyValueError::new_err(format!("option `plugin': {e}")))?;
        config = config.plugin(plugin);
    }
    Ok((config, inputs))
}

/// The `login_*` options, made one `FormLogin` once all are read.
#[derive(Default)]
struct LoginOptions {
    url: Option<String>,
    user: Option<String>,
    user_field: Option<String>,
    password_field: Option<String>,
    extra: Vec<(String, String)>,
    logout: Option<Regex>,
}

impl LoginOptions {
    /// The login, `None` without `login_url`. The password comes from
    /// `LINKPATROL_LOGIN_PASSWORD`, as for the command line without a terminal: never from
    /// an option, and no message quotes it.
    fn build(self) -> PyResult<Option<linkpatrol::FormLogin>> {
        let Some(url) = self.url else {
            return Ok(None);
        };
        let url = url::Url::parse(&url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| {
                PyValueError::new_err(format!("option `login_url': `{url}' is not an http(s) URL"))
            })?;
        let user = self
            .user
            .ok_or_else(|| PyValueError::new_err("option `login_url' needs `login_user'"))?;
        let password = std::env::var("LINKPATROL_LOGIN_PASSWORD").map_err(|_| {
            PyValueError::new_err(
                "option `login_url' needs the password in the LINKPATROL_LOGIN_PASSWORD \
                 variable (never an option)",
            )
        })?;
        let mut login = linkpatrol::FormLogin::new(url, user, password);
        if let Some(f) = self.user_field {
            login = login.user_field(f);
        }
        if let Some(f) = self.password_field {
            login = login.password_field(f);
        }
        if let Some(p) = self.logout {
            login = login.logout_pattern(p);
        }
        for (name, value) in self.extra {
            login = login.extra_field(name, value);
        }
        Ok(Some(login))
    }
}

/// One option's name and value, with the conversions that name it in their errors.
struct Value<'a, 'py> {
    name: &'a str,
    value: &'a Bound<'py, PyAny>,
}

impl Value<'_, '_> {
    fn wrong_type(&self, wanted: &str) -> PyErr {
        let got = self
            .value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!("option `{}' takes {wanted}, not {got}", self.name))
    }

    fn bad(&self, wanted: &str) -> PyErr {
        let shown = self
            .value
            .repr()
            .map_or_else(|_| "?".to_owned(), |r| r.to_string());
        PyValueError::new_err(format!("option `{}': {shown} is not {wanted}", self.name))
    }

    fn bad_text(&self, message: &str) -> PyErr {
        PyValueError::new_err(format!("option `{}': {message}", self.name))
    }

    fn flag(&self) -> PyResult<bool> {
        if self.value.is_instance_of::<PyBool>() {
            self.value.extract()
        } else {
            Err(self.wrong_type("a bool"))
        }
    }

    fn int(&self) -> PyResult<i64> {
        if self.value.is_instance_of::<PyBool>() || !self.value.is_instance_of::<PyInt>() {
            return Err(self.wrong_type("an int"));
        }
        self.value
            .extract()
            .map_err(|_| self.bad("an int in range"))
    }

    /// A count: an int >= 0.
    fn count(&self) -> PyResult<usize> {
        let n = self.int()?;
        usize::try_from(n).map_err(|_| self.bad("a count >= 0"))
    }

    fn number(&self) -> PyResult<f64> {
        if self.value.is_instance_of::<PyBool>()
            || !(self.value.is_instance_of::<PyInt>() || self.value.is_instance_of::<PyFloat>())
        {
            return Err(self.wrong_type("a number"));
        }
        let x: f64 = self.value.extract()?;
        if !x.is_finite() || x < 0.0 {
            return Err(self.bad("a number >= 0"));
        }
        Ok(x)
    }

    /// Seconds, at most the library's longest duration (a year).
    fn secs(&self) -> PyResult<Duration> {
        let x = self.number()?;
        if x > MAX_DURATION.as_secs_f64() {
            return Err(self.bad("at most a year of seconds"));
        }
        Ok(Duration::from_secs_f64(x))
    }

    fn rate(&self) -> PyResult<f64> {
        let x = self.number()?;
        checked_rate(self, x)
    }

    fn string(&self) -> PyResult<String> {
        if self.value.is_instance_of::<PyString>() {
            self.value.extract()
        } else {
            Err(self.wrong_type("a str"))
        }
    }

    /// A str or an `os.PathLike`.
    fn path(&self) -> PyResult<std::path::PathBuf> {
        self.value
            .extract::<std::path::PathBuf>()
            .map_err(|_| self.wrong_type("a str or os.PathLike"))
    }

    /// A repeatable option: one str, or a list or tuple of them.
    fn strings(&self) -> PyResult<Vec<String>> {
        if self.value.is_instance_of::<PyString>() {
            return Ok(vec![self.value.extract()?]);
        }
        if self.value.is_instance_of::<PyList>() || self.value.is_instance_of::<PyTuple>() {
            let mut out = Vec::new();
            for item in self.value.try_iter()? {
                let item = item?;
                if !item.is_instance_of::<PyString>() {
                    return Err(self.wrong_type("a str or a list of str"));
                }
                out.push(item.extract()?);
            }
            return Ok(out);
        }
        Err(self.wrong_type("a str or a list of str"))
    }

    fn regex(&self, pattern: &str) -> PyResult<Regex> {
        Regex::new(pattern)
            .map_err(|e| self.bad_text(&format!("`{pattern}' is not a valid regex: {e}")))
    }

    fn regexes(&self) -> PyResult<Vec<Regex>> {
        self.strings()?.iter().map(|p| self.regex(p)).collect()
    }
}

/// A request rate, refused when it means more than a year between requests (0: no limit).
fn checked_rate(v: &Value<'_, '_>, per_second: f64) -> PyResult<f64> {
    if !per_second.is_finite()
        || per_second < 0.0
        || (per_second > 0.0 && 1.0 / per_second > MAX_DURATION.as_secs_f64())
    {
        return Err(v.bad_text(&format!(
            "{per_second} requests per second: 0 (no limit) or at least one a year"
        )));
    }
    Ok(per_second)
}

/// `shard="I/N"` or `shard=(I, N)`.
fn parse_shard(v: &Value<'_, '_>) -> PyResult<linkpatrol::Shard> {
    let (i, n): (i64, i64) = if v.value.is_instance_of::<PyString>() {
        let s = v.string()?;
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| v.bad_text(&format!("`{s}' is not I/N")))?;
        (
            i.trim().parse().map_err(|_| v.bad("I/N"))?,
            n.trim().parse().map_err(|_| v.bad("I/N"))?,
        )
    } else {
        v.value
            .extract()
            .map_err(|_| v.wrong_type("\"I/N\" or a tuple (I, N)"))?
    };
    let (Ok(i), Ok(n)) = (usize::try_from(i), usize::try_from(n)) else {
        return Err(v.bad("a shard I/N with 0 <= I < N"));
    };
    linkpatrol::Shard::new(i, n).map_err(|e| v.bad_text(&e.to_string()))
}

/// `NAME: VALUE`, as `--header` reads it.
fn header(s: &str) -> Result<(String, String), String> {
    linkpatrol::parse_header(s)
}

/// `NAME` or `NAME:key=value[,key=value…]`, as `--plugin` reads it: settings of one plugin add
/// up, and each plugin is made once, in the order its name first appears.
fn add_plugin_spec(plugins: &mut Vec<Options>, spec: &str) -> Result<(), String> {
    let (name, pairs) = linkpatrol::parse_plugin_spec(spec)?;
    let at = match plugins.iter().position(|o| o.plugin() == name) {
        Some(at) => at,
        None => {
            plugins.push(Options::new(name));
            plugins.len() - 1
        }
    };
    for (k, v) in pairs {
        plugins[at].push(k, v);
    }
    Ok(())
}

/// The resolver for `check_mx`: `dns_server` (`IP` or `IP:PORT`), else the first nameserver of
/// /etc/resolv.conf.
fn mx_resolver(given: Option<&str>) -> PyResult<std::net::SocketAddr> {
    if let Some(s) = given {
        return linkpatrol::parse_dns_server(s)
            .map_err(|e| PyValueError::new_err(format!("option `dns_server': {e}")));
    }
    let conf = std::fs::read_to_string("/etc/resolv.conf").map_err(|e| {
        PyValueError::new_err(format!(
            "option `check_mx': cannot read /etc/resolv.conf ({e}): give dns_server"
        ))
    })?;
    linkpatrol::resolver_from_resolv_conf(&conf).ok_or_else(|| {
        PyValueError::new_err(
            "option `check_mx': no nameserver in /etc/resolv.conf: give dns_server",
        )
    })
}
