//! The engine's side of the state file that workers see: reusing a fresh result instead of
//! requesting its URL, and adding this run to a broken URL's history. Both only read
//! `Run::remembered`, loaded before the workers started (no lock, no I/O).

use std::time::SystemTime;

use url::Url;

use crate::extract::format::is_parsed;
use crate::model::outcome::CheckResult;
use crate::state::format_date;

use super::run::Run;

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
        let stored = known.cached(key)?;
        // A working page must be fetched to be parsed; a broken one is never parsed.
        if parse && !stored.outcome.is_broken() && is_parsed(url, stored.content_type.as_deref()) {
            return None;
        }
        let mut result = CheckResult::clone(stored);
        result.level = level;
        if let Some(when) = result.cached_from {
            result
                .infos
                .push(format!("cached from {}", format_date(when)));
        }
        Some(result)
    }

    /// Adds this run to the broken history of `key`'s result (see `Remembered::annotate`).
    pub(super) fn annotate(&self, key: &str, result: &mut CheckResult) {
        if let Some(known) = &self.remembered {
            known.annotate(key, SystemTime::now(), result);
        }
    }
}
