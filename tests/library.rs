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

/// The same site through `spawn`'s iterator and through `run_with`: the same entries, the same
/// counts, at 1 thread and at 8.
#[test]
fn the_iterator_gives_what_run_with_gives() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/a'>a</a><a href='/b'>b</a><a href='/gone'>x</a>",
            )
            .page("/a", "<a href='/b'>b</a><a href='/'>home</a>")
            .page("/b", "<a href='/gone'>x</a>"),
    );
    for threads in [1, 8] {
        let checker = Checker::new(config(&server.url("/"), threads)).unwrap();
        let mut streamed = Vec::new();
        let by_callback = checker.run_with(|e| streamed.push(row(e))).unwrap();
        let mut run = Checker::new(config(&server.url("/"), threads))
            .unwrap()
            .spawn()
            .unwrap();
        let mut iterated: Vec<_> = run.by_ref().map(|e| row(&e)).collect();
        let report = run.finish().unwrap();
        assert_eq!(
            report.entries.iter().map(row).collect::<Vec<_>>(),
            iterated,
            "kept entries are the iterated ones, in order"
        );
        streamed.sort();
        iterated.sort();
        assert_eq!(streamed, iterated, "{threads} threads");
        assert_eq!(report.urls, by_callback.urls);
        assert_eq!(report.errors(), 2);
        assert!(!report.interrupted);
    }
}

/// `next_within` says when nothing arrived; `cancel` ends the run with a report that says so.
#[test]
fn a_spawned_run_waits_idles_and_cancels() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/hang'>h</a>")
            .reply("/hang", Reply::hang()),
    );
    let cfg = config(&server.url("/"), 2).abort_timeout(Duration::from_millis(100));
    let mut run = Checker::new(cfg).unwrap().spawn().unwrap();
    let mut idles = 0;
    let mut entries = Vec::new();
    while idles < 3 {
        match run.next_within(Duration::from_millis(20)) {
            linkpatrol::Step::Entry(e) => entries.push(e.result.url.clone()),
            linkpatrol::Step::Idle => idles += 1,
            other => panic!("the run ended early: {other:?}"),
        }
    }
    assert_eq!(
        entries,
        [server.url("/")],
        "the start page is known, /hang is not"
    );
    run.cancel();
    let report = run.finish().unwrap();
    assert!(report.interrupted);
    let again = Checker::new(config(&server.url("/"), 1).abort_timeout(Duration::from_millis(100)))
        .unwrap()
        .spawn()
        .unwrap();
    again.cancel();
    assert!(
        again.finish().unwrap().interrupted,
        "cancelled before any entry"
    );
}

/// A dropped run is cancelled: its hanging request is let go and the server sees no more.
#[test]
fn dropping_a_spawned_run_cancels_it() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/hang'>h</a>")
            .reply("/hang", Reply::hang()),
    );
    let checker = Checker::new(config(&server.url("/"), 2)).unwrap();
    let cancel = checker.cancel_handle();
    let mut run = checker.spawn().unwrap();
    assert!(run.next().is_some(), "the start page");
    drop(run);
    assert!(cancel.is_cancelled());
}

fn row(e: &linkpatrol::Entry) -> (String, Option<String>, bool) {
    (
        e.result.url.clone(),
        e.referrer.as_ref().map(|r| r.parent.clone()),
        e.result.outcome.is_broken(),
    )
}
