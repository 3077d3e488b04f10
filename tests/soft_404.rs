//! `--detect-soft-404`: a site that answers 200 with its "not found" page for paths it does
//! not have is asked once per host for a made-up path; a page that says what that answer says
//! is warned about (`soft-404`), a real page is not, even with the same title. A correct
//! server (404 for what it does not have) costs one request more and nothing is warned.

use std::collections::BTreeSet;

use linkpatrol::Report;
use linkpatrol::report::Format;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, entry, linkpatrol, run};

const PROBE_PREFIX: &str = "/linkpatrol-soft-404-probe-";

/// A site whose every unknown path answers 200 with a "Page not found" page that names the
/// path, and whose real pages share its title.
fn soft_site() -> TestServer {
    TestServer::start_on(
        "127.0.0.2",
        Routes::new()
            .page(
                "/real",
                "<title>Example Site</title><h1>Welcome</h1><p>Our products, our team and \
                 how to reach us.</p>",
            )
            .page(
                "/about",
                "<title>Example Site</title><h1>About us</h1><p>Founded in 1999, we make \
                 link checkers.</p>",
            )
            .dynamic(|req| {
                (req.path != "/robots.txt").then(|| {
                    Reply::html(format!(
                        "<title>Example Site</title><h1>Page not found</h1><p>Sorry, \
                         <code>{}</code> does not exist. Go back to the home page.</p>",
                        req.path
                    ))
                })
            }),
    )
}

/// A correct server: 404 for what it does not have.
fn correct_site() -> TestServer {
    TestServer::start_on(
        "127.0.0.3",
        Routes::new()
            .page("/page", "<title>Docs</title><p>Real text.</p>")
            .page("/other", "<title>Docs</title><p>Other text.</p>"),
    )
}

/// The links of `soft` and `correct` that the start page has.
const SOFT_LINKS: [&str; 4] = ["/real", "/about", "/missing-page", "/docs/gone%20away?v=2"];
const CORRECT_LINKS: [&str; 3] = ["/page", "/other", "/absent"];

fn start_page(soft: &TestServer, correct: &TestServer) -> TestServer {
    let links: String = SOFT_LINKS
        .iter()
        .map(|p| soft.url(p))
        .chain(CORRECT_LINKS.iter().map(|p| correct.url(p)))
        .map(|u| format!("<a href='{u}'>x</a>\n"))
        .collect();
    TestServer::start(Routes::new().page("/", &links))
}

/// The URLs with the `soft-404` warning.
fn warned(report: &Report) -> BTreeSet<String> {
    report
        .entries
        .iter()
        .filter(|e| {
            e.result.warnings.iter().any(|w| w.tag == "soft-404")
                || e.referrer
                    .as_ref()
                    .is_some_and(|r| r.warnings.iter().any(|w| w.tag == "soft-404"))
        })
        .map(|e| e.result.url.clone())
        .collect()
}

/// The requests a server had, robots.txt and the probes left out, and its probes.
fn requests(server: &TestServer) -> (usize, usize) {
    let all = server.requests();
    let probes = all
        .iter()
        .filter(|r| r.path.starts_with(PROBE_PREFIX))
        .count();
    let pages = all
        .iter()
        .filter(|r| r.path != "/robots.txt" && !r.path.starts_with(PROBE_PREFIX))
        .count();
    (pages, probes)
}

#[test]
fn soft_404_pages_are_warned_about_and_each_host_is_probed_once() {
    for threads in [1, 8] {
        let soft = soft_site();
        let correct = correct_site();
        let start = start_page(&soft, &correct);
        let report = run(config(&start.url("/"), threads).detect_soft_404(true));
        assert_eq!(
            warned(&report),
            BTreeSet::from([soft.url("/missing-page"), soft.url("/docs/gone%20away?v=2")]),
            "threads={threads}"
        );
        let w = &entry(&report, &soft.url("/missing-page")).result.warnings;
        let message = &w.iter().find(|w| w.tag == "soft-404").unwrap().message;
        assert!(message.contains(PROBE_PREFIX), "{message}");
        // One probe per host, each link asked once (with GET: its body is compared).
        assert_eq!(requests(&soft), (SOFT_LINKS.len(), 1), "threads={threads}");
        assert_eq!(
            requests(&correct),
            (CORRECT_LINKS.len(), 1),
            "threads={threads}"
        );
        assert_eq!(requests(&start), (1, 1), "threads={threads}");
        for server in [&soft, &correct] {
            assert!(
                server
                    .requests()
                    .iter()
                    .all(|r| r.method == "GET" || r.path == "/robots.txt")
            );
        }
        // A correct server's missing page is broken as ever.
        assert!(
            entry(&report, &correct.url("/absent"))
                .result
                .outcome
                .is_broken()
        );
    }
}

/// Many pages of one host finished at once by many threads: still one probe.
#[test]
fn one_probe_per_host_whatever_the_threads() {
    let soft = soft_site();
    let links: String = (0..60)
        .map(|i| format!("<a href='{}'>x</a>", soft.url(&format!("/gone{i}"))))
        .collect();
    let start = TestServer::start(Routes::new().page("/", &links));
    let report = run(config(&start.url("/"), 8).detect_soft_404(true));
    assert_eq!(warned(&report).len(), 60);
    assert_eq!(requests(&soft), (60, 1));
}

/// Without the flag: no probe, no warning, links checked with HEAD as usual.
#[test]
fn nothing_is_probed_without_the_flag() {
    let soft = soft_site();
    let correct = correct_site();
    let start = start_page(&soft, &correct);
    let report = run(config(&start.url("/"), 4));
    assert!(warned(&report).is_empty());
    assert_eq!(requests(&soft), (SOFT_LINKS.len(), 0));
    assert_eq!(requests(&correct).1, 0);
}

/// The warning shows in every format that lists warnings.
#[test]
fn every_format_shows_the_soft_404_warning() {
    let soft = soft_site();
    let correct = correct_site();
    let start = start_page(&soft, &correct);
    for format in Format::ALL
        .iter()
        .filter(|f| f.shows_reasons())
        .map(|f| f.name())
    {
        let out = linkpatrol()
            .args(["--no-status", "--max-requests-per-second", "0", "-v"])
            .args(["--detect-soft-404", "-o", format, &start.url("/")])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("soft-404"), "{format}: {text}");
        assert!(text.contains("soft 404"), "{format}: {text}");
    }
}
