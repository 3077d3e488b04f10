//! Settings for large crawls: problem-only entries, the bounded result channel.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use linkpatrol::report::Verbosity;
use linkpatrol::{Checker, Config, Report};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, result_set, run};

/// A site with good links, broken links, links with a warning, links of a page to itself (counted
/// while the page is still being checked) and pages linked many times.
fn site() -> TestServer {
    TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/a'>a</a><a href='/b'>b</a><a href='/gone'>gone</a>\
                 <a href=' /a '>padded</a><img src='/logo.png'>",
            )
            .page(
                "/a",
                "<a href='/b'>b</a><a href='/gone'>gone</a><a href='/'>home</a>\
                 <a href='#top'>top</a><a href='/a#x'>x</a><a href=' #pad '>padded self</a>",
            )
            .page(
                "/b",
                "<a href='/a'>a</a><a href='/also-gone'>x</a><a href='/'>home</a>",
            )
            .reply("/logo.png", Reply::status(200))
            .reply("/gone", Reply::status(404))
            .reply("/also-gone", Reply::status(410)),
    )
}

/// The problem entries of a full report, as `result_set` rows.
fn problems(report: &Report) -> Vec<(String, String, String, Option<usize>)> {
    let mut only = report.clone();
    only.entries.retain(|e| Verbosity::Problems.shows(e));
    result_set(&only).into_iter().collect()
}

#[test]
fn only_problems_delivers_the_problem_entries_and_counts_every_link() {
    let server = site();
    for threads in [1, 8] {
        let full = run(config(&server.url("/"), threads));
        let mut delivered = 0;
        let checker = Checker::new(config(&server.url("/"), threads).only_problems(true)).unwrap();
        let lean = checker
            .run_with(|e| {
                assert!(Verbosity::Problems.shows(e), "not a problem: {e:?}");
                delivered += 1;
            })
            .unwrap();
        assert_eq!(delivered, lean.entries.len());
        assert_eq!(problems(&lean), problems(&full), "threads={threads}");
        assert!(
            problems(&full).len() >= 4,
            "two 404 links, a 410 and the padded link: {:?}",
            problems(&full)
        );
        assert!(lean.entries.len() < full.entries.len());
        // Every number of the summary is the same as when every entry is built (the per-host
        // timings differ from run to run and are not compared).
        let (mut a, mut b) = (lean.stats.clone(), full.stats.clone());
        a.hosts.clear();
        b.hosts.clear();
        assert_eq!(a, b, "threads={threads}");
        assert_eq!(lean.urls, full.urls);
        assert_eq!(lean.links(), full.entries.len());
    }
}

/// Start URLs that are ignored at once produce their rows while the run is seeded; more of them
/// than the bounded channel holds must neither block nor be lost.
#[test]
fn more_seed_rows_than_the_channel_holds_all_arrive() {
    const N: usize = 6000;
    let mut cfg = Config::new()
        .threads(1)
        .exclude(regex::Regex::new("/excluded/").unwrap());
    for i in 0..N {
        // Port 9 (discard) is never contacted: every start is excluded before any request.
        cfg = cfg.input_url(format!("http://127.0.0.1:9/excluded/{i}"));
    }
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut seen = 0;
        let report = Checker::new(cfg).unwrap().run_with(|_| seen += 1).unwrap();
        let _ = tx.send((seen, report.links(), report.entries.len()));
    });
    let (seen, links, kept) = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the run ends instead of blocking on a full channel");
    assert_eq!((seen, links, kept), (N, N, N));
}

/// With only problems reported, a URL that is fine is kept in a lean form once checked; a later
/// link to it that is a problem of its own (padded with whitespace) still gets the whole result,
/// field for field the one a run that builds every entry reports.
#[test]
fn a_problem_link_to_a_url_checked_earlier_gets_its_whole_result() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/a'>a</a><a href='/b'>b</a>")
            .page("/a", "<p>fine</p>")
            .page("/b", "<a href=' /a '>padded, after /a is done</a>"),
    );
    // One thread: `/a` is checked before `/b` is parsed.
    let full = run(config(&server.url("/"), 1));
    let lean = run(config(&server.url("/"), 1).only_problems(true));
    let padded = |r: &Report| {
        let e = r
            .entries
            .iter()
            .find(|e| {
                e.referrer
                    .as_ref()
                    .is_some_and(|s| s.parent.ends_with("/b"))
            })
            .expect("the padded link's entry")
            .clone();
        let mut result = (*e.result).clone();
        // Timings differ from run to run.
        result.check_time = Duration::ZERO;
        result.download_time = None;
        (format!("{result:?}"), e.cached)
    };
    assert_eq!(padded(&lean), padded(&full));
    assert_eq!(lean.entries.len(), 1, "{:?}", lean.entries);
}
