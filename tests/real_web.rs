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

/// A consent wall: the server sets a cookie and redirects to the same URL, expecting it back.
/// Cookies set during the run are sent on later hops and requests to their host, and never to
/// another one (not even when the server names it in `Domain`).
#[test]
fn cookies_set_during_the_run_are_sent_back_to_their_host_only() {
    for threads in THREADS {
        let other = TestServer::start_on(
            "127.0.0.3",
            Routes::new().reply("/check", Reply::html("ok")),
        );
        let to_other = other.url("/check");
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new().dynamic(move |req| {
                let has = |c: &str| {
                    req.header("cookie")
                        .is_some_and(|v| v.split("; ").any(|p| p == c))
                };
                match req.path.as_str() {
                    "/consent" if has("consent=yes") => Some(Reply::html("<title>news</title>")),
                    "/consent" => Some(
                        Reply::redirect(302, "/consent")
                            .header("Set-Cookie", "consent=yes; Path=/; Max-Age=3600"),
                    ),
                    "/login" => Some(
                        Reply::redirect(302, "/members/")
                            .header("Set-Cookie", "sid=42; Path=/members; HttpOnly"),
                    ),
                    "/members/" if has("sid=42") => Some(Reply::html("members")),
                    "/members/" => Some(Reply::status(403)),
                    "/leak" => Some(
                        Reply::redirect(302, &to_other)
                            .header("Set-Cookie", "a=1")
                            .header("Set-Cookie", "b=2; Domain=127.0.0.3"),
                    ),
                    _ => None,
                }
            }),
        );
        let page = format!(
            "<a href='/private'>p</a><a href='{}'>c</a><a href='{}'>l</a><a href='{}'>x</a>",
            external.url("/consent"),
            external.url("/login"),
            external.url("/leak")
        );
        let server = TestServer::start(Routes::new().dynamic(move |req| {
            match req.path.as_str() {
                // The start page sets a cookie that its own links need.
                "/" => Some(Reply::html(page.clone()).header("Set-Cookie", "page=1")),
                "/private" if req.header("cookie") == Some("page=1") => {
                    Some(Reply::html("private"))
                }
                "/private" => Some(Reply::status(403)),
                _ => None,
            }
        }));
        let report = run(config(&server.url("/"), threads).max_retries(0));
        let outcome = |u: &str| entry(&report, u).result.outcome.clone();
        assert_eq!(
            outcome(&server.url("/private")),
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(
            outcome(&external.url("/consent")),
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(
            outcome(&external.url("/login")),
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(
            outcome(&external.url("/leak")),
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(other.count("/check"), 1);
        for req in other.requests() {
            assert_eq!(req.header("cookie"), None, "{}", req.path);
        }
        for req in external.requests() {
            assert_eq!(req.header("cookie").filter(|c| c.contains("page=")), None);
        }
    }
}
