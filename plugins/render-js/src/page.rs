//! One page rendered: a fresh browser context and tab, the instrumenting script, the
//! navigation with every request of the page paced through the engine, the wait for the page
//! to settle (bounded by the render timeout), then its links, anchors and script errors read
//! from the DOM.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use headless_chrome::browser::tab::RequestPausedDecision;
use headless_chrome::browser::transport::{SessionId, Transport};
use headless_chrome::protocol::cdp::Fetch::events::RequestPausedEvent;
use headless_chrome::protocol::cdp::Fetch::{FailRequest, RequestPattern, RequestStage};
use headless_chrome::protocol::cdp::Network::{CookieParam, ErrorReason};
use headless_chrome::protocol::cdp::Page::AddScriptToEvaluateOnNewDocument;
use headless_chrome::{Browser, Tab};
use linkpatrol_plugin_api::{Remark, Rendered, Services, Url};

use crate::{TAG_SCRIPT_ERROR, TAG_TIMEOUT};

/// Counts requests, timers, DOM changes and errors; runs before the page's scripts.
const INSTRUMENT: &str = include_str!("js/instrument.js");
/// `true` once the page has settled (nothing in flight, unchanged for `QUIET` ms).
const IDLE: &str = include_str!("js/idle.js");
/// How often the page is asked whether it has settled.
const POLL: Duration = Duration::from_millis(50);
/// Reads links, anchors and errors as JSON.
const EXTRACT: &str = include_str!("js/extract.js");
/// How long the DOM must stay unchanged, with nothing in flight, to count as settled.
const QUIET_MS: u64 = 500;
/// The most bytes of JSON read back from a page (its links are untrusted and capped).
const MAX_JSON: usize = 16 << 20;

/// What one render found.
#[derive(Debug, Default)]
pub(crate) struct Page {
    links: Vec<String>,
    anchors: Vec<String>,
    hash: String,
    errors: Vec<String>,
    settled: bool,
}

impl Page {
    /// The engine's view: resolved links, anchors (a hash route the page went to, and the
    /// `#/route` or `#!route` fragments it links to on itself, count as anchors: client-side
    /// routes, not missing ids), and warnings.
    pub(crate) fn into_rendered(self, url: &Url, timeout: Duration) -> Rendered {
        let links: Vec<Url> = self
            .links
            .iter()
            .filter_map(|l| Url::parse(l).ok())
            .collect();
        let mut anchors = self.anchors;
        let same_page = |u: &Url| {
            let mut u = u.clone();
            u.set_fragment(None);
            u == *url
        };
        let routes = links
            .iter()
            .filter(|u| same_page(u))
            .filter_map(Url::fragment)
            .chain(Some(self.hash.as_str()))
            .filter(|f| f.starts_with('/') || f.starts_with('!'))
            .map(str::to_owned)
            .collect::<Vec<_>>();
        anchors.extend(routes);
        let mut remarks = Vec::new();
        if let Some(first) = self.errors.first() {
            let more = match self.errors.len() - 1 {
                0 => String::new(),
                n => format!(" (and {n} more)"),
            };
            remarks.push(Remark::warning(
                TAG_SCRIPT_ERROR,
                format!("a script of the page threw: {first}{more}; its static links are checked"),
            ));
        }
        if !self.settled {
            remarks.push(Remark::warning(
                TAG_TIMEOUT,
                format!(
                    "the page did not settle within {} s (--render-timeout); the links it had \
                     by then are checked",
                    timeout.as_secs_f64()
                ),
            ));
        }
        Rendered {
            links,
            anchors,
            remarks,
        }
    }
}

/// Renders `url` in a new browser context of `browser`, with `cookies` (a `Cookie` header's
/// value) set for it, within `timeout`; the page's own requests wait for their turn through
/// `services` (see [`in_tab`]), until `stop` is set. The tab is closed afterwards, whatever
/// happened.
pub(crate) fn render(
    browser: &Browser,
    url: &Url,
    cookies: Option<&str>,
    timeout: Duration,
    services: &dyn Services,
    stop: &AtomicBool,
) -> Result<Page, String> {
    let deadline = Instant::now() + timeout;
    let context = browser.new_context().map_err(|e| e.to_string())?;
    let tab = context.new_tab().map_err(|e| e.to_string())?;
    let page = in_tab(&tab, url, cookies, deadline, services, stop);
    let _ = tab.close(false);
    page
}

/// A request the browser paused, and where to say whether it may go.
type Paused = (String, SyncSender<bool>);

/// Loads `url` in `tab` and reads it once it has settled or at `deadline`.
///
/// Every request the page makes (scripts, JSON, images) is paused by the `Fetch` domain and
/// handed to this thread, which lets it go once `services` gives its host a turn (robots.txt,
/// the politeness interval, `--max-requests-per-second`) and fails it when the run's rules
/// forbid it; the page's document too (the browser requests it once more). The wait for the
/// page to settle is a loop here, not a promise in the page, so that paused requests are
/// served while it lasts.
fn in_tab(
    tab: &Arc<Tab>,
    url: &Url,
    cookies: Option<&str>,
    deadline: Instant,
    services: &dyn Services,
    stop: &AtomicBool,
) -> Result<Page, String> {
    let left = || deadline.saturating_duration_since(Instant::now());
    tab.set_default_timeout(left().max(Duration::from_millis(100)));
    if let Some(header) = cookies {
        tab.set_cookies(cookie_params(header, url))
            .map_err(|e| format!("cannot set the session's cookies: {e}"))?;
    }
    tab.call_method(AddScriptToEvaluateOnNewDocument {
        source: INSTRUMENT.to_owned(),
        world_name: None,
        include_command_line_api: None,
        run_immediately: None,
    })
    .map_err(|e| e.to_string())?;
    let (paused_tx, paused) = mpsc::channel::<Paused>();
    tab.enable_request_interception(Arc::new(
        move |_: Arc<Transport>, _: SessionId, event: RequestPausedEvent| {
            let request = event.params.request.url;
            let verdict = if request.starts_with("http") {
                let (tx, rx) = mpsc::sync_channel(1);
                paused_tx
                    .send((request, tx))
                    .map_err(|_| ())
                    .and_then(|()| rx.recv().map_err(|_| ()))
            } else {
                // data: and blob: URLs leave no machine.
                Ok(true)
            };
            match verdict {
                Ok(true) => RequestPausedDecision::Continue(None),
                _ => RequestPausedDecision::Fail(FailRequest {
                    request_id: event.params.request_id,
                    error_reason: ErrorReason::BlockedByClient,
                }),
            }
        },
    ))
    .map_err(|e| e.to_string())?;
    let every = RequestPattern {
        url_pattern: Some("*".into()),
        resource_Type: None,
        request_stage: Some(RequestStage::Request),
    };
    tab.enable_fetch(Some(&[every]), None)
        .map_err(|e| e.to_string())?;
    let idle = IDLE.replace("QUIET", &QUIET_MS.to_string());
    // The navigation waits for its document's request, which this thread lets go: it runs on
    // a thread of its own meanwhile (left behind when the browser is gone: it then ends within
    // the DevTools wait).
    let navigation = {
        let (tab, target) = (Arc::clone(tab), url.to_string());
        std::thread::spawn(move || tab.navigate_to(&target).is_ok())
    };
    let mut settled = false;
    // Until the deadline, or the run's end (the browser is gone: nothing more to read).
    while !left().is_zero() {
        if stop.load(Ordering::SeqCst) {
            return Err("the run has ended".to_owned());
        }
        // Requests first: the page cannot settle while one waits.
        match paused.recv_timeout(POLL.min(left())) {
            Ok((request, reply)) => {
                let allowed = Url::parse(&request).is_ok_and(|u| services.pace(&u).is_ok());
                let _ = reply.send(allowed);
                continue;
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let now_idle = navigation.is_finished()
            && tab
                .evaluate(&idle, false)
                .ok()
                .and_then(|r| r.value)
                .and_then(|v| v.as_bool())
                == Some(true);
        if now_idle {
            settled = true;
            break;
        }
    }
    // Requests still paused (the document's too) fail from here on: the page is read as it is.
    drop(paused);
    tab.set_default_timeout(Duration::from_secs(5));
    let json = tab
        .evaluate(EXTRACT, false)
        .map_err(|e| format!("cannot read the rendered page: {e}"))
        .and_then(|r| {
            r.value
                .and_then(|v| v.as_str().map(str::to_owned))
                .ok_or_else(|| "the rendered page gave no links".to_owned())
        });
    let navigated = navigation.is_finished() && navigation.join().unwrap_or(false);
    let json = json?;
    let mut page = parse(&json)?;
    page.settled = settled && navigated;
    Ok(page)
}

/// The extract script's JSON, read with caps (it comes from the page).
fn parse(json: &str) -> Result<Page, String> {
    if json.len() > MAX_JSON {
        return Err(format!("the rendered page's links exceed {MAX_JSON} bytes"));
    }
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let strings = |key: &str| -> Vec<String> {
        v.get(key)
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(Page {
        links: strings("links"),
        anchors: strings("anchors"),
        hash: v
            .get("hash")
            .and_then(|h| h.as_str())
            .unwrap_or_default()
            .to_owned(),
        errors: strings("errors"),
        settled: false,
    })
}

/// Each `name=value` of a `Cookie` header as a cookie for `url`.
fn cookie_params(header: &str, url: &Url) -> Vec<CookieParam> {
    header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .map(|(name, value)| CookieParam {
            name: name.trim().to_owned(),
            value: value.trim().to_owned(),
            url: Some(url.to_string()),
            domain: None,
            path: None,
            secure: None,
            http_only: None,
            same_site: None,
            expires: None,
            priority: None,
            same_party: None,
            source_scheme: None,
            source_port: None,
            partition_key: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_routes_count_as_anchors_and_errors_become_one_warning() {
        let url = Url::parse("http://127.0.0.1/app").unwrap();
        let page = Page {
            links: vec![
                "http://127.0.0.1/app#/settings".into(),
                "http://127.0.0.1/other#/x".into(),
                "not a url".into(),
            ],
            anchors: vec!["made-by-script".into()],
            hash: "!/home".into(),
            errors: vec!["boom".into(), "again".into()],
            settled: true,
        };
        let r = page.into_rendered(&url, Duration::from_secs(3));
        assert_eq!(r.links.len(), 2);
        assert_eq!(r.anchors, ["made-by-script", "/settings", "!/home"]);
        assert_eq!(r.remarks.len(), 1);
        assert!(matches!(&r.remarks[0], Remark::Warning { tag, message }
            if *tag == TAG_SCRIPT_ERROR && message.contains("boom") && message.contains("1 more")));
    }

    #[test]
    fn json_from_the_page_is_read_with_caps_and_defaults() {
        let p = parse(r#"{"links":["a",3],"hash":"x"}"#).unwrap();
        assert_eq!(p.links, ["a"]);
        assert_eq!(p.hash, "x");
        assert!(p.anchors.is_empty() && p.errors.is_empty());
        assert!(parse("[").is_err());
    }
}
