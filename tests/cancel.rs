//! Cancelling a run: it returns within the abort timeout, marked interrupted, with every
//! result finished before the cancel.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use linkpatrol::Checker;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, endless_site};

#[test]
fn cancel_during_a_crawl_returns_promptly_with_the_finished_results() {
    for threads in [1, 8] {
        let server = endless_site(Duration::from_millis(30));
        let checker = Checker::new(config(&server.url("/"), threads)).unwrap();
        let cancel = checker.cancel_handle();
        let (tx, rx) = mpsc::channel();
        let mut streamed = 0;
        // The endless site never ends on its own: the run's return is the cancel's doing.
        let (report, sent_before) = std::thread::scope(|s| {
            let server = &server;
            let canceller = s.spawn(move || {
                rx.recv().unwrap();
                cancel.cancel();
                server.requests().len()
            });
            let report = checker
                .run_with(|_| {
                    streamed += 1;
                    if streamed == 20 {
                        tx.send(()).unwrap();
                    }
                })
                .unwrap();
            (report, canceller.join().unwrap())
        });
        // Nothing new started after the cancel: at most the request each worker had just
        // taken on went out after it.
        let sent = server.requests().len();
        assert!(sent <= sent_before + threads, "{sent_before} then {sent}");
        assert!(report.interrupted);
        assert!(report.unchecked > 0);
        assert_eq!(
            report.entries.len(),
            streamed,
            "every streamed entry is in the report"
        );
        assert!(streamed >= 20);
        // everything reported was really served
        for e in &report.entries {
            let path = e.result.url.trim_start_matches(&server.base());
            assert_eq!(server.count(path), 1, "{path}");
        }
    }
}

#[test]
fn cancel_interrupts_requests_in_flight_after_the_abort_timeout() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/hang1'>a</a><a href='/hang2'>b</a><a href='/ok'>ok</a>",
            )
            .reply("/hang1", Reply::hang())
            .reply("/hang2", Reply::hang())
            .page("/ok", "ok"),
    );
    let checker = Checker::new(
        config(&server.url("/"), 4)
            .timeout(Duration::from_secs(60))
            .abort_timeout(Duration::from_millis(300)),
    )
    .unwrap();
    let cancel = checker.cancel_handle();
    let report = std::thread::scope(|s| {
        let run = s.spawn(|| checker.run().unwrap());
        // Both hangs and /ok requested (any 4 requests could include robots.txt and /ok
        // before the second hang, and then /ok may not even have started).
        let deadline = Instant::now() + Duration::from_secs(10);
        while ["/hang1", "/hang2", "/ok"]
            .iter()
            .any(|p| server.count(p) == 0)
        {
            assert!(Instant::now() < deadline, "both hangs in flight");
            std::thread::sleep(Duration::from_millis(10));
        }
        cancel.cancel();
        run.join().unwrap()
    });
    // The hangs are released only when the server is dropped, and the 60 s timeout would make
    // them results: the run returned because the abort timeout interrupted them.
    assert!(report.interrupted);
    assert!(report.entries.iter().any(|e| e.result.url.ends_with("/ok")));
    assert!(
        !report.entries.iter().any(|e| e.result.url.contains("hang")),
        "unfinished URLs are not results"
    );
    assert_eq!(report.unchecked, 2);
}
