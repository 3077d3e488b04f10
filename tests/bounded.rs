//! Memory bounded by the limits a user sets: past `--max-urls` links are counted, not stored;
//! a cancelled run with very many URLs pending exits with its whole report.

use std::process::Stdio;

use linkpatrol::Outcome;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, eventually, linkpatrol, run, signal};

/// A spider trap: page `/p/N` links to `/p/N*fanout+1` … `/p/N*fanout+fanout`, every one new.
fn trap(fanout: usize) -> TestServer {
    TestServer::start(Routes::new().dynamic(move |req| {
        let n: usize = req
            .path_only()
            .rsplit('/')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut html = String::with_capacity(fanout * 24);
        for i in 1..=fanout {
            html.push_str(&format!("<a href='/p/{}'>x</a>", n * fanout + i));
        }
        Some(Reply::html(html))
    }))
}

#[test]
fn past_max_urls_links_are_counted_not_stored() {
    let server = trap(100);
    for threads in [1, 4] {
        let report = run(config(&server.url("/p/0"), threads).max_urls(Some(300)));
        // Every URL stored is one of the 300 allowed, and checked: one row each (every link
        // of the trap is new, so each URL has one referrer).
        assert_eq!(report.urls, 300, "threads {threads}");
        assert_eq!(report.entries.len(), 300, "threads {threads}");
        assert!(
            report
                .entries
                .iter()
                .all(|e| e.result.outcome == Outcome::Ok { status: Some(200) }),
            "threads {threads}"
        );
        // The 300 pages hold 30,000 links: 299 were stored, the rest only counted.
        assert_eq!(report.over_limit, 300 * 100 - 299, "threads {threads}");
    }
}

#[test]
fn the_summary_states_how_many_links_the_limit_left_unchecked() {
    let server = trap(100);
    let out = linkpatrol()
        .args([
            "--no-status",
            "-t",
            "4",
            "--max-urls",
            "300",
            &server.url("/p/0"),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    // 300 pages of 100 new links each, 299 of them stored: 29,701 counted.
    assert!(
        text.contains(
            "29701 links to further URLs not checked: the limit of --max-urls was reached."
        ),
        "{text}"
    );
    assert!(text.contains("in 300 URLs checked"), "{text}");
}

/// Ctrl-C with a hundred thousand URLs queued and more: the binary writes its whole report and
/// exits with 130. (How long tearing the queued URLs down takes is a benchmark's question.)
#[test]
fn ctrl_c_with_many_urls_pending_exits_within_the_abort_timeout() {
    let server = trap(2000);
    let mut child = linkpatrol()
        .args([
            "--no-status",
            "-t",
            "4",
            "--abort-timeout",
            "1",
            "-o",
            "csv",
            &server.url("/p/0"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // 60 pages parsed: some 120,000 URLs are queued.
    eventually("60 pages served", || server.requests().len() >= 60);
    signal(&child, "-INT");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let mut csv = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut csv).unwrap();
    assert!(csv.ends_with('\n'), "the report is complete");
}
