//! Host-aware scheduling, the scenario: one site linking to 22 loopback hosts (127.0.0.2…23) —
//! one heavy, one answering its first page request with 429 Retry-After, 20 light — crawled
//! with default politeness (10 requests/s per host), and what one crawl measured: its requests
//! per host, the requests inside the 429 pause, and the wall time against the ideal (the
//! busiest host's own schedule, counted from the moment the site's start page arrived).
//!
//! Shared by `tests/scheduling.rs` (the orders of events, in the suite) and
//! `benches/politeness.rs` (the full scenarios and their figures). It needs a sibling module
//! `server` (tests/support/server.rs).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use linkpatrol::{Checker, Config, Outcome, Report};

use super::server::{Reply, Request, Routes, TestServer};

/// Default politeness: 10 requests per second per host.
pub const INTERVAL: Duration = Duration::from_millis(100);
/// A host's interval after a 429 (the gate's `RATE_LIMITED_INTERVAL`).
pub const RATE_LIMITED_INTERVAL: Duration = Duration::from_millis(500);

/// The shape of one crawl.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// Links to the heavy host.
    pub heavy: usize,
    /// Links to the host that answers its first page request with 429.
    pub limited: usize,
    /// Its `Retry-After`, in seconds.
    pub retry_after: u64,
    /// Links to each of the 20 light hosts.
    pub light: usize,
    /// Worker threads.
    pub threads: usize,
}

/// What one crawl measured.
#[derive(Debug)]
pub struct Measured {
    /// The run's wall time.
    pub wall: Duration,
    /// The busiest host's own schedule, from the moment the start page arrived.
    pub ideal: Duration,
    /// Requests to the 429 host sent before the time its first Retry-After named.
    pub during_pause: usize,
    /// Requests beyond one per URL, one robots.txt per host and the first 429's retry.
    pub extra_requests: usize,
    /// Links not reported `200 OK` (every link answers 200 once its host is asked politely).
    pub not_ok: usize,
    /// The requests the heavy host got, in arrival order.
    pub heavy: Vec<Request>,
    /// The requests the 429 host got.
    pub limited: Vec<Request>,
    /// The requests each light host got.
    pub lights: Vec<Vec<Request>>,
    /// The run's report.
    pub report: Report,
}

impl Measured {
    /// The wall time over the ideal.
    pub fn ratio(&self) -> f64 {
        self.wall.as_secs_f64() / self.ideal.as_secs_f64()
    }
}

/// A rate limiter on the loopback: the first page request starts a pause of `secs` and gets a
/// 429 asking for it; every request inside the pause gets a 429 asking for the rest of it
/// (rounded up), as real rate limiters do.
pub fn rate_limited(secs: u64) -> Routes {
    let pause_end: Arc<Mutex<Option<Instant>>> = Arc::default();
    Routes::new().dynamic(move |req| {
        if req.path_only() == "/robots.txt" {
            return None;
        }
        let mut end = pause_end.lock().unwrap();
        let now = Instant::now();
        let end = *end.get_or_insert(now + Duration::from_secs(secs));
        Some(if now < end {
            let rest = (end - now).as_secs_f64().ceil() as u64;
            Reply::too_many_requests(&rest.to_string())
        } else {
            Reply::html("limited")
        })
    })
}

/// Runs one scenario and measures it (see [`Measured`]).
pub fn crawl(s: Scenario) -> Measured {
    let heavy = TestServer::start_on(
        "127.0.0.2",
        Routes::new().dynamic(|_| Some(Reply::html("heavy"))),
    );
    let limited = TestServer::start_on("127.0.0.3", rate_limited(s.retry_after));
    let lights: Vec<TestServer> = (4..24)
        .map(|i| {
            TestServer::start_on(
                &format!("127.0.0.{i}"),
                Routes::new().dynamic(|_| Some(Reply::html("light"))),
            )
        })
        .collect();
    // Links grouped by host, as on many link pages: the throttled host's first.
    let mut links = String::new();
    for i in 0..s.limited {
        links.push_str(&format!(
            "<a href='{}'>l</a>\n",
            limited.url(&format!("/l{i}"))
        ));
    }
    for i in 0..s.heavy {
        links.push_str(&format!(
            "<a href='{}'>h</a>\n",
            heavy.url(&format!("/h{i}"))
        ));
    }
    for (n, host) in lights.iter().enumerate() {
        for i in 0..s.light {
            links.push_str(&format!(
                "<a href='{}'>x</a>\n",
                host.url(&format!("/x{n}-{i}"))
            ));
        }
    }
    let site = TestServer::start(Routes::new().page("/", &links));

    // The loopback servers stand for remote hosts: they get the default rate, which loopback
    // is otherwise exempt from.
    let config = Config::new()
        .proxy_from_env(false)
        .input_url(site.url("/"))
        .loopback_unthrottled(false)
        .threads(s.threads)
        .timeout(Duration::from_secs(10));
    let started = Instant::now();
    let report = Checker::new(config).unwrap().run().unwrap();
    let wall = started.elapsed();

    // Requests beyond one per URL and one robots.txt per host (the first 429 is expected).
    let servers: Vec<&TestServer> = [&site, &heavy, &limited]
        .into_iter()
        .chain(&lights)
        .collect();
    let sent: usize = servers.iter().map(|srv| srv.requests().len()).sum();
    let urls = 1 + s.heavy + s.limited + s.light * lights.len();
    let extra_requests = sent - (urls + servers.len() + usize::from(s.limited > 0));
    // The pause a 429 asks for holds for every request to that host, reserved or not.
    let limited_log = limited.requests();
    let during_pause = limited_log
        .iter()
        .position(|r| r.path != "/robots.txt")
        .map_or(0, |first| {
            let pause_end = limited_log[first].at + Duration::from_secs(s.retry_after);
            limited_log[first + 1..]
                .iter()
                .filter(|r| r.at < pause_end)
                .count()
        });
    assert_eq!(report.entries.len(), urls);
    let not_ok = report
        .entries
        .iter()
        .filter(|e| !matches!(e.result.outcome, Outcome::Ok { status: Some(200) }))
        .count();

    // The ideal: nothing can start before the start page arrived; from there each host needs
    // robots.txt plus its pages at one per interval, and the limited host also its pause and
    // the slower interval a 429 imposes.
    let index_at = site
        .requests()
        .iter()
        .find(|r| r.path == "/")
        .expect("start page requested")
        .at
        - started;
    let heavy_own = INTERVAL * s.heavy as u32;
    let limited_own = if s.limited > 0 {
        INTERVAL
            + Duration::from_secs(s.retry_after)
            + RATE_LIMITED_INTERVAL * (s.limited as u32 - 1)
    } else {
        Duration::ZERO
    };
    let light_own = INTERVAL * s.light as u32;
    let ideal = index_at + heavy_own.max(limited_own).max(light_own);
    Measured {
        wall,
        ideal,
        during_pause,
        extra_requests,
        not_ok,
        heavy: heavy.requests(),
        limited: limited_log,
        lights: lights.iter().map(TestServer::requests).collect(),
        report,
    }
}

/// Prints one scenario's figures on one line.
pub fn print(name: &str, s: Scenario, m: &Measured) {
    println!(
        "{name}: {} threads, heavy {} links, 429 host {} links (Retry-After {} s), 20 light × {}: \
         wall {:.2} s, ideal {:.2} s, ratio {:.2}x; {} requests inside the 429 pause, {} extra requests, {} links not OK",
        s.threads,
        s.heavy,
        s.limited,
        s.retry_after,
        s.light,
        m.wall.as_secs_f64(),
        m.ideal.as_secs_f64(),
        m.ratio(),
        m.during_pause,
        m.extra_requests,
        m.not_ok
    );
}
