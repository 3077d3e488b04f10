//! Per-host politeness, measured with the server's arrival timestamps.

use std::time::{Duration, Instant};

use crate::support::server::{Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli, cli_in, config, run};

#[test]
fn the_per_host_interval_is_respected_and_other_hosts_are_not_delayed() {
    let other = TestServer::start_on("127.0.0.2", Routes::new().page("/x", "x"));
    let mut links: String = (0..8).map(|i| format!("<a href='/p{i}'>p</a>")).collect();
    links.push_str(&format!("<a href='{}'>other host</a>", other.url("/x")));
    let server = TestServer::start(Routes::new().page("/", &links).dynamic(|req| {
        req.path_only()
            .starts_with("/p")
            .then(|| crate::support::server::Reply::html("page"))
    }));
    // 10 requests per second per host: 100 ms apart.
    let started = std::time::Instant::now();
    let report = run(config(&server.url("/"), 16).max_requests_per_second(10.0));
    let mut times: Vec<_> = server.requests().iter().map(|r| r.at).collect();
    times.sort();
    assert_eq!(times.len(), 10, "robots.txt, the start page and 8 pages");
    // slot k is due 100 ms × k after the first slot, which is not before the run started;
    // a request arrives after its slot, never before
    for (k, at) in times.iter().enumerate() {
        let min = Duration::from_millis(100) * k as u32;
        assert!(
            *at - started >= min,
            "request {k} arrived {:?} after the start",
            *at - started
        );
    }
    // the other host got its request soon after the start page, although 127.0.0.1 was booked
    // for the next 900 ms
    let other_at = other.requests()[0].at;
    assert!(other_at < times[6], "127.0.0.2 waited behind 127.0.0.1");
    let stats = report
        .hosts
        .iter()
        .find(|h| h.host.starts_with("127.0.0.1"))
        .unwrap();
    assert_eq!(stats.requests, 10);
    assert!(
        stats.waited >= Duration::from_millis(700),
        "{:?}",
        stats.waited
    );
}

#[test]
fn host_concurrency_caps_requests_in_flight() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                &(0..12)
                    .map(|i| format!("<a href='/s{i}'>s</a>"))
                    .collect::<String>(),
            )
            .dynamic(|req| {
                req.path_only().starts_with("/s").then(|| {
                    crate::support::server::Reply::html("slow").delayed(Duration::from_millis(100))
                })
            }),
    );
    run(config(&server.url("/"), 12).host_concurrency(2));
    // With 2 in flight, 12 slow replies need about 6 rounds of 100 ms.
    let reqs = server.requests();
    let first = reqs
        .iter()
        .filter(|r| r.path.starts_with("/s"))
        .map(|r| r.at)
        .min()
        .unwrap();
    let last = reqs
        .iter()
        .filter(|r| r.path.starts_with("/s"))
        .map(|r| r.at)
        .max()
        .unwrap();
    assert!(
        last - first >= Duration::from_millis(450),
        "{:?}",
        last - first
    );
    assert!(
        server.connections() <= 3,
        "{} connections",
        server.connections()
    );
}

/// A site on 127.0.0.1 whose start page links `pages` pages.
fn loopback_site(pages: usize) -> TestServer {
    let links: String = (0..pages)
        .map(|i| format!("<a href='/p{i}'>p</a>"))
        .collect();
    TestServer::start(Routes::new().page("/", &links).dynamic(|req| {
        req.path_only()
            .starts_with("/p")
            .then(|| crate::support::server::Reply::html("page"))
    }))
}

/// Asserts that the server got 7 requests (robots.txt, the start page, 5 pages) at 10 per
/// second: slot k is due 100 ms × k after the first, which is not before `started`, and a
/// request never arrives before its slot. (Gaps between arrivals can be shorter when a
/// thread wakes late on a busy machine, so they are not compared.)
fn assert_paced(server: &TestServer, started: Instant) {
    let mut times: Vec<_> = server.requests().iter().map(|r| r.at).collect();
    times.sort();
    assert_eq!(times.len(), 7, "robots.txt, the start page, 5 pages");
    for (k, at) in times.iter().enumerate() {
        assert!(
            *at - started >= Duration::from_millis(100) * k as u32,
            "request {k} arrived {:?} after the start",
            *at - started
        );
    }
}

#[test]
fn loopback_is_not_throttled_by_default() {
    let server = loopback_site(60);
    let out = cli(&["--no-status", "-o", "json", &server.url("/")]);
    assert_exit(&out, 0);
    assert_eq!(
        server.requests().len(),
        62,
        "robots.txt, the start page, 60 pages"
    );
    // The host's own figures: no interval, and no request ever waited for a slot (the default
    // 10 per second would have made 61 of them wait).
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hosts = json["summary"]["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 1, "{hosts:?}");
    assert_eq!(
        (hosts[0]["interval"].as_f64(), hosts[0]["waited"].as_f64()),
        (Some(0.0), Some(0.0)),
        "{hosts:?}"
    );
}

#[test]
fn a_rate_given_explicitly_holds_for_loopback() {
    let server = loopback_site(5);
    let started = Instant::now();
    let out = cli(&[
        "--no-status",
        "--max-requests-per-second",
        "10",
        &server.url("/"),
    ]);
    assert_exit(&out, 0);
    assert_paced(&server, started);

    let server = loopback_site(5);
    let dir = TempDir::new("loopback-rate");
    let config = dir.join("linkpatrol.toml");
    std::fs::write(&config, "max-requests-per-second = 10\n").unwrap();
    let started = Instant::now();
    let out = cli_in(
        &dir,
        &[],
        &[
            "--config",
            config.to_str().unwrap(),
            "--no-status",
            &server.url("/"),
        ],
    );
    assert_exit(&out, 0);
    assert_paced(&server, started);
}

#[test]
fn the_politeness_wait_is_wall_time_not_a_sum_over_requests() {
    // 24 pages of one host behind 20 requests per second: each waits up to 1.2 s behind the
    // others, over 14 s in sum; the host was waited for during about 1.2 s.
    let links: String = (0..24).map(|i| format!("<a href='/p{i}'>p</a>")).collect();
    let server = TestServer::start(Routes::new().page("/", &links).dynamic(|req| {
        req.path_only()
            .starts_with("/p")
            .then(|| crate::support::server::Reply::html("page"))
    }));
    for threads in [1, 8] {
        let report = run(config(&server.url("/"), threads).max_requests_per_second(20.0));
        let stats = report
            .hosts
            .iter()
            .find(|h| h.host.starts_with("127.0.0.1"))
            .unwrap();
        assert_eq!(
            stats.requests, 26,
            "robots.txt, the start page and 24 pages"
        );
        assert!(
            stats.waited <= report.duration,
            "{threads} threads: waited {:?} in a run of {:?}",
            stats.waited,
            report.duration
        );
        // The 24 pages were queued together and started 50 ms apart: over a second of waiting.
        assert!(
            stats.waited >= Duration::from_millis(1000),
            "{threads} threads: {:?}",
            stats.waited
        );
    }
}
