//! robots.txt: fetched once per origin (through the politeness gate, like every request),
//! cached for the run, and asked before each http(s) URL is requested.
//!
//! The first worker that needs an origin's rules fetches them; others needing the same origin
//! wait for that one fetch (a per-origin `OnceLock`), while workers bound for other origins
//! are not held up: the map lock is released before the fetch. A missing or unreadable
//! robots.txt (404, error, unparsable) allows everything. `Crawl-delay` raises the host's
//! interval in the gate.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use texting_robots::Robot;
use url::Url;

use crate::policy::host_table::MAX_HOST_INTERVAL;
use crate::policy::origin::origin_text;

/// The robots.txt rules of one origin, once fetched.
#[derive(Debug)]
pub(crate) struct OriginRules {
    robot: Option<Robot>,
}

impl OriginRules {
    /// `Crawl-delay` for our agent, if any, at most [`MAX_HOST_INTERVAL`] (a huge value such as
    /// `1e20` is clamped, not an overflow).
    pub(crate) fn crawl_delay(&self) -> Option<Duration> {
        let d = self.robot.as_ref()?.delay?;
        (d.is_finite() && d > 0.0).then(|| {
            Duration::try_from_secs_f32(d)
                .unwrap_or(MAX_HOST_INTERVAL)
                .min(MAX_HOST_INTERVAL)
        })
    }

    /// `Sitemap:` URLs listed.
    pub(crate) fn sitemaps(&self) -> &[String] {
        self.robot.as_ref().map_or(&[], |r| r.sitemaps.as_slice())
    }
}

/// The robots.txt name of a User-Agent header: the product token of the crawler, which is the
/// token after `compatible;` when there is one (`Mozilla/5.0 (compatible; linkpatrol/0.1)` is
/// `linkpatrol`), else the first product (`MyBot/2.0 (+https://x)` is `MyBot`). Groups are
/// matched against it case-insensitively, as robots.txt (RFC 9309) asks.
pub(crate) fn robots_agent(user_agent: &str) -> String {
    let product = |s: &str| {
        s.trim_start()
            .split(|c: char| c == '/' || c == ';' || c == ')' || c.is_whitespace())
            .next()
            .unwrap_or("")
            .to_owned()
    };
    let lower = user_agent.to_ascii_lowercase();
    let token = match lower.find("compatible;") {
        Some(i) => product(&user_agent[i + "compatible;".len()..]),
        None => product(user_agent),
    };
    if token.is_empty() {
        "linkpatrol".to_owned()
    } else {
        token
    }
}

/// Per-origin robots.txt rules.
#[derive(Debug)]
pub(crate) struct RobotsCache {
    /// The user-agent token matched against robots.txt groups.
    agent: String,
    /// Origin (`http://host:port`) → its rules, filled once. The map lock is held only to find
    /// or insert a cell.
    origins: Mutex<HashMap<String, Arc<OnceLock<OriginRules>>>>,
}

impl RobotsCache {
    pub(crate) fn new(agent: impl Into<String>) -> Self {
        RobotsCache {
            agent: agent.into(),
            origins: Mutex::new(HashMap::new()),
        }
    }

    /// The rules for `url`'s origin, fetching robots.txt with `fetch` the first time (`None`
    /// from `fetch` means "no robots.txt"). `first` is called once, right after the fetch.
    pub(crate) fn rules(
        &self,
        url: &Url,
        fetch: impl FnOnce(&Url) -> Option<Vec<u8>>,
        first: impl FnOnce(&OriginRules),
    ) -> Arc<OnceLock<OriginRules>> {
        let origin = origin_text(url);
        let cell = {
            let mut origins = self.origins.lock();
            match origins.get(origin.as_ref()) {
                Some(cell) => cell.clone(),
                None => origins.entry(origin.into_owned()).or_default().clone(),
            }
        };
        cell.get_or_init(|| {
            let robots_url = url.join("/robots.txt").ok();
            let body = robots_url.as_ref().and_then(fetch);
            let rules = OriginRules {
                robot: body.and_then(|b| Robot::new(&self.agent, &b).ok()),
            };
            first(&rules);
            rules
        });
        cell
    }

    /// `true` when robots.txt lets us request `url` (fetching the rules if needed).
    pub(crate) fn allowed(
        &self,
        url: &Url,
        fetch: impl FnOnce(&Url) -> Option<Vec<u8>>,
        first: impl FnOnce(&OriginRules),
    ) -> bool {
        let cell = self.rules(url, fetch, first);
        let rules = cell.get().expect("initialised by rules()");
        rules.robot.as_ref().is_none_or(|r| r.allowed(url.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn the_agent_is_the_product_token_of_the_user_agent() {
        assert_eq!(
            robots_agent(crate::config::DEFAULT_USER_AGENT),
            "linkpatrol"
        );
        assert_eq!(robots_agent("MyBot/2.0 (+https://x.test/bot)"), "MyBot");
        assert_eq!(
            robots_agent("Mozilla/5.0 (compatible; Googlebot/2.1; +http://g.test/bot.html)"),
            "Googlebot"
        );
        assert_eq!(robots_agent("plainbot"), "plainbot");
        assert_eq!(robots_agent(""), "linkpatrol");
    }

    #[test]
    fn fetched_once_per_origin_and_applied() {
        let cache = RobotsCache::new("linkpatrol");
        let fetches = AtomicUsize::new(0);
        let body = b"User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nSitemap: http://h.test/sitemap.xml\n".to_vec();
        let fetch = |_: &Url| {
            fetches.fetch_add(1, Ordering::SeqCst);
            Some(body.clone())
        };
        let mut delay = None;
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(
            !cache.allowed(&u("http://h.test/private/x"), fetch, |r| delay =
                r.crawl_delay())
        );
        assert!(cache.allowed(&u("http://h.test/public"), fetch, |_| panic!(
            "fetched twice"
        )));
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        assert_eq!(delay, Some(Duration::from_secs(2)));
        let cell = cache.rules(&u("http://h.test/"), fetch, |_| {});
        assert_eq!(
            cell.get().unwrap().sitemaps(),
            ["http://h.test/sitemap.xml"]
        );

        // another origin (port) has its own rules; no robots.txt allows everything
        assert!(cache.allowed(&u("http://h.test:8080/private/x"), |_| None, |_| {}));
    }
}
