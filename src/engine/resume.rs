//! `--resume` in the engine: a page that the interrupted run parsed, and whose result it
//! kept, is not requested again; its stored result stands and its stored links are replayed
//! (as after a 304), so the crawl walks through it to the URLs that run had not finished.
//! A URL that redirected is answered from the file too, once that run had finished the URL
//! its chain ended at: its result stands, and each later URL of the chain is claimed as a URL
//! of its own (as a live chain hands on a URL checked on its own), so the crawl goes on
//! through the final page, itself answered from its own row.

use std::time::Instant;

use url::Url;

use crate::model::outcome::CheckResult;
use crate::policy::url_norm::cache_key;
use crate::state::{Remembered, unpack};

use super::admit::Via;
use super::check_task::NOT_MODIFIED;
use super::run::{Checked, Run, Task};

impl Run {
    /// The check of `task` from the interrupted run, when that run parsed the page at this
    /// URL, or followed its redirects to a URL it finished, and kept the working result: that
    /// result, its links replayed (or its chain handed on). `None` for anything else, which is
    /// checked as usual. Not with plugins (their hooks need the response) nor for in-memory
    /// documents.
    pub(super) fn check_resumed(&self, task: &Task) -> Option<Checked> {
        let known = self.remembered.as_ref()?;
        if known.resuming.is_none()
            || !task.recurse
            || task.inline.is_some()
            || self.plugins.active()
            || !known.resumed.contains(&task.key)
        {
            return None;
        }
        let stored = known.cached(&task.key)?;
        if stored.outcome.is_broken() {
            return None;
        }
        let start = Instant::now();
        let mut result = CheckResult::clone(stored);
        result.level = task.level;
        if stored.real_url.is_some() || !stored.redirects.is_empty() {
            let chain = resumed_chain(known, stored)?;
            for (hops, url) in (1..).zip(chain) {
                self.hand_on(task, url, hops);
            }
            result.check_time = start.elapsed();
            return Some(Checked {
                result,
                owned: Vec::new(),
                stopped_at: None,
                deferred: None,
            });
        }
        let page = known.page(&task.key).filter(|p| p.resumed)?;
        let links = unpack(&page.links)?;
        // As the interrupted run reported it (a file of schema 2 kept no infos).
        if stored.outcome.status() == Some(304) && !result.infos.iter().any(|i| i == NOT_MODIFIED) {
            result.infos.push(NOT_MODIFIED.into());
        }
        if self.filter.is_internal(&task.url)
            && !self.cancel.is_cancelled()
            && let Some(level) = self.cache.take_parse(&[&task.key], Some(task.level))
        {
            let own = (self.only_problems && !self.plugins.active()).then_some(&result);
            let mut keep = self.filter.has_depth_limit().then(Vec::new);
            result.links_found = self.replay_children(
                &links,
                &task.url,
                level + 1,
                own,
                keep.as_mut(),
                self.cache.edges_from(&task.key).as_ref(),
            );
            if let Some(keep) = keep {
                self.cache.set_links(&[&task.key], keep);
            }
        }
        result.check_time = start.elapsed();
        Some(Checked {
            result,
            owned: Vec::new(),
            stopped_at: None,
            deferred: None,
        })
    }

    /// A URL of a resumed redirect chain, as the fetcher hands on a hop checked on its own
    /// (`Run::claim_hop`): claimed, and queued (or finished) with its own decision at the
    /// task's level, unless it is known already; `hops` before it count against its budget.
    fn hand_on(&self, task: &Task, url: Url, hops: usize) {
        let key = cache_key(&url);
        let new = self.cache.claim_alias(&key);
        self.cache.redirect(&task.key, &key, false);
        if new {
            let via = Via {
                redirected: task.redirected + hops,
                ..Via::link(task.level, true, task.follow)
            };
            self.start(key, url, via, None);
        }
    }
}

/// The URLs after the first of a stored redirect chain, up to the final one, when the
/// interrupted run finished that final URL (its verdict is the chain's); `None` otherwise
/// (the chain is requested again), also when a URL of the chain is not http(s) or had
/// credentials (stored masked, they are no longer the URL requested).
fn resumed_chain(known: &Remembered, stored: &CheckResult) -> Option<Vec<Url>> {
    let last = stored.real_url.as_ref()?;
    if !known.resumed.contains(&cache_key(last)) {
        return None;
    }
    let urls: Vec<Url> = stored
        .redirects
        .iter()
        .skip(1)
        .map(|hop| &hop.url)
        .chain([last])
        .map(|u| {
            let mut clean = u.clone();
            clean.set_fragment(None);
            clean
        })
        .collect();
    urls.iter()
        .all(|u| {
            matches!(u.scheme(), "http" | "https")
                && u.username().is_empty()
                && u.password().is_none()
        })
        .then_some(urls)
}
