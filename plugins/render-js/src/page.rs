//! One page rendered: a fresh browser context and tab, the instrumenting script, the
//! navigation, the wait for the page to settle (bounded by the render timeout), then its
//! links, anchors and script errors read from the DOM.

use std::time::{Duration, Instant};

use headless_chrome::Browser;
use headless_chrome::protocol::cdp::Network::CookieParam;
use headless_chrome::protocol::cdp::Page::AddScriptToEvaluateOnNewDocument;
use linkpatrol_plugin_api::{Remark, Rendered, Url};

use crate::{TAG_SCRIPT_ERROR, TAG_TIMEOUT};

/// Counts requests, timers, DOM changes and errors; runs before the page's scripts.
const INSTRUMENT: &str = include_str!("js/instrument.js");
/// Waits until the page settles or `LEFT` ms pass.
const SETTLE: &str = include_str!("js/settle.js");
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
/// value) set for it, within `timeout`. The tab is closed afterwards, whatever happened.
pub(crate) fn render(
    browser: &Browser,
    url: &Url,
    cookies: Option<&str>,
    timeout: Duration,
) -> Result<Page, String> {
    let deadline = Instant::now() + timeout;
    let context = browser.new_context().map_err(|e| e.to_string())?;
    let tab = context.new_tab().map_err(|e| e.to_string())?;
    let page = in_tab(&tab, url, cookies, deadline);
    let _ = tab.close(false);
    page
}

fn in_tab(
    tab: &headless_chrome::Tab,
    url: &Url,
    cookies: Option<&str>,
    deadline: Instant,
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
    tab.navigate_to(url.as_str()).map_err(|e| e.to_string())?;
    // A page that never finishes loading is read as it is at the deadline.
    let loaded = tab.wait_until_navigated().is_ok();
    let script = SETTLE
        .replace("LEFT", &left().as_millis().to_string())
        .replace("QUIET", &QUIET_MS.to_string());
    tab.set_default_timeout(left() + Duration::from_secs(5));
    let settled = tab
        .evaluate(&script, true)
        .ok()
        .and_then(|r| r.value)
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let json = tab
        .evaluate(EXTRACT, false)
        .map_err(|e| format!("cannot read the rendered page: {e}"))?
        .value
        .and_then(|v| v.as_str().map(str::to_owned))
        .ok_or("the rendered page gave no links")?;
    let mut page = parse(&json)?;
    page.settled = settled && loaded;
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
