//! `--login-url`: a form login before the crawl on a loopback site whose pages send a visitor
//! without the session cookie to the login form. The form carries a CSRF token, the session
//! cookie opens the pages, the logout link is never requested, a session lost mid-crawl is
//! said once, a refused password exits 2, and the password shows nowhere.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::server::{Reply, Request, Routes, TestServer};
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
