//! Host-aware scheduling across 22 loopback hosts (the scenario of
//! `tests/support/multi_host.rs`): a host answering 429 holds only its own tasks, asserted by
//! the order in which the hosts were asked, not by wall time. `benches/politeness.rs` runs the
//! full scenarios and prints the wall time against the ideal.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::support::multi_host::{Scenario, crawl, print};
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::result_set;

/// The reduced scenario. FIFO workers that sleep for their host's slot sent 3 requests inside
/// the 429 pause and asked no light host before it ended (every worker slept for the 429
/// host); the host-aware queue checks the other hosts meanwhile.
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
    // The 429 host's first page request got the 429; its next one came after the pause.
    let pages: Vec<_> = m
        .limited
        .iter()
        .filter(|r| r.path != "/robots.txt")
        .collect();
    let (paused, resumed) = (pages[0].at, pages[1].at);
    for (n, light) in m.lights.iter().enumerate() {
        let last = light.iter().map(|r| r.at).max().unwrap();
        assert!(
            last < resumed,
            "light host {n} was asked only after the pause"
        );
    }
    let heavy_in_pause = m.heavy.iter().filter(|r| r.at > paused && r.at < resumed);
    assert!(
        heavy_in_pause.count() > 0,
        "the heavy host waited out the pause"
    );
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
    assert_eq!(results(&one.report), results(&many.report));
    for m in [one, many] {
        assert_eq!((m.during_pause, m.extra_requests, m.not_ok), (0, 0, 0));
    }
}

/// The results of a crawl of the scenario, with paths for URLs (ports differ between runs).
fn results(report: &linkpatrol::Report) -> BTreeSet<(String, String, String, Option<usize>)> {
    result_set(report)
        .into_iter()
        .map(|(url, verdict, parent, line)| {
            // ports differ from run to run: compare paths
            let path = url.split_once("//").map_or(url.as_str(), |(_, r)| r);
            let path = path.split_once('/').map_or("", |(_, p)| p).to_owned();
            (path, verdict, parent.is_empty().to_string(), line)
        })
        .collect()
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
    let slow_log = slow.requests();
    assert_eq!(slow_log[0].path, "/robots.txt");
    let fast_done = fast.requests().iter().map(|r| r.at).max().unwrap();
    assert_eq!(fast.requests().len(), 6, "robots.txt and 5 links");
    // The slow host's pages wait for its robots.txt: the other host was done before the first.
    let slow_first_page = slow_log[1].at;
    assert!(
        fast_done < slow_first_page,
        "the fast host's last request came {:?} after the slow host's first page",
        fast_done - slow_first_page
    );
}
