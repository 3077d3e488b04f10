//! robots.txt: fetched once per origin (through the politeness gate, like every request),
//! cached for the run, and asked before each http(s) URL is requested.
//!
//! The first worker that needs an origin's rules fetches them; others needing the same origin
//! wait for that one fetch (a per-origin `OnceLock`), while workers bound for other origins
//! are not held up: the map lock is released before the fetch. A missing or unreadable
//! robots.txt (404, error, unparsable) allows everything. `Crawl-delay` raises the host's
//! interval in the gate.
//!
//! Bounded, as many origins may each serve a large robots.txt: at most 500 KiB of it is read,
//! as Google reads (`config::ROBOTS_TXT_LIMIT`; the rest is ignored); only the group that
//! applies to our agent is kept, at most 10,000 rules of it (`robots_group`); its `Sitemap:`
//! lines are handed to the first caller and dropped. All origins' rules share a budget of
//! [`CACHE_BUDGET`] bytes (an estimate, `robots_group::Kept::bytes`): an origin whose rules
//! would go past it has them dropped and is treated as one without robots.txt, allowing
//! everything, for the rest of the run (its `Crawl-delay` still applies). Rules once kept are
//! never evicted, so an origin's verdicts do not change during a run and no robots.txt is
//! fetched twice. A run reaches the budget only with dozens of origins of thousands of rules;
//! the report then says how many origins were treated so (`budget_note`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use texting_robots::Robot;
use url::Url;

use crate::policy::host_table::MAX_HOST_INTERVAL;
use crate::policy::origin::origin_text;
use crate::policy::robots_group;

/// The bytes all origins' rules may take together (see the module doc).
pub(crate) const CACHE_BUDGET: usize = 64 << 20;

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
    /// The bytes the kept rules may take.
    budget: usize,
    /// The bytes the kept rules take (estimated).
    used: AtomicUsize,
    /// Origins whose rules were dropped for the budget.
    over_budget: AtomicUsize,
}

impl RobotsCache {
    pub(crate) fn new(agent: impl Into<String>) -> Self {
        Self::with_budget(agent, CACHE_BUDGET)
    }

    /// A cache whose rules may take `budget` bytes.
    pub(crate) fn with_budget(agent: impl Into<String>, budget: usize) -> Self {
        RobotsCache {
            agent: agent.into(),
            origins: Mutex::new(HashMap::new()),
            budget,
            used: AtomicUsize::new(0),
            over_budget: AtomicUsize::new(0),
        }
    }

    /// The bytes the kept rules take (estimated), at most the budget.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// How many origins had their rules dropped for the budget.
    pub(crate) fn over_budget(&self) -> usize {
        self.over_budget.load(Ordering::Relaxed)
    }

    /// The report's line about origins whose rules were dropped for the budget, if any.
    pub(crate) fn budget_note(&self) -> Option<String> {
        let n = self.over_budget();
        (n > 0).then(|| {
            format!(
                "robots.txt: the rules of {n} origin{} were not kept, past the {} MiB the rules \
                 of all origins may take; their URLs were checked as if they had no robots.txt",
                if n == 1 { "" } else { "s" },
                self.budget >> 20
            )
        })
    }

    /// Takes `bytes` of the budget; `false` (nothing taken) when they do not fit.
    fn reserve(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|n| *n <= self.budget)
            })
            .is_ok()
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
            let kept = body.map(|b| robots_group::keep(&b, &self.agent));
            let mut rules = OriginRules {
                robot: kept
                    .as_ref()
                    .and_then(|k| Robot::new(&self.agent, &k.text).ok()),
            };
            first(&rules);
            if let (Some(robot), Some(kept)) = (&mut rules.robot, &kept) {
                // Only `first` reads them.
                robot.sitemaps = Vec::new();
                if !self.reserve(kept.bytes) {
                    self.over_budget.fetch_add(1, Ordering::Relaxed);
                    rules.robot = None;
                }
            }
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
        let (mut delay, mut sitemaps) = (None, Vec::new());
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(!cache.allowed(&u("http://h.test/private/x"), fetch, |r| {
            delay = r.crawl_delay();
            sitemaps = r.sitemaps().to_vec();
        }));
        assert!(cache.allowed(&u("http://h.test/public"), fetch, |_| panic!(
            "fetched twice"
        )));
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        assert_eq!(delay, Some(Duration::from_secs(2)));
        assert_eq!(sitemaps, ["http://h.test/sitemap.xml"]);

        // another origin (port) has its own rules; no robots.txt allows everything
        assert!(cache.allowed(&u("http://h.test:8080/private/x"), |_| None, |_| {}));
    }

    /// A huge or odd `Crawl-delay` is clamped to the longest host interval, never a panic or
    /// an endless wait; the host table clamps what it is given too (`host_table`'s tests).
    #[test]
    fn a_huge_crawl_delay_is_clamped_not_a_panic() {
        for (value, want) in [
            ("1e20", Some(MAX_HOST_INTERVAL)),
            ("3600", Some(MAX_HOST_INTERVAL)),
            ("2.5", Some(Duration::from_millis(2500))),
            ("inf", None),
            ("NaN", None),
            ("-5", None),
            ("0", None),
        ] {
            let cache = RobotsCache::new("linkpatrol");
            let body = format!("User-agent: *\nCrawl-delay: {value}\n").into_bytes();
            let mut delay = Some(Duration::ZERO);
            let u = Url::parse("http://h.test/").unwrap();
            cache.rules(&u, |_| Some(body), |r| delay = r.crawl_delay());
            assert_eq!(delay, want, "Crawl-delay: {value}");
        }
    }

    /// 500 KiB of rules for another agent, then ours: `/private/` and 20,000 rules with `$`.
    fn large_robots_txt() -> Vec<u8> {
        let mut body = String::from("User-agent: otherbot\n");
        while body.len() < 300 * 1024 {
            body.push_str("Disallow: /not/for/us$\n");
        }
        body.push_str("User-agent: *\nDisallow: /private/\n");
        let mut i = 0;
        while body.len() < 500 * 1024 {
            body.push_str(&format!("Disallow: /p{i}$\n"));
            i += 1;
        }
        body.into_bytes()
    }

    #[test]
    fn the_rules_of_all_origins_stay_within_the_budget() {
        let budget = 4 << 20;
        let cache = RobotsCache::with_budget("linkpatrol", budget);
        let body = large_robots_txt();
        let per_origin = robots_group::keep(&body, "linkpatrol").bytes;
        assert!(per_origin < 1 << 20, "{per_origin}");
        let origins = 40;
        for port in 0..origins {
            let u = Url::parse(&format!("http://h.test:{}/private/x", 1000 + port)).unwrap();
            let allowed = cache.allowed(&u, |_| Some(body.clone()), |_| {});
            // Within the budget the rules apply; past it the origin allows everything.
            assert_eq!(allowed, (port + 1) * per_origin > budget, "origin {port}");
            assert!(cache.bytes() <= budget);
        }
        let kept = budget / per_origin;
        assert_eq!(cache.bytes(), kept * per_origin);
        assert_eq!(cache.over_budget(), origins - kept);
        let note = cache.budget_note().unwrap();
        assert!(
            note.contains(&format!(
                "the rules of {} origins were not kept",
                origins - kept
            )),
            "{note}"
        );
        assert_eq!(RobotsCache::new("linkpatrol").budget_note(), None);
        // Kept rules stay: a second question of a kept origin is answered by them.
        let first = Url::parse("http://h.test:1000/private/y").unwrap();
        assert!(!cache.allowed(&first, |_| panic!("fetched twice"), |_| {}));
    }
}
