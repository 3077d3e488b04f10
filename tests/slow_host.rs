//! No worker parked by one host: a host whose robots.txt asks for a long `Crawl-delay`, or
//! that answers 429 with a long `Retry-After`, delays its own pages only. Every other host's
//! row arrives before the slow host is asked for a page its delay held back.

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

/// Crawls a start page linking first to the slow host, then to the 20 other hosts, with
/// `threads` workers, and returns how many page requests the slow host had got, when the last
/// of the other hosts' rows arrived, `DELAY_SECS` or more after its first one: requests its
/// delay held back. The run is cancelled then: the slow host's pages do not matter.
fn held_back_pages_when_others_finish(how: Slow, threads: usize) -> usize {
    let others: Vec<TestServer> = (4..24)
        .map(|i| {
            TestServer::start_on(
                &format!("127.0.0.{i}"),
                Routes::new().fallback(Reply::html("other")),
            )
        })
        .collect();
    let slow = slow_host(how);
    let mut links = String::new();
    for i in 0..SLOW_PAGES {
        links.push_str(&format!(
            "<a href='{}'>s</a>\n",
            slow.url(&format!("/s{i}"))
        ));
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
    let slow_base = slow.base();
    let (mut done, mut slow_pages) = (0, 0);
    checker
        .run_with(|e| {
            if e.referrer.is_none() || e.result.url.starts_with(&slow_base) {
                return;
            }
            assert_eq!(
                e.result.outcome,
                Outcome::Ok { status: Some(200) },
                "{}",
                e.result.url
            );
            done += 1;
            if done == 20 * OTHER_PAGES {
                let log = slow.requests();
                let mut pages = log.iter().filter(|r| r.path != "/robots.txt");
                if let Some(first) = pages.next() {
                    let held_back = |at: Instant| at - first.at >= Duration::from_secs(DELAY_SECS);
                    slow_pages = pages.filter(|r| held_back(r.at)).count();
                }
                cancel.cancel();
            }
        })
        .unwrap();
    assert_eq!(
        done,
        20 * OTHER_PAGES,
        "every other host's page was reported"
    );
    slow_pages
}

fn assert_no_worker_parked(how: Slow) {
    for threads in [1, 4] {
        // Its first pages may go out at once (and get the 429); later ones only after 30 s. A
        // worker parked for the slow host would send one of those before the others' rows.
        let held_back = held_back_pages_when_others_finish(how, threads);
        assert_eq!(
            held_back, 0,
            "{how:?}, {threads} threads: the slow host got {held_back} page requests after its \
             delay before the other hosts were done"
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
