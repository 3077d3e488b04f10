//! The hooks of the per-URL pipeline: each call site in `check_task` and `record` calls one
//! method here, which shows every configured plugin a view of the check and turns its remarks
//! into warnings, infos or a verdict; and the [`Services`] plugins get back (fetches through
//! the engine: robots.txt, politeness, retries and redirects, outside the result cache).
//!
//! No engine lock is held while a hook runs: hooks are called from `check` before the result
//! is recorded and from `send` after `cache.finish` returned.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use linkpatrol_plugin_api::{ContentView, LinkView, Page, Plugin, Remark, ResponseView, Services};
use url::Url;

use super::cache::Occurrence;
use super::plugin_host::PageFacts;
use super::run::{Run, Task};
use crate::extract::charset::html_to_utf8;
use crate::extract::format::{Format, is_html};
use crate::extract::{
    MAX_VISIBLE_TEXT, extract_html, markdown_anchors, markdown_text, visible_text,
};
use crate::fetch::Chain;
use crate::model::outcome::{CheckResult, FailKind, Outcome, Warning};

/// The [`Services`] of one run.
struct Engine<'a>(&'a Run);

impl Services for Engine<'_> {
    fn fetch(&self, url: &Url) -> Arc<Page> {
        let mut clean = url.clone();
        clean.set_fragment(None);
        self.0.plugins.page(&clean, || self.0.fetch_page(&clean))
    }

    fn peer_certificate(&self, url: &Url) -> Result<Arc<Vec<u8>>, String> {
        self.0.plugins.certificate(url)
    }

    fn cookie_header(&self, url: &Url) -> Option<String> {
        self.0.fetch.cookie_header(url)
    }

    fn pace(&self, url: &Url) -> Result<(), String> {
        if !self.0.robots_allow(url) {
            return Err("disallowed by robots.txt".into());
        }
        self.0.fetch.pace(url)
    }
}

impl Run {
    /// A page for [`Services::fetch`]: the engine's fetch (robots.txt, politeness, retries,
    /// redirects) and parse, without touching the crawl's result cache.
    fn fetch_page(&self, url: &Url) -> Page {
        if !self.robots_allow(url) {
            return Page {
                error: Some("disallowed by robots.txt".into()),
                ..Page::default()
            };
        }
        let fetched = self.fetch.fetch(url, true, Chain::OWN);
        let html = is_html(fetched.content_type.as_deref());
        let body = match fetched.body {
            Some(b) if html => html_to_utf8(&b, fetched.charset.as_deref()).into_owned(),
            Some(b) => b,
            None => Vec::new(),
        };
        let markdown = Format::of(fetched.content_type.as_deref()) == Some(Format::Markdown);
        // For text fragments (`#:~:text=`); a page fetched for plugins is one with fragments.
        let text = if body.is_empty() {
            String::new()
        } else if html {
            visible_text(&body, MAX_VISIBLE_TEXT)
        } else if markdown {
            markdown_text(&body, MAX_VISIBLE_TEXT)
        } else {
            String::new()
        };
        let anchors = if body.is_empty() {
            Vec::new()
        } else if html {
            let mut anchors = extract_html(&body).anchors;
            // With rendering on, the ids its scripts create count too.
            let view = ContentView {
                url,
                final_url: &fetched.final_url,
                content_type: fetched.content_type.as_deref(),
                body: &body,
                links: &[],
                anchors: &anchors,
                internal: self.filter.is_internal(&fetched.final_url),
            };
            let rendered: Vec<String> = self
                .plugins
                .plugins()
                .iter()
                .filter_map(|p| p.render(&view, &Engine(self)))
                .flat_map(|r| r.anchors)
                .collect();
            anchors.extend(rendered);
            anchors
        } else if markdown {
            markdown_anchors(&body)
        } else {
            Vec::new()
        };
        Page {
            final_url: Some(fetched.final_url),
            status: fetched.outcome.status(),
            ok: matches!(fetched.outcome, Outcome::Ok { .. }),
            content_type: fetched.content_type,
            error: match &fetched.outcome {
                Outcome::Ok { .. } => None,
                other => Some(other.to_string()),
            },
            body,
            anchors,
            text,
        }
    }

    /// Adds one plugin's remarks to a result: warnings and infos carry the plugin's name; a
    /// `Broken` verdict turns a reachable URL into a failed one.
    fn apply(&self, plugin: &dyn Plugin, remarks: Vec<Remark>, result: &mut CheckResult) {
        let name = plugin.name();
        for remark in remarks {
            match remark {
                Remark::Warning { tag, message } => result.warnings.push(Warning {
                    tag,
                    message: format!("{name}: {message}"),
                }),
                Remark::Info(info) => result.infos.push(format!("{name}: {info}")),
                Remark::Broken(message) => {
                    if matches!(result.outcome, Outcome::Ok { .. }) {
                        result.outcome = Outcome::Failed {
                            kind: FailKind::Plugin,
                            message: format!("{name}: {message}"),
                        };
                    }
                }
            }
        }
    }

    /// Hook: the run has ended (or was cancelled): each plugin releases what it runs outside
    /// the process. Called again at the very end; a plugin makes the second call cheap.
    pub(crate) fn plugins_finish(&self) {
        for p in self.plugins.plugins() {
            p.finish();
        }
    }

    /// Hook: a URL's response (or file) is known.
    pub(crate) fn plugins_on_response(
        &self,
        task: &Task,
        final_url: &Url,
        headers: &[(String, String)],
        result: &mut CheckResult,
    ) {
        if !self.plugins.active() {
            return;
        }
        let content_type = result.content_type.clone();
        let view = ResponseView {
            url: &task.url,
            final_url,
            status: result.outcome.status(),
            ok: matches!(result.outcome, Outcome::Ok { .. }),
            headers,
            content_type: content_type.as_deref(),
            internal: task.internal,
        };
        for p in self.plugins.plugins() {
            let remarks = p.check_response(&view, &Engine(self));
            self.apply(p.as_ref(), remarks, result);
        }
    }

    /// Hook: a page's content was read and parsed.
    pub(crate) fn plugins_on_content(
        &self,
        task: &Task,
        final_url: &Url,
        body: &[u8],
        facts: &PageFacts,
        result: &mut CheckResult,
    ) {
        let content_type = result.content_type.clone();
        let view = ContentView {
            url: &task.url,
            final_url,
            content_type: content_type.as_deref(),
            body,
            links: &facts.links,
            anchors: &facts.anchors,
            internal: task.internal,
        };
        for p in self.plugins.plugins() {
            let remarks = p.check_content(&view, &Engine(self));
            self.apply(p.as_ref(), remarks, result);
        }
    }

    /// Hook: an HTML page was parsed (`facts` holds its links and anchors). A plugin that
    /// renders pages gives the rendered page: its anchors join the page's, its links that the
    /// parse did not find are considered, marked as found after rendering, and its remarks
    /// (a script that threw, a render timeout) go to the page's result.
    pub(crate) fn plugins_render(
        &self,
        task: &Task,
        page: &Url,
        body: &[u8],
        level: usize,
        facts: &mut PageFacts,
        result: &mut CheckResult,
    ) {
        let content_type = result.content_type.clone();
        if !is_html(content_type.as_deref()) {
            return;
        }
        for p in self.plugins.plugins() {
            let view = ContentView {
                url: &task.url,
                final_url: page,
                content_type: content_type.as_deref(),
                body,
                links: &facts.links,
                anchors: &facts.anchors,
                internal: task.internal,
            };
            let Some(rendered) = p.render(&view, &Engine(self)) else {
                continue;
            };
            let known: HashSet<&str> = facts.links.iter().map(Url::as_str).collect();
            let mut seen = HashSet::new();
            let new: Vec<Url> = rendered
                .links
                .into_iter()
                .filter(|u| !known.contains(u.as_str()) && seen.insert(u.to_string()))
                .collect();
            facts.anchors.extend(rendered.anchors);
            self.apply(p.as_ref(), rendered.remarks, result);
            result.links_found += new.len();
            self.queue_rendered(page, &new, level, self.cache.edges_from(&task.key).as_ref());
        }
    }

    /// Hook: one occurrence of a link with a fragment, its target's result final. Warnings go
    /// to the occurrence (the page that has the link; a start URL, which has none, gets them
    /// on a copy of its result); infos go to a copy of the result for this occurrence. A `Broken` remark breaks this occurrence only: it gets a copy
    /// of the result that failed with [`FailKind::Fragment`], while the URL stays as checked for
    /// every other link to it. A panicking plugin becomes a warning: the row is still reported.
    ///
    /// Returns the occurrence's own result, when it needs one.
    pub(crate) fn plugins_on_link(
        &self,
        result: &CheckResult,
        o: &mut Occurrence,
    ) -> Option<Arc<CheckResult>> {
        if !self.plugins.active() {
            return None;
        }
        let fragment = o.fragment.as_deref()?;
        let target = Url::parse(&result.url).ok()?;
        let written = o
            .site
            .as_ref()
            .and_then(|s| s.remapped_from.as_deref())
            .and_then(|u| Url::parse(u).ok());
        let parent = o.site.as_ref().map_or("", |s| &s.parent);
        let view = LinkView {
            target: &target,
            real_target: result.real_url.as_ref(),
            written_target: written.as_ref(),
            fragment,
            parent,
            // A page accepted with an error status (`--accept 404`) is no page to look in.
            target_ok: matches!(result.outcome, Outcome::Ok { status } if status.is_none_or(|s| s < 400)),
            target_content_type: result.content_type.as_deref(),
            from_mdbook: !parent.is_empty() && !self.files.outside_books(parent),
        };
        let mut warnings = Vec::new();
        let mut infos = Vec::new();
        let mut broken = None;
        for p in self.plugins.plugins() {
            let name = p.name();
            let remarks = catch_unwind(AssertUnwindSafe(|| p.check_link(&view, &Engine(self))))
                .unwrap_or_else(|_| {
                    vec![Remark::warning(
                        "plugin-panicked",
                        "the plugin panicked while checking this link",
                    )]
                });
            for remark in remarks {
                match remark {
                    Remark::Warning { tag, message } => {
                        let w = Warning {
                            tag,
                            message: format!("{name}: {message}"),
                        };
                        if self.keeps(&w) {
                            warnings.push(w);
                        }
                    }
                    Remark::Broken(message) => {
                        broken.get_or_insert_with(|| format!("{name}: {message}"));
                    }
                    Remark::Info(info) => infos.push(format!("{name}: {info}")),
                }
            }
        }
        let broken = broken.filter(|_| matches!(result.outcome, Outcome::Ok { .. }));
        if broken.is_none() && infos.is_empty() && (warnings.is_empty() || o.site.is_some()) {
            if let Some(site) = o.site.as_mut() {
                site.warnings.append(&mut warnings);
            }
            return None;
        }
        let mut own = result.clone();
        own.infos.append(&mut infos);
        if let Some(message) = broken {
            own.outcome = Outcome::Failed {
                kind: FailKind::Fragment,
                message,
            };
        }
        match o.site.as_mut() {
            Some(site) => site.warnings.append(&mut warnings),
            None => own.warnings.append(&mut warnings),
        }
        Some(Arc::new(own))
    }
}
