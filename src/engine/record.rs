//! Recording a finished check: its result under its key and every redirect hop it owned
//! (or deferred to the URL its chain stopped at), the parse jobs that claims asked for
//! meanwhile, and one report row per occurrence sent to the consumer.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use url::Url;

use crate::engine::cache::{Emission, Occurrence, Upgrade};
use crate::fetch::file::UNRENDERED;
use crate::model::link_site::LinkSite;
use crate::model::outcome::{CheckResult, Entry, FailKind, Outcome};
use crate::policy::filter::Decision;
use crate::policy::url_norm::cache_key_ref;

use super::run::{Checked, Message, Run, Task};

/// The result of the URL at hop `from` of a chain: the same verdict, its part of the chain.
pub(super) fn hop_view(result: &CheckResult, from: usize) -> CheckResult {
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

/// `true` for a result cut short by a cancel: no result, counted as unchecked.
fn is_interrupted(result: &CheckResult) -> bool {
    matches!(
        result.outcome,
        Outcome::Failed {
            kind: FailKind::Interrupted,
            ..
        }
    )
}

/// `true` for an entry that `Verbosity::Problems` shows: a broken URL, or a warning on the
/// URL or on this occurrence.
pub(super) fn is_problem(result: &CheckResult, site: Option<&LinkSite>) -> bool {
    result.outcome.is_broken()
        || !result.warnings.is_empty()
        || site.is_some_and(|s| !s.warnings.is_empty())
}

impl Run {
    /// Records a task's result under its key and under every redirect hop it requested, or
    /// defers them all on the known URL where its redirect chain stopped.
    pub(super) fn record(&self, task: &Task, checked: Checked) {
        let Checked {
            result,
            owned,
            stopped_at,
            deferred: _,
        } = checked;
        self.watch_session(&result);
        let mut done = Vec::new();
        let mut keys: Vec<String> = owned.iter().map(|(k, _)| k.clone()).collect();
        keys.push(task.key.clone());
        let mut result = result;
        self.mark_after_session_lost(&mut result);
        for (key, from) in owned {
            let mut hop = hop_view(&result, from);
            if stopped_at.is_none() {
                self.annotate(&key, &mut hop);
            }
            done.extend(match &stopped_at {
                Some(target) => self.cache.defer(&key, hop, target),
                None => self.cache.finish(&key, hop),
            });
        }
        done.extend(match &stopped_at {
            Some(target) => self.cache.defer(&task.key, result, target),
            None => {
                self.annotate(&task.key, &mut result);
                self.cache.finish(&task.key, result)
            }
        });
        // Claims that wanted a parse while the task ran and that it did not serve (it asked
        // with HEAD, or its chain stopped at a URL checked on its own): queued now, before
        // this task's `task_done`.
        for key in keys {
            if let Some(up) = self.cache.serve_want(&key) {
                self.carry_out(up, &task.url, task.internal);
            }
        }
        // A result this task checked that no link reached yet (a redirect hop) has no row to
        // carry it to the state file: sent on its own, as `--resume` answers a chain from the
        // file only when its URLs were kept.
        if self.remembered.is_some() {
            for (result, occurrences) in &done {
                if occurrences.is_empty() && !is_interrupted(result) {
                    let _ = self.tx.send(Message::Unlinked(result.clone()));
                }
            }
        }
        self.emit(done);
    }

    /// Carries out what an upgrade of the URL reached through `url` asks for: queues a parse
    /// job, or upgrades the links of a page parsed deeper, each one level below it (which may
    /// ask for more, handled here too: no recursion, however long the chain).
    pub(super) fn carry_out(&self, up: Upgrade, url: &Url, internal: bool) {
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
                        redirected: 0,
                        resume: None,
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
                            && let Some(next) = self.cache.upgrade(
                                &self.files.document_key(link, cache_key_ref(link)),
                                level + 1,
                            )
                        {
                            work.push((next, link.clone(), internal));
                        }
                    }
                }
            }
        }
    }

    /// Records a result that needed no task and reports it.
    pub(super) fn complete(&self, key: &str, mut result: CheckResult) {
        self.annotate(key, &mut result);
        let done = self.cache.finish(key, result);
        self.emit(done);
    }

    /// After a cancel: reports the redirects still waiting on targets that were never checked.
    pub(crate) fn abandon_waiting(&self) {
        let done = self.cache.abandon_waiting();
        self.emit(done);
    }

    /// Sends one entry per occurrence of each finished result.
    pub(super) fn emit(&self, done: Vec<Emission>) {
        for (result, occurrences) in done {
            if is_interrupted(&result) {
                // Not a result: counted as unchecked (`ResultCache::counts`).
                continue;
            }
            // A plain link (no warnings of its own) to a result that is neither broken nor
            // warned about, where only problems are reported and no plugin looks at links, is
            // only counted by `send` (its first as the URL's, `Counted`), never reported, not
            // even by the mdBook rule (it is for broken results): counted here without
            // rebuilding its occurrence.
            let counts = self.only_problems && !self.plugins.active() && !is_problem(&result, None);
            let mut counted = 0;
            for (i, o) in occurrences.into_links().enumerate() {
                if counts && o.is_plain() {
                    if i == 0 {
                        let _ = self.tx.send(Message::Counted(result.clone()));
                    }
                    counted += 1;
                } else {
                    self.send(&result, o.occurrence(), i > 0);
                }
            }
            if counted > 0 {
                self.unreported.fetch_add(counted, Ordering::Relaxed);
            }
        }
    }

    /// Builds and sends one entry: the only place an `Entry` is made, so its referrer's
    /// credentials are masked here, after the plugins saw it (the result's were masked when it
    /// was stored).
    /// The result of a link to an mdBook source the book does not render (broken on the
    /// book's site, see `fetch::file`) from a page that is no source of a book, or of a start
    /// input: good, as GitHub shows the file. `None` for any other link.
    fn unrendered_from_outside(
        &self,
        result: &CheckResult,
        o: &Occurrence,
    ) -> Option<Arc<CheckResult>> {
        let Outcome::Failed {
            kind: FailKind::FileNotFound,
            message,
        } = &result.outcome
        else {
            return None;
        };
        if !message.ends_with(UNRENDERED)
            || o.site
                .as_ref()
                .is_some_and(|s| !self.files.outside_books(&s.parent))
        {
            return None;
        }
        let mut good = result.clone();
        good.outcome = Outcome::Ok { status: None };
        good.infos.push(format!(
            "{UNRENDERED}; linked from outside the book, where the file itself is shown"
        ));
        Some(Arc::new(good))
    }

    pub(super) fn send(&self, result: &Arc<CheckResult>, mut o: Occurrence, cached: bool) {
        // A link whose fragment a plugin found broken has a result of its own.
        let own = self
            .plugins_on_link(result, &mut o)
            .or_else(|| self.unrendered_from_outside(result, &o));
        let result = own.as_ref().unwrap_or(result);
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
}
