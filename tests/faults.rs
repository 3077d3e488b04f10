//! Fault injection: a server that fails in one scripted way per test — a refused, dropped or
//! reset connection, a hang, garbage, 429/503 with Retry-After, a slow, huge or compressed
//! body, a stale keep-alive connection. Each fault ends in a clear result row, retried as the
//! retry policy says — no hang, no panic, the run ends — most with 1 thread and with 16.

use std::io::Write;
use std::time::{Duration, Instant, SystemTime};

use linkpatrol::report::csv_fields;
use linkpatrol::{Config, Entry, FailKind, Outcome, Report};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, entry, eventually, failed_kind, run};

const THREADS: [usize; 2] = [1, 16];

/// The entry of `url`, printed as its CSV row (for the record of what each fault produced).
fn row(report: &Report, url: &str) -> Entry {
    let e = entry(report, url).clone();
    let fields = csv_fields(&e);
    eprintln!("fault row: {}", fields.join(";"));
    e
}

fn kind(e: &Entry) -> Option<FailKind> {
    match &e.result.outcome {
        Outcome::Failed { kind, .. } => Some(*kind),
        _ => None,
    }
}

/// A site whose start page links to `path` only.
fn one_link(path: &str, reply: Reply) -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/", &format!("<a href='{path}'>fault</a>"))
            .reply(path, reply),
    )
}

fn host_stats<'a>(report: &'a Report, server: &TestServer) -> &'a linkpatrol::HostStats {
    let key = format!("{}", server.addr());
    report
        .hosts
        .iter()
        .find(|h| h.host == key)
        .expect("host stats")
}

#[test]
fn retry_after_seconds_is_waited_then_checked_ok() {
    for threads in THREADS {
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/busy'>busy</a>")
                .sequence(
                    "/busy",
                    vec![Reply::too_many_requests("1"), Reply::html("ok")],
                ),
        );
        let report = run(config(&server.url("/"), threads));
        let e = row(&report, &server.url("/busy"));
        assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
        assert_eq!(e.result.retries, 1);
        assert!(
            e.result
                .warnings
                .iter()
                .any(|w| w.tag == "http-rate-limited")
        );
        let busy: Vec<Instant> = server
            .requests()
            .iter()
            .filter(|r| r.path == "/busy")
            .map(|r| r.at)
            .collect();
        assert_eq!(busy.len(), 2);
        assert!(
            busy[1] - busy[0] >= Duration::from_millis(1000),
            "{:?}",
            busy[1] - busy[0]
        );
        let stats = host_stats(&report, &server);
        assert_eq!((stats.retries, stats.overloaded), (1, 1));
        assert!(
            stats.waited >= Duration::from_millis(900),
            "the wait shows in the host stats: {:?}",
            stats.waited
        );
    }
}

#[test]
fn retry_after_http_date_is_waited_then_checked_ok() {
    for threads in THREADS {
        let when = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/busy'>busy</a>")
                .sequence(
                    "/busy",
                    vec![Reply::too_many_requests(&when), Reply::html("ok")],
                ),
        );
        let report = run(config(&server.url("/"), threads));
        let e = row(&report, &server.url("/busy"));
        assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
        let busy: Vec<Instant> = server
            .requests()
            .iter()
            .filter(|r| r.path == "/busy")
            .map(|r| r.at)
            .collect();
        // the date has one-second resolution: at least ~1 s of the 2 s remain
        assert!(
            busy[1] - busy[0] >= Duration::from_millis(900),
            "{:?}",
            busy[1] - busy[0]
        );
    }
}

#[test]
fn a_retry_after_beyond_the_limit_is_reported_not_waited() {
    let server = one_link("/later", Reply::too_many_requests("3600"));
    let report = run(config(&server.url("/"), 2).max_retry_wait(Duration::from_secs(5)));
    let e = row(&report, &server.url("/later"));
    assert_eq!(e.result.outcome, Outcome::Broken { status: 429 });
    // Neither the hour nor the 5 s limit was waited: no retry was sent at all.
    assert_eq!(server.count("/later"), 1);
    assert_eq!(e.result.retries, 0);
    assert!(
        e.result
            .warnings
            .iter()
            .any(|w| w.tag == "http-retry-after-too-long")
    );
}

#[test]
fn service_unavailable_once_then_ok() {
    for threads in THREADS {
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/flaky'>flaky</a>")
                .sequence("/flaky", vec![Reply::status(503), Reply::html("ok")]),
        );
        let report = run(config(&server.url("/"), threads));
        let e = row(&report, &server.url("/flaky"));
        assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
        assert_eq!(e.result.retries, 1);
        assert!(e.result.infos.iter().any(|i| i.contains("2 tries")));
    }
}

#[test]
fn a_404_is_never_retried() {
    let server = one_link("/gone", Reply::not_found());
    let report = run(config(&server.url("/"), 2));
    assert_eq!(
        row(&report, &server.url("/gone")).result.outcome,
        Outcome::Broken { status: 404 }
    );
    assert_eq!(server.count("/gone"), 1);
}

#[test]
fn connection_reset_mid_body() {
    for threads in THREADS {
        let cut = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<a href='/x'>x</a>".to_vec();
        let server = one_link("/cut", Reply::raw(cut));
        let report = run(config(&server.url("/"), threads));
        let e = row(&report, &server.url("/cut"));
        assert!(e.result.outcome.is_broken(), "{:?}", e.result.outcome);
    }
}

#[test]
fn accepted_then_never_answered() {
    for threads in THREADS {
        let server = one_link("/hang", Reply::hang());
        // The hang never answers before the server is dropped: the run's return is the timeout.
        let report = run(config(&server.url("/"), threads)
            .timeout(Duration::from_millis(300))
            .max_retries(1));
        let e = row(&report, &server.url("/hang"));
        assert_eq!(kind(&e), Some(FailKind::Timeout));
        assert_eq!(e.result.retries, 1, "a timeout is retried");
        assert_eq!(server.count("/hang"), 2, "one request and one retry");
    }
}

#[test]
fn one_byte_per_second_body_stops_at_the_body_timeout() {
    for threads in THREADS {
        let body = format!("<html>{}</html>", "x".repeat(200));
        let server = one_link(
            "/slow",
            Reply::slow_body(body, Duration::from_secs(1)).content_type("text/html"),
        );
        let report = run(config(&server.url("/"), threads).timeout(Duration::from_secs(1)));
        let e = row(&report, &server.url("/slow"));
        assert_eq!(kind(&e), Some(FailKind::Timeout), "{:?}", e.result.outcome);
        // The client hung up with most of the 213-byte body unsent (a timeout per read, 1 s,
        // would have read it to the end): the server notices at its next failed write.
        eventually("the slow body's end", || {
            server.ends().iter().any(|end| end.path == "/slow")
        });
        let ends = server.ends();
        let end = ends.iter().find(|end| end.path == "/slow").unwrap();
        assert!(!end.whole && end.body_sent < 100, "{end:?}");
    }
}

#[test]
fn a_gzip_bomb_stops_at_the_cap() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![b' '; 1 << 20];
    // 32 times the cap once inflated: enough to show the read stops there (256 MiB cost
    // seconds of compression in a debug build and proved no more).
    for _ in 0..32 {
        gz.write_all(&zeros).unwrap();
    }
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < 1 << 20, "{} bytes compressed", bomb.len());
    for threads in THREADS {
        let reply = Reply::status(200)
            .body(bomb.clone())
            .content_type("text/html")
            .header("Content-Encoding", "gzip");
        let server = one_link("/bomb", reply);
        let report = run(config(&server.url("/"), threads).max_body_size(1 << 20));
        let e = row(&report, &server.url("/bomb"));
        assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
        assert!(
            e.result
                .warnings
                .iter()
                .any(|w| w.tag == "content-too-large")
        );
        assert_eq!(
            e.result.size,
            Some(1 << 20),
            "read up to the cap, no further"
        );
    }
}

#[test]
fn a_redirect_loop_is_an_error_row() {
    for threads in THREADS {
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/a'>loop</a>")
                .reply("/a", Reply::redirect(302, "/b"))
                .reply("/b", Reply::redirect(302, "/a")),
        );
        let report = run(config(&server.url("/"), threads));
        assert_eq!(
            kind(&row(&report, &server.url("/a"))),
            Some(FailKind::RedirectLoop)
        );
    }
}

#[test]
fn credentials_are_not_forwarded_to_another_origin() {
    for threads in THREADS {
        let other = TestServer::start_on("127.0.0.2", Routes::new().page("/landing", "landed"));
        let server = TestServer::start(
            Routes::new()
                .page(
                    "/",
                    &format!(
                        "<a href='/go'>go</a> <a href='{}'>direct</a>",
                        other.url("/direct")
                    ),
                )
                .reply("/go", Reply::redirect(302, &other.url("/landing"))),
        );
        let cfg: Config = config(&server.url("/"), threads)
            .header("Authorization", "Bearer s3cret")
            .header("Cookie", "session=abc")
            .header("X-Trace", "1");
        let report = run(cfg);
        assert_eq!(
            row(&report, &server.url("/go")).result.outcome,
            Outcome::Ok { status: Some(200) }
        );
        let home = server
            .requests()
            .into_iter()
            .find(|r| r.path == "/")
            .unwrap();
        assert_eq!(home.header("authorization"), Some("Bearer s3cret"));
        assert_eq!(home.header("cookie"), Some("session=abc"));
        let elsewhere = other.requests();
        assert!(elsewhere.iter().any(|r| r.path == "/landing"));
        for r in &elsewhere {
            assert_eq!(
                r.header("authorization"),
                None,
                "{} got the credentials",
                r.path
            );
            assert_eq!(r.header("cookie"), None);
            // Any header may be a secret: none follows the redirect to another origin.
            assert_eq!(r.header("x-trace"), None, "{} got a header", r.path);
        }
    }
}

#[test]
fn robots_txt_disallow_and_crawl_delay() {
    for threads in THREADS {
        let server = TestServer::start(
            Routes::new()
                .reply(
                    "/robots.txt",
                    Reply::status(200)
                        .body("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.3\n")
                        .content_type("text/plain"),
                )
                .page("/", "<a href='/private/x'>p</a><a href='/a'>a</a><a href='/b'>b</a><a href='/c'>c</a>")
                .dynamic(|req| ["/a", "/b", "/c"].contains(&req.path_only()).then(|| Reply::html("page"))),
        );
        let report = run(config(&server.url("/"), threads));
        assert_eq!(server.count("/private/x"), 0);
        let e = row(&report, &server.url("/private/x"));
        assert!(
            e.result.outcome.is_ignored(),
            "skipped, not broken: {:?}",
            e.result.outcome
        );
        assert_eq!(server.count("/robots.txt"), 1);
        let reqs = server.requests();
        let robots_at = reqs[0].at;
        assert_eq!(reqs[0].path, "/robots.txt");
        let mut later: Vec<Instant> = reqs[1..].iter().map(|r| r.at).collect();
        later.sort();
        assert_eq!(later.len(), 4, "/, /a, /b, /c");
        // after robots.txt the host is spaced by its Crawl-delay: slot k+1 is 300 ms × k
        // after the first page's slot, which comes after robots.txt arrived
        for (k, at) in later.iter().enumerate() {
            let min = Duration::from_millis(300) * k as u32;
            assert!(
                *at - robots_at >= min,
                "request {k} {:?} after robots.txt",
                *at - robots_at
            );
        }
        // --no-robots: the private page is checked
        server.clear_requests();
        run(config(&server.url("/"), threads).robots(false));
        assert_eq!(server.count("/private/x"), 1);
        assert_eq!(server.count("/robots.txt"), 0);
    }
}

#[test]
fn a_malformed_status_line_is_a_protocol_error() {
    for threads in THREADS {
        let server = one_link("/bad", Reply::raw(b"HTTP/1.1 2x0 Broken\r\n\r\n".to_vec()));
        let report = run(config(&server.url("/"), threads));
        let e = row(&report, &server.url("/bad"));
        assert!(e.result.outcome.is_broken(), "{:?}", e.result.outcome);
    }
}

#[test]
fn a_page_linking_to_ever_longer_query_strings_stops_at_max_urls() {
    let server = TestServer::start(Routes::new().dynamic(|req| {
        let q = req.query().unwrap_or("");
        Some(Reply::html(format!("<a href='/?{q}x'>more</a>")))
    }));
    let report = run(config(&server.url("/"), 4).max_urls(Some(50)));
    assert!(
        server.requests().len() <= 52,
        "{} requests",
        server.requests().len()
    );
    assert_eq!(report.urls, 50, "new URLs past the limit are not stored");
    assert!(report.over_limit > 0, "{}", report.over_limit);
}

#[test]
fn a_page_with_100k_links_is_handled() {
    let mut html = String::with_capacity(3 << 20);
    for i in 0..100_000 {
        html.push_str(&format!("<a href='/t#{i}'>{i}</a>\n"));
    }
    let server = TestServer::start(Routes::new().page("/", &html).page("/t", "target"));
    // Every link gets its row; how fast is a benchmark's question, not a time limit here.
    let report = run(config(&server.url("/"), 4));
    assert_eq!(server.count("/t"), 1);
    assert_eq!(report.entries.len(), 100_001);
}

#[test]
fn a_non_utf8_page_is_decoded() {
    let page = b"<html><head><meta charset=iso-8859-1></head><body><a href='/caf\xe9'>Caf\xe9 cr\xe8me</a></body></html>".to_vec();
    let server = TestServer::start(
        Routes::new()
            .reply("/", Reply::status(200).body(page).content_type("text/html"))
            .page("/caf%C3%A9", "ok"),
    );
    let report = run(config(&server.url("/"), 2));
    let e = row(&report, &server.url("/caf%C3%A9"));
    assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
    assert_eq!(e.referrer.unwrap().name, "Café crème");
}

#[test]
fn credentials_in_urls_never_reach_the_report() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/x'>x</a>")
            .page("/x", "x"),
    );
    let with_user = server.url("/").replace("http://", "http://alice:s3cret@");
    let report = run(config(&with_user, 2));
    for e in &report.entries {
        let fields = csv_fields(e).join(";");
        assert!(
            !fields.contains("s3cret") && !fields.contains("alice"),
            "{fields}"
        );
    }
}

/// A site whose start page links to `n` small pages `/p0`, `/p1`, …
fn many_pages(n: usize, routes: Routes) -> Routes {
    let links: String = (0..n)
        .map(|i| format!("<a href='/p{i}'>{i}</a>\n"))
        .collect();
    let mut routes = routes.page("/", &links);
    for i in 0..n {
        routes = routes.page(&format!("/p{i}"), "<p>ok</p>");
    }
    routes
}

/// A server that closes every kept-alive connection the moment the client reuses it: each
/// request that rode a pooled connection is resent at once on a new one — never a false
/// "connection reset", not backed off, counted as a try (the tries are the requests sent).
#[test]
fn a_stale_keep_alive_connection_is_resent_at_once_on_a_fresh_one() {
    for threads in THREADS {
        let server = TestServer::start(many_pages(30, Routes::new().drop_reused_connections()));
        // A retry would wait 10 s: the resend must not.
        let backoff = Duration::from_secs(10);
        let report = run(config(&server.url("/"), threads)
            .max_retries(1)
            .retry_backoff(backoff));
        for i in 0..30 {
            let e = row(&report, &server.url(&format!("/p{i}")));
            assert_eq!(
                e.result.outcome,
                Outcome::Ok { status: Some(200) },
                "/p{i} with {threads} threads"
            );
            let sent = server.count(&format!("/p{i}"));
            assert!(sent <= 2);
            assert_eq!(
                e.result.retries as usize + 1,
                sent,
                "every request is a try"
            );
        }
        let resends = server
            .requests()
            .iter()
            .filter(|r| r.nth_on_conn > 0)
            .count();
        assert_eq!(host_stats(&report, &server).retries, resends as u64);
        let requests = server.requests();
        for (i, lost) in requests
            .iter()
            .enumerate()
            .filter(|(_, r)| r.nth_on_conn > 0)
        {
            let resend = requests[i + 1..]
                .iter()
                .find(|r| r.path == lost.path)
                .expect("the resend");
            // Not backed off: sent on a new connection sooner than the backoff would allow
            // and, by a lone worker, before any other request.
            assert_eq!(resend.nth_on_conn, 0, "{resend:?}");
            assert!(resend.at - lost.at < backoff, "{lost:?} then {resend:?}");
            if threads == 1 {
                assert_eq!(resend.path, requests[i + 1].path, "{requests:#?}");
            }
        }
        let reused = requests.iter().filter(|r| r.nth_on_conn > 0).count();
        eprintln!("{threads} threads: {reused} requests hit a stale connection, all resent");
    }
}

/// The same server with `--max-retries 0`: still no false failure.
#[test]
fn a_stale_keep_alive_connection_needs_no_retry_budget() {
    for threads in THREADS {
        let server = TestServer::start(many_pages(30, Routes::new().drop_reused_connections()));
        let report = run(config(&server.url("/"), threads).max_retries(0));
        let failed: Vec<String> = report
            .broken()
            .map(|e| format!("{} {}", e.result.url, e.result.outcome))
            .collect();
        assert!(failed.is_empty(), "{threads} threads: {failed:#?}");
    }
}

/// A request lost before its answer counts as a try whether it rode a pooled connection (a
/// lone worker reuses the start page's) or a new one: two runs report the same tries.
#[test]
fn a_request_lost_on_any_connection_is_one_try() {
    for threads in THREADS {
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/flaky'>f</a>")
                .sequence("/flaky", vec![Reply::drop_connection(), Reply::html("ok")]),
        );
        let report = run(config(&server.url("/"), threads).robots(false));
        let e = row(&report, &server.url("/flaky"));
        assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
        assert_eq!(server.count("/flaky"), 2);
        assert_eq!(e.result.retries, 1, "{threads} threads");
        assert!(e.result.infos.iter().any(|i| i == "checked after 2 tries"));
    }
}

/// A connection reset in the middle of a page's body is retried like one before the headers.
#[test]
fn a_reset_mid_body_is_retried() {
    for threads in THREADS {
        let cut = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<a href='/x'>x</a>".to_vec();
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/cut'>cut</a>")
                .sequence(
                    "/cut",
                    vec![Reply::raw(cut), Reply::html("<a href='/x'>x</a>")],
                )
                .page("/x", "x"),
        );
        let report = run(config(&server.url("/"), threads));
        let e = row(&report, &server.url("/cut"));
        assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
        assert_eq!(e.result.retries, 1);
        assert_eq!(server.count("/cut"), 2);
        assert_eq!(
            server.count("/x"),
            1,
            "the page read on the retry is parsed"
        );
    }
}

/// One retry budget per URL: a HEAD answered 503 is retried as GET within the same budget,
/// not retried and then retried all over again as GET.
#[test]
fn an_overloaded_answer_to_head_spends_one_budget() {
    for threads in THREADS {
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new().reply("/busy", Reply::status(503)),
        );
        let server = TestServer::start(
            Routes::new().page("/", &format!("<a href='{}'>x</a>", external.url("/busy"))),
        );
        let report = run(config(&server.url("/"), threads).max_retries(2));
        let e = row(&report, &external.url("/busy"));
        assert_eq!(e.result.outcome, Outcome::Broken { status: 503 });
        assert_eq!(e.result.retries, 2);
        assert_eq!(
            external.count("/busy"),
            3,
            "1 request + 2 retries, whatever the method"
        );
    }
}

/// A URL too long to send fails at once: no request, no retry, no wait.
#[test]
fn a_url_over_the_cap_fails_at_once() {
    let long = format!("/q?{}", "a".repeat(70 * 1024));
    let server = TestServer::start(Routes::new().page("/", &format!("<a href='{long}'>long</a>")));
    let report = run(config(&server.url("/"), 2).retry_backoff(Duration::from_secs(10)));
    // Reported by its first 256 characters.
    let e = report
        .entries
        .iter()
        .find(|e| e.result.url.starts_with(&server.url("/q?aaa")))
        .expect("the long link is reported");
    assert_eq!(
        kind(e),
        Some(FailKind::UrlTooLong),
        "{:?}",
        e.result.outcome
    );
    // No retry, hence no backoff: the only wait a failed fetch makes.
    assert_eq!(e.result.retries, 0);
    assert_eq!(server.requests().len(), 2, "robots.txt and /, nothing else");
}

/// A request on a new connection that loses it is not resent for free: only a pooled one can
/// have gone stale. With `--max-retries 0` the server sees the HEAD and the one GET that
/// confirms a failed HEAD, nothing more.
#[test]
fn a_new_connection_lost_before_the_response_is_not_resent() {
    for threads in THREADS {
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new().reply("/drop", Reply::drop_connection()),
        );
        let server = TestServer::start(
            Routes::new().page("/", &format!("<a href='{}'>x</a>", external.url("/drop"))),
        );
        let report = run(config(&server.url("/"), threads)
            .max_retries(0)
            .robots(false));
        let e = row(&report, &external.url("/drop"));
        assert_eq!(kind(&e), Some(FailKind::Io), "{:?}", e.result.outcome);
        assert_eq!(external.count_method("HEAD", "/drop"), 1);
        assert_eq!(external.count_method("GET", "/drop"), 1);
    }
}

#[test]
fn a_hanging_server_gives_a_timeout_result_on_time() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/hang'>hang</a> <a href='/ok'>ok</a>")
            .reply("/hang", Reply::hang())
            .page("/ok", "fine"),
    );
    // The hang never answers before the server is dropped: the run's return is the timeout.
    let report = run(config(&server.url("/"), 2).timeout(Duration::from_millis(500)));
    let e = entry(&report, &server.url("/hang"));
    assert_eq!(
        failed_kind(&e.result.outcome),
        Some(FailKind::Timeout),
        "{:?}",
        e.result.outcome
    );
    assert_eq!(server.count("/hang"), 1 + e.result.retries as usize);
    assert_eq!(
        entry(&report, &server.url("/ok")).result.outcome,
        Outcome::Ok { status: Some(200) }
    );
}

#[test]
fn dropped_connections_and_malformed_responses_are_reported() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/drop'>d</a> <a href='/garbage'>g</a>")
            .reply("/drop", Reply::drop_connection())
            .reply(
                "/garbage",
                Reply::raw(b"HTTP/1.1 abc nonsense\r\n\r\n".to_vec()),
            ),
    );
    let report = run(config(&server.url("/"), 2));
    assert!(
        entry(&report, &server.url("/drop"))
            .result
            .outcome
            .is_broken()
    );
    assert!(
        entry(&report, &server.url("/garbage"))
            .result
            .outcome
            .is_broken()
    );
}

#[test]
fn a_huge_page_is_parsed_up_to_the_cap() {
    let server = TestServer::start(Routes::new().page("/", "<a href='/huge'>big</a>").reply(
        "/huge",
        Reply::huge(8 * 1024 * 1024).content_type("text/html"),
    ));
    let report = run(config(&server.url("/"), 2).max_body_size(64 * 1024));
    let e = entry(&report, &server.url("/huge"));
    assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
    assert!(
        e.result
            .warnings
            .iter()
            .any(|w| w.tag == "content-too-large")
    );
    assert_eq!(e.result.size, Some(64 * 1024));
}

#[test]
fn connection_refused_is_a_connect_error() {
    // Bind then drop a listener: nothing listens on that port afterwards.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = TestServer::start(
        Routes::new().page("/", &format!("<a href='http://127.0.0.2:{port}/'>x</a>")),
    );
    // Without robots.txt, whose fetch would be a request of its own to the dead host.
    let report = run(config(&server.url("/"), 2).robots(false));
    let e = entry(&report, &format!("http://127.0.0.2:{port}/"));
    assert_eq!(
        failed_kind(&e.result.outcome),
        Some(FailKind::Connect),
        "{:?}",
        e.result.outcome
    );
    // One attempt: a connection that was refused is neither retried nor asked again as GET.
    let dead = format!("127.0.0.2:{port}");
    let stats = report
        .hosts
        .iter()
        .find(|h| h.host == dead)
        .unwrap_or_else(|| panic!("no statistics for {dead}: {:?}", report.hosts));
    assert_eq!((stats.requests, stats.retries), (1, 0), "{stats:?}");
}

/// The start of an answer, then the connection closes: cut in the middle of the headers.
const CUT_HEADERS: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Ty";

/// A server that breaks every answer of a URL in the middle of its headers, on a connection
/// kept alive from an earlier request: 1 request + `max_retries` retries, no more (the free
/// resend is for a pooled connection the server had closed, not for one it began to answer
/// on), whether the URL is a page (GET) or a link checked with HEAD (whose failed HEAD is
/// confirmed by a GET first, and the GET then gets the retries).
#[test]
fn a_server_cutting_every_answer_mid_headers_gets_one_plus_max_retries() {
    for threads in THREADS {
        // A page of the site: fetched with GET on the connection of the start page.
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/x'>x</a>")
                .reply("/x", Reply::raw(CUT_HEADERS.to_vec())),
        );
        let report = run(config(&server.url("/"), threads)
            .max_retries(2)
            .retry_backoff(Duration::from_millis(1)));
        let e = row(&report, &server.url("/x"));
        assert_eq!(kind(&e), Some(FailKind::Io), "{:?}", e.result.outcome);
        assert_eq!(e.result.retries, 2);
        let requests = server.requests();
        let x: Vec<_> = requests.iter().filter(|r| r.path == "/x").collect();
        assert_eq!(x.len(), 3, "{threads} threads: {requests:#?}");
        assert!(
            x[0].nth_on_conn > 0,
            "the first rode a kept-alive connection"
        );

        // Another site's link, checked with HEAD after its robots.txt (kept alive).
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new().reply("/x", Reply::raw(CUT_HEADERS.to_vec())),
        );
        let server = TestServer::start(
            Routes::new().page("/", &format!("<a href='{}'>x</a>", external.url("/x"))),
        );
        let report = run(config(&server.url("/"), threads)
            .max_retries(2)
            .retry_backoff(Duration::from_millis(1)));
        let e = row(&report, &external.url("/x"));
        assert!(e.result.outcome.is_broken(), "{:?}", e.result.outcome);
        let requests = external.requests();
        let x: Vec<_> = requests.iter().filter(|r| r.path == "/x").collect();
        assert_eq!(x.len(), 4, "{threads} threads: {requests:#?}");
        assert_eq!(x[0].method, "HEAD", "{requests:#?}");
        assert!(x[1..].iter().all(|r| r.method == "GET"), "{requests:#?}");
    }
}
