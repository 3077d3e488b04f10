//! Whole crawls over loopback: every URL fetched once, every referrer reported, the same
//! results with 1 thread and with 16.

use std::collections::BTreeSet;

use linkpatrol::Outcome;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{broken, config, result_set, run};

/// A site of `n` pages in cycles: page i links to i+1, 3i, the home page, and a missing page
/// shared by many pages; page 0 links to an image and a stylesheet.
fn cyclic_site(n: usize) -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/", "<a href='/p/0'>start</a>")
            .reply(
                "/style.css",
                Reply::status(200).body("body{}").content_type("text/css"),
            )
            .reply(
                "/logo.png",
                Reply::status(200)
                    .body(vec![0x89, b'P', b'N', b'G'])
                    .content_type("image/png"),
            )
            .dynamic(move |req| {
                let i: usize = req.path_only().strip_prefix("/p/")?.parse().ok()?;
                if i >= n {
                    return None;
                }
                let mut html = format!(
                    "<html><head><link rel=stylesheet href='/style.css'></head><body>\n\
                     <a href='/p/{}'>next</a>\n<a href=\"../p/{}#frag\">jump</a>\n\
                     <a href='/'>home</a>\n<a href='/missing/{}'>gone</a>\n",
                    (i + 1) % n,
                    (i * 3) % n,
                    i % 4
                );
                if i == 0 {
                    html.push_str("<img src='/logo.png' alt='logo'>\n");
                }
                html.push_str("</body></html>");
                Some(Reply::html(html))
            }),
    )
}

#[test]
fn a_site_with_cycles_is_crawled_once() {
    let server = cyclic_site(40);
    let report = run(config(&server.url("/"), 8));
    // every page, asset and missing page requested exactly once
    let mut paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    let total = paths.len();
    paths.sort();
    paths.dedup();
    assert_eq!(
        total,
        paths.len(),
        "some URL was requested twice: {:?}",
        server
            .requests()
            .iter()
            .map(|r| &r.path)
            .collect::<Vec<_>>()
    );
    // robots.txt + 1 home + 40 pages + css + png + 4 missing
    assert_eq!(paths.len(), 48, "{paths:?}");
    assert_eq!(
        broken(&report),
        (0..4)
            .map(|i| server.url(&format!("/missing/{i}")))
            .collect::<BTreeSet<_>>()
    );
    assert!(!report.interrupted);
}

#[test]
fn a_broken_link_on_two_pages_is_checked_once_and_reported_with_both_parents() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/a'>a</a> <a href='/b'>b</a>")
            .page("/a", "<p>\n<a href='/gone'>first</a></p>")
            .page("/b", "<p>\n\n  <a href='gone'>second</a></p>"),
    );
    let report = run(config(&server.url("/"), 4));
    assert_eq!(server.count("/gone"), 1);
    let rows: BTreeSet<(String, Option<usize>, Option<usize>)> = report
        .broken()
        .map(|e| {
            let r = e.referrer.as_ref().unwrap();
            (r.parent.clone(), r.line, r.column)
        })
        .collect();
    assert_eq!(
        rows,
        BTreeSet::from([
            (server.url("/a"), Some(2), Some(1)),
            (server.url("/b"), Some(3), Some(3))
        ])
    );
    assert!(
        report
            .broken()
            .all(|e| e.result.outcome == Outcome::Broken { status: 404 })
    );
}

#[test]
fn one_thread_and_sixteen_threads_give_the_same_results() {
    let server = cyclic_site(60);
    let one = run(config(&server.url("/"), 1));
    let requests_one = server.requests().len();
    server.clear_requests();
    let many = run(config(&server.url("/"), 16));
    assert_eq!(result_set(&one), result_set(&many));
    assert_eq!(requests_one, server.requests().len());
    assert!(one.entries.len() > 200, "{}", one.entries.len());
}

#[test]
fn external_links_are_checked_but_not_recursed() {
    let external = TestServer::start_on(
        "127.0.0.2",
        Routes::new().page("/ext", "<a href='/deeper'>should not be followed</a>"),
    );
    let server = TestServer::start(Routes::new().page(
        "/",
        &format!(
            "<a href='{}'>ext</a> <a href='{}'>ext gone</a>",
            external.url("/ext"),
            external.url("/nope")
        ),
    ));
    let report = run(config(&server.url("/"), 4));
    assert_eq!(external.count("/ext"), 1);
    assert_eq!(external.count("/deeper"), 0);
    // links that are only checked use HEAD
    assert_eq!(external.count_method("HEAD", "/ext"), 1);
    assert_eq!(broken(&report), BTreeSet::from([external.url("/nope")]));

    let internal_only = run(config(&server.url("/"), 4).check_external(false));
    assert_eq!(external.count("/ext"), 1, "not fetched again");
    assert!(
        internal_only
            .entries
            .iter()
            .filter(|e| e.result.url.contains("127.0.0.2"))
            .all(|e| e.result.outcome.is_ignored())
    );
}

#[test]
fn quoted_and_percent_encoded_mail_addresses_are_checked_as_written() {
    let server = TestServer::start(Routes::new().page(
        "/",
        "<a href='mailto:%22a%20b%22@example.com'>1</a>\
         <a href='mailto:\"a\"\"@example.com'>2</a>\
         <a href='mailto:%22a%5C%22@example.com'>3</a>\
         <a href='mailto:a@example.com.111'>4</a>",
    ));
    let report = run(config(&server.url("/"), 2));
    let verdict = |needle: &str| {
        report
            .entries
            .iter()
            .find(|e| e.referrer.as_ref().is_some_and(|r| r.raw == needle))
            .map(|e| e.result.outcome.clone())
            .unwrap_or_else(|| panic!("no entry for {needle}"))
    };
    assert_eq!(
        verdict("mailto:%22a%20b%22@example.com"),
        Outcome::Ok { status: None }
    );
    for bad in [
        "mailto:\"a\"\"@example.com",
        "mailto:%22a%5C%22@example.com",
        "mailto:a@example.com.111",
    ] {
        assert!(verdict(bad).is_broken(), "{bad}");
    }
}

#[test]
fn schemes_we_cannot_check_are_ignored_and_mail_is_checked_for_syntax() {
    let server = TestServer::start(Routes::new().page(
        "/",
        "<a href='javascript:void(0)'>js</a><a href='tel:+1555'>tel</a>\
         <a href='mailto:ok@example.invalid'>mail</a><a href='mailto:broken'>bad mail</a>\
         <a href='http://[::1'>bad url</a>",
    ));
    let report = run(config(&server.url("/"), 2));
    let verdict = |needle: &str| {
        report
            .entries
            .iter()
            .find(|e| e.referrer.as_ref().is_some_and(|r| r.raw.contains(needle)))
            .map(|e| e.result.outcome.clone())
            .unwrap_or_else(|| panic!("no entry for {needle}"))
    };
    assert!(verdict("javascript").is_ignored());
    assert!(verdict("tel:").is_ignored());
    assert_eq!(verdict("mailto:ok"), Outcome::Ok { status: None });
    assert!(verdict("mailto:broken").is_broken());
    assert!(verdict("[::1").is_broken());
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        ["/robots.txt", "/"],
        "only robots.txt and the page itself were fetched"
    );
}

#[test]
fn recursion_level_limits_depth() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/1'>1</a>")
            .page("/1", "<a href='/2'>2</a>")
            .page("/2", "<a href='/3'>3</a>"),
    );
    run(config(&server.url("/"), 2).recursion_level(Some(1)));
    assert_eq!(server.count_method("GET", "/"), 1);
    assert_eq!(server.count("/1"), 1, "checked");
    assert_eq!(
        server.count_method("GET", "/1"),
        0,
        "not parsed, so HEAD only"
    );
    assert_eq!(server.count("/2"), 0);
}

#[test]
fn sitemaps_listed_in_robots_txt_seed_the_crawl_when_asked() {
    for threads in [1, 8] {
        let server = TestServer::start(
            Routes::new()
                .reply(
                    "/robots.txt",
                    Reply::status(200).body("Sitemap: /sitemap.xml\n").content_type("text/plain"),
                )
                .page("/", "<a href='/linked'>linked</a>")
                .page("/linked", "x")
                .reply(
                    "/sitemap.xml",
                    Reply::status(200).content_type("application/xml").body(
                        "<?xml version='1.0'?>\n<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\n\
                         <url><loc>/orphan</loc></url>\n<url><loc>/orphan-gone</loc></url>\n</urlset>",
                    ),
                )
                .page("/orphan", "<a href='/from-orphan'>deeper</a>")
                .page("/from-orphan", "y"),
        );
        let report = run(config(&server.url("/"), threads).seed_sitemaps(true));
        for path in ["/sitemap.xml", "/orphan", "/from-orphan"] {
            assert_eq!(server.count(path), 1, "{path}");
        }
        let gone = report.broken().next().expect("the sitemap's broken URL");
        assert_eq!(gone.result.url, server.url("/orphan-gone"));
        let r = gone.referrer.as_ref().unwrap();
        assert_eq!(
            (r.parent.as_str(), r.line),
            (server.url("/sitemap.xml").as_str(), Some(4))
        );

        server.clear_requests();
        run(config(&server.url("/"), threads));
        assert_eq!(server.count("/sitemap.xml"), 0, "not without seed_sitemaps");
        assert_eq!(server.count("/orphan"), 0);
    }
}

#[test]
fn nofollow_links_and_pages_are_checked_but_not_recursed() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/follow'>f</a><a rel='external NoFollow' href='/nf'>nf</a><a href='/meta'>m</a>")
            .page("/follow", "<a href='/from-follow'>x</a>")
            .page("/nf", "<a href='/from-nf'>x</a>")
            .page("/meta", "<meta name=robots content='noindex, nofollow'><a href='/from-meta'>x</a>")
            .page("/from-follow", "ok")
            .page("/from-meta", "<a href='/deeper'>x</a>"),
    );
    run(config(&server.url("/"), 4));
    assert_eq!(server.count("/from-follow"), 1);
    assert_eq!(
        server.count_method("HEAD", "/nf"),
        1,
        "rel=nofollow: checked with HEAD, not parsed"
    );
    assert_eq!(server.count("/from-nf"), 0);
    // a nofollow page's links are checked, not recursed into
    assert_eq!(server.count_method("HEAD", "/from-meta"), 1);
    assert_eq!(server.count("/deeper"), 0);
}

/// A page with `n` links, more than one batch of the engine's link handling (1,024), and a
/// `<base>`: every 7th target is missing.
fn page_of_many_links(n: usize) -> TestServer {
    let mut html = String::from("<html><head><base href='/b/'></head><body>\n");
    for i in 0..n {
        html.push_str(&format!("<a href='t/{i}'>link {i}</a>\n"));
    }
    html.push_str("</body></html>");
    TestServer::start(Routes::new().page("/", &html).dynamic(|req| {
        let i: usize = req.path_only().strip_prefix("/b/t/")?.parse().ok()?;
        (!i.is_multiple_of(7)).then(|| Reply::html("<p>ok</p>"))
    }))
}

#[test]
fn a_page_with_more_links_than_one_batch_gives_every_row_with_1_and_8_threads() {
    let n = 2_500;
    let server = page_of_many_links(n);
    let mut sets = Vec::new();
    for threads in [1, 8] {
        let report = run(config(&server.url("/"), threads));
        assert!(!report.interrupted);
        // The start page and one row per link, each with its own line, text and the base.
        assert_eq!(report.entries.len(), n + 1, "{threads} threads");
        let mut seen = BTreeSet::new();
        for e in report.entries.iter().filter(|e| e.referrer.is_some()) {
            let r = e.referrer.as_ref().unwrap();
            let i: usize = r.raw.strip_prefix("t/").unwrap().parse().unwrap();
            assert_eq!(e.result.url, server.url(&format!("/b/t/{i}")));
            assert_eq!((r.line, r.column), (Some(i + 2), Some(1)));
            assert_eq!(r.name, format!("link {i}"));
            assert_eq!(r.base.as_deref(), Some("/b/"));
            assert!(seen.insert(i), "link {i} twice");
        }
        assert_eq!(seen.len(), n);
        assert_eq!(
            broken(&report),
            (0..n)
                .filter(|i| i.is_multiple_of(7))
                .map(|i| server.url(&format!("/b/t/{i}")))
                .collect::<BTreeSet<_>>()
        );
        sets.push(result_set(&report));
    }
    assert_eq!(sets[0], sets[1]);
}
