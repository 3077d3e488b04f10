//! Admitting a link into the run: claim its cache key, then — for a key seen for the first
//! time — decide (scope, patterns, depth) and queue it or finish it at once (ignored, mail,
//! over the URL limit, longer than the longest URL requested: `policy::url_cap`); a known key
//! records one more referrer. The same for redirect hops and robots.txt `Sitemap:` lines. A
//! new key found once the cache holds `--max-urls` keys is only counted (`Run::over_limit`):
//! nothing is stored for it, so memory stays bounded by the limit.
//! After a cancel no new key is taken at all: the run stops discovering URLs.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use url::Url;

use crate::config::shard::FoundLink;
use crate::engine::cache::{Claim, Occurrence, PageEdges};
use crate::fetch::http::host_key;
use crate::model::link_site::LinkSite;
use crate::model::outcome::{CheckResult, FailKind, Outcome};
use crate::model::redact::redact;
use crate::model::stats::SkipReason;
use crate::policy::filter::Decision;
use crate::policy::mail::check_mailto;
use crate::policy::origin::origin_text;
use crate::policy::remap::{Remapped, remap};
use crate::policy::url_cap;
use crate::policy::url_norm::{cache_key, cache_key_ref};

use super::run::{Message, Run, Task};

/// How a link reached the run: what its decision depends on besides the URL itself.
#[derive(Debug, Clone, Copy)]
pub(super) struct Via<'e> {
    /// The link's recursion level (start inputs: 0).
    pub(super) level: usize,
    /// A start input: in scope whatever the filters say.
    pub(super) seed: bool,
    /// Found on a page (or in a redirect) that came over HTTP(S): a `file:` link from there is
    /// not followed.
    pub(super) from_web: bool,
    /// May be followed: no `rel=nofollow` and no `<meta name=robots content=nofollow>`.
    pub(super) follow: bool,
    /// Handed over by another shard (`Config::found_link`): checked here, never exported.
    pub(super) handed: bool,
    /// The edges from the page the link is on, for the link graph that settles levels
    /// (`cache/levels.rs`).
    pub(super) from: Option<&'e PageEdges<'e>>,
    /// Redirect hops before it, when a redirect chain handed it over (see [`Task`]'s field of
    /// the same name); 0 for a link.
    pub(super) redirected: usize,
}

impl<'e> Via<'e> {
    /// A link found on a page at `level`.
    pub(super) fn link(level: usize, from_web: bool, follow: bool) -> Self {
        Via {
            level,
            seed: false,
            from_web,
            follow,
            handed: false,
            from: None,
            redirected: 0,
        }
    }

    /// The filter's decision about `url` reached this way.
    fn decide(self, run: &Run, url: &Url) -> Decision {
        run.filter.decide(url, self.level, self.seed, self.from_web)
    }
}

/// What a claim leaves to do with the link's URL (see [`Run::claim_link`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    /// A known key that a parse at this link's level may still upgrade ([`Run::upgrade`]).
    Upgrade,
    /// A new key: decide and queue it or finish it ([`Run::start`]).
    Start,
}

impl Run {
    /// Feeds one start input into the run (on the supervisor thread, before it waits for the
    /// queue to go idle).
    pub(crate) fn seed(&self, url: Url, inline: Option<Arc<str>>) {
        // A start site on a host another shard owns is that shard's to crawl.
        if self.shard.is_some_and(|s| !s.owns(&url)) {
            return;
        }
        let via = Via {
            seed: true,
            from_web: false,
            ..Via::link(0, false, true)
        };
        self.consider(Ok(url), None, String::new(), via, inline);
    }

    /// A link's URL after the remap rules, or in the checkout of its GitHub repository, with
    /// the URL it had before when it was rewritten (credentials masked). A rewrite that is no
    /// URL makes the link invalid.
    pub(super) fn remapped(
        &self,
        url: Result<Url, String>,
    ) -> (Result<Url, String>, Option<Box<str>>) {
        let Ok(u) = &url else {
            return (url, None);
        };
        if self.remap.is_empty() {
            return self.checked_out(url);
        }
        match remap(&self.remap, u) {
            Remapped::Same => self.checked_out(url),
            Remapped::To(new) => {
                if let Some(github) = &self.github {
                    github.note_remapped(u, &new);
                }
                (Ok(new), Some(redact(u.as_str()).into()))
            }
            Remapped::Invalid(message) => (Err(message), Some(redact(u.as_str()).into())),
        }
    }

    /// A link to a file of a GitHub repository checked out here, as its local file (with the
    /// link as written, to report; see `policy::github_checkout`); any other link as it is.
    fn checked_out(&self, url: Result<Url, String>) -> (Result<Url, String>, Option<Box<str>>) {
        if let Ok(u) = &url
            && u.scheme() != "file"
            && let Some(local) = self.checkouts.iter().find_map(|c| c.local(u))
        {
            return (Ok(local), Some(redact(u.as_str()).into()));
        }
        (url, None)
    }

    /// Takes a result of an earlier run (`Config::reuse_result`) as this run's result for its
    /// URL: its key is claimed and finished at once, with no occurrence; links to it then get
    /// rows with this result, and no request is made. A key already claimed keeps its claim.
    pub(crate) fn seed_reused(&self, result: &CheckResult) {
        let Ok(url) = Url::parse(&result.url) else {
            return;
        };
        let key = cache_key(&url);
        if self.cache.claim_alias(&key) {
            self.complete(&key, result.clone());
        }
    }

    /// Feeds one link another run found (a shard's export) into the run, as if it had been
    /// found on its page: checked, never recursed into (its page is not a start site here).
    pub(crate) fn seed_found(&self, link: FoundLink) {
        let from_web = link.parent.starts_with("http://") || link.parent.starts_with("https://");
        let site = LinkSite {
            parent: Arc::from(link.parent.as_str()),
            raw: link.raw.clone(),
            line: link.line,
            column: link.column,
            name: link.name,
            base: link.base.as_deref().map(Arc::from),
            warnings: Vec::new(),
            remapped_from: None,
            rendered: false,
        };
        let url = Url::parse(&link.url).map_err(|e| e.to_string());
        let via = Via {
            handed: true,
            ..Via::link(link.level, from_web, false)
        };
        self.consider(url, Some(site), link.raw, via, None);
    }

    /// Finishes a link that is broken as written, or not to be checked (no URL to check):
    /// claimed under `key`, its verdict `outcome` stored once (and counted as `skip`, when
    /// given), reported for each occurrence.
    pub(super) fn finish_unresolved(
        &self,
        key: String,
        site: Option<LinkSite>,
        raw: String,
        outcome: Outcome,
        via: Via<'_>,
        skip: Option<SkipReason>,
    ) {
        let level = via.level;
        let occ = Occurrence {
            site,
            fragment: None,
        };
        match self
            .cache
            .claim_at(&key, move || occ, level, false, via.from)
            .0
        {
            Claim::New => {
                if let Some(why) = skip {
                    self.skipped.add(why);
                }
                self.complete(&key, CheckResult::immediate(raw, outcome, level));
            }
            Claim::Pending => {}
            Claim::Done(r, occ, first) => self.send(&r, occ(), !first),
            Claim::Quiet(occ) => {
                drop(occ);
                self.unreported.fetch_add(1, Ordering::Relaxed);
            }
            Claim::OverLimit(occ) => {
                drop(occ);
                self.count_over_limit();
            }
        }
    }

    /// Handles one link: claim it, then decide and queue it or finish it at once (a new key),
    /// or record a referrer (a known one).
    pub(super) fn consider(
        &self,
        url: Result<Url, String>,
        site: Option<LinkSite>,
        raw: String,
        via: Via<'_>,
        inline: Option<Arc<str>>,
    ) {
        let level = via.level;
        let url = match url {
            Ok(u) => u,
            Err(message) => {
                let outcome = Outcome::Failed {
                    kind: FailKind::InvalidUrl,
                    message,
                };
                // Over the cap, as for a URL: a digest and the first characters are kept.
                let (key, raw) = if raw.len() > url_cap::MAX_URL_LENGTH {
                    (url_cap::digest_key("invalid", &raw), url_cap::shown(&raw))
                } else {
                    (format!("invalid:{raw}"), raw)
                };
                self.finish_unresolved(key, site, raw, outcome, via, None);
                return;
            }
        };
        let fragment = url.fragment().filter(|f| !f.is_empty()).map(str::to_owned);
        // A URL over the cap is kept as a digest and its link shortened: it is never requested
        // (`start`), so its bytes need not be kept (`url_cap`).
        let too_long = url_cap::is_too_long(&url);
        let key = if too_long {
            Cow::Owned(url_cap::too_long_key(&url))
        } else {
            // Borrowed from `url` (no copy) unless the URL is queued or upgraded below.
            // A local folder with an index.html and the index.html are one key
            // (`document_key`).
            self.files.document_key(&url, cache_key_ref(&url))
        };
        let site = match site {
            Some(mut s) if too_long => {
                s.raw = url_cap::shown(&s.raw);
                Some(s)
            }
            site => site,
        };
        let warned = site.as_ref().is_some_and(|s| !s.warnings.is_empty());
        let occ = Occurrence { site, fragment };
        match self.claim_link(&key, warned, move || occ, level, via.from) {
            None => {}
            // Never requested, so never parsed: nothing to upgrade.
            Some(Next::Upgrade) if too_long => {}
            Some(next) => {
                let key = key.into_owned();
                self.carry_on(next, key, url, via, inline);
            }
        }
    }

    /// Claims `key` for one link and does what needs no URL: counts a quiet or over-limit
    /// link, sends a link to a checked URL. Returns what is left to do with the URL
    /// ([`Run::carry_on`]), `None` when nothing is: the fast path of a link seen before, which
    /// `consider_link` takes without building a `Url`.
    ///
    /// `occ` builds the link's occurrence, only when it is kept or sent (see
    /// [`ResultCache::claim_at`](super::cache::ResultCache::claim_at)); `warned`: it will
    /// have warnings of its own.
    pub(super) fn claim_link(
        &self,
        key: &str,
        warned: bool,
        occ: impl FnOnce() -> Occurrence,
        level: usize,
        from: Option<&PageEdges<'_>>,
    ) -> Option<Next> {
        // What `send` would do with a quiet result, decided before the claim so that the claim
        // can skip the result: no plugin looks at links, and the occurrence has no warnings.
        let quiet_ok = self.only_problems && !self.plugins.active() && !warned;
        match self.cache.claim_at(key, occ, level, quiet_ok, from) {
            (Claim::Quiet(occ), covered) => {
                // Not built; what it holds (a built occurrence) is freed here, not under the
                // shard's lock.
                drop(occ);
                self.unreported.fetch_add(1, Ordering::Relaxed);
                (!covered).then_some(Next::Upgrade)
            }
            (Claim::OverLimit(occ), _) => {
                // Past `--max-urls`, or after a cancel: not stored (not built, or freed here,
                // not under the lock).
                drop(occ);
                self.count_over_limit();
                None
            }
            (Claim::Pending, true) => None,
            (Claim::Pending, false) => Some(Next::Upgrade),
            (Claim::Done(r, occ, first), covered) => {
                // The first row of a URL finished without one (a redirect hop) is not a cached
                // row: it is counted as the URL's first.
                self.send(&r, occ(), !first);
                (!covered).then_some(Next::Upgrade)
            }
            (Claim::New, _) => Some(Next::Start),
        }
    }

    /// The rest of a claim that needs the link's URL (see [`Run::claim_link`]).
    pub(super) fn carry_on(
        &self,
        next: Next,
        key: String,
        url: Url,
        via: Via<'_>,
        inline: Option<Arc<str>>,
    ) {
        match next {
            Next::Upgrade => self.upgrade(&key, url, via),
            Next::Start => {
                let mut clean = url;
                clean.set_fragment(None);
                self.start(key, clean, via, inline);
            }
        }
    }

    /// A later claim of `key`: when its own decision is to parse the page, the page must be
    /// parsed (at the lowest such level) whatever the first claim decided — so the pages
    /// crawled do not depend on which link was claimed first (see `cache`, "Upgrades to
    /// parse"). A parse job is queued here, inside the task that found the link, so before
    /// that task's `task_done`.
    pub(super) fn upgrade(&self, key: &str, url: Url, via: Via<'_>) {
        if !via.follow {
            return;
        }
        if let Decision::Check {
            internal,
            recurse: true,
        } = via.decide(self, &url)
            && let Some(up) = self.cache.upgrade(key, via.level)
        {
            self.carry_out(up, &url, internal);
        }
    }

    /// Decides about a URL whose key the caller just claimed: queues it, or finishes it at
    /// once (ignored, mail, too long to request, over the URL limit).
    pub(super) fn start(&self, key: String, clean: Url, via: Via<'_>, inline: Option<Arc<str>>) {
        let Via { level, follow, .. } = via;
        match via.decide(self, &clean) {
            Decision::Check { .. } if url_cap::is_too_long(&clean) => {
                let r = CheckResult::immediate(
                    url_cap::shown(&redact(clean.as_str())),
                    url_cap::too_long(&clean, "the URL"),
                    level,
                );
                self.complete(&key, r);
            }
            Decision::Check { .. } if self.over_url_limit() => {
                self.skipped.add(SkipReason::UrlLimit);
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
            // Phase 1 of a sharded check: an external link, or a page on a start site another
            // shard owns, is exported to the owner of its host, which checks it in phase 2
            // (an external link to a host this shard owns too: so that a URL linked from
            // several shards' pages is requested once, by its owner, in phase 2).
            Decision::Check { internal, .. }
                if !via.handed
                    && let Some(shard) = self.shard
                    && let Some(owner) = shard.owner_of(&clean)
                    && (!internal || owner != shard.index()) =>
            {
                let shard = self.shard.map_or(0, |s| s.count());
                let reason = format!("exported: shard {owner}/{shard} checks this host");
                let mut r =
                    CheckResult::immediate(clean.to_string(), Outcome::Ignored { reason }, level);
                r.exported_to = Some(owner);
                self.complete(&key, r);
            }
            Decision::Check { internal, recurse } => {
                if let Some(reused) = self.reuse(&key, &clean, level, recurse && follow) {
                    self.complete(&key, reused);
                    return;
                }
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
                    redirected: via.redirected,
                    resume: None,
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
                    CheckResult::immediate(url_cap::result_url(&clean), outcome, level),
                );
            }
            Decision::Ignore(why, reason) => {
                self.skipped.add(why);
                let r = CheckResult::immediate(
                    url_cap::result_url(&clean),
                    Outcome::Ignored { reason },
                    level,
                );
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
    /// URL's result does not depend on whether a redirect or a link reached it first — except
    /// for the budget: a URL claimed here gets the chain's `hops` so far, which count against
    /// `max_redirects` (one chain, one budget: a chain that alternates hosts ends too).
    pub(super) fn claim_hop(&self, task: &Task, next: &Url, hops: usize) -> bool {
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
            let owned = self.cache.claim_alias(&key);
            self.cache.redirect(&task.key, &key, owned);
            return owned;
        }
        if self.cache.claim_alias(&key) {
            self.cache.redirect(&task.key, &key, false);
            let mut clean = next.clone();
            clean.set_fragment(None);
            let via = Via {
                redirected: hops,
                ..Via::link(task.level, true, task.follow)
            };
            self.start(key, clean, via, None);
        } else {
            self.cache.redirect(&task.key, &key, false);
        }
        false
    }

    /// Counts a link to a new URL the cache refused: past `--max-urls`. After a cancel the
    /// cache refuses every new key (`ResultCache::stop_new_keys`): such a link is not
    /// counted, the run is over and the limit played no part.
    fn count_over_limit(&self) {
        if !self.cache.stopped_new_keys() {
            self.over_limit.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// `true` once more distinct URLs were claimed than `max_urls` allows.
    pub(super) fn over_url_limit(&self) -> bool {
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
            |robots_url| self.robots_txt(robots_url),
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

    /// The robots.txt at `robots_url`: the one the interrupted run obeyed, under `--resume`,
    /// else fetched (and sent to the state file, when there is one).
    fn robots_txt(&self, robots_url: &Url) -> Option<Vec<u8>> {
        let origin = origin_text(robots_url);
        if let Some(stored) = self
            .remembered
            .as_ref()
            .and_then(|known| known.robots_txt(&origin))
        {
            return stored.map(<[u8]>::to_vec);
        }
        let body = self.fetch.fetch_robots(robots_url);
        if self.remembered.is_some() {
            let _ = self
                .tx
                .send(Message::Robots(origin.into_owned(), body.clone()));
        }
        body
    }

    /// Queues the `Sitemap:` URLs of a start site's robots.txt, as links found in robots.txt.
    pub(super) fn seed_from_sitemaps(&self, url: &Url, sitemaps: &[String]) {
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
                remapped_from: None,
                rendered: false,
            };
            let parsed = robots_url
                .join(raw.trim())
                .map_err(|e| format!("cannot resolve `{raw}': {e}"));
            let (parsed, remapped_from) = self.remapped(parsed);
            let site = LinkSite {
                remapped_from,
                rendered: false,
                ..site
            };
            self.consider(
                parsed,
                Some(site),
                raw.clone(),
                Via::link(1, true, true),
                None,
            );
        }
    }
}
