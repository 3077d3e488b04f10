//! Servers on loopback that behave like well-known real sites: no false alarm where a browser
//! sees the page, no waiting on a host that is down.

use linkpatrol::Outcome;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, entry, run};

const THREADS: [usize; 2] = [1, 8];

/// A server that answers HEAD 404 but GET 200 (a CDN that routes only GET) is fine: a failing
/// HEAD is confirmed with a GET. A link whose HEAD succeeds costs one request, a broken one two.
#[test]
fn a_failing_head_is_confirmed_with_a_get() {
    for threads in THREADS {
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new()
                .dynamic(|req| match (req.method.as_str(), req.path.as_str()) {
                    ("HEAD", "/cdn") => Some(Reply::not_found()),
                    (_, "/cdn") => Some(Reply::html("<title>ok</title>")),
                    _ => None,
                })
                .reply("/ok", Reply::html("ok"))
                .reply("/gone", Reply::not_found())
                .reply("/error", Reply::status(500)),
        );
        let links: String = ["/cdn", "/ok", "/gone", "/error"]
            .iter()
            .map(|p| format!("<a href='{}'>x</a>", external.url(p)))
            .collect();
        let server = TestServer::start(Routes::new().page("/", &links));
        let report = run(config(&server.url("/"), threads).max_retries(0));
        let outcome = |p: &str| entry(&report, &external.url(p)).result.outcome.clone();
        assert_eq!(outcome("/cdn"), Outcome::Ok { status: Some(200) });
        assert_eq!(outcome("/ok"), Outcome::Ok { status: Some(200) });
        assert_eq!(outcome("/gone"), Outcome::Broken { status: 404 });
        assert_eq!(outcome("/error"), Outcome::Broken { status: 500 });
        assert_eq!(external.count_method("HEAD", "/ok"), 1);
        assert_eq!(
            external.count_method("GET", "/ok"),
            0,
            "a working link costs one request"
        );
        for p in ["/cdn", "/gone", "/error"] {
            assert_eq!(external.count_method("HEAD", p), 1, "{p}");
            assert_eq!(
                external.count_method("GET", p),
                1,
                "{p}: one GET to confirm"
            );
        }
    }
}
