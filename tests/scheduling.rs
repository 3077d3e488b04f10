//! Host-aware scheduling, measured: one site linking to 22 loopback hosts (127.0.0.2…23) —
//! one heavy, one answering its first page request with 429 Retry-After, 20 light — crawled
//! with default politeness (10 requests/s per host). The wall time is compared with the ideal:
//! the busiest host's own schedule, counted from the moment the site's start page arrived.
//!
//! `a_throttled_host_does_not_hold_the_pool` is the reduced regression test run in CI;
//! `multi_host_bench` (ignored) runs the full scenarios and prints the figures:
//! `cargo test --release --test integration multi_host_bench -- --ignored --nocapture`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use linkpatrol::{Checker, Config, Outcome};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::result_set;

/// Default politeness: 10 requests per second per host.
const INTERVAL: Duration = Duration::from_millis(100);
/// A host's interval after a 429 (the gate's `RATE_LIMITED_INTERVAL`).
const RATE_LIMITED_INTERVAL: Duration = Duration::from_millis(500);

/// The shape of one crawl.
#[derive(Debug, Clone, Copy)]
struct Scenario {
    /// Links to the heavy host.
    heavy: usize,
    /// Links to the host that answers its first page request with 429.
    limited: usize,
    /// Its `Retry-After`, in seconds.
    retry_after: u64,
    /// Links to each of the 20 light hosts.
    light: usize,
    /// Worker threads.
    threads: usize,
}

/// What one crawl measured.
#[derive(Debug)]
struct Measured {
    wall: Duration,
    ideal: Duration,
    /// Requests to the 429 host sent before the time its first Retry-After named.
    during_pause: usize,
    /// Requests beyond one per URL, one robots.txt per host and the first 429's retry.
    extra_requests: usize,
    /// Links not reported `200 OK` (every link answers 200 once its host is asked politely).
    not_ok: usize,
    results: std::collections::BTreeSet<(String, String, String, Option<usize>)>,
}

impl Measured {
    fn ratio(&self) -> f64 {
        self.wall.as_secs_f64() / self.ideal.as_secs_f64()
    }
}

/// A rate limiter on the loopback: the first page request starts a pause of `secs` and gets a
/// 429 asking for it; every request inside the pause gets a 429 asking for the rest of it
/// (rounded up), as real rate limiters do.
fn rate_limited(secs: u64) -> Routes {
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
fn crawl(s: Scenario) -> Measured {
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
        results: result_set(&report)
            .into_iter()
            .map(|(url, verdict, parent, line)| {
                // ports differ from run to run: compare paths
                let path = url.split_once("//").map_or(url.as_str(), |(_, r)| r);
                let path = path.split_once('/').map_or("", |(_, p)| p).to_owned();
                (path, verdict, parent.is_empty().to_string(), line)
            })
            .collect(),
    }
}

fn print(name: &str, s: Scenario, m: &Measured) {
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

/// The reduced scenario: about 3 s. FIFO workers that sleep for their host's slot took 2.72x
/// here, with 3 requests sent inside the 429 pause; the host-aware queue 1.01x with none. The
/// bound leaves room for a loaded machine.
#[test]
fn a_throttled_host_does_not_hold_the_pool() {
    let s = Scenario {
        heavy: 25,
        limited: 5,
        retry_after: 1,
        light: 1,
        threads: 4,
    };
    let m = crawl(s);
    print("reduced", s, &m);
    assert_eq!((m.during_pause, m.extra_requests, m.not_ok), (0, 0, 0));
    assert!(m.ratio() <= 1.3, "wall {:?} vs ideal {:?}", m.wall, m.ideal);
}

/// Results do not depend on the number of threads.
#[test]
fn results_are_the_same_with_1_and_64_threads() {
    let s = Scenario {
        heavy: 6,
        limited: 2,
        retry_after: 1,
        light: 1,
        threads: 1,
    };
    let one = crawl(s);
    let many = crawl(Scenario { threads: 64, ..s });
    assert_eq!(one.results, many.results);
    for m in [one, many] {
        assert_eq!((m.during_pause, m.extra_requests, m.not_ok), (0, 0, 0));
    }
}

/// The full politeness scenarios (about 50 s in all). Measured on the shared 2-core machine
/// (debug build, `cargo test --test integration multi_host_bench -- --ignored --nocapture`):
/// - FIFO `get` + sleeping gate: 2 s → 423.7 s for an ideal of 12.1 s (35.0x), 25 s → 446.7 s
///   for 34.7 s (12.9x). Slots reserved before the 429 were not paused: 15 requests went out
///   inside the pause, each got a 429, and each 429 doubled the interval, up to 30 s.
/// - Host-aware queue: 2 s → 12.14 s for 12.10 s (1.00x), 25 s → 34.77 s for 34.70 s
///   (1.00x); no request inside the pause.
#[test]
#[ignore = "a benchmark: run with --ignored --nocapture"]
fn multi_host_bench() {
    for retry_after in [2, 25] {
        let s = Scenario {
            heavy: 120,
            limited: 20,
            retry_after,
            light: 2,
            threads: 16,
        };
        let m = crawl(s);
        print("full", s, &m);
    }
}

/// A host whose robots.txt is slow holds only its own tasks: with two workers, the second one
/// checks another host's links while the first waits for that robots.txt.
#[test]
fn a_slow_robots_txt_does_not_park_workers_of_other_hosts() {
    let slow = TestServer::start_on(
        "127.0.0.2",
        Routes::new()
            .reply(
                "/robots.txt",
                Reply::status(200)
                    .content_type("text/plain")
                    .body("User-agent: *\nAllow: /\n")
                    .delayed(Duration::from_secs(1)),
            )
            .dynamic(|_| Some(Reply::html("slow"))),
    );
    let fast = TestServer::start_on(
        "127.0.0.3",
        Routes::new().dynamic(|_| Some(Reply::html("fast"))),
    );
    let links: String = (0..5)
        .map(|i| format!("<a href='{}'>s</a>", slow.url(&format!("/s{i}"))))
        .chain((0..5).map(|i| format!("<a href='{}'>f</a>", fast.url(&format!("/f{i}")))))
        .collect();
    let site = TestServer::start(Routes::new().page("/", &links));
    let report = crate::support::util::run(crate::support::util::config(&site.url("/"), 2));
    assert_eq!(report.entries.len(), 11);
    let robots_asked = slow.requests()[0].at;
    assert_eq!(slow.requests()[0].path, "/robots.txt");
    let fast_done = fast.requests().iter().map(|r| r.at).max().unwrap();
    assert_eq!(fast.requests().len(), 6, "robots.txt and 5 links");
    // The slow robots.txt answers 1 s after it was asked: the other host was done long before.
    assert!(
        fast_done < robots_asked + Duration::from_millis(900),
        "the fast host's last request came {:?} after the slow robots.txt was asked",
        fast_done - robots_asked
    );
}
