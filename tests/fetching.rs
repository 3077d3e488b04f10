//! How one URL is requested: redirect chains, loops and limits, Location headers in raw bytes,
//! HEAD then GET, proxies (flag, config, environment), a certificate nobody signed. A server
//! that fails outright is `faults.rs`'s matter.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use linkpatrol::{FailKind, Outcome};

use crate::support::proxy::TestProxy;
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::tls_server::TlsServer;
use crate::support::util::{
    TempDir, assert_exit, cli_in, cli_with_env, config, entry, failed_kind, run,
};

#[test]
fn redirect_chain_is_followed_and_recorded() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/r1'>r</a>")
            .reply("/r1", Reply::redirect(301, "/r2"))
            .reply("/r2", Reply::redirect(302, "r3"))
            .reply("/r3", Reply::redirect(308, "/final"))
            .page("/final", "<a href='/from-final'>x</a>")
            .page("/from-final", "ok"),
    );
    let report = run(config(&server.url("/"), 2));
    let e = entry(&report, &server.url("/r1"));
    assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
    let hops: Vec<(String, u16)> = e
        .result
        .redirects
        .iter()
        .map(|h| (h.url.to_string(), h.status))
        .collect();
    assert_eq!(
        hops,
        [
            (server.url("/r1"), 301),
            (server.url("/r2"), 302),
            (server.url("/r3"), 308)
        ]
    );
    assert_eq!(
        e.result.real_url.as_ref().map(|u| u.to_string()),
        Some(server.url("/final"))
    );
    assert!(e.result.warnings.iter().any(|w| w.tag == "http-redirected"));
    // the page at the end of the chain is parsed, once
    assert_eq!(server.count("/final"), 1);
    assert_eq!(server.count("/from-final"), 1);
}

#[test]
fn redirect_loop_and_too_many_redirects_are_errors() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/loop-a'>loop</a> <a href='/chain/0'>long</a>",
            )
            .reply("/loop-a", Reply::redirect(302, "/loop-b"))
            .reply("/loop-b", Reply::redirect(302, "/loop-a"))
            .dynamic(|req| {
                let i: u32 = req.path_only().strip_prefix("/chain/")?.parse().ok()?;
                Some(Reply::redirect(301, &format!("/chain/{}", i + 1)))
            }),
    );
    let report = run(config(&server.url("/"), 2).max_redirects(5));
    let lp = entry(&report, &server.url("/loop-a"));
    assert_eq!(
        failed_kind(&lp.result.outcome),
        Some(FailKind::RedirectLoop)
    );
    let long = entry(&report, &server.url("/chain/0"));
    assert_eq!(
        failed_kind(&long.result.outcome),
        Some(FailKind::TooManyRedirects)
    );
    assert_eq!(server.count("/chain/5"), 1);
    assert_eq!(server.count("/chain/6"), 0, "stops at the limit");
    assert_eq!(server.count("/loop-a"), 1);
}

#[test]
fn head_refused_falls_back_to_get() {
    let external = TestServer::start_on(
        "127.0.0.2",
        Routes::new().reply("/x", Reply::html("x").refuse_head()),
    );
    let server = TestServer::start(
        Routes::new().page("/", &format!("<a href='{}'>x</a>", external.url("/x"))),
    );
    let report = run(config(&server.url("/"), 2));
    assert_eq!(
        entry(&report, &external.url("/x")).result.outcome,
        Outcome::Ok { status: Some(200) }
    );
    assert_eq!(external.count_method("HEAD", "/x"), 1);
    assert_eq!(external.count_method("GET", "/x"), 1);
}

/// A HEAD that fails once the host was reached — dropped, answered with garbage, or never
/// answered in time — is asked once with GET, at once, before any verdict: no HEAD retries.
#[test]
fn a_failing_head_is_confirmed_by_one_get() {
    for threads in [1, 8] {
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new().dynamic(|req| {
                if req.method != "HEAD" {
                    return Some(Reply::html("fine"));
                }
                Some(match req.path_only() {
                    "/drop" => Reply::drop_connection(),
                    "/garbage" => Reply::raw(b"nonsense\r\n\r\n".to_vec()),
                    _ => Reply::hang(),
                })
            }),
        );
        let paths = ["/drop", "/garbage", "/hang"];
        let links: String = paths
            .iter()
            .map(|p| format!("<a href='{}'>x</a>", external.url(p)))
            .collect();
        let server = TestServer::start(Routes::new().page("/", &links));
        let report = run(config(&server.url("/"), threads)
            .timeout(Duration::from_secs(1))
            .max_retries(3));
        for path in paths {
            let e = entry(&report, &external.url(path));
            assert_eq!(
                e.result.outcome,
                Outcome::Ok { status: Some(200) },
                "{path} with {threads} threads"
            );
            assert_eq!(external.count_method("GET", path), 1, "{path}");
        }
        assert_eq!(external.count_method("HEAD", "/garbage"), 1);
        assert_eq!(external.count_method("HEAD", "/hang"), 1);
    }
}

/// A HEAD answered 401 (or 404) is confirmed by one GET, which answers the same: still broken,
/// one request more and no other.
#[test]
fn a_head_answered_401_is_confirmed_by_one_get() {
    let external = TestServer::start_on(
        "127.0.0.2",
        Routes::new()
            .reply("/private", Reply::status(401))
            .reply("/gone", Reply::not_found()),
    );
    let server = TestServer::start(Routes::new().page(
        "/",
        &format!(
            "<a href='{}'>p</a><a href='{}'>g</a>",
            external.url("/private"),
            external.url("/gone")
        ),
    ));
    let report = run(config(&server.url("/"), 2));
    assert_eq!(
        entry(&report, &external.url("/private")).result.outcome,
        Outcome::Broken { status: 401 }
    );
    assert_eq!(
        entry(&report, &external.url("/gone")).result.outcome,
        Outcome::Broken { status: 404 }
    );
    for path in ["/private", "/gone"] {
        assert_eq!(external.count_method("HEAD", path), 1, "{path}");
        assert_eq!(external.count_method("GET", path), 1, "{path}");
    }
}

#[test]
fn a_redirect_into_a_known_url_does_not_request_it_again() {
    for threads in [1, 8] {
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/about'>about</a><a href='/old-about'>old</a><a href='/old-gone'>gone</a><a href='/gone'>g</a><a href='/x'>x</a><a href='/y'>y</a>")
                .page("/about", "<a href='/old-about'>again</a>")
                .reply("/old-about", Reply::redirect(301, "/about"))
                .reply("/old-gone", Reply::redirect(301, "/gone"))
                // two URLs that redirect to each other, each also linked directly
                .reply("/x", Reply::redirect(302, "/y"))
                .reply("/y", Reply::redirect(302, "/x")),
        );
        let report = run(config(&server.url("/"), threads));
        for path in ["/about", "/old-about", "/gone", "/old-gone", "/x", "/y"] {
            assert_eq!(server.count(path), 1, "{path} with {threads} threads");
        }
        let old = entry(&report, &server.url("/old-about"));
        assert_eq!(old.result.outcome, Outcome::Ok { status: Some(200) });
        assert_eq!(
            old.result.real_url.as_ref().map(|u| u.to_string()),
            Some(server.url("/about"))
        );
        let gone = entry(&report, &server.url("/old-gone"));
        assert_eq!(gone.result.outcome, Outcome::Broken { status: 404 });
        for p in ["/x", "/y"] {
            let e = entry(&report, &server.url(p));
            assert_eq!(
                failed_kind(&e.result.outcome),
                Some(FailKind::RedirectLoop),
                "{p}: {:?}",
                e.result.outcome
            );
        }
        // every occurrence is reported: /old-about is linked from / and /about
        assert_eq!(
            report
                .entries
                .iter()
                .filter(|e| e.result.url == server.url("/old-about"))
                .count(),
            2
        );
    }
}

/// A raw UTF-8 (or Latin-1) `Location` is read as bytes and followed, so a redirect to a page
/// that is gone is broken, not "Valid"; a redirect without a usable `Location` is a
/// `bad-redirect` error.
#[test]
fn raw_non_ascii_locations_are_followed_and_a_missing_one_is_an_error() {
    for threads in [1, 8] {
        let latin1 = b"HTTP/1.1 301 Moved Permanently\r\nLocation: /latin\xe9-gone\r\nContent-Length: 0\r\n\r\n";
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new()
                .reply("/ext-utf8", Reply::redirect(302, "/ext-café"))
                .page("/ext-caf%C3%A9", "here"),
        );
        let server = TestServer::start(
            Routes::new()
                .page(
                    "/",
                    &format!(
                        "<a href='/utf8'>u</a> <a href='/latin1'>l</a> <a href='/no-location'>n</a> \
                         <a href='/blank-location'>b</a> <a href='/multiple'>m</a> <a href='{}'>e</a>",
                        external.url("/ext-utf8")
                    ),
                )
                .reply("/utf8", Reply::redirect(301, "/café-gone"))
                .reply("/latin1", Reply::raw(latin1.to_vec()))
                .reply("/no-location", Reply::status(301))
                .reply("/blank-location", Reply::redirect(308, " "))
                .reply("/multiple", Reply::status(300).content_type("text/html")),
        );
        let report = run(config(&server.url("/"), threads));
        let utf8 = entry(&report, &server.url("/utf8"));
        assert_eq!(utf8.result.outcome, Outcome::Broken { status: 404 });
        assert_eq!(
            utf8.result.real_url.as_ref().map(|u| u.to_string()),
            Some(server.url("/caf%C3%A9-gone"))
        );
        assert_eq!(server.count("/caf%C3%A9-gone"), 1);
        let latin1 = entry(&report, &server.url("/latin1"));
        assert_eq!(latin1.result.outcome, Outcome::Broken { status: 404 });
        assert_eq!(server.count("/latin%E9-gone"), 1);
        for path in ["/no-location", "/blank-location"] {
            let e = entry(&report, &server.url(path));
            assert_eq!(
                failed_kind(&e.result.outcome),
                Some(FailKind::BadRedirect),
                "{path}: {:?}",
                e.result.outcome
            );
            assert!(e.result.outcome.is_broken());
            eprintln!("{path}: {}", e.result.outcome);
        }
        // 300 Multiple Choices needs no Location: its status is the verdict
        assert_eq!(
            entry(&report, &server.url("/multiple")).result.outcome,
            Outcome::Ok { status: Some(300) }
        );
        // checked with HEAD (external): the same reading
        let ext = entry(&report, &external.url("/ext-utf8"));
        assert_eq!(ext.result.outcome, Outcome::Ok { status: Some(200) });
        assert_eq!(external.count("/ext-caf%C3%A9"), 1);
    }
}

/// The (url, verdict, redirect count) of every entry: what must not depend on link order.
fn verdicts(report: &linkpatrol::Report) -> std::collections::BTreeSet<(String, String, usize)> {
    report
        .entries
        .iter()
        .map(|e| {
            (
                e.result.url.clone(),
                e.result.outcome.to_string(),
                e.result.redirects.len(),
            )
        })
        .collect()
}

/// A page first reached through a redirect chain that is only checked (an external link, with
/// HEAD; a `--no-follow` link) is still fetched with GET and parsed as a page of the site, once,
/// whichever link gets there first.
#[test]
fn a_page_first_reached_by_a_head_only_redirect_is_still_parsed() {
    let no_follow = regex::Regex::new("/old$").unwrap();
    let mut seen = Vec::new();
    for threads in [1, 8] {
        for redirect_first in [true, false] {
            // "/" links the external /go only once the external server's address is known
            let external_go = Arc::new(OnceLock::<String>::new());
            let go = external_go.clone();
            let site = TestServer::start(
                Routes::new()
                    .dynamic(move |req| {
                        (req.path_only() == "/").then(|| {
                            let redirects = format!(
                                "<a href='{}'>go</a><a href='/old'>old</a>",
                                go.get().expect("set before the run")
                            );
                            let direct = "<a href='/a'>a</a>";
                            Reply::html(if redirect_first {
                                redirects + direct
                            } else {
                                direct.to_owned() + &redirects
                            })
                        })
                    })
                    .page("/a", "<a href='/landing'>landing</a><a href='/new'>new</a>")
                    .reply("/old", Reply::redirect(301, "/new"))
                    .page("/landing", "<a href='/deep'>deep</a>")
                    .page("/new", "<a href='/child'>child</a>")
                    .page("/deep", "deep")
                    .page("/child", "child"),
            );
            let external = TestServer::start_on(
                "127.0.0.2",
                Routes::new().reply("/go", Reply::redirect(302, &site.url("/landing"))),
            );
            external_go.set(external.url("/go")).unwrap();
            let report = run(config(&site.url("/"), threads).no_follow(no_follow.clone()));
            for page in ["/landing", "/new"] {
                assert_eq!(
                    site.count_method("GET", page),
                    1,
                    "{page}: {threads} threads"
                );
                assert_eq!(
                    site.count_method("HEAD", page),
                    0,
                    "{page}: {threads} threads"
                );
            }
            assert_eq!(site.count("/deep"), 1, "/landing was parsed");
            assert_eq!(site.count("/child"), 1, "/new was parsed");
            let go = entry(&report, &external.url("/go"));
            assert_eq!(go.result.outcome, Outcome::Ok { status: Some(200) });
            assert!(!go.result.internal);
            let landing = entry(&report, &site.url("/landing"));
            assert!(
                landing.result.internal,
                "its own decision, not the redirect's"
            );
            let old = entry(&report, &site.url("/old"));
            assert_eq!(old.result.outcome, Outcome::Ok { status: Some(200) });
            assert_eq!(old.result.redirects.len(), 1);
            // the external host's address is in every URL: compare the site's paths
            let paths: std::collections::BTreeSet<(String, String, usize)> = verdicts(&report)
                .into_iter()
                .map(|(u, o, n)| {
                    (
                        u.replace(&external.base(), "EXT").replace(&site.base(), ""),
                        o,
                        n,
                    )
                })
                .collect();
            seen.push(paths);
        }
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:#?}");
}

/// Redirect hops pass the same filter and robots.txt as links: an excluded or disallowed
/// target is never requested, and the redirecting link gets the target's verdict.
#[test]
fn redirect_targets_pass_the_filter_and_robots_txt() {
    let exclude = regex::Regex::new("/private/").unwrap();
    for threads in [1, 8] {
        let server = TestServer::start(
            Routes::new()
                .reply(
                    "/robots.txt",
                    Reply::status(200)
                        .body("User-agent: *\nDisallow: /secret/\n")
                        .content_type("text/plain"),
                )
                .page(
                    "/",
                    "<a href='/to-private'>p</a> <a href='/to-secret'>s</a>",
                )
                .reply("/to-private", Reply::redirect(301, "/private/x"))
                .reply("/to-secret", Reply::redirect(302, "/secret/y"))
                .page("/private/x", "private")
                .page("/secret/y", "secret"),
        );
        let report = run(config(&server.url("/"), threads).exclude(exclude.clone()));
        assert_eq!(server.count("/private/x"), 0, "excluded: never requested");
        assert_eq!(server.count("/secret/y"), 0, "disallowed: never requested");
        for (path, why) in [("/to-private", "--exclude"), ("/to-secret", "robots.txt")] {
            let e = entry(&report, &server.url(path));
            match &e.result.outcome {
                Outcome::Ignored { reason } => assert!(reason.contains(why), "{path}: {reason}"),
                other => panic!("{path}: {other:?}"),
            }
            assert_eq!(e.result.redirects.len(), 1, "{path}: the hop is shown");
        }
    }
}

/// A site on 127.0.0.1 whose start page links a page of its own and a page on 127.0.0.2.
fn two_hosts() -> (TestServer, TestServer) {
    let external = TestServer::start_on("127.0.0.2", Routes::new().page("/x", "x"));
    let site = TestServer::start(Routes::new().page(
        "/",
        &format!("<a href='/a'>a</a><a href='{}'>x</a>", external.url("/x")),
    ));
    (site, external)
}

/// `Config::proxy`: every request, to every host, goes through the proxy (ureq tunnels even
/// plain http with CONNECT), with the proxy's credentials; without it nothing does.
#[test]
fn config_proxy_carries_every_request() {
    for threads in [1, 8] {
        let (site, external) = two_hosts();
        let proxy = TestProxy::start();
        let with_user = proxy.url().replace("http://", "http://user:pw@");
        let report = run(config(&site.url("/"), threads).proxy(with_user));
        assert_eq!(
            entry(&report, &external.url("/x")).result.outcome,
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(
            entry(&report, &site.url("/a")).result.outcome,
            Outcome::Broken { status: 404 }
        );
        let targets = proxy.targets();
        eprintln!("{threads} threads, through the proxy: {targets:?}");
        assert!(targets.contains(&site.addr().to_string()), "{targets:?}");
        assert!(
            targets.contains(&external.addr().to_string()),
            "{targets:?}"
        );
        for r in proxy.requests() {
            assert_eq!(r.method, "CONNECT");
            // base64("user:pw")
            assert_eq!(r.header("proxy-authorization"), Some("Basic dXNlcjpwdw=="));
        }
        // the servers saw every request, none of them carrying the proxy's credentials
        assert_eq!(site.count("/") + external.count("/x"), 2);
        for r in site.requests().iter().chain(external.requests().iter()) {
            assert_eq!(r.header("proxy-authorization"), None);
        }
        // no proxy set, none from the environment: direct
        let idle = TestProxy::start();
        run(config(&site.url("/"), threads));
        assert!(idle.requests().is_empty());
    }
}

/// `--proxy URL` on the command line, and a bad proxy URL: exit 2, one line, no password.
#[test]
fn the_proxy_flag_is_used_and_checked() {
    let (site, external) = two_hosts();
    let proxy = TestProxy::start();
    let out = cli_with_env(
        &["--no-status", "--proxy", &proxy.url(), &site.url("/")],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "/a is a 404");
    let targets = proxy.targets();
    assert!(targets.contains(&site.addr().to_string()), "{targets:?}");
    assert!(
        targets.contains(&external.addr().to_string()),
        "{targets:?}"
    );
    for bad in ["socks5://u:s3cret@127.0.0.1:1", "http://u:s3cret@[::1"] {
        let out = cli_with_env(&["--proxy", bad, &site.url("/")], &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!err.contains("s3cret"), "{err}");
        eprintln!("--proxy {bad}: {}", err.trim());
    }
}

/// A proxy that cannot be reached: each result says it was the proxy, and which (its password
/// masked), and the site is never reached directly.
#[test]
fn an_unreachable_proxy_is_named_in_the_result() {
    let (site, _external) = two_hosts();
    // Bind then drop a listener: nothing listens on that port afterwards.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = TempDir::new("fetching-dead-proxy");
    let proxy = format!("http://u:s3cret@127.0.0.1:{port}");
    let out = cli_in(
        &dir,
        &[],
        &[
            "--no-config",
            "--no-status",
            "-o",
            "json",
            "--proxy",
            &proxy,
            &site.url("/"),
        ],
    );
    assert_exit(&out, 1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    let start = json["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["urlname"] == site.url("/"))
        .unwrap_or_else(|| panic!("no entry for the start page: {stdout}"));
    assert_eq!(start["failure"], "connect", "{stdout}");
    let result = start["result"].as_str().expect("a result");
    let expected = format!("connect: connect to proxy http://***@127.0.0.1:{port}: ");
    assert!(result.starts_with(&expected), "{result}");
    assert!(!stdout.contains("s3cret"), "{stdout}");
    assert!(site.requests().is_empty());
}

/// The environment's proxy is honoured (`HTTP_PROXY`), and `NO_PROXY` hosts bypass it. Run
/// as a subprocess: the test binary's own environment is never changed.
#[test]
fn the_environment_proxy_and_no_proxy_are_honoured() {
    let (site, external) = two_hosts();
    let proxy = TestProxy::start();
    let args = ["--no-status", &site.url("/")];
    let out = cli_with_env(&args, &[("HTTP_PROXY", &proxy.url())]);
    assert_eq!(out.status.code(), Some(1));
    let targets = proxy.targets();
    assert!(targets.contains(&site.addr().to_string()), "{targets:?}");
    assert!(
        targets.contains(&external.addr().to_string()),
        "{targets:?}"
    );

    let before = proxy.requests().len();
    let out = cli_with_env(
        &args,
        &[("http_proxy", &proxy.url()), ("NO_PROXY", "127.0.0.2")],
    );
    assert_eq!(out.status.code(), Some(1));
    let new: Vec<String> = proxy.targets()[before..].to_vec();
    assert!(new.contains(&site.addr().to_string()), "{new:?}");
    assert!(
        !new.contains(&external.addr().to_string()),
        "127.0.0.2 is in NO_PROXY: {new:?}"
    );
    assert_eq!(external.count("/x"), 2, "checked directly the second time");
}

/// A self-signed certificate fails the check as `tls` (not `io`, and without retries: a
/// certificate does not get better on a second try); `--insecure` accepts it.
#[test]
fn a_self_signed_certificate_is_a_tls_failure_unless_insecure() {
    let server = TlsServer::start("<p>hello</p>");
    let dir = TempDir::new("fetching-tls");
    let check = |extra: &[&str]| {
        let mut args = vec![
            "--no-config",
            "--no-status",
            "-v",
            "-o",
            "json",
            "-F",
            "csv/out.csv",
        ];
        args.extend_from_slice(extra);
        let url = server.url("/");
        args.push(&url);
        let out = cli_in(&dir, &[], &args);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let csv = std::fs::read_to_string(dir.join("out.csv")).unwrap();
        (out, json["entries"][0].clone(), csv)
    };
    let (out, entry, csv) = check(&[]);
    assert_exit(&out, 1);
    assert_eq!(entry["failure"], "tls", "{entry}");
    let result = entry["result"].as_str().unwrap();
    assert!(
        result.starts_with("tls: invalid peer certificate"),
        "{entry}"
    );
    assert_eq!(
        entry["infos"],
        serde_json::json!([]),
        "not retried: {entry}"
    );
    assert!(
        csv.contains(";Error: tls: invalid peer certificate"),
        "{csv}"
    );

    let (out, entry, csv) = check(&["--insecure"]);
    assert_exit(&out, 0);
    assert_eq!(
        (&entry["state"], &entry["status"]),
        (&"ok".into(), &200.into()),
        "{entry}"
    );
    assert!(csv.contains(";200 OK;"), "{csv}");
}
