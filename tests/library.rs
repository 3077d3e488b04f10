//! The blocking library from a plain thread: streaming, in-memory HTML, two checkers at once.

use std::collections::BTreeSet;
use std::time::Duration;

use linkpatrol::{Checker, Config, Outcome};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{broken, config, result_set, run};

#[test]
fn entries_stream_before_the_run_returns() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/slow'>s</a><a href='/fast'>f</a>")
            .reply(
                "/slow",
                Reply::html("slow").delayed(Duration::from_millis(300)),
            )
            .page("/fast", "fast"),
    );
    let checker = Checker::new(config(&server.url("/"), 2)).unwrap();
    let mut seen = Vec::new();
    let report = checker
        .run_with(|e| seen.push(e.result.url.clone()))
        .unwrap();
    // /fast reached the caller before /slow finished: entries stream as they are known
    let pos = |u: &str| seen.iter().position(|s| *s == server.url(u)).unwrap();
    assert!(pos("/fast") < pos("/slow"), "{seen:?}");
    assert_eq!(
        seen,
        report
            .entries
            .iter()
            .map(|e| e.result.url.clone())
            .collect::<Vec<_>>()
    );
}

#[test]
fn in_memory_html_is_checked_without_fetching_its_base() {
    let server = TestServer::start(Routes::new().page("/ok", "ok"));
    let html = "<p><a href='ok'>fine</a>\n<a href='missing'>gone</a><a href='#top'>self</a></p>";
    let config = Config::new()
        .proxy_from_env(false)
        .input_html(html, server.url("/page.html"))
        .input_html("<a href='/ok'>again</a>", server.url("/other.html"))
        .max_requests_per_second(0.0);
    let report = run(config);
    assert_eq!(
        server.count("/page.html"),
        0,
        "the in-memory document is not fetched"
    );
    assert_eq!(
        server.count("/ok"),
        1,
        "linked from both documents, checked once"
    );
    assert_eq!(broken(&report), BTreeSet::from([server.url("/missing")]));
    let gone = report.broken().next().unwrap().referrer.clone().unwrap();
    assert_eq!(
        (gone.parent, gone.line),
        (server.url("/page.html"), Some(2))
    );
}

#[test]
fn two_checkers_at_once_do_not_interfere() {
    let a = TestServer::start(
        Routes::new()
            .page("/", "<a href='/a1'>1</a><a href='/gone-a'>x</a>")
            .page("/a1", "a"),
    );
    let b = TestServer::start_on(
        "127.0.0.2",
        Routes::new()
            .page("/", "<a href='/b1'>1</a><a href='/gone-b'>x</a>")
            .page("/b1", "b"),
    );
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| run(config(&a.url("/"), 4)));
        let hb = s.spawn(|| run(config(&b.url("/"), 4)));
        (ha.join().unwrap(), hb.join().unwrap())
    });
    assert_eq!(broken(&ra), BTreeSet::from([a.url("/gone-a")]));
    assert_eq!(broken(&rb), BTreeSet::from([b.url("/gone-b")]));
    // cancelling one leaves the other alone
    let ca = Checker::new(config(&a.url("/"), 2)).unwrap();
    ca.cancel_handle().cancel();
    let cancelled = ca.run().unwrap();
    assert!(cancelled.interrupted);
    let again = run(config(&b.url("/"), 2));
    assert!(!again.interrupted);
    assert_eq!(result_set(&again), result_set(&rb));
    assert!(
        again
            .entries
            .iter()
            .all(|e| !matches!(e.result.outcome, Outcome::Failed { .. }))
    );
}

#[test]
fn a_run_that_keeps_no_entries_still_has_its_numbers() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/a'>a</a><a href='/gone'>x</a>")
            .page("/a", "<a href='/gone'>again</a>"),
    );
    let kept = run(config(&server.url("/"), 2));
    let mut streamed = 0;
    let lean = Checker::new(config(&server.url("/"), 2).keep_entries(false))
        .unwrap()
        .run_with(|_| streamed += 1)
        .unwrap();
    assert!(lean.entries.is_empty());
    assert_eq!(streamed, kept.entries.len());
    assert_eq!(
        (lean.links(), lean.errors(), lean.urls),
        (kept.links(), kept.errors(), kept.urls)
    );
    assert_eq!((lean.errors(), lean.stats.broken_urls), (2, 1));
}
