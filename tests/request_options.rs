//! Request options through the binary, seen from the loopback server: `--cookie-file`, basic
//! auth per URL pattern (config file only), `--accept`, `--accept-timeouts`,
//! `--require-https` (against a server speaking HTTP and HTTPS on one port), `--method`; the
//! schemes that are not fetched; and every input error: one line, exit 2, no report file
//! written.

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::tls_server::TlsServer;
use crate::support::util::{
    TempDir, assert_exit, assert_one_line_error, cli_in, csv_run_in, row_named, rows,
};

#[test]
fn cookies_go_where_their_domain_path_and_expiry_say() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/private/page'>p</a><a href='/public'>q</a>")
            .page("/private/page", "secret")
            .page("/public", "open"),
    );
    let dir = TempDir::new("req-cookies");
    std::fs::write(
        dir.join("cookies.txt"),
        "# Netscape HTTP Cookie File\n\
         127.0.0.1\tFALSE\t/private\tFALSE\t0\tsession\tabc\n\
         127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\told\n\
         127.0.0.1\tFALSE\t/\tTRUE\t0\tsecure\ttls-only\n\
         other.test\tTRUE\t/\tFALSE\t0\telsewhere\tno\n",
    )
    .unwrap();
    let out = csv_run_in(&dir, &["--cookie-file", "cookies.txt", &server.url("/")]);
    assert_exit(&out, 0);
    for r in server.requests() {
        let cookie = r.header("cookie");
        match r.path_only() {
            "/private/page" => assert_eq!(cookie, Some("session=abc"), "{r:?}"),
            _ => assert_eq!(cookie, None, "{r:?}"),
        }
    }
    assert_eq!(server.count("/private/page"), 1);
}

#[test]
fn basic_auth_from_the_config_file_only_for_matching_urls() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/secure/a'>a</a><a href='/open'>o</a><a href='/secure/redirect'>r</a>",
            )
            .dynamic(|req| {
                let auth = req.header("authorization");
                match req.path_only() {
                    "/secure/a" if auth == Some("Basic dXNlcjpwYXNz") => Some(Reply::html("ok")),
                    "/secure/a" => Some(Reply::status(401)),
                    "/secure/redirect" => Some(Reply::redirect(302, "/open")),
                    "/open" => Some(Reply::html("open")),
                    _ => None,
                }
            }),
    );
    let dir = TempDir::new("req-auth");
    std::fs::write(
        dir.join("auth.toml"),
        format!(
            "[[auth]]\npattern = '^{}/secure/'\nusername = \"user\"\npassword = \"pass\"\n",
            server.base()
        ),
    )
    .unwrap();
    let out = cli_in(
        &dir,
        &[],
        &[
            "-c",
            "auth.toml",
            "--no-status",
            "--max-requests-per-second",
            "0",
            &server.url("/"),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for r in server.requests() {
        let expected = r
            .path_only()
            .starts_with("/secure/")
            .then_some("Basic dXNlcjpwYXNz");
        assert_eq!(r.header("authorization"), expected, "{r:?}");
    }
    assert!(
        server.count("/open") >= 1,
        "the redirect target was fetched without credentials"
    );
    // The password is never printed.
    let printed = cli_in(&dir, &[], &["-c", "auth.toml", "--print-config"]);
    assert!(String::from_utf8_lossy(&printed.stdout).contains("[[auth]]"));
    let out = cli_in(
        &dir,
        &[],
        &[
            "-c",
            "auth.toml",
            "--no-status",
            "-o",
            "csv",
            "-v",
            &server.url("/"),
        ],
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("pass"));
}

#[test]
fn accept_ranges_decide_what_is_valid() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/limited'>l</a><a href='/empty'>e</a>")
            .reply("/limited", Reply::too_many_requests("0"))
            .reply("/empty", Reply::status(204)),
    );
    let dir = TempDir::new("req-accept");
    let valid = |extra: &[&str]| {
        let mut args = vec!["--max-retries", "0"];
        args.extend_from_slice(extra);
        let url = server.url("/");
        args.push(&url);
        let out = csv_run_in(&dir, &args);
        let r = rows(&out);
        let get = |name: &str| row_named(&r, name)[6].to_owned();
        (out.status.code(), get("/limited"), get("/empty"))
    };
    assert_eq!(valid(&[]), (Some(1), "False".into(), "True".into()));
    assert_eq!(
        valid(&["--accept", "200..=299,429"]),
        (Some(0), "True".into(), "True".into())
    );
    assert_eq!(
        valid(&["--accept", "200, 429"]),
        (Some(1), "True".into(), "False".into())
    );
}

/// `--accept-timeouts` (lychee's): a link that timed out is valid, with the
/// `timeout-accepted` warning; without it, the timeout is an error.
#[test]
fn accept_timeouts_makes_a_timeout_valid_with_a_warning() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/slow'>s</a><a href='/fine'>f</a>")
            .reply("/slow", Reply::hang())
            .page("/fine", "ok"),
    );
    let dir = TempDir::new("req-accept-timeouts");
    for threads in ["1", "8"] {
        let run = |extra: &[&str]| {
            let url = server.url("/");
            let mut args = vec!["-t", threads, "--timeout", "0.5", "--max-retries", "0"];
            args.extend_from_slice(extra);
            args.push(&url);
            let out = csv_run_in(&dir, &args);
            let all = rows(&out);
            let slow = row_named(&all, "/slow");
            (out.status.code(), slow[6].to_owned(), slow[4].to_owned())
        };
        let (code, valid, warning) = run(&[]);
        assert_eq!((code, valid.as_str()), (Some(1), "False"), "-t {threads}");
        assert!(!warning.contains("timeout-accepted"), "{warning}");
        let (code, valid, warning) = run(&["--accept-timeouts"]);
        assert_eq!((code, valid.as_str()), (Some(0), "True"), "-t {threads}");
        assert!(
            warning.contains("[timeout-accepted]"),
            "-t {threads}: {warning}"
        );
    }
}

#[test]
fn require_https_warns_about_http_links_whose_https_twin_works() {
    let dual = TlsServer::start_dual("<p>both</p>");
    let twin = format!("http://127.0.0.1:{}/doc?x=1", dual.port());
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                &format!("<a href='{twin}'>twin</a><a href='/plain'>plain</a>"),
            )
            .page("/plain", "plain only"),
    );
    let dir = TempDir::new("req-require-https");
    let tls_requests = || dual.requests().iter().filter(|r| r.tls).count();
    for threads in ["1", "8"] {
        let run = |extra: &[&str]| {
            let url = server.url("/");
            let mut args = vec!["-t", threads, "--insecure"];
            args.extend_from_slice(extra);
            args.push(&url);
            let out = csv_run_in(&dir, &args);
            let all = rows(&out);
            let warnings = |name: &str| row_named(&all, name)[4].to_owned();
            let shown = String::from_utf8_lossy(&out.stdout).into_owned();
            (
                out.status.code(),
                warnings(&twin),
                warnings("/plain"),
                shown,
            )
        };
        let before = tls_requests();
        let (code, twin_warning, plain_warning, shown) = run(&[]);
        assert_eq!(code, Some(0), "-t {threads}: {shown}");
        assert!(twin_warning.is_empty() && plain_warning.is_empty());
        assert_eq!(tls_requests(), before, "no https request without the flag");
        let (code, twin_warning, plain_warning, shown) = run(&["--require-https"]);
        // A warning, as a redirect is: the link works.
        assert_eq!(code, Some(0), "-t {threads}: {shown}");
        let https = format!("https://127.0.0.1:{}/doc?x=1", dual.port());
        assert!(
            twin_warning.contains("[http-has-https]") && twin_warning.contains(&https),
            "-t {threads}: {twin_warning}"
        );
        // Its twin speaks no TLS: nothing to say.
        assert!(plain_warning.is_empty(), "-t {threads}: {plain_warning}");
        assert!(tls_requests() > before);
        let out = csv_run_in(
            &dir,
            &[
                "-t",
                threads,
                "--insecure",
                "--require-https",
                "--fail-on-warnings",
                &server.url("/"),
            ],
        );
        assert_exit(&out, 1);
    }
}

#[test]
fn method_get_replaces_head_for_checked_links() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/ok'>ok</a>")
            .page("/ok", "fine"),
    );
    let dir = TempDir::new("req-method");
    // -r 1: the start page is parsed, /ok is only checked (HEAD by default).
    let out = csv_run_in(&dir, &["-r", "1", &server.url("/")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(server.count_method("HEAD", "/ok"), 1);
    server.clear_requests();
    let out = csv_run_in(&dir, &["-r", "1", "--method", "get", &server.url("/")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(server.count_method("HEAD", "/ok"), 0);
    assert_eq!(server.count_method("GET", "/ok"), 1);
}

#[test]
fn other_schemes_are_listed_not_fetched() {
    let server = TestServer::start(Routes::new().page(
        "/",
        "<a href='ftp://127.0.0.1:9/f.zip'>f</a><a href='tel:+1555'>t</a>\
         <a href='javascript:void(0)'>j</a><a href='data:text/plain,x'>d</a>\
         <a href='mailto:a@b.test?cc=c@d.test&amp;subject=hi'>m</a>\
         <a href='mailto:a@b.test?bcc=nobody'>bad</a>",
    ));
    let dir = TempDir::new("req-schemes");
    let out = csv_run_in(&dir, &[&server.url("/")]);
    assert_eq!(out.status.code(), Some(1));
    let r = rows(&out);
    let result = |name: &str| {
        let row = row_named(&r, name);
        (row[3].to_owned(), row[6].to_owned())
    };
    assert_eq!(
        result("ftp://127.0.0.1:9/f.zip"),
        (
            "ignored: ftp: is not supported: the link is listed, not checked".into(),
            "True".into()
        )
    );
    assert_eq!(result("tel:+1555").0, "ignored: tel: URLs are not checked");
    assert_eq!(
        result("javascript:void(0)").0,
        "ignored: javascript: URLs are not checked"
    );
    assert_eq!(
        result("data:text/plain,x").0,
        "ignored: data: URLs are not checked"
    );
    assert_eq!(result("mailto:a@b.test?cc=c@d.test&subject=hi").1, "True");
    let bad = result("mailto:a@b.test?bcc=nobody");
    assert_eq!(bad.1, "False");
    assert!(bad.0.contains("`nobody' has no @"), "{bad:?}");
}

#[test]
fn input_errors_are_one_line_exit_2_and_write_nothing() {
    let dir = TempDir::new("req-errors");
    std::fs::write(dir.join("bad-cookies.txt"), "127.0.0.1\tTRUE\n").unwrap();
    std::fs::write(
        dir.join("bad-urls.txt"),
        "# list\nhttp://127.0.0.1:1/\nhttp://[::1/\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bad.toml"),
        "[[auth]]\npattern = '('\nusername = 'u'\npassword = 'p'\n",
    )
    .unwrap();
    let url = "http://127.0.0.1:1/";
    let cases: &[(&[&str], &[&str])] = &[
        (&["--exclude", "(", url], &["--exclude `('", "regex"]),
        (&["--include", "[z-a]", url], &["--include `[z-a]'"]),
        (&["http://[::1/"], &["`http://[::1/' is not a valid URL"]),
        (
            &["--base-url", "not a url", url],
            &["--base-url `not a url'"],
        ),
        (&["missing-folder"], &["cannot read `missing-folder'"]),
        (
            &["--input-file", "missing.txt", url],
            &["cannot read input file `missing.txt'"],
        ),
        (
            &["--input-file", "bad-urls.txt"],
            &["bad-urls.txt, line 3", "not a valid URL"],
        ),
        (
            &["--cookie-file", "missing.txt", url],
            &["cannot read cookie file `missing.txt'"],
        ),
        (
            &["--cookie-file", "bad-cookies.txt", url],
            &["bad-cookies.txt", "line 1", "7 tab-separated"],
        ),
        (
            &["--accept", "300..=200", url],
            &["--accept", "`300..=200' is an empty range"],
        ),
        (&["--accept", "2xx", url], &["--accept", "`2xx'"]),
        (&["--method", "post", url], &["post", "--method"]),
        (
            &["-c", "bad.toml", url],
            &["bad.toml", "[[auth]] pattern: `('"],
        ),
        (
            &["--base-url", "http://127.0.0.1:1/", "bad-urls.txt"],
            &["--base-url", "--root-dir"],
        ),
    ];
    for (args, needles) in cases {
        let mut all = vec!["--no-config", "-F", "csv/report.csv"];
        if args.contains(&"-c") {
            all.remove(0);
        }
        all.extend_from_slice(args);
        let out = cli_in(&dir, &[], &all);
        assert_one_line_error(&out, needles);
        assert!(
            !dir.join("report.csv").exists(),
            "{args:?}: no report file after an input error"
        );
    }
}

#[test]
fn headers_given_with_h_go_to_the_start_site_only() {
    let other = TestServer::start(Routes::new().page("/elsewhere", "other"));
    let start = TestServer::start(
        Routes::new()
            .page(
                "/",
                &format!(
                    "<a href='/own'>own</a> <a href='{}'>other host</a>",
                    other.url("/elsewhere")
                ),
            )
            .page("/own", "own"),
    );
    let dir = TempDir::new("req-header-scope");
    let secrets = ["X-Api-Key: k1", "PRIVATE-TOKEN: t2", "X-Auth-Token: t3"];
    let mut args: Vec<&str> = secrets.iter().flat_map(|h| ["-H", *h]).collect();
    let url = start.url("/");
    args.push(&url);
    assert_exit(&csv_run_in(&dir, &args), 0);
    for r in start.requests() {
        assert_eq!(r.header("x-api-key"), Some("k1"), "{r:?}");
        assert_eq!(r.header("private-token"), Some("t2"), "{r:?}");
    }
    assert_eq!(other.count("/elsewhere"), 1);
    for r in other.requests() {
        for name in ["x-api-key", "private-token", "x-auth-token"] {
            assert_eq!(r.header(name), None, "{r:?}");
        }
    }
    // --host-header sends one to the other host on purpose.
    let scoped = format!(
        "{}=X-Api-Key: k9",
        regex::escape(other.base().trim_start_matches("http://"))
    );
    assert_exit(&csv_run_in(&dir, &["--host-header", &scoped, &url]), 0);
    let last = other.requests().pop().unwrap();
    assert_eq!(last.header("x-api-key"), Some("k9"));
}
