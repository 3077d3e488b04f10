// Generated from linkpatrol::options::CheckOptions by `LINKPATROL_BLESS=1 cargo test --bin linkpatrol python_surface`; do not edit.

/// The options part of the docstrings of `Checker` and `check`.
macro_rules! options_doc {
    () => {
        r##"Options (keyword arguments: the command line's long flags with ``_`` for ``-``; a
repeatable flag takes a str or a list of str; None leaves an option at its default):

fallback_extensions: str | list[str] = []
    Extensions to try, in order, for a local file that does not exist and whose name has no
    extension or `.html` (`md,html`: a link to ch1.html is good when ch1.md exists, and its
    headings are the anchors; ch1.png is not). A checked folder with a book.toml is read as
    an mdBook: its sources, with `md` tried first; its pages are the chapters src/SUMMARY.md
    lists (a link to a .md source it does not list is broken: mdBook does not render it).
preprocess: str | os.PathLike = None
    Read each local file through PROGRAM (lychee's preprocess): it is run, without a shell,
    with the file's absolute path as its one argument, and what it prints on stdout is read
    instead of the file (HTML when it looks like HTML, else the file's own text format, else
    plain text). A program that fails, runs past timeout or prints more than max_body_size
    is an error for that file.
extensions: str | list[str] = []
    The extensions of the files read in folder and glob walks (`md,html,txt`; without case)
    [default: Markdown's in a folder, every file a glob matches]. A file named as an input
    is read whatever its extension.
default_extension: str = None
    Read a local file whose name has no extension as if it had this one (`md`, `html`,
    `txt`), named, walked or linked [default: a named one is read as plain text, whose bare
    URLs are checked; any other is checked for existence only].
glob_ignore_case: bool = False
    Match glob patterns without regard to case (`'docs/*.MD'` finds a.md).
index_files: str | list[str] = []
    The names a link to a local folder stands for, tried in order; `.` is the folder itself
    (its listing). With none of them there the link is broken, so an empty list
    (`index_files ''`) makes every folder link broken [default: index.html,.].
changed_since: str = None
    In a git checkout, check only the Markdown and HTML files changed since REF (committed,
    staged or not) and the files that name a file renamed, moved or deleted since then;
    inputs given limit it to their folders. Uses the git on PATH.
no_ignore: bool = False
    Walk folders and globs without reading .gitignore, .ignore and git's exclude files.
hidden: bool = False
    Walk hidden files and folders too (names starting with `.`; .git never).
follow: bool = False
    Follow symbolic links when walking folders and globs (a link back into the walk is
    skipped; a link out of the folder only with follow_outside_root).
exclude_path: str | list[str] = []
    Leave out the files and folders whose path matches this regex (repeatable), whether
    walked or named.
threads: int = 16
    Worker threads.
timeout: float | str = 30.0
    Timeout for each phase of a request (connect, response, body): seconds, or a duration
    with a unit as for max_cache_age (5s, 2m).
max_requests_per_second: float | str = 10.0
    Request starts per second per host; 0 means no limit. Loopback hosts (127.0.0.0/8, ::1,
    localhost) have none unless this is given.
host_concurrency: int = 16
    Requests in flight per host; 0 means no limit beyond the thread count.
recursion_level: int = None
    Recurse at most this deep from the start pages (0: check the start pages only).
internal_only: bool = False
    Make no network request: check only links inside the start sites and local files
    (`../x.md` too, wherever it points); links to other sites are listed as ignored.
check_extern: bool = None
    LinkChecker's option: `check_extern` (or `true`) checks external links, as linkpatrol
    does by default; `false` checks none, as internal_only.
include: str | list[str] = []
    Check only URLs matching this regex (repeatable). Start URLs are always checked.
exclude: str | list[str] = []
    Do not check URLs matching this regex (repeatable); they are listed as ignored. So are
    those of a .linkpatrolignore file (one regex a line) at the checked folder's root
    (root_dir, else the first folder given, else the current folder); pages leave links out
    with <!-- linkpatrol-ignore --> (the next link) and <!-- linkpatrol-ignore-start --> …
    <!-- linkpatrol-ignore-end -->.
remap: str | list[str] = []
    Rewrite each link before it is checked, `REGEX REPLACEMENT` (repeatable; the first rule
    that matches applies; `$1` in the replacement is the first group). The report shows the
    link as written and the URL it was remapped to.
no_follow: str | list[str] = []
    Check URLs matching this regex but never recurse into them (repeatable).
max_redirects: int = 10
    Redirect hops to follow before reporting an error.
abort_timeout: float | str = 10.0
    After Ctrl-C, wait this many seconds (or a duration: 30s, 1m) for requests in flight
    before interrupting them.
root_dir: str | os.PathLike = None
    The folder `/` means in links of local pages.
include_verbatim: bool = False
    Also check the bare URLs (`https://…`, `www.…`, e-mail addresses) in the code spans
    and code blocks of Markdown pages and in the `pre` and `code` elements of HTML pages; by
    default code holds no links.
include_wikilinks: bool = False
    Read Obsidian's wikilinks in Markdown pages: `[[Page]]`, `[[Page#Heading]]`,
    `[[Page|text]]`. `[[Page]]` is the file Page.md of the checked files, found by name in
    any folder.
no_robots: bool = False
    Do not fetch or obey robots.txt.
follow_outside_root: bool = False
    Read, parse and list local files outside the checked folders too (`../`, `..%2F`,
    symbolic links pointing out). By default they are checked for existence only.
sitemaps: bool = False
    Also crawl the sitemaps listed in a start site's robots.txt (`Sitemap:` lines).
max_retries: int = 2
    Retries of one URL (HEAD and GET together) after a timeout, a broken connection (also
    mid-body), a 429 or a 502/503/504 (never a 404).
max_retry_wait: float | str = 60.0
    Longest Retry-After (or backoff) honoured before a retry: seconds, or a duration (2m).
header: str | list[str] = []
    Add a header to the requests to the start sites, `NAME: VALUE` (repeatable). It is never
    sent to another host, not even on a redirect (any header may be a secret: an API key, a
    token); use host_header to send a header to other hosts.
host_rate: str | list[str] = []
    Request rate for hosts matching a regex (against host:port), `REGEX=N` (repeatable).
host_max_concurrency: str | list[str] = []
    Requests in flight for hosts matching a regex, `REGEX=N` (repeatable).
host_header: str | list[str] = []
    A header for hosts matching a regex only (against host:port), `REGEX=NAME: VALUE`
    (repeatable); also for hosts that are not start sites.
insecure: bool = False
    Do not verify TLS certificates (the report says so).
exclude_private: bool = False
    Never request a private address (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7),
    however the link spells it, a name resolves or a redirect leads: not checked.
exclude_loopback: bool = False
    Never request a loopback address (127.0.0.0/8, ::1, 0.0.0.0): not checked.
exclude_link_local: bool = False
    Never request a link-local or cloud metadata address (169.254/16, the metadata service
    169.254.169.254 among them; fe80::/10; fd00:ec2::254, 100.100.100.200 and the like): not
    checked. The default unless allow_private, whatever the start sites.
allow_private: bool = False
    Request loopback, private, link-local and cloud metadata addresses. By default,
    link-local and metadata addresses are never requested, and a check of public sites
    leaves all such links unchecked, so that a page cannot turn the machine running it into
    a proxy into its own network.
proxy: str = None
    Send every request through this http(s) proxy, `http://[USER:PASSWORD@]HOST:PORT`
    (default: ALL_PROXY / HTTPS_PROXY / HTTP_PROXY, except NO_PROXY hosts).
max_urls: int = 10000000
    Check at most N distinct URLs; links to further URLs are only counted, and the summary
    says the limit was reached. The memory budget (max_memory) stops a spider trap (a site
    that makes up new links on every page) first; this count is a second brake (0: no
    limit).
max_memory: int | str = '1G'
    Memory the run may hold for what grows with the site (the URLs found, the queued ones,
    the rows a sorted report keeps for the end), in bytes or with a unit: 512M, 2G. Past the
    queue's share (queue_memory) the queued URLs wait on disk in a temporary file, and so do
    a sorted report's rows past a quarter of the budget; when the rest reaches the budget,
    links to new URLs are only counted, as with max_urls, and the summary says so (0: no
    budget).
queue_memory: int | str = None
    Bytes of queued URLs kept in memory before the rest wait on disk, in bytes or with a
    unit (default: a quarter of max_memory; 0: all but each host's next URL).
max_run_time: float | str = None
    Stop the check after this long (seconds, or a duration: 90s, 10m, 1h): no new URL is
    started, requests in flight get abort_timeout, the reports are written and say so; exit
    status 124 (0: no limit).
max_body_size: int = 10485760
    Bytes of a page read for link extraction.
user_agent: str = None
    The User-Agent header to send.
ignore_warning: str | list[str] = []
    Drop warnings with this tag, e.g. http-redirected (repeatable).
fail_on_blocked: bool = False
    Exit with status 1 when bot protection answered for a link (a Cloudflare challenge,
    LinkedIn's 999: "blocked"), which otherwise only gets a warning.
cache: bool = False
    Keep state between runs in ./.linkpatrol-cache.sqlite: reuse recent results of external
    and leaf URLs, and record each link's broken history. A reused row has `from_state` set
    (JSON, NDJSON, CSV), and the summary counts the reused results.
cache_file: str | os.PathLike = None
    Keep state in this SQLite file (implies cache).
max_cache_age: float | str = '1d'
    Reuse results checked at most this long ago: 30m, 12h, 7d.
cache_failures: bool = False
    Reuse broken results from the state file too (by default they are checked again).
cache_exclude_status: str = None
    Never reuse a stored result with one of these HTTP statuses (codes and ranges as for
    accept: `429,500..=599`): such links are checked again (lychee's option).
resume: bool = False
    Continue the interrupted last run recorded in the state file (implies cache): its
    finished results and pages are reused whatever their age, the rest is checked.
fail_after_runs: int = 1
    With a state file, a broken link fails the run (exit 1) only once it has been broken in
    N consecutive runs; until then the summary says how many errors were tolerated.
base_url: str = None
    The public URL of the local site folder (root_dir, or the folder given as input): links
    to URLs under it are checked in the folder instead, and a root-relative link (/x) means
    that site's /x, as a browser there sees it.
cookie_file: str | os.PathLike = None
    Send the cookies of this Netscape cookies.txt file (by domain, path, secure, expiry).
cookie_jar: str | os.PathLike = None
    A cookie jar kept between runs (lychee's cookie_jar): its cookies are sent as those
    servers set during the run are, and at the end every cookie is saved back to it
    (Netscape cookies.txt, mode 0600; a symbolic link there is refused). Created when
    missing.
login_url: str = None
    Log in through the form of this page before the crawl, and check with the session's
    cookies. The password comes from LINKPATROL_LOGIN_PASSWORD (or, on the command line, a
    prompt on a terminal); never from an option or a config file. A refused login is an
    error.
login_user: str = None
    The user name for login_url.
login_user_field: str = 'login'
    The name of the login form's user field.
login_password_field: str = 'password'
    The name of the login form's password field (an input of type password).
login_extra_field: str | list[str] = []
    Also send NAME=VALUE with the login form (repeatable).
login_logout_pattern: str = '(?i)log[-_ ]?(out|off)|sign[-_ ]?(out|off)|session/(destroy|end)'
    Links whose URL matches this regex (as written, or with its path and query
    percent-decoded) would end the login session: not requested.
accept: str = '100..=399'
    Statuses that count as valid: comma-separated codes and ranges `A..=B`, `A..B` (B
    excluded), `A..` (A and up).
accept_timeouts: bool = False
    Count a link whose check timed out as valid, with the timeout-accepted warning instead
    of an error (lychee's accept_timeouts): for servers known to be slow.
require_https: bool = False
    Warn about an http:// link that works over https:// too (the http-has-https warning,
    lychee's require_https): one more request per http:// link that works.
method: 'head' | 'get' = 'head'
    Request method of links that are only checked: head (falls back to GET when the server
    refuses HEAD) or get. Pages parsed for links are always fetched with GET.
host_method: str | list[str] = []
    The method of links that are only checked, for hosts matching a regex (against
    host:port), `REGEX=METHOD` (repeatable): get for a host whose HEAD answers 200 where GET
    answers 404 (a stale cache, HEAD routed apart), head to keep HEAD first on a host under
    method get.
check_mx: bool = False
    Also look up the MX (else A/AAAA) records of mailto: domains, each domain once.
dns_server: str = None
    The DNS resolver for check_mx, `IP` or `IP:PORT` [default: the first nameserver of
    /etc/resolv.conf].
suggest: bool = False
    For each broken http(s) link, ask the web archive for its closest snapshot and show it
    (one request per broken URL to the archive, with its host's politeness).
archive_url: str = None
    The web archive's availability API that suggest asks (`GET URL?url=BROKEN`, answered as
    the Wayback Machine does) [default: https://archive.org/wayback/available].
github_token: str = None
    A GitHub access token, sent as `Authorization: Bearer TOKEN` to https://github.com and
    https://api.github.com only (and to what a remap rule made of a link to them; never to
    another host, not even on a redirect; never shown), so GitHub's rate limit for anonymous
    requests is not hit. Also read from GITHUB_TOKEN when neither the flag, its variable nor
    the config file sets it [default: none].
detect_soft_404: bool = False
    Warn (`soft-404`) about pages that answer 200 but are the site's "not found" page: each
    host is asked once for a made-up path, and a page whose title and text match that answer
    (the words of its own URL left out) is warned about. One extra request per host; http(s)
    links are checked with GET, as their bodies are compared.
shard: str | tuple[int, int] = None
    Be shard I of N (0-based) of a check split by host: start sites on hosts other shards
    own are left to them, and links to such hosts are exported, not checked.
check_anchors: bool = False
    Check that each link's #fragment names an anchor of its page (HTML ids and names,
    Markdown headings): the `anchors` plugin. On github.com pages (as linked, before remap),
    a file view's line anchors (#L10, #L10-L20) are valid when the page is, and #foo finds
    GitHub's heading id `user-content-foo`. A text fragment (#:~:text=) must be in the
    page's visible text. A missing one is an error; `plugin anchors:severity=warning` makes
    it a warning.
render_js: bool = False
    Render the site's HTML pages in headless Chromium (the `render-js` plugin) and check the
    links of the rendered page as well as those of its source: for sites whose pages
    JavaScript builds. Needs Debian's `chromium`. Links found only after rendering are
    marked `rendered` in the reports; with check_anchors, ids that scripts create count.
render_tabs: str = '2'
    With render_js: how many pages render at once (browser tabs, 1 to 64).
render_timeout: float | str = 10.0
    With render_js: the longest a page may take to settle (no request in flight, the page
    unchanged for half a second), in seconds or a duration (10s); a page still busy then is
    read as it is, with a `render-timeout` warning.
plugin: str | list[str] = []
    Enable a plugin, `NAME` or `NAME:key=value[,key=value…]` (repeatable; settings of the
    same plugin add up). See --list-plugins.
"##
    };
}
