//! Checking one task: robots.txt, the fetch (through the run's `Fetch`), the result with its
//! warnings, and, for a page to be parsed, its links handed to `page_links`.

use std::time::Instant;

use url::Url;

use crate::extract::charset::decode_html;
use crate::extract::format::{is_html, is_parsed};
use crate::fetch::{self, Chain, Fetched, Resume};
use crate::model::outcome::{CheckResult, FailKind, Outcome, Warning, mask_url};
use crate::model::redact::redact;
use crate::model::stats::SkipReason;
use crate::policy::url_norm::cache_key;
use crate::policy::wayback;

use super::run::{Checked, Message, Run, Task};
use crate::state::StoredPage;

use super::page_links::PageRecord;

/// URLs longer than this get the `url-too-long` warning (browsers and servers start failing
/// around 2,000 characters).
const MAX_URL_LENGTH: usize = 2000;

pub(super) use crate::model::outcome::NOT_MODIFIED;

/// The cache key of the content a check of `task` read at `final_url`: the task's own key,
/// or that of the redirect target its chain claimed and requested (the last of `owned`);
/// `None` when the chain stopped elsewhere.
fn content_key(task: &Task, final_url: &Url, owned: &[(String, usize)]) -> Option<String> {
    if *final_url == task.url {
        return Some(task.key.clone());
    }
    let key = cache_key(final_url);
    owned
        .last()
        .filter(|(k, _)| *k == key && matches!(final_url.scheme(), "http" | "https"))
        .map(|(k, _)| k.clone())
}

impl Run {
    /// Checks one task and queues its children. Never holds a lock across I/O. Also returns
    /// the key of the final URL when the check claimed it as an alias (see below).
    pub(super) fn check(&self, task: &Task) -> Checked {
        let start = Instant::now();
        if let Some(checked) = self.check_resumed(task) {
            return checked;
        }
        if task.inline.is_none() && !self.robots_allow(&task.url) {
            self.skipped.add(SkipReason::Robots);
            let reason = "disallowed by robots.txt (use --no-robots to check it anyway)".to_owned();
            let mut result = CheckResult::immediate(
                redact(task.url.as_str()).into_owned(),
                Outcome::Ignored { reason },
                task.level,
            );
            result.internal = task.internal;
            // A start URL not checked is no silent pass: it is warned about, without `-v`.
            if task.level == 0 {
                result.warnings.push(Warning {
                    tag: "robots-denied",
                    message: "robots.txt disallows this start URL: nothing was checked \
                              (--no-robots checks it anyway)."
                        .into(),
                });
                result.warnings.retain(|w| self.keeps(w));
            }
            return Checked {
                result,
                owned: Vec::new(),
                stopped_at: None,
                deferred: None,
            };
        }
        let stored = self.stored_page(task);
        let claim = |next: &Url, hops: usize| self.claim_hop(task, next, hops);
        let chain = Chain {
            before: task.redirected,
            claim: &claim,
            probe: false,
        };
        let fetched = if let Some(html) = &task.inline {
            let mut f = Fetched::bare(&task.url, Outcome::Ok { status: None });
            f.content_type = Some("text/html".into());
            f.size = Some(html.len() as u64);
            f.body = Some(html.as_bytes().to_vec());
            f
        } else if let Some(page) = &stored {
            self.fetch
                .fetch_if_changed(&task.url, &page.validators, chain)
        } else {
            // A claim that wants the page parsed may have come after the task was queued.
            // Soft 404s are told by the body: links are then checked with GET.
            let want_body = task.recurse
                || self.cache.wants_parse(&task.key)
                || (self.soft_404.is_some() && matches!(task.url.scheme(), "http" | "https"));
            let mut resume = task.resume.as_deref().cloned().unwrap_or_default();
            // Broken when last checked: asked with GET at once, as a failed HEAD would be,
            // so a known failure costs one request, not a HEAD and a GET.
            resume.get |= self
                .remembered
                .as_ref()
                .is_some_and(|known| known.broken.contains_key(&task.key));
            let fetched = self
                .fetch
                .fetch_deferrable(&task.url, want_body, chain, &resume);
            if let Some((_, get)) = fetched.deferred {
                // Its first request would wait for the host: the worker hands the task back.
                return Checked {
                    result: CheckResult::immediate(String::new(), fetched.outcome, task.level),
                    owned: Vec::new(),
                    stopped_at: None,
                    deferred: Some(Resume {
                        retries: fetched.retries,
                        get,
                        warnings: fetched.warnings,
                    }),
                };
            }
            fetched
        };
        // Not modified since it was parsed: its stored links stand for its body.
        let mut replay = stored.filter(|_| {
            fetched.outcome.status() == Some(304)
                && fetched.redirects.is_empty()
                && fetched.stopped_at.is_none()
        });
        let etag = fetched.etag.clone();
        let mut fetched = fetched;
        if let Some(page) = &replay {
            fetched.outcome = Outcome::Ok { status: Some(304) };
            fetched.content_type = page.content_type.clone();
        }
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
        if fetched.sniffed
            && let Some(ct) = &fetched.content_type
        {
            result.infos.push(format!(
                "sent without a usable Content-Type: read as {ct}, as a browser sniffs it"
            ));
        }
        result.content_type = fetched.content_type;
        result.size = fetched.size;
        result.download_time = fetched.download_time;
        result.modified = fetched.modified;
        result.warnings = fetched.warnings;
        if self.accept_timeouts {
            accept_timeout(&mut result);
        }
        if self.require_https && task.inline.is_none() && fetched.stopped_at.is_none() {
            self.note_https_twin(&task.url, &fetched.final_url, &mut result);
        }
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
                self.cache.redirect(&task.key, &key, parse);
                if parse {
                    owned.push((key, result.redirects.len()));
                }
            }
        }
        // Before the links are queued, so the verdict on this page is complete when its own
        // links (`#section`) are counted.
        self.add_url_warnings(&mut result, &task.url);
        if let Some(body) = &fetched.body
            && task.inline.is_none()
            && fetched.stopped_at.is_none()
            && result.outcome == (Outcome::Ok { status: Some(200) })
            && is_html(result.content_type.as_deref())
        {
            self.note_soft_404(&task.url, body, &mut result.warnings);
        }
        // The task's own decision, and every later claim that wants the page parsed: the
        // lowest level wins (see `cache`, "Upgrades to parse").
        let own_level = (task.recurse || task.inline.is_some()).then_some(task.level);
        let mut keys: Vec<&str> = owned.iter().map(|(k, _)| k.as_str()).collect();
        keys.push(&task.key);
        if replay.is_some() {
            result.infos.push(NOT_MODIFIED.into());
        }
        if let Some(page) = replay.take()
            && parse
            && still_internal
            && !self.cancel.is_cancelled()
            && let Some(level) = self.cache.take_parse(&keys, own_level)
        {
            let own =
                (self.only_problems && !self.plugins.active() && fetched.final_url == task.url)
                    .then_some(&result);
            let mut keep = self.filter.has_depth_limit().then(Vec::new);
            result.links_found = self.replay_children(
                &page.links,
                &fetched.final_url,
                level + 1,
                own,
                keep.as_mut(),
                self.cache.edges_from(&task.key).as_ref(),
            );
            if let Some(keep) = keep {
                self.cache.set_links(&keys, keep);
            }
        } else if let Some(body) = fetched.body
            && parse
            && still_internal
            && !self.cancel.is_cancelled()
            && let Some(level) = self.cache.take_parse(&keys, own_level)
        {
            let content_type = result.content_type.as_deref();
            let (body, query_encoding) = if is_html(content_type) {
                decode_html(&body, fetched.charset.as_deref())
            } else {
                (body.into(), None)
            };
            let mut facts = self.plugins.page_facts();
            // Links to the page itself can be counted at once when only problems are reported,
            // no plugin looks at links, and this page is no problem (see `queue_children`).
            let own =
                (self.only_problems && !self.plugins.active() && fetched.final_url == task.url)
                    .then_some(&result);
            let mut links = self.filter.has_depth_limit().then(Vec::new);
            let mut record = self
                .records_page(task, content_type)
                .then(|| PageRecord::for_body(body.len()));
            let (found, unreadable) = self.queue_children(
                &body,
                &fetched.final_url,
                level + 1,
                content_type,
                query_encoding,
                facts.as_mut(),
                own,
                links.as_mut(),
                record.as_mut(),
                self.cache.edges_from(&task.key).as_ref(),
            );
            result.links_found = found;
            // A damaged PDF or Office document is said, never passed as one without links.
            if let Some(why) = unreadable {
                let warning = Warning {
                    tag: "document-unreadable",
                    message: format!("The document could not be read for links: {why}."),
                };
                if self.keeps(&warning) {
                    result.warnings.push(warning);
                }
            }
            // Kept with or without validators: `--resume` replays a page without them too.
            // Under the key of the URL whose content it is: the task's, or the redirect
            // target this chain requested as an alias (the validators are that response's).
            if let Some(record) = record
                && let Some(key) = content_key(task, &fetched.final_url, &owned)
            {
                let page = StoredPage {
                    etag,
                    last_modified: result.modified.clone(),
                    content_type: result.content_type.clone(),
                    links: record.finish(),
                    resumed: false,
                };
                let _ = self.tx.send(Message::Page(key, page));
            }
            if let Some(links) = links {
                // The keys are still pending: a lower level wanted meanwhile is looked after
                // by `serve_want` in `record`.
                self.cache.set_links(&keys, links);
            }
            if let Some(mut facts) = facts {
                if !self.cancel.is_cancelled() {
                    let page = &fetched.final_url;
                    self.plugins_render(task, page, &body, level + 1, &mut facts, &mut result);
                }
                self.plugins_on_content(task, &fetched.final_url, &body, &facts, &mut result);
            }
        }
        result.check_time = start.elapsed();
        if fetched.stopped_at.is_none() {
            self.suggest(task, &mut result);
        }
        Checked {
            result,
            owned,
            stopped_at: fetched.stopped_at,
            deferred: None,
        }
    }

    /// With `Config::suggest`: asks the web archive for the closest snapshot of a broken
    /// http(s) URL (one request to the archive's host, through its politeness slot).
    fn suggest(&self, task: &Task, result: &mut CheckResult) {
        let Some(endpoint) = &self.suggest else {
            return;
        };
        if !result.outcome.is_broken()
            || !matches!(task.url.scheme(), "http" | "https")
            || self.cancel.is_cancelled()
        {
            return;
        }
        let lookup = wayback::lookup_url(endpoint, task.url.as_str());
        result.suggestion = self
            .fetch
            .fetch_small(&lookup, wayback::MAX_ANSWER)
            .and_then(|body| wayback::closest_snapshot(&body));
    }

    /// With `Config::detect_soft_404`: the `soft-404` warning when the page at `url`
    /// (answered 200, `body` its HTML) says what its origin answers for a made-up path (see
    /// `soft_404`; the origin is asked once per run).
    fn note_soft_404(&self, url: &Url, body: &[u8], warnings: &mut Vec<Warning>) {
        let Some(soft) = &self.soft_404 else {
            return;
        };
        let probe = |made_up: &Url| {
            if self.cancel.is_cancelled() || !self.robots_allow(made_up) {
                return None;
            }
            let fetched = self.fetch.fetch(made_up, true, Chain::OWN);
            (fetched.outcome == Outcome::Ok { status: Some(200) })
                .then_some(fetched.body)
                .flatten()
        };
        if let Some(w) = soft.warning_for(url, body, probe)
            && self.keeps(&w)
        {
            warnings.push(w);
        }
    }

    /// Runs a parse job: one GET (a page that was only checked with HEAD needs it; redirects
    /// are followed without claiming anything), then its links are considered as any page's.
    /// The URL's result was recorded and reported by its check; nothing is recorded here.
    pub(super) fn parse_again(&self, task: &Task) {
        let fetched = self.fetch.fetch(&task.url, true, Chain::OWN);
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
        let (body, query_encoding) = if is_html(content_type) {
            decode_html(&body, fetched.charset.as_deref())
        } else {
            (body.into(), None)
        };
        let mut links = self.filter.has_depth_limit().then(Vec::new);
        self.queue_children(
            &body,
            &fetched.final_url,
            level + 1,
            content_type,
            query_encoding,
            None,
            None,
            links.as_mut(),
            None,
            self.cache.edges_from(&task.key).as_ref(),
        );
        if let Some(links) = links {
            for up in self.cache.set_links(&[&task.key], links) {
                self.carry_out(up, &task.url, task.internal);
            }
        }
    }

    /// `false` for a warning the user asked to ignore.
    pub(crate) fn keeps(&self, w: &Warning) -> bool {
        !self.ignore_warnings.iter().any(|t| t == w.tag)
    }

    /// Warnings about the URL itself and its content, then the ignore filter.
    pub(super) fn add_url_warnings(&self, result: &mut CheckResult, url: &Url) {
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
            result.warnings.push(Warning::empty_content());
        }
        result.warnings.retain(|w| self.keeps(w));
    }

    /// No silent pass for content we do not read: a start URL whose type we cannot parse
    /// (Markdown, plain text, PDF) is warned about, as LinkChecker does at level 0
    /// (`url-content-type-unparseable`); a folder without `index.html` says it was listed (a
    /// link to one from a page is warned about where it is found: `file-no-index`).
    pub(super) fn note_unparsed(&self, result: &mut CheckResult, task: &Task, final_url: &Url) {
        if !matches!(result.outcome, Outcome::Ok { .. }) || task.inline.is_some() {
            return;
        }
        if fetch::file::is_listing(final_url) {
            // A folder outside the checked ones was not listed: its warning says so.
            if result.warnings.iter().any(|w| w.tag == "outside-root") {
                return;
            }
            result.infos.push(format!(
                "A folder without {}: its entries are listed and checked.",
                self.files.index_names()
            ));
            return;
        }
        if let Some(ct) = result.content_type.as_deref()
            && task.level == 0
            && !is_parsed(final_url, Some(ct))
        {
            result.warnings.push(Warning {
                tag: "url-content-type-unparseable",
                message: format!("The URL with content type '{ct}' is not parseable."),
            });
        }
    }
}

/// The tag of a timed-out check counted as valid (`Config::accept_timeouts`).
const TIMEOUT_ACCEPTED: &str = "timeout-accepted";

/// `result`, when it timed out, made valid with the `timeout-accepted` warning that says so.
fn accept_timeout(result: &mut CheckResult) {
    if let Outcome::Failed {
        kind: FailKind::Timeout,
        message,
    } = &result.outcome
    {
        result.warnings.push(Warning {
            tag: TIMEOUT_ACCEPTED,
            message: format!("timed out ({message}): accepted (--accept-timeouts)"),
        });
        result.outcome = Outcome::Ok { status: None };
    }
}
