//! `--resume` in the engine: a page that the interrupted run parsed, and whose result it
//! kept, is not requested again; its stored result stands and its stored links are replayed
//! (as after a 304), so the crawl walks through it to the URLs that run had not finished.

use std::time::Instant;

use crate::model::outcome::CheckResult;
use crate::state::unpack;

use super::check_task::NOT_MODIFIED;
use super::run::{Checked, Run, Task};

impl Run {
    /// The check of `task` from the interrupted run, when that run parsed the page at this
    /// URL (no redirect) and kept its working result: that result, its links replayed. `None`
    /// for anything else, which is checked as usual. Not with plugins (their hooks need the
    /// response) nor for in-memory documents.
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
        let page = known.page(&task.key).filter(|p| p.resumed)?;
        let stored = known.cached(&task.key)?;
        if stored.outcome.is_broken() || stored.real_url.is_some() || !stored.redirects.is_empty() {
            return None;
        }
        let links = unpack(&page.links)?;
        let start = Instant::now();
        let mut result = CheckResult::clone(stored);
        result.level = task.level;
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
            result.links_found =
                self.replay_children(links, &task.url, level + 1, own, keep.as_mut());
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
}
