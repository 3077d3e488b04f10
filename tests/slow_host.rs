//! No worker parked by one host: a host whose robots.txt asks for a long `Crawl-delay`, or
//! that answers 429 with a long `Retry-After`, delays its own pages only. The other hosts'
//! pages finish as fast as in the same crawl without that host (the finish times are those of
//! their rows, recorded as they stream in).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use linkpatrol::{Checker, Config, Outcome};

use crate::support::server::{Reply, Routes, TestServer};

/// How long the slow host makes its pages wait (Crawl-delay or Retry-After), in seconds: far
/// beyond the other hosts' whole crawl, so a worker parked for it cannot go unnoticed.
const DELAY_SECS: u64 = 30;
/// Pages linked on the slow host, and on each of the 20 other hosts.
const SLOW_PAGES: usize = 30;
const OTHER_PAGES: usize = 10;

/// How the slow host is slow.
#[derive(Debug, Clone, Copy)]
enum Slow {
    /// robots.txt says `Crawl-delay: DELAY_SECS`.
    CrawlDelay,
    /// Its first page request starts a pause of `DELAY_SECS`; every page request inside it gets
    /// a 429 asking for the rest of it.
    RateLimited,
}

fn slow_host(how: Slow) -> TestServer {
    let routes = match how {
        Slow::CrawlDelay => Routes::new()
            .reply(
                "/robots.txt",
                Reply::status(200)
                    .body(format!("User-agent: *\nCrawl-delay: {DELAY_SECS}\n"))
                    .content_type("text/plain"),
            )
            .fallback(Reply::html("slow")),
        Slow::RateLimited => {
            let pause_end: Arc<Mutex<Option<Instant>>> = Arc::default();
            Routes::new().dynamic(move |req| {
                if req.path_only() == "/robots.txt" {
                    return None;
                }
                let now = Instant::now();
                let end = *pause_end
                    .lock()
                    .unwrap()
                    .get_or_insert(now + Duration::from_secs(DELAY_SECS));
                Some(if now < end {
                    let rest = (end - now).as_secs_f64().ceil() as u64;
                    Reply::too_many_requests(&rest.to_string())
                } else {
                    Reply::html("slow")
                })
            })
        }
    };
    TestServer::start_on("127.0.0.2", routes)
}

/// Crawls a start page linking to the 20 other hosts (and first to the slow host, when given)
/// with `threads` workers, and returns when the last of the other hosts' rows arrived,
/// counted from the start. The run is cancelled then: the slow host's pages do not matter.
fn others_finish(slow: Option<Slow>, threads: usize) -> Duration {
    let others: Vec<TestServer> = (4..24)
        .map(|i| {
            TestServer::start_on(
                &format!("127.0.0.{i}"),
                Routes::new().fallback(Reply::html("other")),
            )
        })
        .collect();
    let slow = slow.map(slow_host);
    let mut links = String::new();
    if let Some(s) = &slow {
        for i in 0..SLOW_PAGES {
            links.push_str(&format!("<a href='{}'>s</a>\n", s.url(&format!("/s{i}"))));
        }
    }
    for (n, host) in others.iter().enumerate() {
        for i in 0..OTHER_PAGES {
            links.push_str(&format!(
                "<a href='{}'>o</a>\n",
                host.url(&format!("/o{n}-{i}"))
            ));
        }
    }
    let site = TestServer::start(Routes::new().page("/", &links));
    let config = Config::new()
        .proxy_from_env(false)
        .input_url(site.url("/"))
        .threads(threads)
        .timeout(Duration::from_secs(10))
        .abort_timeout(Duration::from_millis(200));
    let checker = Checker::new(config).unwrap();
    let cancel = checker.cancel_handle();
    let slow_base = slow.as_ref().map(TestServer::base);
    let (mut done, mut last) = (0, Duration::ZERO);
    let started = Instant::now();
    checker
        .run_with(|e| {
            if e.referrer.is_none()
                || slow_base
                    .as_ref()
                    .is_some_and(|b| e.result.url.starts_with(b))
            {
                return;
            }
            assert_eq!(
                e.result.outcome,
                Outcome::Ok { status: Some(200) },
                "{}",
                e.result.url
            );
            done += 1;
            last = started.elapsed();
            if done == 20 * OTHER_PAGES {
                cancel.cancel();
            }
        })
        .unwrap();
    assert_eq!(
        done,
        20 * OTHER_PAGES,
        "every other host's page was reported"
    );
    last
}

fn assert_no_worker_parked(how: Slow) {
    for threads in [1, 4] {
        let without = others_finish(None, threads);
        let with = others_finish(Some(how), threads);
        println!(
            "{how:?}, {threads} threads: other hosts done after {with:?} with the slow host, {without:?} without"
        );
        // A worker parked for the slow host would hold the others back by the whole delay (with
        // one thread: all of them); the margin only absorbs a busy machine.
        let bound = without.mul_f64(1.5) + Duration::from_secs(5);
        assert!(
            with <= bound,
            "{how:?}, {threads} threads: the other hosts finished after {with:?} with the slow \
             host, {without:?} without it"
        );
    }
}

#[test]
fn a_long_crawl_delay_parks_no_worker() {
    assert_no_worker_parked(Slow::CrawlDelay);
}

#[test]
fn a_long_retry_after_parks_no_worker() {
    assert_no_worker_parked(Slow::RateLimited);
}
