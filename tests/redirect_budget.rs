//! One redirect chain, one budget: a chain that alternates between two hosts is handed from
//! check to check (each hop's scope differs from the last), and `--max-redirects` and loop
//! detection still span the whole chain, as a start URL and as a link alike.

use std::sync::{Arc, OnceLock};

use linkpatrol::{FailKind, Report};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, entry, failed_kind, run};

/// Where a chain that ignored the budget would end: far past any limit the tests set, and
/// with a 200, so such a run finishes (and fails the test) instead of running for ever.
const LAST: u32 = 200;

/// The limit the tests set.
const MAX: usize = 5;

/// Two loopback hosts (127.0.0.1 and 127.0.0.2) that answer `/r/N` with a 302 to the other
/// host's `/r/N+1` (up to [`LAST`]), and `/loop/N` with a 302 to the other host's
/// `/loop/N+1`, back to `/loop/0` after `/loop/1`. The first also serves `/` linking `/r/0`
/// and `/loop/0`.
fn alternating() -> (TestServer, TestServer) {
    let bases: Arc<OnceLock<[String; 2]>> = Arc::new(OnceLock::new());
    let routes = |me: usize| {
        let bases = Arc::clone(&bases);
        Routes::new()
            .page("/", "<a href='/r/0'>chain</a> <a href='/loop/0'>loop</a>")
            .dynamic(move |req| {
                let other = &bases.get()?[1 - me];
                let path = req.path_only();
                if let Some(n) = path.strip_prefix("/r/") {
                    let n: u32 = n.parse().ok()?;
                    if n >= LAST {
                        return Some(Reply::html("the end"));
                    }
                    return Some(Reply::redirect(302, &format!("{other}/r/{}", n + 1)));
                }
                let n: u32 = path.strip_prefix("/loop/")?.parse().ok()?;
                Some(Reply::redirect(
                    302,
                    &format!("{other}/loop/{}", (n + 1) % 2),
                ))
            })
    };
    let a = TestServer::start(routes(0));
    let b = TestServer::start_on("127.0.0.2", routes(1));
    bases
        .set([a.base(), b.base()])
        .expect("the bases are set once");
    (a, b)
}

/// Requests for `prefix` the two servers saw.
fn requests(a: &TestServer, b: &TestServer, prefix: &str) -> usize {
    [a, b]
        .iter()
        .flat_map(|s| s.requests())
        .filter(|r| r.path_only().starts_with(prefix))
        .count()
}

fn kind_of(report: &Report, url: &str) -> Option<FailKind> {
    failed_kind(&entry(report, url).result.outcome)
}

#[test]
fn a_chain_alternating_hosts_stops_at_the_limit() {
    // The chain as a start URL, and as a link on a start page.
    for start in ["/r/0", "/"] {
        for threads in [1, 8] {
            let (a, b) = alternating();
            let report = run(config(&a.url(start), threads).max_redirects(MAX));
            assert_eq!(
                kind_of(&report, &a.url("/r/0")),
                Some(FailKind::TooManyRedirects),
                "from {start}, {threads} threads"
            );
            // The first URL and one request per hop the limit allows, never more.
            let seen = requests(&a, &b, "/r/");
            assert!(
                seen <= MAX + 1,
                "{seen} requests from {start}, {threads} threads"
            );
        }
    }
}

#[test]
fn a_loop_across_two_hosts_is_a_loop() {
    for threads in [1, 8] {
        let (a, b) = alternating();
        let report = run(config(&a.url("/"), threads).max_redirects(MAX));
        assert_eq!(
            kind_of(&report, &a.url("/loop/0")),
            Some(FailKind::RedirectLoop),
            "{threads} threads"
        );
        assert_eq!(a.count("/loop/0"), 1, "{threads} threads");
        assert_eq!(b.count("/loop/1"), 1, "{threads} threads");
    }
}
