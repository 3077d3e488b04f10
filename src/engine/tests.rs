//! The engine on a fake fetcher: termination, redirects into pending URLs, upgrades to parse
//! and cancel, with no socket and no file — each with one thread and with many.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use super::checker::Checker;
use super::fake_fetch::{Answer, FakeFetch};
use crate::config::Config;
use crate::model::outcome::Outcome;
use crate::model::run_report::Report;

const SITE: &str = "http://site.test/";

fn url(path: &str) -> String {
    format!("{SITE}{path}")
}

fn page(links: &[&str]) -> Answer {
    let body: String = links
        .iter()
        .map(|l| format!("<a href=\"{l}\">{l}</a>\n"))
        .collect();
    Answer::Page(200, format!("<html><body>\n{body}</body></html>"))
}

fn config(threads: usize) -> Config {
    Config::new()
        .input_url(SITE)
        .threads(threads)
        .max_requests_per_second(0.0)
        .robots(false)
}

fn run(config: Config, fake: &Arc<FakeFetch>) -> Report {
    Checker::new(config)
        .unwrap()
        .with_fetch(fake.clone())
        .run()
        .unwrap()
}

/// The outcomes reported for `url`, one per occurrence.
fn outcomes(report: &Report, url: &str) -> Vec<Outcome> {
    report
        .entries
        .iter()
        .filter(|e| e.result.url == url)
        .map(|e| e.result.outcome.clone())
        .collect()
}

#[test]
fn every_url_is_fetched_once_and_the_run_ends_with_1_and_8_threads() {
    const PAGES: usize = 300;
    let mut answers = vec![(url(""), page(&["p0.html", "p1.html"]))];
    for i in 0..PAGES {
        let links: Vec<String> = [1, 7, 31, 101]
            .iter()
            .map(|d| format!("p{}.html", (i + d) % PAGES))
            .chain([format!("missing{}.html", i % 10)])
            .collect();
        let links: Vec<&str> = links.iter().map(String::as_str).collect();
        answers.push((url(&format!("p{i}.html")), page(&links)));
    }
    for threads in [1, 8] {
        let fake = Arc::new(FakeFetch::new(answers.clone()));
        let report = run(config(threads), &fake);
        assert!(!report.interrupted);
        for i in 0..PAGES {
            assert_eq!(
                fake.requests(&url(&format!("p{i}.html"))),
                1,
                "p{i}, {threads} threads"
            );
        }
        for i in 0..10 {
            assert_eq!(fake.requests(&url(&format!("missing{i}.html"))), 1);
        }
        // The start, the pages, ten missing pages.
        assert_eq!(report.urls, 1 + PAGES + 10, "{threads} threads");
        // One row per link on every page, plus the start URL.
        assert_eq!(report.links(), 1 + 2 + PAGES * 5, "{threads} threads");
        assert_eq!(report.errors(), PAGES, "each page has one missing link");
        assert_eq!(report.unchecked, 0);
    }
}

#[test]
fn a_redirect_into_a_url_still_pending_takes_that_urls_verdict() {
    let answers = [
        (url(""), page(&["b.html", "r"])),
        (url("r"), Answer::Redirect(301, "b.html".into())),
        (url("b.html"), Answer::Page(410, "gone".into())),
    ];
    // Two threads at least: the fetch of b.html waits until the chain of r has reached it.
    for threads in [2, 8] {
        let fake = Arc::new(FakeFetch::new(answers.clone()).hold(&url("b.html")));
        let report = run(config(threads), &fake);
        assert_eq!(
            fake.requests(&url("b.html")),
            1,
            "checked once, {threads} threads"
        );
        assert_eq!(fake.requests(&url("r")), 1);
        assert_eq!(
            outcomes(&report, &url("r")),
            [Outcome::Broken { status: 410 }],
            "{threads} threads"
        );
        assert_eq!(
            outcomes(&report, &url("b.html")),
            [Outcome::Broken { status: 410 }]
        );
        let r = report
            .entries
            .iter()
            .find(|e| e.result.url == url("r"))
            .unwrap();
        assert_eq!(r.result.redirects.len(), 1);
        assert_eq!(
            r.result.real_url.as_ref().map(|u| u.as_str()),
            Some(url("b.html").as_str())
        );
    }
}

#[test]
fn a_page_first_found_nofollow_is_parsed_once_a_link_follows_it() {
    let answers = [
        (
            url(""),
            Answer::Page(
                200,
                "<a rel=nofollow href=p.html>p</a><a href=q.html>q</a>".into(),
            ),
        ),
        (url("q.html"), page(&["p.html"])),
        (url("p.html"), page(&["deep.html"])),
        (url("deep.html"), page(&[])),
    ];
    for threads in [1, 8] {
        let fake = Arc::new(FakeFetch::new(answers.clone()));
        let report = run(config(threads), &fake);
        assert_eq!(
            outcomes(&report, &url("deep.html")),
            [Outcome::Ok { status: Some(200) }],
            "p.html was parsed, {threads} threads"
        );
        assert_eq!(fake.requests(&url("deep.html")), 1);
        // Checked once, and fetched once more to be parsed when its first check did not.
        assert!((1..=2).contains(&fake.requests(&url("p.html"))));
        assert_eq!(
            outcomes(&report, &url("p.html")).len(),
            2,
            "two links to it"
        );
    }
}

#[test]
fn cancel_ends_a_run_stuck_on_a_hanging_url_with_every_finished_result() {
    for threads in [1, 8] {
        let checker = Checker::new(
            config(threads)
                .abort_timeout(Duration::from_millis(200))
                .host_concurrency(0),
        )
        .unwrap();
        let (tx, started) = crossbeam_channel::unbounded();
        let fake = Arc::new(
            FakeFetch::new([
                (url(""), page(&["ok.html", "hang"])),
                (url("ok.html"), page(&[])),
                (url("hang"), Answer::Hang),
            ])
            .hang_until(checker.cancel_handle(), tx),
        );
        let checker = checker.with_fetch(fake.clone());
        let cancel = checker.cancel_handle();
        let canceller = thread::spawn(move || {
            let hung = started.recv_timeout(Duration::from_secs(30)).unwrap();
            cancel.cancel();
            hung
        });
        let t = Instant::now();
        let report = checker.run().unwrap();
        assert_eq!(canceller.join().unwrap(), url("hang"));
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        assert!(report.interrupted, "{threads} threads");
        assert_eq!(report.unchecked, 1, "the hanging URL, {threads} threads");
        assert!(outcomes(&report, &url("hang")).is_empty());
        assert_eq!(outcomes(&report, SITE), [Outcome::Ok { status: Some(200) }]);
    }
}

#[test]
fn a_site_whose_host_ends_in_a_dot_has_each_page_checked_once() {
    // The key drops the host's trailing dot; a link joined as text on such a page would keep
    // it, and the same page would be claimed under two keys.
    let site = "http://dot.test./";
    let answers = vec![
        (site.to_owned(), page(&["a.html", "/b.html", "sub/"])),
        (format!("{site}a.html"), page(&["b.html", "./", "a.html#x"])),
        (format!("{site}b.html"), page(&["a.html", "sub/"])),
        (format!("{site}sub/"), page(&["../a.html"])),
    ];
    for threads in [1, 8] {
        let fake = Arc::new(FakeFetch::new(answers.clone()));
        let config = Config::new()
            .input_url(site)
            .threads(threads)
            .max_requests_per_second(0.0)
            .robots(false);
        let report = run(config, &fake);
        for path in ["", "a.html", "b.html", "sub/"] {
            assert_eq!(
                fake.requests(&format!("{site}{path}")),
                1,
                "{path}, {threads} threads"
            );
        }
        assert_eq!(report.urls, 4, "{threads} threads");
        assert_eq!(report.errors(), 0, "{threads} threads");
    }
}

#[test]
fn require_https_warns_when_the_twin_works_or_the_chain_ends_on_it() {
    let fake = Arc::new(FakeFetch::new([
        (
            SITE.into(),
            page(&[
                "http://up.test/a",
                "http://twin.test/b",
                "http://none.test/c",
            ]),
        ),
        (
            "http://up.test/a".into(),
            Answer::Redirect(301, "https://up.test/a".into()),
        ),
        ("https://up.test/a".into(), Answer::Page(200, String::new())),
        (
            "http://twin.test/b".into(),
            Answer::Page(200, String::new()),
        ),
        (
            "https://twin.test/b".into(),
            Answer::Page(200, String::new()),
        ),
        (
            "http://none.test/c".into(),
            Answer::Page(200, String::new()),
        ),
    ]));
    for threads in [1, 8] {
        let report = run(config(threads).require_https(true), &fake);
        let warned = |u: &str| {
            report
                .entries
                .iter()
                .filter(|e| e.result.url == u)
                .any(|e| e.result.warnings.iter().any(|w| w.tag == "http-has-https"))
        };
        assert!(warned("http://up.test/a"), "threads={threads}");
        assert!(warned("http://twin.test/b"), "threads={threads}");
        assert!(!warned("http://none.test/c"), "its twin answers 404");
        assert!(!warned(SITE), "its twin answers 404");
    }
    // The chain that ended on the twin said so itself: the twin was not asked again.
    assert_eq!(fake.requests("https://up.test/a"), 2);
    assert_eq!(fake.requests("https://twin.test/b"), 2);
}
