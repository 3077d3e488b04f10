//! Results do not depend on which link to a page is claimed first: a page first found through
//! a `rel=nofollow` link (or on a `<meta name=robots content=nofollow>` page), or first found
//! beyond `-r`, is still parsed once a followed link at an allowed level reaches it — with
//! both link orders, 1 and 8 threads, each URL requested at most once per method and
//! reported once.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use linkpatrol::Report;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, run};

/// Long enough that, with 8 threads, the other path of the site is finished first.
const SLOW: Duration = Duration::from_millis(300);

/// What must not depend on the order: every (path, verdict), and every page parsed (a page
/// whose links were reported).
#[derive(Debug, PartialEq, Eq)]
struct Crawl {
    verdicts: BTreeSet<(String, String)>,
    parsed: BTreeSet<String>,
}

fn path_of(server: &TestServer, url: &str) -> String {
    url.strip_prefix(&server.base()).unwrap_or(url).to_owned()
}

/// Checks the invariants of one run and returns what is compared across runs.
fn observe(server: &TestServer, report: &Report, what: &str) -> Crawl {
    // each URL requested at most once per method
    let mut per_method: BTreeMap<(String, String), usize> = BTreeMap::new();
    for r in server.requests() {
        *per_method
            .entry((r.method.clone(), r.path.clone()))
            .or_default() += 1;
    }
    for ((method, path), n) in &per_method {
        assert_eq!(*n, 1, "{what}: {method} {path} requested {n} times");
    }
    // each URL reported once as checked (`cached = false`), each link once
    let mut first: BTreeMap<String, usize> = BTreeMap::new();
    let mut rows = BTreeSet::new();
    for e in &report.entries {
        if !e.cached {
            *first.entry(e.result.url.clone()).or_default() += 1;
        }
        let r = e.referrer.as_ref();
        let row = (
            e.result.url.clone(),
            r.map(|r| r.parent.clone()),
            r.and_then(|r| r.line),
            r.and_then(|r| r.column),
        );
        assert!(
            rows.insert(row.clone()),
            "{what}: row reported twice: {row:?}"
        );
    }
    for (url, n) in &first {
        assert_eq!(*n, 1, "{what}: {url} reported {n} times as checked");
    }
    Crawl {
        verdicts: report
            .entries
            .iter()
            .map(|e| (path_of(server, &e.result.url), e.result.outcome.to_string()))
            .collect(),
        parsed: report
            .entries
            .iter()
            .filter_map(|e| e.referrer.as_ref())
            .map(|r| path_of(server, &r.parent))
            .collect(),
    }
}

/// `/` links to `/a` with `rel=nofollow` and to `/b`, in `order`; `/m` (robots nofollow)
/// links to `/a` too; `/b` links to `/a` normally. `/a` must be parsed: `/c` and its missing
/// link are checked. `slow` is answered after a delay, to let the other path go first.
fn nofollow_site(nofollow_first: bool, slow: &str) -> TestServer {
    let (a, b) = (
        "<a rel=nofollow href='/a'>a</a>",
        "<a href='/b'>b</a><a href='/m'>m</a>",
    );
    let home = if nofollow_first {
        format!("{a}\n{b}")
    } else {
        format!("{b}\n{a}")
    };
    let page = |html: &str, path: &str| {
        let r = Reply::html(html.to_owned());
        if path == slow { r.delayed(SLOW) } else { r }
    };
    TestServer::start(
        Routes::new()
            .reply("/", page(&home, "/"))
            .reply(
                "/m",
                page(
                    "<html><head><meta name=robots content=nofollow></head>\
                     <body><a href='/a'>a</a></body></html>",
                    "/m",
                ),
            )
            .reply("/b", page("<a href='/a'>a</a>", "/b"))
            .reply("/a", page("<a href='/c'>c</a>", "/a"))
            .reply("/c", page("<a href='/gone'>gone</a>", "/c"))
            .reply("/gone", Reply::not_found()),
    )
}

#[test]
fn a_page_first_linked_with_nofollow_is_still_parsed() {
    let mut seen: Option<Crawl> = None;
    for nofollow_first in [true, false] {
        // `/a` slow: its HEAD is in flight when `/b` wants it parsed; `/b` slow: `/a` was
        // checked already.
        for slow in ["/a", "/b"] {
            for threads in [1, 8] {
                let what =
                    format!("nofollow first {nofollow_first}, {slow} slow, {threads} threads");
                let server = nofollow_site(nofollow_first, slow);
                let report = run(config(&server.url("/"), threads));
                let crawl = observe(&server, &report, &what);
                assert!(crawl.parsed.contains("/a"), "{what}: {crawl:?}");
                assert!(
                    report.broken().any(|e| e.result.url.ends_with("/gone")),
                    "{what}: {crawl:?}"
                );
                // `/a` parsed once: `/c` requested once (checked above), and with GET
                assert_eq!(server.count_method("GET", "/a"), 1, "{what}");
                if threads == 1 {
                    // One thread takes the links in order: nofollow first, `/a` was checked
                    // with HEAD and then needs its one GET; followed first, the queued task
                    // was upgraded before it ran and asked with GET at once.
                    let heads = usize::from(nofollow_first);
                    assert_eq!(server.count_method("HEAD", "/a"), heads, "{what}");
                }
                match &seen {
                    None => seen = Some(crawl),
                    Some(first) => assert_eq!(&crawl, first, "{what}"),
                }
            }
        }
    }
}

/// With `-r 3`: `/` links to `/d1` and `/s`, in `order`; `/d1` → `/d2` → `/p` reaches `/p` at
/// level 3 (checked, not parsed), `/s` reaches it at level 2 (parsed: `/q` is checked at level
/// 3, and its link `/r` is not); `/r` links to `/z`. `slow` is answered after a delay.
fn depth_site(deep_first: bool, slow: &str) -> TestServer {
    let home = if deep_first {
        "<a href='/d1'>d1</a>\n<a href='/s'>s</a>"
    } else {
        "<a href='/s'>s</a>\n<a href='/d1'>d1</a>"
    };
    let page = |html: &str, path: &str| {
        let r = Reply::html(html.to_owned());
        if path == slow { r.delayed(SLOW) } else { r }
    };
    TestServer::start(
        Routes::new()
            .reply("/", page(home, "/"))
            .reply("/d1", page("<a href='/d2'>d2</a>", "/d1"))
            .reply("/d2", page("<a href='/p'>p</a>", "/d2"))
            .reply("/s", page("<a href='/p'>p</a>", "/s"))
            .reply("/p", page("<a href='/q'>q</a>", "/p"))
            .reply("/q", page("<a href='/r'>r</a>", "/q"))
            .reply("/r", page("<a href='/z'>z</a>", "/r"))
            .reply("/z", page("never reached", "/z")),
    )
}

#[test]
fn a_page_first_found_beyond_the_recursion_limit_is_parsed_at_its_lowest_level() {
    let mut seen: Option<Crawl> = None;
    for deep_first in [true, false] {
        // `/s` slow: with 8 threads `/p` is found at level 3 first; `/d1` slow: at level 2.
        for slow in ["/s", "/d1"] {
            for threads in [1, 8] {
                let what = format!("deep first {deep_first}, {slow} slow, {threads} threads");
                let server = depth_site(deep_first, slow);
                let report = run(config(&server.url("/"), threads).recursion_level(Some(3)));
                let crawl = observe(&server, &report, &what);
                assert!(crawl.parsed.contains("/p"), "{what}: {crawl:?}");
                assert!(!crawl.parsed.contains("/q"), "{what}: {crawl:?}");
                assert_eq!(server.count("/r"), 0, "{what}: /q is beyond -r 3");
                assert_eq!(server.count_method("GET", "/p"), 1, "{what}");
                assert_eq!(
                    server.count_method("GET", "/q"),
                    0,
                    "{what}: /q only checked"
                );
                match &seen {
                    None => seen = Some(crawl),
                    Some(first) => assert_eq!(&crawl, first, "{what}"),
                }
            }
        }
    }
}

/// With `-r 4`, `/p` is parsed either way, but at level 3 through `/d2` and at level 2 through
/// `/s`: only at 2 is `/q` (level 3) parsed and `/r` checked. Parsed at 3 first, `/p` is not
/// parsed again: the links it kept are upgraded one level below.
#[test]
fn a_page_parsed_deeper_first_passes_its_lower_level_on_to_its_links() {
    let mut seen: Option<Crawl> = None;
    for deep_first in [true, false] {
        for slow in ["/s", "/d1"] {
            for threads in [1, 8] {
                let what = format!("deep first {deep_first}, {slow} slow, {threads} threads");
                let server = depth_site(deep_first, slow);
                let report = run(config(&server.url("/"), threads).recursion_level(Some(4)));
                let crawl = observe(&server, &report, &what);
                assert!(crawl.parsed.contains("/p"), "{what}: {crawl:?}");
                assert!(crawl.parsed.contains("/q"), "{what}: {crawl:?}");
                assert!(!crawl.parsed.contains("/r"), "{what}: {crawl:?}");
                assert_eq!(server.count("/z"), 0, "{what}: /r is at the limit");
                assert_eq!(server.count_method("GET", "/p"), 1, "{what}: parsed once");
                assert_eq!(server.count_method("GET", "/q"), 1, "{what}");
                match &seen {
                    None => seen = Some(crawl),
                    Some(first) => assert_eq!(&crawl, first, "{what}"),
                }
            }
        }
    }
}
