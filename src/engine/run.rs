//! The per-URL pipeline's shared state ([`Run`], [`Task`]) and the worker loop. The pipeline's
//! steps are methods of `Run` in files of their own: `admit` (claim a link, then decide and
//! queue it), `check_task` (fetch and check one task), `page_links` (a page's links back into
//! `admit`), `record` (store the result, send the rows), `plugin_hooks`.
//!
//! ```text
//! link ─► cache.claim ─new─► filter ─► queue.put ─► worker: fetch ─► extract ─► children ─┐
//!             │                                             ▲                             │
//!             └─pending/done: referrer recorded             └─────────────────────────────┘
//! ```
//! A worker finishes an item in this order: check, put every child, `cache.finish`, put the
//! parse jobs the cache hands out, send the entries, and only then `queue.task_done` (see
//! `queue` for why that order ends the crawl correctly). A later claim of a URL that wants it
//! parsed when its first claim did not (`rel=nofollow`, beyond `-r`) upgrades it: see
//! `cache`, "Upgrades to parse".

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crossbeam_channel::Sender;
use url::Url;

use crate::config::remap::Remap;
use crate::engine::cache::ResultCache;
use crate::engine::plugin_host::PluginHost;
use crate::engine::queue::HostLaneQueue;
use crate::fetch::github_auth::GithubAuth;
use crate::fetch::http::host_key;
use crate::fetch::mail_mx::MxCheck;
use crate::fetch::{Fetch, Resume};
use crate::model::cancel::CancelHandle;
use crate::model::outcome::{CheckResult, Entry, FailKind, Outcome};
use crate::model::stats::SkipCounter;
use crate::policy::filter::Filter;
use crate::policy::host_gate::HostGate;
use crate::policy::robots::RobotsCache;
use crate::state::{Remembered, StoredPage};

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
    /// Redirect hops a chain took before it handed this URL over to be checked on its own
    /// (`Run::claim_hop`; 0 for a link): they count against `max_redirects` with this
    /// task's own, so one chain has one budget however often it changes hands.
    pub(crate) redirected: usize,
    /// Set when an earlier try of this task was handed back to the queue instead of waiting
    /// for its host (see `queue`, "Deferred tasks"): what that try learned.
    pub(crate) resume: Option<Box<Resume>>,
}

impl Task {
    /// The politeness key of the host its first request goes to; `None` when it makes no
    /// request (a local file or an in-memory document). The queue schedules tasks by it.
    pub(super) fn host(&self) -> Option<String> {
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
    /// The fetch was deferred (its first request would have waited for the host): no result;
    /// the task goes back to the queue with this.
    pub(crate) deferred: Option<Resume>,
}

/// Calls `task_done` for one task when dropped. Every child of the task was put inside
/// `check`, and every parse job it triggered inside `check` or `record`, before this drops:
/// the queue's count cannot reach 0 early.
struct TaskDone<'a>(&'a HostLaneQueue<Task>);

impl Drop for TaskDone<'_> {
    fn drop(&mut self) {
        self.0.task_done();
    }
}

/// Messages from the workers to the thread that consumes the results.
///
/// `Entry` is unboxed although it is much larger than `Counted`: entries are most of the
/// traffic with `-v`, and a box would cost an allocation per row, while the channel holds few
/// messages at a time (it is bounded: `RESULT_CHANNEL_CAPACITY`).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Message {
    /// A report row.
    Entry(Entry),
    /// A result whose first entry was not built (`only_problems`): counted once for the
    /// per-URL statistics.
    Counted(Arc<CheckResult>),
    /// A page parsed over HTTP, for the state file (only with one): its key and links.
    Page(String, StoredPage),
    /// A robots.txt fetched, for the state file (only with one): its origin and body (`None`:
    /// none to obey). Sent before any URL of that origin is checked.
    Robots(String, Option<Vec<u8>>),
    /// A finished result that no link has reached yet (a redirect hop this run requested),
    /// for the state file only (with one): it is neither a report row nor counted.
    Unlinked(Arc<CheckResult>),
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
    pub(crate) queue: Arc<HostLaneQueue<Task>>,
    /// Placeholder-on-enqueue results and every referrer of each URL.
    pub(crate) cache: ResultCache,
    /// Scope, patterns and recursion depth.
    pub(crate) filter: Filter,
    /// `Config::remap`: rules that rewrite links found on pages before they are considered.
    pub(crate) remap: Vec<Remap>,
    /// `Config::github_token`: told which remapped URLs were GitHub links (before their tasks
    /// are queued), shared with the fetcher that sends the token.
    pub(crate) github: Option<Arc<GithubAuth>>,
    /// `Config::detect_soft_404`: each origin's probe, made once (see `soft_404`).
    pub(crate) soft_404: Option<super::soft_404::SoftNotFound>,
    /// Fetches a URL whatever its scheme: the run's `Router` (the shared ureq agent with its
    /// retries and redirects, and local files), or a fake in the engine's tests.
    pub(crate) fetch: Arc<dyn Fetch>,
    /// The folders whose files the run may read: what a page may learn of a folder (has it
    /// an `index.html`?) is told only inside them.
    pub(crate) files: Arc<crate::fetch::file::FileScope>,
    /// Tripped on Ctrl-C or by an embedder; checked before parsing a page.
    pub(crate) cancel: CancelHandle,
    /// Bytes of a local page read for parsing.
    pub(crate) max_body: u64,
    /// `Config::include_verbatim`: autolink literals in Markdown code count.
    pub(crate) include_verbatim: bool,
    /// `Config::include_wikilinks`: Obsidian's wikilinks in Markdown are links.
    pub(crate) include_wikilinks: bool,
    /// The run's files by name, for wikilinks (empty without `include_wikilinks`).
    pub(crate) wiki: super::wiki_index::WikiIndex,
    /// Most distinct URLs to check (`None`: no limit).
    pub(crate) max_urls: Option<usize>,
    /// What the run holds, against `Config::max_memory` (shared with the queue and the cache).
    pub(crate) budget: Arc<super::memory::MemoryBudget>,
    /// The folder that `/` means in links of local pages (a `file:` URL ending in `/`).
    pub(crate) file_root: Option<Url>,
    /// The public URL of `file_root` (ends in `/`): links under it on local pages are checked
    /// in the folder instead.
    pub(crate) site_url: Option<Url>,
    /// Folders deployed as sites (mdBook sources, `--base-url`'s folder): a link climbing out
    /// of one goes to the deployed host (see `site_roots`).
    pub(crate) sites: Vec<super::site_roots::SiteRoot>,
    /// The GitHub repositories checked out locally: links to their files go to the checkout.
    pub(crate) checkouts: Vec<crate::policy::github_checkout::Checkout>,
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
    /// The web archive's availability API asked for each broken http(s) URL
    /// (`Config::suggest`); `None` when no suggestions are asked for.
    pub(crate) suggest: Option<Url>,
    /// Report rows to the thread that runs `Checker::run_with`. Bounded: a worker waits while
    /// the consumer is behind, so rows never pile up in memory. That cannot deadlock: the
    /// consumer reads until `Finished` and only then joins anything, and a row sent after it
    /// stopped reading fails at once, as the receiver is gone.
    pub(crate) tx: Sender<Message>,
    /// Build and send only entries that are problems (`Config::only_problems`); the others
    /// are counted in `unreported`.
    pub(crate) only_problems: bool,
    /// A timed-out check counts as valid, with a warning (`Config::accept_timeouts`).
    pub(crate) accept_timeouts: bool,
    /// Working `http:` links are tried over `https:` (`Config::require_https`).
    pub(crate) require_https: bool,
    /// This run's shard: links to hosts other shards own are exported, not checked.
    pub(crate) shard: Option<crate::config::shard::Shard>,
    /// Entries counted but not built (`only_problems`). Relaxed: read after the run, when
    /// every worker that counted has finished its tasks (the queue's lock orders that).
    pub(crate) unreported: AtomicUsize,
    /// Links to new URLs found once `max_urls` keys were claimed: counted, never stored
    /// (`Claim::OverLimit`). Relaxed: read after the run, like `unreported`.
    pub(crate) over_limit: AtomicUsize,
    /// URLs whose check finished (queued ones, not aliases or immediate verdicts). Relaxed: a
    /// statistic read for progress displays only.
    pub(crate) checked: AtomicUsize,
    /// URLs not checked, by reason (robots.txt, scope, patterns, limit, scheme): counted once
    /// per URL where it is decided (`start`, `check`).
    pub(crate) skipped: SkipCounter,
    /// The configured plugins and their fetches (see `plugin_host`; the hooks: `plugin_hooks`).
    pub(crate) plugins: PluginHost,
    /// What earlier runs left in the state file (`Config::state_file`): results to reuse and
    /// broken streaks. Set before the workers start, read-only afterwards; `None` without a
    /// state file.
    pub(crate) remembered: Option<Remembered>,
    /// The login page of `Config::login`: a redirect chain that ends there lost the session.
    pub(crate) login_page: Option<Url>,
    /// The first session loss seen (`login::watch_session`), for the report's warnings.
    pub(crate) session_lost: std::sync::OnceLock<String>,
    /// The cookie jar file and the run's cookies, saved to it when the run ends
    /// (`Config::cookie_jar`).
    pub(crate) cookie_jar: Option<(
        std::path::PathBuf,
        Arc<crate::fetch::session_cookies::SessionCookies>,
    )>,
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
                        deferred: None,
                    }
                });
            if let Some(resume) = checked.deferred {
                // Back to its host's lane, which is due when the host's slot is: put before
                // this task's `task_done`, so the count never reaches 0 while it waits.
                let mut task = task;
                task.resume = Some(Box::new(resume));
                // Refused after shutdown: the URL stays pending, counted as unchecked.
                let _ = self.queue.put_for(task.host(), task);
                continue;
            }
            self.record(&task, checked);
            self.checked.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// URLs whose check finished so far.
    pub(crate) fn checked(&self) -> usize {
        self.checked.load(Ordering::Relaxed)
    }
}
