//! `--login-url`: a form login before the crawl on a loopback site whose pages send a visitor
//! without the session cookie to the login form. The form carries a CSRF token, the session
//! cookie opens the pages, the logout links (in many spellings) are never requested, a session
//! lost mid-crawl is said once, a refused password exits 2, and the password shows nowhere. It
//! goes to the form's action only: not over http from an https page, not again after a 307 to
//! another origin, never into a form without a password input.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::server::{Reply, Request, Routes, TestServer};
use crate::support::tls_server::TlsServer;
use crate::support::util::{TempDir, assert_exit, cli_in, csv_records};

const PASSWORD: &str = "pa55-w0rd secret";
const CSRF: &str = "csrf-7f3a";
const SESSION: &str = "sid=s3ss10n";

const LOGIN_FORM: &str = "<!doctype html><title>Sign in</title>\
    <form method='post' action='/session'>\
    <input type='hidden' name='csrf' value='csrf-7f3a'>\
    <input name='login'><input type='password' name='password'>\
    <input type='submit' value='Sign in'></form>";

/// The fields of a urlencoded body.
fn form_fields(body: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn logged_in(req: &Request) -> bool {
    req.header("cookie")
        .is_some_and(|c| c.split("; ").any(|p| p == SESSION))
}

/// The site: `/login` has the form, `/session` takes it (right user, password and CSRF token:
/// a session cookie and a redirect home; else the form again), every other page wants the
/// cookie and sends a visitor without it to `/login`. `/gone` always does (an expired
/// session); `/logout` would end the session.
fn private_site() -> TestServer {
    TestServer::start(Routes::new().page("/login", LOGIN_FORM).dynamic(|req| {
        let path = req.path_only();
        if path == "/session" {
            let f = form_fields(&req.body);
            let has = |k: &str, v: &str| f.iter().any(|(a, b)| a == k && b == v);
            let ok = req.method == "POST"
                && has("csrf", CSRF)
                && has("login", "alice")
                && has("password", PASSWORD);
            return Some(if ok {
                Reply::redirect(302, "/")
                    .header("Set-Cookie", &format!("{SESSION}; Path=/; HttpOnly"))
            } else {
                Reply::html(LOGIN_FORM)
            });
        }
        if path == "/gone" {
            return Some(Reply::redirect(302, "/login?expired=1"));
        }
        if !logged_in(req) {
            return Some(Reply::redirect(302, "/login"));
        }
        Some(match path {
            "/" => Reply::html(
                "<a href='/a'>a</a> <a href='/logout'>Log out</a> \
                         <a href='/account/sign-out?x=1'>sign out</a> <a href='/gone'>old</a>",
            ),
            "/a" => Reply::html("<a href='/b'>b</a> <a href='/missing'>m</a>"),
            "/b" => Reply::html("b"),
            "/logout" => {
                Reply::redirect(302, "/login").header("Set-Cookie", "sid=; Max-Age=0; Path=/")
            }
            _ => Reply::not_found(),
        })
    }))
}

/// Runs the binary on the site with `threads` workers, the login flags, `extra`, and the
/// password in the environment; a CSV and a JSON report are written into `dir`.
fn run_logged_in(dir: &Path, server: &TestServer, threads: usize, password: &str) -> Output {
    let threads = threads.to_string();
    let login_url = server.url("/login");
    let start = server.url("/");
    cli_in(
        dir,
        &[("LINKPATROL_LOGIN_PASSWORD", password)],
        &[
            "--no-config",
            "--no-status",
            "--max-requests-per-second",
            "0",
            "-t",
            &threads,
            "-v",
            "--login-url",
            &login_url,
            "--login-user",
            "alice",
            "-F",
            "csv/out.csv",
            "-F",
            "json/out.json",
            "--cache-file",
            "state.sqlite",
            &start,
        ],
    )
}

/// Requests for `path`, whatever their query.
fn asked(server: &TestServer, path: &str) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.path_only() == path)
        .count()
}

/// `needle` appears in no output of the run: stdout, stderr, the report files, the state
/// file.
fn nowhere(dir: &Path, out: &Output, needle: &str) {
    let mut texts = vec![
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ];
    for f in ["out.csv", "out.json", "state.sqlite"] {
        if let Ok(bytes) = std::fs::read(dir.join(f)) {
            texts.push(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    for t in texts {
        assert!(!t.contains(needle), "`{needle}' shown in: {t}");
        let encoded: String = url::form_urlencoded::byte_serialize(needle.as_bytes()).collect();
        assert!(!t.contains(&encoded), "`{encoded}' shown in: {t}");
    }
}

#[test]
fn the_crawl_runs_behind_the_login_and_never_follows_logout() {
    for threads in [1, 8] {
        let server = private_site();
        let dir = TempDir::new(&format!("form-login-{threads}"));
        let out = run_logged_in(&dir, &server, threads, PASSWORD);
        // /missing is broken: exit 1, not 2.
        assert_exit(&out, 1);
        // The form was read once and sent once, as a POST with its CSRF token.
        assert_eq!(server.count_method("POST", "/session"), 1);
        // The pages behind the login were read with the session: their own links were found.
        assert!(
            server.count("/b") > 0,
            "{threads} threads: /b never reached"
        );
        // Nothing ended the session.
        assert_eq!(asked(&server, "/logout"), 0);
        assert_eq!(asked(&server, "/account/sign-out"), 0);

        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("/missing"), "{text}");
        // The session lost at /gone is said once, with its URL.
        let lost = "the login session was lost: ";
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.matches(lost).count(), 1, "{err}");
        assert!(err.contains(&server.url("/gone")), "{err}");

        let json: Value =
            serde_json::from_slice(&std::fs::read(dir.join("out.json")).unwrap()).unwrap();
        let entries = json["entries"].as_array().unwrap();
        let row = |suffix: &str| {
            entries
                .iter()
                .find(|e| e["url"].as_str().unwrap().ends_with(suffix))
                .unwrap_or_else(|| panic!("no row {suffix}: {entries:#?}"))
        };
        assert_eq!(row("/b")["valid"], true);
        assert_eq!(row("/missing")["status"], 404);
        let logout = row("/logout");
        assert_eq!(logout["state"], "ignored", "{logout}");
        assert!(
            logout["result"].as_str().unwrap().contains("login session"),
            "{logout}"
        );

        let csv = std::fs::read(dir.join("out.csv")).unwrap();
        let rows = csv_records(&csv);
        assert!(rows.iter().any(|r| &r[0] == "/b" && &r[6] == "True"));
        assert!(rows.iter().any(|r| &r[0] == "/logout"));

        assert!(dir.join("state.sqlite").exists());
        nowhere(&dir, &out, PASSWORD);
    }
}

#[test]
fn a_refused_password_exits_2_without_showing_it() {
    for threads in [1, 8] {
        let server = private_site();
        let dir = TempDir::new(&format!("form-login-refused-{threads}"));
        let wrong = "wr0ng-Pa55 word";
        let out = run_logged_in(&dir, &server, threads, wrong);
        assert_exit(&out, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("login failed"), "{err}");
        assert!(err.contains("form came back"), "{err}");
        // The crawl never started.
        assert_eq!(server.count("/"), 0);
        nowhere(&dir, &out, wrong);
    }
}

#[test]
fn without_a_terminal_or_the_variable_the_password_is_asked_for_clearly() {
    let server = private_site();
    let dir = TempDir::new("form-login-no-password");
    let login_url = server.url("/login");
    let out = cli_in(
        &dir,
        &[],
        &[
            "--no-config",
            "--login-url",
            &login_url,
            "--login-user",
            "alice",
            &server.url("/"),
        ],
    );
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("LINKPATROL_LOGIN_PASSWORD"), "{err}");
    assert!(server.requests().is_empty());
}

#[test]
fn a_local_config_may_not_name_the_login_page() {
    let dir = TempDir::new("form-login-local-config");
    std::fs::write(
        dir.join("linkpatrol.toml"),
        "login-url = \"http://127.0.0.1:9/login\"\nlogin-user = \"x\"\n",
    )
    .unwrap();
    let out = cli_in(
        &dir,
        &[("LINKPATROL_LOGIN_PASSWORD", PASSWORD)],
        &["index.html"],
    );
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("login-url"), "{err}");
}

#[test]
fn a_login_answered_403_exits_2() {
    let server = TestServer::start(
        Routes::new()
            .page("/login", LOGIN_FORM)
            .reply("/session", Reply::status(403))
            .page("/", "home"),
    );
    let dir = TempDir::new("form-login-403");
    let out = run_logged_in(&dir, &server, 2, PASSWORD);
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("login failed") && err.contains("403"), "{err}");
    assert_eq!(server.count("/"), 0);
    nowhere(&dir, &out, PASSWORD);
}

#[test]
fn a_get_form_with_other_field_names_and_an_extra_field() {
    for threads in [1, 8] {
        // The form is sent with GET: the fields go in the query of /enter.
        let server = TestServer::start(
            Routes::new()
                .page(
                    "/signin",
                    "<form action='/enter'><input name=user><input type=password name=pass>\
                     <input type=hidden name=t value=x></form>",
                )
                .dynamic(|req| {
                    if req.path_only() == "/enter" {
                        let f = form_fields(req.query().unwrap_or("").as_bytes());
                        let has = |k: &str, v: &str| f.iter().any(|(a, b)| a == k && b == v);
                        let ok = has("user", "bob")
                            && has("pass", PASSWORD)
                            && has("t", "x")
                            && has("remember", "1");
                        return Some(if ok {
                            Reply::html("welcome").header("Set-Cookie", "sid=s3ss10n; Path=/")
                        } else {
                            Reply::status(401)
                        });
                    }
                    if !logged_in(req) {
                        return Some(Reply::redirect(302, "/signin"));
                    }
                    Some(match req.path_only() {
                        "/" => Reply::html("<a href='/in'>in</a> <a href='/bye'>bye</a>"),
                        "/in" => Reply::html("in"),
                        _ => Reply::not_found(),
                    })
                }),
        );
        let dir = TempDir::new(&format!("form-login-get-{threads}"));
        let out = cli_in(
            &dir,
            &[("LINKPATROL_LOGIN_PASSWORD", PASSWORD)],
            &[
                "--no-config",
                "--no-status",
                "-t",
                &threads.to_string(),
                "-v",
                "-o",
                "csv",
                "--login-url",
                &server.url("/signin"),
                "--login-user",
                "bob",
                "--login-user-field",
                "user",
                "--login-password-field",
                "pass",
                "--login-extra-field",
                "remember=1",
                "--login-logout-pattern",
                "/bye$",
                &server.url("/"),
            ],
        );
        assert_exit(&out, 0);
        assert_eq!(asked(&server, "/enter"), 1);
        assert_eq!(asked(&server, "/bye"), 0);
        let rows = csv_records(&out.stdout);
        assert!(
            rows.iter().any(|r| &r[0] == "/in" && &r[6] == "True"),
            "{rows:?}"
        );
        nowhere(&dir, &out, PASSWORD);
    }
}

/// Runs the binary with `threads` workers, logging in as alice at `login_url` with
/// [`PASSWORD`], then `extra` and `start`.
fn log_in_at(dir: &Path, threads: usize, login_url: &str, extra: &[&str], start: &str) -> Output {
    let threads = threads.to_string();
    let mut args = vec![
        "--no-config",
        "--no-status",
        "--max-requests-per-second",
        "0",
        "-t",
        &threads,
        "--login-url",
        login_url,
        "--login-user",
        "alice",
    ];
    args.extend_from_slice(extra);
    args.push(start);
    cli_in(dir, &[("LINKPATROL_LOGIN_PASSWORD", PASSWORD)], &args)
}

/// A server that takes whatever it is sent as a login: the host a password must not reach.
fn taker() -> TestServer {
    TestServer::start(
        Routes::new()
            .fallback(Reply::html("welcome").header("Set-Cookie", &format!("{SESSION}; Path=/"))),
    )
}

/// The run failed its login (exit 2, one line) naming `named`, never `hidden` nor the password.
#[track_caller]
fn login_refused(dir: &Path, out: &Output, named: &str, hidden: &str) {
    assert_exit(out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("login failed") && err.contains(named), "{err}");
    assert!(!err.contains(hidden), "{err}");
    nowhere(dir, out, PASSWORD);
}

#[test]
fn a_307_resends_the_password_only_to_the_actions_origin() {
    for threads in [1, 8] {
        let other = taker();
        let steal = other.url("/steal?keep=me");
        let site = TestServer::start(
            Routes::new()
                .page("/login", LOGIN_FORM)
                .reply("/session", Reply::redirect(307, &steal))
                .page("/", "home"),
        );
        let dir = TempDir::new(&format!("form-login-307-{threads}"));
        let out = log_in_at(&dir, threads, &site.url("/login"), &[], &site.url("/"));
        login_refused(&dir, &out, &other.url("/steal"), "keep=me");
        assert!(other.requests().is_empty(), "{:?}", other.requests());
        assert_eq!(site.count("/"), 0, "the crawl never started");

        // Within the action's origin, a 307 repeats the form as a browser does.
        let site = TestServer::start(Routes::new().page("/login", LOGIN_FORM).dynamic(|req| {
            match req.path_only() {
                "/session" => Some(Reply::redirect(307, "/session2")),
                "/session2" if form_fields(&req.body).iter().any(|(_, v)| v == PASSWORD) => {
                    Some(Reply::html("in").header("Set-Cookie", &format!("{SESSION}; Path=/")))
                }
                "/" if logged_in(req) => Some(Reply::html("home")),
                _ => Some(Reply::status(403)),
            }
        }));
        let out = log_in_at(&dir, threads, &site.url("/login"), &[], &site.url("/"));
        assert_exit(&out, 0);
        assert_eq!(site.count_method("POST", "/session2"), 1);
    }
}

#[test]
fn an_https_login_page_never_sends_the_password_over_http() {
    for threads in [1, 8] {
        let plain = taker();
        let to_plain = plain.url("/session");
        // The https page's form names a plain http action.
        let direct = TlsServer::start(
            &LOGIN_FORM.replace("action='/session'", &format!("action='{to_plain}?keep=me'")),
        );
        // The https action answers 307 to plain http.
        let bounce = format!("{to_plain}?keep=me");
        let bounced = TlsServer::start_answering(move |req| match req.target.as_str() {
            "/session" => (
                307,
                vec![("Location".into(), bounce.clone())],
                String::new(),
            ),
            _ => (200, Vec::new(), LOGIN_FORM.to_owned()),
        });
        for (tls, why) in [(&direct, "plain http"), (&bounced, "another origin")] {
            let dir = TempDir::new(&format!("form-login-https-{threads}"));
            let out = log_in_at(
                &dir,
                threads,
                &tls.url("/login"),
                &["--insecure"],
                &tls.url("/"),
            );
            login_refused(&dir, &out, &to_plain, "keep=me");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(why), "{err}");
            assert!(plain.requests().is_empty(), "{:?}", plain.requests());
        }
        // The https action itself had the form.
        assert_eq!(
            bounced
                .requests()
                .iter()
                .filter(|r| r.method == "POST")
                .count(),
            1
        );
    }
}

#[test]
fn a_form_without_a_password_input_is_never_filled() {
    for threads in [1, 8] {
        // A search form whose fields are named as the login's user and password fields.
        let other = taker();
        let page = format!(
            "<form action='{}'><input name=q><input name=lang value=en></form>{LOGIN_FORM}",
            other.url("/search")
        );
        let site = TestServer::start(Routes::new().page("/login", &page).page("/", "home"));
        let dir = TempDir::new(&format!("form-login-search-form-{threads}"));
        let fields = ["--login-user-field", "q", "--login-password-field", "lang"];
        let out = log_in_at(&dir, threads, &site.url("/login"), &fields, &site.url("/"));
        login_refused(&dir, &out, "password field `lang'", "search");
        assert!(other.requests().is_empty(), "{:?}", other.requests());
    }
}

/// Logout links in the spellings of common frameworks, `%4F` for `O` among them.
const LOGOUTS: [&str; 7] = [
    "/users/sign_out",
    "/log_out",
    "/logoff",
    "/Account/SignOff",
    "/session/destroy",
    "/Log%4Fut",
    "/auth/sign-out",
];

#[test]
fn the_default_logout_pattern_knows_more_spellings() {
    for threads in [1, 8] {
        let server = TestServer::start(Routes::new().page("/login", LOGIN_FORM).dynamic(|req| {
            let path = req.path_only();
            if path == "/session" {
                return Some(
                    Reply::redirect(302, "/")
                        .header("Set-Cookie", &format!("{SESSION}; Path=/; HttpOnly")),
                );
            }
            if !logged_in(req) {
                return Some(Reply::redirect(302, "/login"));
            }
            if LOGOUTS.contains(&path) {
                return Some(
                    Reply::redirect(302, "/login").header("Set-Cookie", "sid=; Max-Age=0; Path=/"),
                );
            }
            Some(match path {
                "/" => {
                    let links: String = LOGOUTS
                        .iter()
                        .map(|l| format!("<a href='{l}'>bye</a> "))
                        .collect();
                    Reply::html(format!("{links}<a href='/in'>in</a>"))
                }
                "/in" => Reply::html("<a href='/in2'>more</a>"),
                "/in2" => Reply::html("in"),
                _ => Reply::not_found(),
            })
        }));
        let dir = TempDir::new(&format!("form-login-logouts-{threads}"));
        let out = log_in_at(&dir, threads, &server.url("/login"), &[], &server.url("/"));
        assert_exit(&out, 0);
        for logout in LOGOUTS {
            assert_eq!(asked(&server, logout), 0, "{threads} threads: {logout}");
        }
        assert_eq!(server.count("/in2"), 1, "the session held");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("session was lost"), "{err}");
    }
}

/// A logout link the pattern does not guard ends the session: the run says so in every
/// report (the text and HTML summaries, JSON's `session_lost`), marks each page checked after
/// it with `session-lost`, and fails (exit 1) although no link is broken.
#[test]
fn a_lost_session_is_said_in_every_report_and_fails_the_run() {
    for threads in ["1", "8"] {
        let server = private_site();
        let dir = TempDir::new(&format!("form-login-lost-{threads}"));
        let out = cli_in(
            &dir,
            &[("LINKPATROL_LOGIN_PASSWORD", PASSWORD)],
            &[
                "--no-config",
                "--no-status",
                "--max-requests-per-second",
                "0",
                "-t",
                threads,
                "--login-url",
                &server.url("/login"),
                "--login-user",
                "alice",
                "--login-logout-pattern",
                "no-such-link",
                "--exclude",
                "/missing|/gone|sign-out",
                "-F",
                "csv/out.csv",
                "-F",
                "json/out.json",
                "-F",
                "html/out.html",
                &server.url("/"),
            ],
        );
        assert!(
            asked(&server, "/logout") > 0,
            "the unguarded logout was followed"
        );
        assert_exit(&out, 1);
        let text = String::from_utf8_lossy(&out.stdout);
        let said = format!(
            "The login session was lost: {} sent the crawl back to the login page",
            server.url("/logout")
        );
        assert!(text.contains(&said), "-t {threads}: {text}");
        let json: Value =
            serde_json::from_slice(&std::fs::read(dir.join("out.json")).unwrap()).unwrap();
        let lost = json["summary"]["session_lost"].as_str().unwrap_or_default();
        assert!(lost.contains("/logout"), "-t {threads}: {json:#}");
        let html = std::fs::read_to_string(dir.join("out.html")).unwrap();
        assert!(html.contains("id=\"session-lost\""), "-t {threads}");
        let csv = std::fs::read_to_string(dir.join("out.csv")).unwrap();
        assert!(csv.contains("[session-lost]"), "-t {threads}: {csv}");
        nowhere(&dir, &out, PASSWORD);
    }
}
