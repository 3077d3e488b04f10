//! The per-URL pipeline, run by every worker: fetch, classify, extract, queue the children,
//! record the result.
//!
//! ```text
//! link ─► filter ─► cache.claim ─new─► queue.put ─► worker: fetch ─► extract ─► children ─┐
//!                        │                                        ▲                        │
//!                        └─pending/done: referrer recorded        └────────────────────────┘
//! ```
//! A worker finishes an item in this order: check, put every child, `cache.finish`, put the
//! parse jobs the cache hands out, send the entries, and only then `queue.task_done` (see
//! `queue` for why that order ends the crawl correctly). A later claim of a URL that wants it
//! parsed when its first claim did not (`rel=nofollow`, beyond `-r`) upgrades it: see
//! `cache`, "Upgrades to parse".

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crossbeam_channel::Sender;
use url::{Position, Url};

use crate::engine::cache::{Claim, Emission, Occurrence, ResultCache, Upgrade};
use crate::engine::plugin_host::{PageFacts, PluginHost};
use crate::engine::queue::UrlQueue;
use crate::extract::charset::html_to_utf8;
use crate::extract::{
    HtmlDocument, RawLink, extract_css, extract_html_batched, extract_markdown, extract_sitemap,
    extract_text_urls, gunzip_capped, is_gzip, is_sitemap,
};
use crate::fetch::http::host_key;
use crate::fetch::is_html;
use crate::fetch::mail_mx::MxCheck;
use crate::fetch::{self, Fetched, http::HttpFetcher};
use crate::model::cancel::CancelHandle;
use crate::model::link_site::LinkSite;
use crate::model::outcome::{CheckResult, Entry, FailKind, Outcome, Warning, mask_url};
use crate::model::redact::redact;
use crate::policy::filter::{Decision, Filter};
use crate::policy::hosts::HostGate;
use crate::policy::mail::check_mailto;
use crate::policy::robots::RobotsCache;
use crate::policy::url_norm::{cache_key, cache_key_ref};

/// URLs longer than this get the `url-too-long` warning (browsers and servers start failing
/// around 2,000 characters).
const MAX_URL_LENGTH: usize = 2000;

/// One URL waiting in the queue.
#[derive(Debug)]
pub(crate) struct Task {
    /// The URL to check, without fragment.
    pub(crate) url: Url,
    /// Its cache key.
    pub(crate) key: String,
    /// Recursion level (start URLs: 0).
    pub(crate) level: usize,
    /// Inside the crawl's scope.
    pub(crate) internal: bool,
    /// Parse it for links when it is HTML.
    pub(crate) recurse: bool,
    /// An in-memory document standing in for the URL's content (not fetched).
    pub(crate) inline: Option<Arc<str>>,
    /// The link may be followed (no `rel=nofollow`, no `<meta name=robots content=nofollow>`);
    /// a redirect target of this task is decided with it too.
    pub(crate) follow: bool,
    /// A parse job (see `cache`, "Upgrades to parse"): the URL was checked already (its
    /// result stands and is reported); fetch it with GET and parse it at `level` — or lower,
    /// when a claim meanwhile wants that — under `key`, producing no result of its own.
    pub(crate) parse_only: bool,
}

impl Task {
    /// The politeness key of the host its first request goes to; `None` when it makes no
    /// request (a local file or an in-memory document). The queue schedules tasks by it.
    fn host(&self) -> Option<String> {
        (self.inline.is_none() && matches!(self.url.scheme(), "http" | "https"))
            .then(|| host_key(&self.url))
    }
}

/// What checking one task produced.
#[derive(Debug)]
pub(crate) struct Checked {
    /// The task's result (partial when `stopped_at` is set).
    pub(crate) result: CheckResult,
    /// Redirect hops (or a folder's `index.html`) claimed and requested by this task: key and
    /// index in `result.redirects` where that URL's own chain starts.
    pub(crate) owned: Vec<(String, usize)>,
    /// The known URL the redirect chain stopped at.
    pub(crate) stopped_at: Option<String>,
}

/// The result of the URL at hop `from` of a chain: the same verdict, its part of the chain.
fn hop_view(result: &CheckResult, from: usize) -> CheckResult {
    let mut hop = result.clone();
    let url = match result.redirects.get(from) {
        Some(h) => h.url.to_string(),
        None => result
            .real_url
            .as_ref()
            .map_or_else(|| result.url.clone(), Url::to_string),
    };
    hop.url = url;
    hop.redirects = result.redirects[from.min(result.redirects.len())..].to_vec();
    if hop.redirects.is_empty() {
        hop.real_url = None;
        hop.warnings.retain(|w| w.tag != "http-redirected");
    }
    hop
}

/// `true` for an entry that `Verbosity::Problems` shows: a broken URL, or a warning on the
/// URL or on this occurrence.
fn is_problem(result: &CheckResult, site: Option<&LinkSite>) -> bool {
    result.outcome.is_broken()
        || !result.warnings.is_empty()
        || site.is_some_and(|s| !s.warnings.is_empty())
}

/// `/x` but not `//host/x`.
fn is_root_relative(value: &str) -> bool {
    value.starts_with('/') && !value.starts_with("//")
}

/// Calls `task_done` for one task when dropped. Every child of the task was put inside
/// `check`, and every parse job it triggered inside `check` or `record`, before this drops:
/// the queue's count cannot reach 0 early.
struct TaskDone<'a>(&'a UrlQueue<Task>);

impl Drop for TaskDone<'_> {
    fn drop(&mut self) {
        self.0.task_done();
    }
}

/// Messages from the workers to the thread that consumes the results.
#[derive(Debug)]
pub(crate) enum Message {
    /// A report row.
    Entry(Entry),
    /// A result whose first entry was not built (`only_problems`): counted once for the
    /// per-URL statistics.
    Counted(Arc<CheckResult>),
    /// The run is over; nothing after this is read.
    Finished,
}

/// Everything the workers of one run share.
#[derive(Debug)]
///
/// Every field is set once when the run starts and only read afterwards, except the ones with
/// their own synchronisation: `queue` and `cache` (a mutex each, see their modules), the
/// atomics, and `tx` (a channel). Workers hold no lock of their own across I/O.
pub(crate) struct Run {
    /// URLs waiting for a worker, scheduled by host, and the count of unfinished tasks
    /// (termination). Shared with the politeness gate, whose table it holds.
    pub(crate) queue: Arc<UrlQueue<Task>>,
    /// Placeholder-on-enqueue results and every referrer of each URL.
    pub(crate) cache: ResultCache,
    /// Scope, patterns and recursion depth.
    pub(crate) filter: Filter,
    /// The shared ureq agent and the per-request logic (retries, redirects, headers).
    pub(crate) http: HttpFetcher,
    /// Tripped on Ctrl-C or by an embedder; checked before parsing a page.
    pub(crate) cancel: CancelHandle,
    /// Bytes of a local page read for parsing.
    pub(crate) max_body: u64,
    /// Most distinct URLs to check (`None`: no limit).
    pub(crate) max_urls: Option<usize>,
    /// The folder that `/` means in links of local pages (a `file:` URL ending in `/`).
    pub(crate) file_root: Option<Url>,
    /// The public URL of `file_root` (ends in `/`): links under it on local pages are checked
    /// in the folder instead.
    pub(crate) site_url: Option<Url>,
    /// MX lookups of `mailto:` domains, when asked for.
    pub(crate) mx: Option<MxCheck>,
    /// Queue the sitemaps listed in a start site's robots.txt.
    pub(crate) seed_sitemaps: bool,
    /// Warning tags dropped from every result (`--ignore-warning`).
    pub(crate) ignore_warnings: Vec<String>,
    /// robots.txt rules per origin; `None` when robots.txt is ignored.
    pub(crate) robots: Option<RobotsCache>,
    /// The politeness gate (robots.txt `Crawl-delay` is applied to it).
    pub(crate) gate: Arc<HostGate>,
    /// Report rows to the thread that runs `Checker::run_with`. Bounded: a worker waits while
    /// the consumer is behind, so rows never pile up in memory. That cannot deadlock: the
    /// consumer reads until `Finished` and only then joins anything, and a row sent after it
    /// stopped reading fails at once, as the receiver is gone.
    pub(crate) tx: Sender<Message>,
    /// Build and send only entries that are problems (`Config::only_problems`); the others
    /// are counted in `unreported`.
    pub(crate) only_problems: bool,
    /// Entries counted but not built (`only_problems`). Relaxed: read after the run, when
    /// every worker that counted has finished its tasks (the queue's lock orders that).
    pub(crate) unreported: AtomicUsize,
    /// URLs whose check finished (queued ones, not aliases or immediate verdicts). Relaxed: a
    /// statistic read for progress displays only.
    pub(crate) checked: AtomicUsize,
    /// The configured plugins and their fetches (see `plugins::host`).
    pub(crate) plugins: PluginHost,
}

impl Run {
    /// The worker loop: take a task, check it, finish it, until the queue closes.
    pub(crate) fn work(&self) {
        while let Some(task) = self.queue.get() {
            // Marks the task done when this iteration ends, also if `record` itself panics
            // (the thread then dies, but the queue's count stays right and the run ends).
            let _done = TaskDone(&self.queue);
            if task.parse_only {
                // Nothing to record: a panic loses only the page's links, never a result.
                let _ = catch_unwind(AssertUnwindSafe(|| self.parse_again(&task)));
                continue;
            }
            let t = Instant::now();
            let checked =
                catch_unwind(AssertUnwindSafe(|| self.check(&task))).unwrap_or_else(|panic| {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown panic".into());
                    let mut r = CheckResult::immediate(
                        task.url.to_string(),
                        Outcome::Failed {
                            kind: FailKind::Internal,
                            message: format!("internal error while checking: {what}"),
                        },
                        task.level,
                    );
                    r.check_time = t.elapsed();
                    Checked {
                        result: r,
                        owned: Vec::new(),
                        stopped_at: None,
                    }
                });
            self.record(&task, checked);
            self.checked.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// URLs whose check finished so far.
    pub(crate) fn checked(&self) -> usize {
        self.checked.load(Ordering::Relaxed)
    }

    /// Records a task's result under its key and under every redirect hop it requested, or
    /// defers them all on the known URL where its redirect chain stopped.
    fn record(&self, task: &Task, checked: Checked) {
        let Checked {
            result,
            owned,
            stopped_at,
        } = checked;
        let mut done = Vec::new();
        let mut keys: Vec<String> = owned.iter().map(|(k, _)| k.clone()).collect();
        keys.push(task.key.clone());
        for (key, from) in owned {
            let hop = hop_view(&result, from);
            done.extend(match &stopped_at {
                Some(target) => self.cache.defer(&key, hop, target),
                None => self.cache.finish(&key, hop),
            });
        }
        done.extend(match &stopped_at {
            Some(target) => self.cache.defer(&task.key, result, target),
            None => self.cache.finish(&task.key, result),
        });
        // Claims that wanted a parse while the task ran and that it did not serve (it asked
        // with HEAD, or its chain stopped at a URL checked on its own): queued now, before
        // this task's `task_done`.
        for key in keys {
            if let Some(up) = self.cache.serve_want(&key) {
                self.carry_out(up, &task.url, task.internal);
            }
        }
        self.emit(done);
    }

    /// Carries out what an upgrade of the URL reached through `url` asks for: queues a parse
    /// job, or upgrades the links of a page parsed deeper, each one level below it (which may
    /// ask for more, handled here too: no recursion, however long the chain).
    fn carry_out(&self, up: Upgrade, url: &Url, internal: bool) {
        let mut work = vec![(up, url.clone(), internal)];
        while let Some((up, url, internal)) = work.pop() {
            match up {
                Upgrade::Parse(key, level) => {
                    let mut url = url;
                    url.set_fragment(None);
                    let task = Task {
                        url,
                        key,
                        level,
                        internal,
                        recurse: true,
                        inline: None,
                        follow: true,
                        parse_only: true,
                    };
                    // Refused after shutdown: the page is then not parsed, as any queued page.
                    let _ = self.queue.put_for(task.host(), task);
                }
                Upgrade::Relevel(links, level) => {
                    for link in links.iter() {
                        if let Decision::Check {
                            internal,
                            recurse: true,
                        } = self.filter.decide(link, level + 1, false, false)
                            && let Some(next) = self.cache.upgrade(&cache_key(link), level + 1)
                        {
                            work.push((next, link.clone(), internal));
                        }
                    }
                }
            }
        }
    }

    /// Runs a parse job: one GET (a page that was only checked with HEAD needs it; redirects
    /// are followed without claiming anything), then its links are considered as any page's.
    /// The URL's result was recorded and reported by its check; nothing is recorded here.
    fn parse_again(&self, task: &Task) {
        let fetched = if task.url.scheme() == "file" {
            fetch::file::fetch(&task.url, true, self.max_body)
        } else {
            self.http.fetch(&task.url, true, &|_| true)
        };
        let Some(body) = fetched.body else { return };
        if !matches!(fetched.outcome, Outcome::Ok { .. })
            || !self.filter.is_internal(&fetched.final_url)
            || self.cancel.is_cancelled()
        {
            return;
        }
        let Some(level) = self.cache.take_parse(&[&task.key], Some(task.level)) else {
            return;
        };
        let content_type = fetched.content_type.as_deref();
        let body = if is_html(content_type) {
            html_to_utf8(&body, fetched.charset.as_deref())
        } else {
            body.into()
        };
        let mut links = self.filter.has_depth_limit().then(Vec::new);
        self.queue_children(
            &body,
            &fetched.final_url,
            level + 1,
            content_type,
            None,
            None,
            links.as_mut(),
        );
        if let Some(links) = links {
            for up in self.cache.set_links(&[&task.key], links) {
                self.carry_out(up, &task.url, task.internal);
            }
        }
    }

    /// Records a result that needed no task and reports it.
    fn complete(&self, key: &str, result: CheckResult) {
        let done = self.cache.finish(key, result);
        self.emit(done);
    }

    /// After a cancel: reports the redirects still waiting on targets that were never checked.
    pub(crate) fn abandon_waiting(&self) {
        let done = self.cache.abandon_waiting();
        self.emit(done);
    }

    /// Sends one entry per occurrence of each finished result.
    fn emit(&self, done: Vec<Emission>) {
        for (result, occurrences) in done {
            if matches!(
                result.outcome,
                Outcome::Failed {
                    kind: FailKind::Interrupted,
                    ..
                }
            ) {
                // Not a result: counted as unchecked (`ResultCache::counts`).
                continue;
            }
            for (i, o) in occurrences.into_iter().enumerate() {
                self.send(&result, o, i > 0);
            }
        }
    }

    /// Builds and sends one entry: the only place an `Entry` is made, so its referrer's
    /// credentials are masked here, after the plugins saw it (the result's were masked when it
    /// was stored).
    fn send(&self, result: &Arc<CheckResult>, mut o: Occurrence, cached: bool) {
        self.plugins_on_link(result, &mut o);
        // The receiver only goes away after the run is over; a late row is then dropped.
        if self.only_problems && !is_problem(result, o.site.as_ref()) {
            self.unreported.fetch_add(1, Ordering::Relaxed);
            if !cached {
                let _ = self.tx.send(Message::Counted(result.clone()));
            }
            return;
        }
        let _ = self.tx.send(Message::Entry(Entry {
            result: result.clone(),
            referrer: o.site.map(|s| s.into_referrer().without_credentials()),
            fragment: o.fragment,
            cached,
        }));
    }

    /// Feeds one start input into the run (on the supervisor thread, before it waits for the
    /// queue to go idle).
    pub(crate) fn seed(&self, url: Url, inline: Option<Arc<str>>) {
        self.consider(Ok(url), None, String::new(), 0, true, false, true, inline);
    }

    /// Handles one link: decide, claim, then queue it, finish it at once, or record a referrer.
    #[allow(clippy::too_many_arguments)]
    fn consider(
        &self,
        url: Result<Url, String>,
        site: Option<LinkSite>,
        raw: String,
        level: usize,
        seed: bool,
        from_web: bool,
        follow: bool,
        inline: Option<Arc<str>>,
    ) {
        let url = match url {
            Ok(u) => u,
            Err(message) => {
                let key = format!("invalid:{raw}");
                let occ = Occurrence {
                    site,
                    fragment: None,
                };
                match self.cache.claim(&key, occ) {
                    Claim::New => {
                        let outcome = Outcome::Failed {
                            kind: FailKind::InvalidUrl,
                            message,
                        };
                        self.complete(&key, CheckResult::immediate(raw, outcome, level));
                    }
                    Claim::Pending => {}
                    Claim::Done(r, occ) => self.send(&r, occ, true),
                    Claim::Quiet(occ) => {
                        drop(occ);
                        self.unreported.fetch_add(1, Ordering::Relaxed);
                    }
                }
                return;
            }
        };
        let fragment = url.fragment().filter(|f| !f.is_empty()).map(str::to_owned);
        // Borrowed from `url` (no copy) unless the URL is queued or upgraded below.
        let key = cache_key_ref(&url);
        // What `send` would do with a quiet result, decided before the claim so that the claim
        // can skip the result: no plugin looks at links, and the occurrence has no warnings.
        let quiet_ok = self.only_problems
            && !self.plugins.active()
            && site.as_ref().is_none_or(|s| s.warnings.is_empty());
        let occ = Occurrence { site, fragment };
        match self.cache.claim_at(&key, occ, level, quiet_ok) {
            (Claim::Quiet(occ), covered) => {
                // Freed here, not under the cache's lock.
                drop(occ);
                self.unreported.fetch_add(1, Ordering::Relaxed);
                if !covered {
                    let key = key.into_owned();
                    self.upgrade(&key, url, level, seed, from_web, follow);
                }
            }
            (Claim::Pending, true) => {}
            (Claim::Pending, false) => {
                let key = key.into_owned();
                self.upgrade(&key, url, level, seed, from_web, follow);
            }
            (Claim::Done(r, occ), covered) => {
                self.send(&r, occ, true);
                if !covered {
                    let key = key.into_owned();
                    self.upgrade(&key, url, level, seed, from_web, follow);
                }
            }
            (Claim::New, _) => {
                let key = key.into_owned();
                let mut clean = url;
                clean.set_fragment(None);
                self.start(key, clean, level, seed, from_web, follow, inline);
            }
        }
    }

    /// A later claim of `key`: when its own decision is to parse the page, the page must be
    /// parsed (at the lowest such level) whatever the first claim decided — so the pages
    /// crawled do not depend on which link was claimed first (see `cache`, "Upgrades to
    /// parse"). A parse job is queued here, inside the task that found the link, so before
    /// that task's `task_done`.
    fn upgrade(&self, key: &str, url: Url, level: usize, seed: bool, from_web: bool, follow: bool) {
        if !follow {
            return;
        }
        if let Decision::Check {
            internal,
            recurse: true,
        } = self.filter.decide(&url, level, seed, from_web)
            && let Some(up) = self.cache.upgrade(key, level)
        {
            self.carry_out(up, &url, internal);
        }
    }

    /// Decides about a URL whose key the caller just claimed: queues it, or finishes it at
    /// once (ignored, mail, over the URL limit).
    #[allow(clippy::too_many_arguments)]
    fn start(
        &self,
        key: String,
        clean: Url,
        level: usize,
        seed: bool,
        from_web: bool,
        follow: bool,
        inline: Option<Arc<str>>,
    ) {
        match self.filter.decide(&clean, level, seed, from_web) {
            Decision::Check { .. } if self.over_url_limit() => {
                let reason = format!(
                    "not checked: the limit of {} URLs (--max-urls) was reached",
                    self.max_urls.unwrap_or(0)
                );
                let r = CheckResult::immediate(
                    redact(clean.as_str()).into_owned(),
                    Outcome::Ignored { reason },
                    level,
                );
                self.complete(&key, r);
            }
            Decision::Check { internal, recurse } => {
                let task = Task {
                    url: clean,
                    key: key.clone(),
                    level,
                    internal,
                    // rel=nofollow and <meta name=robots content=nofollow>: checked, not recursed
                    recurse: recurse && follow,
                    inline,
                    follow,
                    parse_only: false,
                };
                // Refused after shutdown: the URL stays pending, counted as unchecked.
                let _ = self.queue.put_for(task.host(), task);
            }
            Decision::Mail => {
                let verdict = check_mailto(&clean).and_then(|domains| {
                    let Some(mx) = &self.mx else { return Ok(()) };
                    domains.iter().try_for_each(|d| mx.check_domain(d))
                });
                let outcome = match verdict {
                    Ok(()) => Outcome::Ok { status: None },
                    Err(message) => Outcome::Failed {
                        kind: FailKind::BadMailAddress,
                        message,
                    },
                };
                self.complete(
                    &key,
                    CheckResult::immediate(clean.to_string(), outcome, level),
                );
            }
            Decision::Ignore(reason) => {
                let r =
                    CheckResult::immediate(clean.to_string(), Outcome::Ignored { reason }, level);
                self.complete(&key, r);
            }
        }
    }

    /// Asked by the fetcher before it requests redirect target `next` of `task`. The target
    /// is another name of this check — claimed as an alias and requested by this chain, `true`
    /// — only when its own check would be this very check: the same decision (scope, recursion,
    /// filter) and robots.txt allows it. Otherwise (`false`) it is checked as a URL of its own:
    /// already known, or claimed now and queued (or finished) with its own decision, at this
    /// task's level; the chain then waits for its verdict (`cache::ResultCache::defer`). So a
    /// URL's result does not depend on whether a redirect or a link reached it first.
    fn claim_hop(&self, task: &Task, next: &Url) -> bool {
        let key = cache_key(next);
        let same = match self.filter.decide(next, task.level, false, true) {
            Decision::Check { internal, recurse } => {
                internal == task.internal
                    && (recurse && task.follow) == task.recurse
                    && self.robots_allow(next)
            }
            _ => false,
        };
        if same {
            return self.cache.claim_alias(&key);
        }
        if self.cache.claim_alias(&key) {
            let mut clean = next.clone();
            clean.set_fragment(None);
            self.start(key, clean, task.level, false, true, task.follow, None);
        }
        false
    }

    /// The site root for a root-relative link (`/about.html`) on a local page, when one is set.
    fn site_root(&self, page: &Url, value: &str) -> Option<&Url> {
        let root = self.file_root.as_ref()?;
        (page.scheme() == "file"
            && is_root_relative(value)
            && page.as_str().starts_with(root.as_str()))
        .then_some(root)
    }

    /// On a local page, a link under the site's public URL (`--base-url`) points into the local
    /// folder instead; any other URL is returned as is.
    fn local_copy(&self, page: &Url, url: Url) -> Url {
        if page.scheme() == "file"
            && let (Some(site), Some(root)) = (&self.site_url, &self.file_root)
            && let Some(rest) = url.as_str().strip_prefix(site.as_str())
            && let Ok(local) = root.join(rest)
        {
            return local;
        }
        url
    }

    /// `false` for a warning the user asked to ignore.
    pub(crate) fn keeps(&self, w: &Warning) -> bool {
        !self.ignore_warnings.iter().any(|t| t == w.tag)
    }

    /// Warnings about the URL itself and its content, then the ignore filter.
    fn add_url_warnings(&self, result: &mut CheckResult, url: &Url) {
        if url.as_str().len() > MAX_URL_LENGTH {
            result.warnings.push(Warning {
                tag: "url-too-long",
                message: format!(
                    "URL is {} characters long, more than {MAX_URL_LENGTH}.",
                    url.as_str().len()
                ),
            });
        }
        if matches!(result.outcome, Outcome::Ok { status: Some(200) }) && result.size == Some(0) {
            result.warnings.push(Warning {
                tag: "http-empty-content",
                message: "The page has no content.".into(),
            });
        }
        result.warnings.retain(|w| self.keeps(w));
    }

    /// No silent pass for content we do not read: a start URL whose type we cannot parse
    /// (Markdown, plain text, PDF) is warned about, as LinkChecker does at level 0
    /// (`url-content-type-unparseable`); a folder without `index.html` says it was listed (a
    /// link to one from a page is warned about where it is found: `file-no-index`).
    fn note_unparsed(&self, result: &mut CheckResult, task: &Task, final_url: &Url) {
        if !matches!(result.outcome, Outcome::Ok { .. }) || task.inline.is_some() {
            return;
        }
        if fetch::file::is_listing(final_url) {
            result
                .infos
                .push("A folder without index.html: its entries are listed and checked.".into());
            return;
        }
        if let Some(ct) = result.content_type.as_deref()
            && task.level == 0
            && !fetch::is_parsed(final_url, Some(ct))
        {
            result.warnings.push(Warning {
                tag: "url-content-type-unparseable",
                message: format!("The URL with content type '{ct}' is not parseable."),
            });
        }
    }

    /// `true` once more distinct URLs were claimed than `max_urls` allows.
    fn over_url_limit(&self) -> bool {
        self.max_urls.is_some_and(|n| self.cache.len() > n)
    }

    /// Asks robots.txt (fetching it once per origin) whether `url` may be requested.
    pub(crate) fn robots_allow(&self, url: &Url) -> bool {
        let Some(robots) = &self.robots else {
            return true;
        };
        if !matches!(url.scheme(), "http" | "https") {
            return true;
        }
        let host = host_key(url);
        robots.allowed(
            url,
            |robots_url| self.http.fetch_robots(robots_url),
            |rules| {
                if let Some(delay) = rules.crawl_delay() {
                    self.gate.crawl_delay(&host, delay);
                }
                if self.seed_sitemaps && self.filter.is_internal(url) {
                    self.seed_from_sitemaps(url, rules.sitemaps());
                }
            },
        )
    }

    /// Queues the `Sitemap:` URLs of a start site's robots.txt, as links found in robots.txt.
    fn seed_from_sitemaps(&self, url: &Url, sitemaps: &[String]) {
        let Ok(robots_url) = url.join("/robots.txt") else {
            return;
        };
        for raw in sitemaps {
            let site = LinkSite {
                parent: Arc::from(redact(robots_url.as_str())),
                raw: redact(raw).into_owned(),
                line: None,
                column: None,
                name: "Sitemap".into(),
                base: None,
                warnings: Vec::new(),
            };
            let parsed = robots_url
                .join(raw.trim())
                .map_err(|e| format!("cannot resolve `{raw}': {e}"));
            self.consider(parsed, Some(site), raw.clone(), 1, false, true, true, None);
        }
    }

    /// Checks one task and queues its children. Never holds a lock across I/O. Also returns
    /// the key of the final URL when the check claimed it as an alias (see below).
    fn check(&self, task: &Task) -> Checked {
        let start = Instant::now();
        if task.inline.is_none() && !self.robots_allow(&task.url) {
            let reason = "disallowed by robots.txt (use --no-robots to check it anyway)".to_owned();
            let mut result = CheckResult::immediate(
                redact(task.url.as_str()).into_owned(),
                Outcome::Ignored { reason },
                task.level,
            );
            result.internal = task.internal;
            return Checked {
                result,
                owned: Vec::new(),
                stopped_at: None,
            };
        }
        let fetched = if let Some(html) = &task.inline {
            let mut f = Fetched::bare(&task.url, Outcome::Ok { status: None });
            f.content_type = Some("text/html".into());
            f.size = Some(html.len() as u64);
            f.body = Some(html.as_bytes().to_vec());
            f
        } else {
            // A claim that wants the page parsed may have come after the task was queued.
            let want_body = task.recurse || self.cache.wants_parse(&task.key);
            if task.url.scheme() == "file" {
                fetch::file::fetch(&task.url, want_body, self.max_body)
            } else {
                self.http
                    .fetch(&task.url, want_body, &|next| self.claim_hop(task, next))
            }
        };
        let mut result = CheckResult::immediate(
            redact(task.url.as_str()).into_owned(),
            fetched.outcome,
            task.level,
        );
        result.internal = task.internal;
        result.redirects = fetched.redirects;
        for hop in &mut result.redirects {
            mask_url(&mut hop.url);
        }
        if fetched.final_url != task.url {
            let mut real = fetched.final_url.clone();
            mask_url(&mut real);
            result.real_url = Some(real);
        }
        result.retries = fetched.retries;
        if fetched.retries > 0 {
            result
                .infos
                .push(format!("checked after {} tries", fetched.retries + 1));
        }
        result.content_type = fetched.content_type;
        result.size = fetched.size;
        result.download_time = fetched.download_time;
        result.modified = fetched.modified;
        result.warnings = fetched.warnings;
        self.note_unparsed(&mut result, task, &fetched.final_url);
        if task.inline.is_none() && fetched.stopped_at.is_none() {
            self.plugins_on_response(task, &fetched.final_url, &fetched.headers, &mut result);
        }
        if task.inline.is_some() {
            result.infos.push("in-memory document".into());
        }
        // A redirect may leave the site: scope is decided again for the final URL.
        let still_internal = task.inline.is_some() || self.filter.is_internal(&fetched.final_url);
        // A folder's index.html is another name of the same document: claim it, so that a
        // link straight to it neither reads nor parses the document again. (HTTP redirect hops
        // were claimed by the fetcher, hop by hop.)
        let mut owned = fetched.owned;
        let mut parse = fetched.stopped_at.is_none();
        if task.url.scheme() == "file" && fetched.final_url != task.url {
            let key = cache_key(&fetched.final_url);
            if key != task.key {
                parse = self.cache.claim_alias(&key);
                if parse {
                    owned.push((key, result.redirects.len()));
                }
            }
        }
        // Before the links are queued, so the verdict on this page is complete when its own
        // links (`#section`) are counted.
        self.add_url_warnings(&mut result, &task.url);
        // The task's own decision, and every later claim that wants the page parsed: the
        // lowest level wins (see `cache`, "Upgrades to parse").
        let own_level = (task.recurse || task.inline.is_some()).then_some(task.level);
        let mut keys: Vec<&str> = owned.iter().map(|(k, _)| k.as_str()).collect();
        keys.push(&task.key);
        if let Some(body) = fetched.body
            && parse
            && still_internal
            && !self.cancel.is_cancelled()
            && let Some(level) = self.cache.take_parse(&keys, own_level)
        {
            let content_type = result.content_type.as_deref();
            let body = if is_html(content_type) {
                html_to_utf8(&body, fetched.charset.as_deref())
            } else {
                body.into()
            };
            let mut facts = self.plugins.page_facts();
            // Links to the page itself can be counted at once when only problems are reported,
            // no plugin looks at links, and this page is no problem (see `queue_children`).
            let own =
                (self.only_problems && !self.plugins.active() && fetched.final_url == task.url)
                    .then_some(&result);
            let mut links = self.filter.has_depth_limit().then(Vec::new);
            result.links_found = self.queue_children(
                &body,
                &fetched.final_url,
                level + 1,
                content_type,
                facts.as_mut(),
                own,
                links.as_mut(),
            );
            if let Some(links) = links {
                // The keys are still pending: a lower level wanted meanwhile is looked after
                // by `serve_want` in `record`.
                self.cache.set_links(&keys, links);
            }
            if let Some(facts) = facts {
                self.plugins_on_content(task, &fetched.final_url, &body, &facts, &mut result);
            }
        }
        result.check_time = start.elapsed();
        Checked {
            result,
            owned,
            stopped_at: fetched.stopped_at,
        }
    }

    /// Extracts the links of a page and considers each. Returns how many links it had. With
    /// `facts`, also hands over the page's anchors and resolved links (for plugins); without,
    /// anchors are not collected at all.
    ///
    /// An HTML page's links arrive in batches of [`LINK_BATCH`] while it is parsed and are
    /// considered batch by batch, so a page with 200,000 links never holds them all (see
    /// [`extract_html_batched`]); they are considered in document order, batched or not.
    ///
    /// `own` is the page's verdict (all but its timing), given when only problems are reported,
    /// no plugin is active and the page is checked under its own key. A link back to the page
    /// (`#line-123`; a source listing has one per line) would wait in the cache until the page
    /// is recorded, 200,000 of them for one large page; when neither the verdict nor the link
    /// is a problem it is counted at once instead, exactly as `send` would count it later.
    ///
    /// `keep` collects the page's followed in-scope links (see `cache::Upgrade::Relevel`).
    #[allow(clippy::too_many_arguments)]
    fn queue_children(
        &self,
        body: &[u8],
        page: &Url,
        level: usize,
        content_type: Option<&str>,
        mut facts: Option<&mut PageFacts>,
        own: Option<&CheckResult>,
        mut keep: Option<&mut Vec<Url>>,
    ) -> usize {
        if !is_html(content_type) {
            let links = match content_type {
                Some("text/css") => extract_css(body),
                Some("text/markdown" | "text/x-markdown") => extract_markdown(body),
                // A text file given as a start input is a list of URLs; other text is not read.
                Some("text/plain") if level == 1 => extract_text_urls(body),
                _ if is_gzip(body) => match gunzip_capped(body, self.max_body) {
                    Some(xml) if is_sitemap(&xml) => extract_sitemap(&xml),
                    _ => return 0,
                },
                _ if is_sitemap(body) => extract_sitemap(body),
                _ => return 0,
            };
            let ctx = PageLinks::new(page, &HtmlDocument::default(), level, own);
            let n = links.len();
            for link in links {
                self.consider_link(&ctx, facts.as_deref_mut(), keep.as_deref_mut(), link);
            }
            return n;
        }
        let mut ctx = None;
        let mut n = 0;
        let doc = extract_html_batched(body, facts.is_some(), LINK_BATCH, &mut |doc| {
            // The base and robots flag are final from the first batch on.
            let ctx = ctx.get_or_insert_with(|| PageLinks::new(page, doc, level, own));
            n += doc.links.len();
            for link in doc.links.drain(..) {
                self.consider_link(ctx, facts.as_deref_mut(), keep.as_deref_mut(), link);
            }
        });
        if let Some(f) = facts {
            f.anchors = doc.anchors;
        }
        n
    }

    /// Resolves one link of a page and considers it (see [`Run::queue_children`]).
    /// `keep`: when given, the followed in-scope links are also pushed there (a page parsed again
    /// at a lower level hands them on, see [`Run::queue_children`]).
    fn consider_link(
        &self,
        ctx: &PageLinks<'_>,
        facts: Option<&mut PageFacts>,
        keep: Option<&mut Vec<Url>>,
        link: RawLink,
    ) {
        let page = ctx.page;
        let RawLink {
            value,
            line,
            column,
            name,
            nofollow,
            padded,
            ..
        } = link;
        let url = match self.site_root(page, &value) {
            Some(root) => root.join(value.trim_start_matches('/')),
            None => ctx.base.join(&value),
        }
        .map(|u| self.local_copy(page, u))
        .map_err(|e| format!("cannot resolve `{value}': {e}"));
        if let (Some(f), Ok(u)) = (facts, &url)
            && f.want_links
        {
            f.links.push(u.clone());
        }
        let mut warnings = Vec::new();
        if let Ok(u) = &url
            && !fetch::file::is_listing(page)
            && fetch::file::is_folder_without_index(u)
        {
            warnings.push(Warning {
                tag: "file-no-index",
                message: format!(
                    "`{value}' is a folder without index.html: a web server would not serve \
                     a page here (its entries are listed and checked)."
                ),
            });
        }
        if padded {
            warnings.push(Warning {
                tag: "url-whitespace",
                message: format!("URL `{value}' has whitespace at the beginning or end."),
            });
        }
        warnings.retain(|w| self.keeps(w));
        // The link as written goes to the site (masked) and, for an unparsable link only,
        // to `consider` as its key: one copy in the common case.
        let (shown, value) = match redact(&value) {
            Cow::Owned(masked) => (masked, value),
            Cow::Borrowed(_) if url.is_ok() => (value, String::new()),
            Cow::Borrowed(_) => (value.clone(), value),
        };
        let site = LinkSite {
            parent: ctx.parent.clone(),
            raw: shown,
            line: Some(line),
            column: Some(column),
            name,
            base: ctx.doc_base.clone(),
            warnings,
        };
        if let (Some(own), Ok(u)) = (ctx.own, &url)
            && u[..Position::AfterQuery] == page[..Position::AfterQuery]
            && !is_problem(own, Some(&site))
        {
            self.unreported.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let follow = !ctx.nofollow && !nofollow;
        if let (Some(keep), Ok(u), true) = (keep, &url, follow)
            && matches!(
                self.filter.decide(u, ctx.level, false, ctx.from_web),
                Decision::Check { internal: true, .. }
            )
        {
            let mut u = u.clone();
            u.set_fragment(None);
            keep.push(u);
        }
        self.consider(
            url,
            Some(site),
            value,
            ctx.level,
            false,
            ctx.from_web,
            follow,
            None,
        );
    }
}

/// How many links of an HTML page are resolved and considered at a time: bounds the memory of
/// one page's link list (a source listing has 200,000 links) at the cost of one call per batch.
pub(crate) const LINK_BATCH: usize = 1024;

/// What all links of one page share while they are considered.
struct PageLinks<'p> {
    /// The page's (final) URL.
    page: &'p Url,
    /// The URL its links are resolved against: the page's `<base href>`, else the page.
    base: Url,
    /// One copy of the page's (masked) URL for all its link sites.
    parent: Arc<str>,
    /// The `<base href>` as written, shared by all link sites.
    doc_base: Option<Arc<str>>,
    /// `<meta name=robots content=nofollow>`: no link of the page is followed.
    nofollow: bool,
    /// The page came over HTTP(S).
    from_web: bool,
    /// The recursion level of the page's links.
    level: usize,
    /// See `own` of [`Run::queue_children`].
    own: Option<&'p CheckResult>,
}

impl<'p> PageLinks<'p> {
    /// `doc` gives the base and robots flag (its links are not read).
    fn new(page: &'p Url, doc: &HtmlDocument, level: usize, own: Option<&'p CheckResult>) -> Self {
        PageLinks {
            page,
            base: doc
                .base
                .as_deref()
                .and_then(|b| page.join(b.trim()).ok())
                .unwrap_or_else(|| page.clone()),
            parent: Arc::from(redact(page.as_str())),
            doc_base: doc.base.as_deref().map(Arc::from),
            nofollow: doc.nofollow,
            from_web: matches!(page.scheme(), "http" | "https"),
            level,
            own,
        }
    }
}
