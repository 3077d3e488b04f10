//! The engine side of plugins: each hook call site of the per-URL pipeline (`check`) calls one
//! method here, which shows every configured plugin a view of the check and turns its remarks
//! into warnings, infos or a verdict. Also the [`Services`] plugins get back: fetches through
//! the engine, once per URL per run.
//!
//! Locks: `pages` and `certs` are held only to find or insert a URL's cell; the fetch itself
//! runs in `OnceLock::get_or_init` outside them (a second caller for the same URL waits on that
//! cell only). No engine lock is held while a plugin hook runs: hooks are called from `check`
//! before the result is recorded and from `send` after `cache.finish` returned.

use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use linkpatrol_plugin_api::{ContentView, LinkView, Page, Plugin, Remark, ResponseView, Services};
use parking_lot::Mutex;
use url::Url;

use crate::config::plugins::PluginList;
use crate::engine::cache::Occurrence;
use crate::engine::run::{Run, Task};
use crate::extract::charset::html_to_utf8;
use crate::extract::extract_html;
use crate::fetch::{self, is_html};
use crate::model::outcome::{CheckResult, FailKind, Outcome, Warning};
use crate::policy::url_norm::cache_key;

/// A cell filled once by the first caller.
type Once<T> = Arc<OnceLock<T>>;
/// A leaf certificate's DER bytes, or why there is none.
type Certificate = Result<Arc<Vec<u8>>, String>;

/// The configured plugins of one run and what they fetched through the engine.
#[derive(Default)]
pub(crate) struct PluginHost {
    plugins: Vec<Arc<dyn Plugin>>,
    /// Pages fetched for plugins, by cache key.
    pages: Mutex<HashMap<String, Once<Arc<Page>>>>,
    /// Leaf certificates by `host:port`.
    certs: Mutex<HashMap<String, Once<Certificate>>>,
    /// Connect and handshake timeout of a certificate fetch (the run's `--timeout`).
    timeout: Duration,
}

impl fmt::Debug for PluginHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginHost")
            .field("plugins", &PluginList(self.plugins.clone()))
            .finish_non_exhaustive()
    }
}

impl PluginHost {
    pub(crate) fn new(list: &PluginList, timeout: Duration) -> PluginHost {
        PluginHost {
            plugins: list.0.clone(),
            timeout,
            ..PluginHost::default()
        }
    }

    /// `true` when at least one plugin is configured (the hooks cost nothing otherwise).
    pub(crate) fn active(&self) -> bool {
        !self.plugins.is_empty()
    }

    /// Facts to collect while a page is parsed, when plugins run: `None` when none do.
    pub(crate) fn page_facts(&self) -> Option<PageFacts> {
        self.active().then(|| PageFacts {
            want_links: self.plugins.iter().any(|p| p.wants_links()),
            ..PageFacts::default()
        })
    }
}

/// What the content hook needs from the parse of a page, collected only when plugins run.
#[derive(Debug, Default)]
pub(crate) struct PageFacts {
    /// The page's ids and `<a name>`s.
    pub(crate) anchors: Vec<String>,
    /// Its links that resolved (only with `want_links`).
    pub(crate) links: Vec<Url>,
    /// Some plugin reads the links.
    pub(crate) want_links: bool,
}

/// The [`Services`] of one run.
struct Engine<'a>(&'a Run);

impl Services for Engine<'_> {
    fn fetch(&self, url: &Url) -> Arc<Page> {
        let mut clean = url.clone();
        clean.set_fragment(None);
        let cell = self
            .0
            .plugins
            .pages
            .lock()
            .entry(cache_key(&clean))
            .or_default()
            .clone();
        cell.get_or_init(|| Arc::new(self.0.fetch_page(&clean)))
            .clone()
    }

    fn peer_certificate(&self, url: &Url) -> Result<Arc<Vec<u8>>, String> {
        if url.scheme() != "https" {
            return Err(format!("{url} is not an https URL"));
        }
        let host = url.host_str().unwrap_or_default().to_owned();
        let port = url.port_or_known_default().unwrap_or(443);
        let cell = self
            .0
            .plugins
            .certs
            .lock()
            .entry(format!("{host}:{port}"))
            .or_default()
            .clone();
        cell.get_or_init(|| {
            crate::fetch::tls::leaf_certificate(&host, port, self.0.plugins.timeout).map(Arc::new)
        })
        .clone()
    }
}

/// The HTTP status of an outcome, when it has one.
fn status_of(outcome: &Outcome) -> Option<u16> {
    match outcome {
        Outcome::Ok { status } => *status,
        Outcome::Broken { status } => Some(*status),
        _ => None,
    }
}

impl Run {
    /// A page for [`Services::fetch`]: the engine's fetch (robots.txt, politeness, retries,
    /// redirects) and parse, without touching the crawl's result cache.
    fn fetch_page(&self, url: &Url) -> Page {
        let fetched = match url.scheme() {
            "file" => fetch::file::fetch(url, true, self.max_body),
            "http" | "https" if !self.robots_allow(url) => {
                return Page {
                    error: Some("disallowed by robots.txt".into()),
                    ..Page::default()
                };
            }
            "http" | "https" => self.http.fetch(url, true, &|_| true),
            other => {
                return Page {
                    error: Some(format!("cannot fetch {other}: URLs")),
                    ..Page::default()
                };
            }
        };
        let html = is_html(fetched.content_type.as_deref());
        let body = match fetched.body {
            Some(b) if html => html_to_utf8(&b, fetched.charset.as_deref()).into_owned(),
            Some(b) => b,
            None => Vec::new(),
        };
        let anchors = if html && !body.is_empty() {
            extract_html(&body).anchors
        } else {
            Vec::new()
        };
        Page {
            final_url: Some(fetched.final_url),
            status: status_of(&fetched.outcome),
            ok: matches!(fetched.outcome, Outcome::Ok { .. }),
            content_type: fetched.content_type,
            error: match &fetched.outcome {
                Outcome::Ok { .. } => None,
                other => Some(other.to_string()),
            },
            body,
            anchors,
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
            status: status_of(&result.outcome),
            ok: matches!(result.outcome, Outcome::Ok { .. }),
            headers,
            content_type: content_type.as_deref(),
            internal: task.internal,
        };
        for p in &self.plugins.plugins {
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
        for p in &self.plugins.plugins {
            let remarks = p.check_content(&view, &Engine(self));
            self.apply(p.as_ref(), remarks, result);
        }
    }

    /// Hook: one occurrence of a link with a fragment, its target's result final. Warnings go
    /// to the occurrence (the page that has the link). A panicking plugin becomes a warning: the
    /// row is still reported.
    pub(crate) fn plugins_on_link(&self, result: &CheckResult, o: &mut Occurrence) {
        if !self.plugins.active() {
            return;
        }
        let (Some(fragment), Some(referrer)) = (o.fragment.as_deref(), o.site.as_mut()) else {
            return;
        };
        let Ok(target) = Url::parse(&result.url) else {
            return;
        };
        let view = LinkView {
            target: &target,
            real_target: result.real_url.as_ref(),
            fragment,
            parent: &referrer.parent,
            target_ok: matches!(result.outcome, Outcome::Ok { .. }),
            target_content_type: result.content_type.as_deref(),
        };
        for p in &self.plugins.plugins {
            let name = p.name();
            let remarks = catch_unwind(AssertUnwindSafe(|| p.check_link(&view, &Engine(self))))
                .unwrap_or_else(|_| {
                    vec![Remark::warning(
                        "plugin-panicked",
                        "the plugin panicked while checking this link",
                    )]
                });
            for remark in remarks {
                if let Remark::Warning { tag, message } = remark {
                    let w = Warning {
                        tag,
                        message: format!("{name}: {message}"),
                    };
                    if self.keeps(&w) {
                        referrer.warnings.push(w);
                    }
                }
            }
        }
    }
}
