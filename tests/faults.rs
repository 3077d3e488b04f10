//! Fault injection: a server that misbehaves in one scripted way per test. Each fault must end
//! in a clear result row — no hang, no panic, the run ends — with 1 thread and with 16.

use std::io::Write;
use std::time::{Duration, Instant, SystemTime};

use linkpatrol::report::csv_fields;
use linkpatrol::{Config, Entry, FailKind, Outcome, Report};

use crate::server::{Reply, Routes, TestServer};
use crate::util::{config, run};

const THREADS: [usize; 2] = [1, 16];

/// The entry of `url`, printed as its CSV row (for the record of what each fault produced).
fn row(report: &Report, url: &str) -> Entry {
    let e = report
        .entries
        .iter()
        .find(|e| e.result.url == url)
        .unwrap_or_else(|| panic!("no entry for {url}"))
        .clone();
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
    let t = Instant::now();
    let report = run(config(&server.url("/"), 2).max_retry_wait(Duration::from_secs(5)));
    assert!(t.elapsed() < Duration::from_secs(3));
    let e = row(&report, &server.url("/later"));
    assert_eq!(e.result.outcome, Outcome::Broken { status: 429 });
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
        let t = Instant::now();
        let report = run(config(&server.url("/"), threads)
            .timeout(Duration::from_millis(300))
            .max_retries(1));
        let e = row(&report, &server.url("/hang"));
        assert_eq!(kind(&e), Some(FailKind::Timeout));
        assert_eq!(e.result.retries, 1, "a timeout is retried");
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
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
        let t = Instant::now();
        let report = run(config(&server.url("/"), threads).timeout(Duration::from_secs(1)));
        let e = row(&report, &server.url("/slow"));
        assert_eq!(kind(&e), Some(FailKind::Timeout), "{:?}", e.result.outcome);
        assert!(t.elapsed() < Duration::from_secs(6), "{:?}", t.elapsed());
    }
}

#[test]
fn a_gzip_bomb_stops_at_the_cap() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..256 {
        gz.write_all(&zeros).unwrap(); // 256 MiB once inflated
    }
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < 2 << 20, "{} bytes compressed", bomb.len());
    for threads in THREADS {
        let reply = Reply::status(200)
            .body(bomb.clone())
            .content_type("text/html")
            .header("Content-Encoding", "gzip");
        let server = one_link("/bomb", reply);
        let t = Instant::now();
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
        assert!(t.elapsed() < Duration::from_secs(5));
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
            assert_eq!(
                r.header("x-trace"),
                Some("1"),
                "other headers go everywhere"
            );
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
    assert!(report.entries.iter().any(|e| matches!(&e.result.outcome, Outcome::Ignored { reason } if reason.contains("--max-urls"))));
}

#[test]
fn a_page_with_100k_links_is_handled() {
    let mut html = String::with_capacity(3 << 20);
    for i in 0..100_000 {
        html.push_str(&format!("<a href='/t#{i}'>{i}</a>\n"));
    }
    let server = TestServer::start(Routes::new().page("/", &html).page("/t", "target"));
    let t = Instant::now();
    let report = run(config(&server.url("/"), 4));
    assert_eq!(server.count("/t"), 1);
    assert_eq!(report.entries.len(), 100_001);
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
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
