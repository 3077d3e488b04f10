//! `--resume` requests nothing again that the interrupted run had finished besides pages: the
//! robots.txt it obeyed, the stylesheets it parsed, and the redirects it followed (to pages
//! it parsed) all come from the state file, and the report is an uninterrupted run's. A
//! stylesheet kept that way is asked for conditionally by a later `--cache` run, like a page.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::resume::{comparable, requested_once, wait_until_stored};
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, linkpatrol};

/// What the interrupted run must have had answered before `/held.html` is held: robots.txt,
/// the start page, the stylesheet, both redirect chains with the pages they end at, and a
/// redirect into a page linked directly as well.
const BEFORE_HOLD: [&str; 11] = [
    "/robots.txt",
    "/",
    "/style.css",
    "/old",
    "/target.html",
    "/r1",
    "/r2",
    "/final.html",
    "/moved",
    "/target2.html",
    "/private-ok.html",
];

/// The held requests and whether they may go on.
#[derive(Default)]
struct Hold {
    /// Paths answered so far.
    answered: BTreeSet<String>,
    /// Every request is held from now on (until `released`).
    holding: bool,
    /// Paths of the requests being held.
    held: BTreeSet<String>,
    /// Every request is answered from now on.
    released: bool,
}

type Gate = Arc<(Mutex<Hold>, Condvar)>;

/// The reply to `path`, `None` for a 404.
fn reply(path: &str) -> Option<Reply> {
    let html = |body: &str| Some(Reply::html(body.to_owned()));
    match path {
        "/robots.txt" => Some(
            Reply::status(200)
                .content_type("text/plain")
                .body("User-agent: *\nDisallow: /private/\n"),
        ),
        "/" => html(concat!(
            r#"<link rel="stylesheet" href="/style.css">"#,
            r#" <a href="/old">o</a> <a href="/r1">r</a> <a href="/target2.html">t</a>"#,
            r#" <a href="/moved">m</a> <a href="/private/x.html">p</a>"#,
            r#" <a href="/private-ok.html">k</a>"#,
        )),
        "/style.css" => {
            Some(Reply::status(200).content_type("text/css").body(
                "body { background: url(/bg.png) }\n.x { background: url(\"/missing.png\") }\n",
            ))
        }
        "/bg.png" => Some(Reply::status(200).content_type("image/png").body("png")),
        "/old" => Some(Reply::redirect(301, "/target.html")),
        "/target.html" => html(r#"<a href="/gone.html">g</a>"#),
        "/r1" => Some(Reply::redirect(301, "/r2")),
        "/r2" => Some(Reply::redirect(302, "/final.html")),
        "/final.html" => html(r#"<a href="/held.html">h</a>"#),
        "/moved" => Some(Reply::redirect(301, "/target2.html")),
        "/target2.html" | "/private-ok.html" | "/after.html" => html("<p>leaf page</p>"),
        "/held.html" => html(r#"<a href="/after.html">a</a>"#),
        _ => None,
    }
}

/// The site; with a gate, `/held.html` waits until every path of [`BEFORE_HOLD`] was
/// answered (at most 30 s), then it and every later request wait until released.
fn site(gate: Option<Gate>) -> TestServer {
    TestServer::start(Routes::new().dynamic(move |req| {
        let path = req.path_only().to_owned();
        if let Some(gate) = &gate {
            let (hold, changed) = &**gate;
            let mut h = hold.lock().unwrap();
            if path == "/held.html" && !h.released {
                h = changed
                    .wait_timeout_while(h, Duration::from_secs(30), |h| {
                        !BEFORE_HOLD.iter().all(|p| h.answered.contains(*p))
                    })
                    .unwrap()
                    .0;
                h.holding = true;
            }
            if h.holding && !h.released {
                h.held.insert(path.clone());
                changed.notify_all();
                h = changed.wait_while(h, |h| !h.released).unwrap();
            }
            h.answered.insert(path.clone());
            changed.notify_all();
        }
        Some(reply(&path).unwrap_or_else(Reply::not_found))
    }))
}

/// The CSV check of `url` (robots.txt obeyed) with state in `file` and `extra` flags.
fn check(url: &str, threads: usize, file: &Path, extra: &[&str]) -> Command {
    let mut cmd = linkpatrol();
    cmd.args(CSV_FLAGS)
        .args(["-t", &threads.to_string(), "--cache-file"])
        .arg(file)
        .args(extra)
        .arg(url);
    cmd
}

/// The report's rows with the server's address as `BASE`.
fn based(out: &Output, site: &TestServer) -> Vec<Vec<String>> {
    comparable(out)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|c| c.replace(&site.base(), "BASE"))
                .collect()
        })
        .collect()
}

#[test]
fn robots_txt_stylesheets_and_redirects_are_not_requested_again_on_resume() {
    for threads in [1, 4] {
        killed_and_resumed(threads);
    }
}

/// Kills a crawl once it holds `/held.html` and every answered URL has its result in the
/// state file, resumes it, and compares the requests and the report.
fn killed_and_resumed(threads: usize) {
    let dir = TempDir::new(&format!("resume-replay-{threads}"));
    let file = dir.join("state.sqlite");
    let gate: Gate = Arc::default();
    let s = site(Some(gate.clone()));
    let mut child = check(&s.url("/"), threads, &file, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (hold, changed) = &*gate;
    let h = changed
        .wait_timeout_while(hold.lock().unwrap(), Duration::from_secs(30), |h| {
            h.held.is_empty()
        })
        .unwrap()
        .0;
    let missing: Vec<_> = BEFORE_HOLD
        .iter()
        .filter(|p| !h.answered.contains(**p))
        .collect();
    assert!(
        !h.held.is_empty() && missing.is_empty(),
        "{threads} threads: held {:?}, not answered {missing:?}",
        h.held
    );
    drop(h);
    // robots.txt has no result; a redirect's result is under the URL that redirected.
    wait_until_stored(&s, &file, &dir.join("copy"), || {
        let mut answered = hold.lock().unwrap().answered.clone();
        answered.remove("/robots.txt");
        answered
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let first_log = s.requests();
    let in_flight = {
        let mut h = hold.lock().unwrap();
        h.released = true;
        changed.notify_all();
        h.held.clone()
    };
    let resumed = check(&s.url("/"), threads, &file, &["--resume"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(!stderr.contains("--resume"), "{stderr}");
    let second = requested_once(threads, &s.requests(), first_log.len(), &in_flight);
    for path in BEFORE_HOLD {
        assert!(
            !second.contains_key(path),
            "{threads} threads: {path} again"
        );
    }
    assert!(
        second.contains_key("/after.html"),
        "{threads} threads: the crawl went on past the held page: {second:?}"
    );
    // The report of an uninterrupted run, robots.txt rules applied as they were.
    let whole = site(None);
    let reference = check(&whole.url("/"), threads, &dir.join("fresh.sqlite"), &[])
        .output()
        .unwrap();
    let (got, want) = (based(&resumed, &s), based(&reference, &whole));
    assert_eq!(got, want, "{threads} threads");
    assert_eq!(resumed.status.code(), reference.status.code());
    let denied = got
        .iter()
        .filter(|r| r[3].contains("disallowed by robots.txt"))
        .count();
    assert_eq!(denied, 1, "{threads} threads: {got:#?}");
}

#[test]
fn an_unchanged_stylesheet_answers_304_and_its_links_are_replayed() {
    let etag = "\"css-v1\"";
    let s = TestServer::start(
        Routes::new()
            .page("/", r#"<link rel="stylesheet" href="/style.css">"#)
            .reply(
                "/bg.png",
                Reply::status(200).content_type("image/png").body("png"),
            )
            .dynamic(move |req| {
                (req.path_only() == "/style.css").then(|| match req.header("if-none-match") {
                    Some(tag) if tag == etag => Reply::status(304).header("ETag", etag),
                    _ => Reply::status(200)
                        .content_type("text/css")
                        .header("ETag", etag)
                        .body("a { background: url(/bg.png) } b { background: url(/gone.png) }"),
                })
            }),
    );
    let dir = TempDir::new("replay-css-304");
    let file = dir.join("state.sqlite");
    for threads in [1, 4] {
        let _ = std::fs::remove_file(&file);
        s.clear_requests();
        let first = check(&s.url("/"), threads, &file, &["--max-cache-age", "0s"])
            .output()
            .unwrap();
        let second = check(&s.url("/"), threads, &file, &["--max-cache-age", "0s"])
            .output()
            .unwrap();
        let css: Vec<_> = s
            .requests()
            .into_iter()
            .filter(|r| r.path == "/style.css")
            .map(|r| r.header("if-none-match").map(str::to_owned))
            .collect();
        assert_eq!(css, [None, Some(etag.to_owned())], "{threads} threads");
        // The second run reports the stylesheet's broken link as the first did, without its body.
        let broken = |out: &Output| {
            based(out, &s)
                .into_iter()
                .filter(|r| r[6] == "False")
                .map(|r| r[7].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(broken(&first), ["BASE/gone.png"], "{threads} threads");
        assert_eq!(broken(&second), broken(&first), "{threads} threads");
        assert_eq!(
            s.count("/gone.png"),
            2,
            "{threads} threads: a failure is checked again"
        );
    }
}
