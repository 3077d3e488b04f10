//! The engine's side of the state file that workers see: reusing a fresh result instead of
//! requesting its URL, and adding this run to a broken URL's history. Both only read
//! `Run::remembered`, loaded before the workers started (no lock, no I/O).

use std::time::SystemTime;

use url::Url;

use crate::extract::format::{Format, is_html, is_parsed};
use crate::fetch::Validators;
use crate::model::outcome::CheckResult;
use crate::state::{PageLinks as StoredLinks, cached_from_info, unpack};

use super::run::{Run, Task};

impl Run {
    /// The stored result to use for `url` instead of requesting it, when there is a fresh
    /// one and the check would not parse the content: the URL is not to be parsed
    /// (`parse` false: external, a leaf, beyond the recursion limit), what it held last time
    /// is not a format that is parsed, or it was broken (only under `cache_failures`). Not with plugins: their hooks need the response.
    pub(super) fn reuse(
        &self,
        key: &str,
        url: &Url,
        level: usize,
        parse: bool,
    ) -> Option<CheckResult> {
        let known = self.remembered.as_ref()?;
        if self.plugins.active() || !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        // Its `https:` twin is tried only when the URL is checked.
        if self.require_https && url.scheme() == "http" {
            return None;
        }
        let stored = known.cached(key)?;
        // A working page must be fetched to be parsed; a broken one is never parsed.
        if parse && !stored.outcome.is_broken() && is_parsed(url, stored.content_type.as_deref()) {
            return None;
        }
        let mut result = CheckResult::clone(stored);
        result.level = level;
        if let Some(when) = result.cached_from {
            result.infos.push(cached_from_info(when));
        }
        Some(result)
    }

    /// Adds this run to the broken history of `key`'s result (see `StoredVersion::annotate`).
    pub(super) fn annotate(&self, key: &str, result: &mut CheckResult) {
        if let Some(known) = &self.remembered {
            known.annotate(key, SystemTime::now(), result);
        }
    }
}

/// A page as the last run parsed it (see [`Run::stored_page`]).
#[derive(Debug)]
pub(super) struct StoredVersion {
    /// Sent back so that an unchanged page answers 304.
    pub(super) validators: Validators,
    /// Its links then.
    pub(super) links: StoredLinks,
    /// Its media type then.
    pub(super) content_type: Option<String>,
}

impl Run {
    /// For a page this task will parse over HTTP: what identified it when it was last parsed,
    /// and its links then (unpacked now, so a page whose blob cannot be read is simply fetched
    /// in full). Not with plugins, which need the body.
    pub(super) fn stored_page(&self, task: &Task) -> Option<StoredVersion> {
        let known = self.remembered.as_ref()?;
        if !task.recurse
            || task.inline.is_some()
            || self.plugins.active()
            || !matches!(task.url.scheme(), "http" | "https")
        {
            return None;
        }
        let page = known.page(&task.key)?;
        // Kept without validators (for `--resume`): nothing to ask the server with.
        if page.etag.is_none() && page.last_modified.is_none() {
            return None;
        }
        let links = unpack(&page.links)?;
        let validators = Validators {
            etag: page.etag.clone(),
            last_modified: page.last_modified.clone(),
        };
        Some(StoredVersion {
            validators,
            links,
            content_type: page.content_type.clone(),
        })
    }

    /// `true` when the links of this task's page go to the state file: an HTML page or a
    /// stylesheet over HTTP, with a state file and no plugin. (Markdown, sitemaps and text
    /// are fetched again: how they are read depends on more than their links, such as the
    /// level a text file is found at.)
    pub(super) fn records_page(&self, task: &Task, content_type: Option<&str>) -> bool {
        self.remembered.is_some()
            && task.inline.is_none()
            && !self.plugins.active()
            && matches!(task.url.scheme(), "http" | "https")
            && (is_html(content_type) || Format::of(content_type) == Some(Format::Css))
    }
}
