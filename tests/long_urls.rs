//! URLs longer than 8,192 characters: never requested nor queued, each reported as a
//! `url-too-long` error for every page that links it — on a trap of ever-longer URLs, behind a
//! redirect and as a local `file:` link.

use linkpatrol::{Config, FailKind, Report};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, config, failed_kind, linkpatrol, run};

/// The cap (`policy::url_cap::MAX_URL_LENGTH`).
const CAP: usize = 8192;

/// A trap: page `/t/<s>` links `/t/<s>` plus 1,000 more characters, and one shared URL of
/// 9,000 characters; `/r` redirects to a URL of 9,000 characters.
fn trap() -> TestServer {
    TestServer::start(Routes::new().dynamic(|req| {
        if req.path == "/r" {
            return Some(Reply::redirect(302, &format!("/t/{}", "r".repeat(9000))));
        }
        let path = req.path.strip_prefix("/t/")?;
        Some(Reply::html(format!(
            "<a href='/t/{path}{}'>longer</a> <a href='/shared/{}'>shared</a> \
             <a href='/r'>redirect</a>",
            "a".repeat(1000),
            "z".repeat(9000)
        )))
    }))
}

/// The entries failed for their length.
fn too_long(report: &Report) -> Vec<&linkpatrol::Entry> {
    report
        .entries
        .iter()
        .filter(|e| failed_kind(&e.result.outcome) == Some(FailKind::UrlTooLong))
        .collect()
}

#[test]
fn a_trap_of_ever_longer_urls_ends_and_reports_them_unrequested() {
    for threads in [1, 8] {
        let server = trap();
        let report = run(config(&server.url("/t/"), threads));
        // Pages of 3 + 1000·k characters are requested up to the cap: /t/ and 8 longer ones.
        let pages = (0..)
            .take_while(|k| server.url("/t/").len() + 1000 * k <= CAP)
            .count();
        let requested = server.requests();
        assert!(
            requested.iter().all(|r| r.path.len() < CAP),
            "threads {threads}: a URL over the cap was requested"
        );
        assert_eq!(
            requested
                .iter()
                .filter(|r| r.path.starts_with("/t/"))
                .count(),
            pages,
            "threads {threads}"
        );
        let long = too_long(&report);
        // The shared URL once for every page, the last page's longer link, the redirect once
        // for every page.
        let shared: Vec<_> = long
            .iter()
            .filter(|e| e.result.url.contains("/shared/"))
            .collect();
        assert_eq!(shared.len(), pages, "threads {threads}");
        let mut parents: Vec<&str> = shared
            .iter()
            .map(|e| e.referrer.as_ref().unwrap().parent.as_str())
            .collect();
        parents.sort_unstable();
        parents.dedup();
        assert_eq!(parents.len(), pages, "threads {threads}: one row per page");
        let e = shared[0];
        // What is kept of it: its first 256 characters and its length.
        assert!(e.result.url.starts_with(&server.url("/shared/zzz")));
        assert!(e.result.url.ends_with('…'));
        assert!(e.result.url.chars().count() < 300);
        let linked = server.url("/shared/").len() + 9000;
        assert!(
            e.result
                .outcome
                .to_string()
                .contains(&format!("{linked} characters long, more than {CAP}")),
            "{}",
            e.result.outcome
        );
        assert!(e.referrer.as_ref().unwrap().raw.ends_with('…'));
        let redirected: Vec<_> = long
            .iter()
            .filter(|e| e.result.url == server.url("/r"))
            .collect();
        assert_eq!(redirected.len(), pages, "threads {threads}");
        assert!(
            redirected[0]
                .result
                .outcome
                .to_string()
                .contains("the redirect target is"),
            "{}",
            redirected[0].result.outcome
        );
        assert_eq!(long.len(), 2 * pages + 1, "threads {threads}");
    }
}

#[test]
fn every_report_format_names_the_class() {
    let server = trap();
    for format in ["json", "csv", "sarif"] {
        let out = linkpatrol()
            .args([
                "--no-status",
                "-o",
                format,
                "--max-requests-per-second",
                "0",
            ])
            .arg(server.url("/t/"))
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}: {text}");
        assert!(text.contains("url-too-long"), "{format}: {text}");
        assert!(
            text.contains("more than 8192: not requested"),
            "{format}: {text}"
        );
    }
}

#[test]
fn a_local_link_too_long_is_reported_and_a_long_encoded_name_is_not() {
    let dir = TempDir::new("long-file-links");
    // A path of 9,000 bytes is no file anywhere; 1,500 two-byte characters (in folders of 100)
    // are 3,000 bytes of path, 9,000 characters as a URL: measured as the path the file
    // system is asked for, it is looked up (and missing).
    let long = "a".repeat(9000);
    let encoded = vec!["é".repeat(100); 15].join("/");
    std::fs::write(
        dir.join("index.html"),
        format!("<a href='{long}.html'>long</a> <a href='{encoded}.html'>encoded</a>"),
    )
    .unwrap();
    for threads in [1, 8] {
        let cfg = Config::new()
            .input_path(&*dir)
            .threads(threads)
            .proxy_from_env(false);
        let report = run(cfg);
        let long_rows = too_long(&report);
        assert_eq!(long_rows.len(), 1, "threads {threads}");
        assert!(long_rows[0].result.url.starts_with("file://"));
        let other = report
            .entries
            .iter()
            .find(|e| e.result.url.contains("%C3%A9"))
            .expect("the encoded link is checked");
        assert_eq!(
            failed_kind(&other.result.outcome),
            Some(FailKind::FileNotFound),
            "threads {threads}"
        );
    }
}

#[test]
fn a_start_url_too_long_is_an_error_and_sends_nothing() {
    let server = trap();
    let long = server.url(&format!("/t/{}", "s".repeat(9000)));
    for threads in [1, 8] {
        let report = run(config(&long, threads));
        assert_eq!(too_long(&report).len(), 1, "threads {threads}");
        assert_eq!(report.entries.len(), 1, "threads {threads}");
        assert!(server.requests().is_empty(), "threads {threads}");
    }
}

#[test]
fn a_long_link_not_checked_for_its_scheme_is_no_error_and_kept_short() {
    let page = format!("<a href='data:text/plain,{}'>inline</a>", "x".repeat(9000));
    let server = TestServer::start(Routes::new().page("/", &page));
    for threads in [1, 8] {
        let report = run(config(&server.url("/"), threads));
        assert!(too_long(&report).is_empty(), "threads {threads}");
        let e = report
            .entries
            .iter()
            .find(|e| e.result.url.starts_with("data:"))
            .expect("the data: link is listed");
        assert!(e.result.outcome.is_ignored(), "{}", e.result.outcome);
        assert!(e.result.url.ends_with('…') && e.result.url.chars().count() < 300);
    }
}

#[test]
fn a_link_that_long_and_no_url_is_kept_short_in_every_text() {
    // Invalid (an unclosed IPv6 host) and padded with whitespace: every text naming it is cut.
    let value = format!("http://[{}", "a".repeat(9000));
    let page = format!("<a href=' {value} '>bad</a>");
    let server = TestServer::start(Routes::new().page("/", &page));
    for threads in [1, 8] {
        let report = run(config(&server.url("/"), threads));
        let e = report
            .entries
            .iter()
            .find(|e| failed_kind(&e.result.outcome) == Some(FailKind::InvalidUrl))
            .expect("the invalid link is reported");
        let site = e.referrer.as_ref().unwrap();
        let texts = [
            e.result.url.clone(),
            e.result.outcome.to_string(),
            site.raw.clone(),
        ];
        for text in texts.iter().chain(site.warnings.iter().map(|w| &w.message)) {
            assert!(text.len() < 600, "threads {threads}: {} bytes", text.len());
        }
        assert!(e.result.url.starts_with("http://[aaa"), "{}", e.result.url);
        assert_eq!(site.warnings.len(), 1, "url-whitespace");
    }
}
