//! The per-URL pipeline, run by every worker: fetch, classify, extract, queue the children,
//! record the result.
//!
//! ```text
//! link ─► filter ─► cache.claim ─new─► queue.put ─► worker: fetch ─► extract ─► children ─┐
//!                        │                                        ▲                        │
//!                        └─pending/done: referrer recorded        └────────────────────────┘
//! ```
//! A worker finishes an item in this order: check, put every child, `cache.finish`, send the
//! entries, and only then `queue.task_done` (see `queue` for why that order ends the crawl
//! correctly).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crossbeam_channel::Sender;
use url::Url;

use crate::cache::{Claim, Occurrence, ResultCache};
use crate::cancel::CancelHandle;
use crate::extract::{RawLink, extract_html};
use crate::fetch::{self, Fetched, http::HttpFetcher};
use crate::filter::{Decision, Filter};
use crate::mail::check_mailto;
use crate::outcome::{CheckResult, Entry, FailKind, Outcome, Referrer};
use crate::queue::UrlQueue;
use crate::url_norm::cache_key;

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
}

/// Messages from the workers to the thread that consumes the results.
#[derive(Debug)]
pub(crate) enum Message {
    /// A report row.
    Entry(Entry),
    /// The run is over; nothing after this is read.
    Finished,
}

/// Everything the workers of one run share.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) queue: UrlQueue<Task>,
    pub(crate) cache: ResultCache,
    pub(crate) filter: Filter,
    pub(crate) http: HttpFetcher,
    pub(crate) cancel: CancelHandle,
    pub(crate) max_body: u64,
    pub(crate) tx: Sender<Message>,
    /// URLs whose check was cut short by a cancel (not reported as results).
    pub(crate) interrupted: AtomicUsize,
    /// URLs whose check finished (queued ones, not aliases or immediate verdicts). Relaxed: a
    /// statistic read for progress displays only.
    pub(crate) checked: AtomicUsize,
}

impl Run {
    /// The worker loop: take a task, check it, finish it, until the queue closes.
    pub(crate) fn work(&self) {
        while let Some(task) = self.queue.get() {
            let t = Instant::now();
            let result =
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
                    (r, None)
                });
            let (result, alias) = result;
            if let Some(alias) = alias {
                // Links straight to the final URL see its own verdict, without the redirects.
                let mut direct = result.clone();
                direct.url = result
                    .real_url
                    .as_ref()
                    .map_or(alias.clone(), Url::to_string);
                direct.real_url = None;
                direct.redirects.clear();
                direct.warnings.retain(|w| w.tag != "http-redirected");
                self.complete(&alias, direct);
            }
            self.complete(&task.key, result);
            self.checked.fetch_add(1, Ordering::Relaxed);
            // Every child of this task was put inside `check`: the count cannot reach 0 early.
            self.queue.task_done();
        }
    }

    /// URLs whose check finished so far.
    pub(crate) fn checked(&self) -> usize {
        self.checked.load(Ordering::Relaxed)
    }

    /// Records a result and sends one entry per referrer known so far.
    fn complete(&self, key: &str, result: CheckResult) {
        let result = Arc::new(result);
        let occurrences = self.cache.finish(key, result.clone());
        if matches!(
            result.outcome,
            Outcome::Failed {
                kind: FailKind::Interrupted,
                ..
            }
        ) {
            self.interrupted.fetch_add(1, Ordering::Relaxed);
            return;
        }
        for (i, o) in occurrences.into_iter().enumerate() {
            self.send(&result, o, i > 0);
        }
    }

    fn send(&self, result: &Arc<CheckResult>, o: Occurrence, cached: bool) {
        // The receiver only goes away after the run is over; a late row is then dropped.
        let _ = self.tx.send(Message::Entry(Entry {
            result: result.clone(),
            referrer: o.referrer,
            fragment: o.fragment,
            cached,
        }));
    }

    /// Feeds one start input into the run (on the caller's thread, before the workers start).
    pub(crate) fn seed(&self, url: Url, inline: Option<Arc<str>>) {
        self.consider(Ok(url), None, String::new(), 0, true, false, inline);
    }

    /// Handles one link: decide, claim, then queue it, finish it at once, or record a referrer.
    #[allow(clippy::too_many_arguments)]
    fn consider(
        &self,
        url: Result<Url, String>,
        referrer: Option<Referrer>,
        raw: String,
        level: usize,
        seed: bool,
        from_web: bool,
        inline: Option<Arc<str>>,
    ) {
        let url = match url {
            Ok(u) => u,
            Err(message) => {
                let key = format!("invalid:{raw}");
                let occ = Occurrence {
                    referrer,
                    fragment: None,
                };
                match self.cache.claim(&key, occ.clone()) {
                    Claim::New => {
                        let outcome = Outcome::Failed {
                            kind: FailKind::InvalidUrl,
                            message,
                        };
                        self.complete(&key, CheckResult::immediate(raw, outcome, level));
                    }
                    Claim::Pending => {}
                    Claim::Done(r) => self.send(&r, occ, true),
                }
                return;
            }
        };
        let fragment = url.fragment().filter(|f| !f.is_empty()).map(str::to_owned);
        let key = cache_key(&url);
        let occ = Occurrence { referrer, fragment };
        match self.cache.claim(&key, occ.clone()) {
            Claim::Pending => {}
            Claim::Done(r) => self.send(&r, occ, true),
            Claim::New => {
                let mut clean = url;
                clean.set_fragment(None);
                match self.filter.decide(&clean, level, seed, from_web) {
                    Decision::Check { internal, recurse } => {
                        let task = Task {
                            url: clean,
                            key: key.clone(),
                            level,
                            internal,
                            recurse,
                            inline,
                        };
                        if !self.queue.put(task) {
                            // Refused after shutdown: the URL stays unchecked and unreported.
                            self.interrupted.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Decision::Mail => {
                        let outcome = match check_mailto(&clean) {
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
                        let r = CheckResult::immediate(
                            clean.to_string(),
                            Outcome::Ignored { reason },
                            level,
                        );
                        self.complete(&key, r);
                    }
                }
            }
        }
    }

    /// Checks one task and queues its children. Never holds a lock across I/O. Also returns
    /// the key of the final URL when the check claimed it as an alias (see below).
    fn check(&self, task: &Task) -> (CheckResult, Option<String>) {
        let start = Instant::now();
        let fetched = if let Some(html) = &task.inline {
            let mut f = Fetched::bare(&task.url, Outcome::Ok { status: None });
            f.content_type = Some("text/html".into());
            f.size = Some(html.len() as u64);
            f.body = Some(html.as_bytes().to_vec());
            f
        } else if task.url.scheme() == "file" {
            fetch::file::fetch(&task.url, task.recurse, self.max_body)
        } else {
            self.http.fetch(&task.url, task.recurse)
        };
        let mut result = CheckResult::immediate(task.url.to_string(), fetched.outcome, task.level);
        result.internal = task.internal;
        result.redirects = fetched.redirects;
        if fetched.final_url != task.url {
            result.real_url = Some(fetched.final_url.clone());
        }
        result.content_type = fetched.content_type;
        result.size = fetched.size;
        result.download_time = fetched.download_time;
        result.modified = fetched.modified;
        result.warnings = fetched.warnings;
        if task.inline.is_some() {
            result.infos.push("in-memory document".into());
        }
        // A redirect may leave the site: scope is decided again for the final URL.
        let still_internal = task.inline.is_some() || self.filter.is_internal(&fetched.final_url);
        // When redirects (or a folder's index.html) lead to another URL, that URL is claimed
        // too: if it is already known under its own name, its own check parses it, and this
        // one must not parse the same document again.
        let mut alias = None;
        let mut parse = true;
        if fetched.final_url != task.url {
            let key = cache_key(&fetched.final_url);
            if key != task.key {
                parse = self.cache.claim_alias(&key);
                alias = parse.then_some(key);
            }
        }
        if let Some(body) = fetched.body
            && parse
            && still_internal
            && !self.cancel.is_cancelled()
        {
            result.links_found = self.queue_children(&body, &fetched.final_url, task.level + 1);
        }
        result.check_time = start.elapsed();
        (result, alias)
    }

    /// Extracts the links of a page and considers each. Returns how many links it had.
    fn queue_children(&self, body: &[u8], page: &Url, level: usize) -> usize {
        let doc = extract_html(body);
        let base = doc
            .base
            .as_deref()
            .and_then(|b| page.join(b.trim()).ok())
            .unwrap_or_else(|| page.clone());
        let from_web = matches!(page.scheme(), "http" | "https");
        let parent = page.to_string();
        let n = doc.links.len();
        for link in doc.links {
            let RawLink {
                value,
                line,
                column,
                name,
                ..
            } = link;
            let url = base
                .join(&value)
                .map_err(|e| format!("cannot resolve `{value}': {e}"));
            let referrer = Referrer {
                parent: parent.clone(),
                raw: value.clone(),
                line: Some(line),
                column: Some(column),
                name,
                base: doc.base.clone(),
            };
            self.consider(url, Some(referrer), value, level, false, from_web, None);
        }
        n
    }
}
