//! `--render-js` on the single-page-app fixture (tests/support/spa.rs): the links scripts make
//! (at once, after a fetch, after a timer) are checked and marked rendered, only with the flag;
//! routes are no errors; a throwing page is warned about and its static links checked; a page
//! that never settles ends at the render timeout; ids scripts create count as anchors; no
//! Chromium outlives the run; a missing Chromium is an error at start.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use linkpatrol::plugin::{Options, Plugin};
use linkpatrol::{Report, plugins};

use crate::support::desktop_tools::program_or_skip;
use crate::support::server::{Reply, Routes};
use crate::support::spa::{self, JS_ONLY};
use std::process::Stdio;

use crate::support::util::{
    TempDir, assert_exit, cli_with_env, config, eventually, linkpatrol, run, signal,
};

/// Chromium, or `false` after printing `SKIPPED:` (a failure with LINKPATROL_REQUIRE_TOOLS).
fn have_chromium(test: &str) -> bool {
    program_or_skip(
        &["chromium", "chromium-browser"],
        &format!("{test}: chromium not found (install Debian's chromium)"),
    )
    .is_some()
}

/// The render-js plugin with a short render timeout (the never-settling page waits for it).
fn render_js(timeout: &str) -> Arc<dyn Plugin> {
    let options = Options::new("render-js").with("timeout", timeout);
    plugins::builtin("render-js", &options).expect("chromium is installed")
}

/// Each entry's path, with whether it was found only after rendering and whether it broke.
fn rows(report: &Report) -> BTreeSet<(String, bool, bool)> {
    report
        .entries
        .iter()
        .map(|e| {
            let path = e.result.url.split_once("127.0.0.1").map_or("", |(_, r)| r);
            let path = path.split_once('/').map_or("", |(_, p)| p);
            (
                format!("/{path}"),
                e.referrer.as_ref().is_some_and(|r| r.rendered),
                e.result.outcome.is_broken(),
            )
        })
        .collect()
}

#[test]
fn links_scripts_make_are_checked_and_marked_only_with_rendering() {
    if !have_chromium("links_scripts_make_are_checked_and_marked_only_with_rendering") {
        return;
    }
    for threads in [1, 8] {
        // Without the flag: the shell's static links only; no JS-only URL is even requested.
        let server = spa::start();
        let report = run(config(&server.url("/"), threads));
        for path in JS_ONLY {
            assert_eq!(
                server.count(path),
                0,
                "-t {threads}: {path} found without rendering"
            );
        }
        assert!(server.count("/static-ok.html") > 0);

        let server = spa::start();
        let report2 = run(config(&server.url("/"), threads).plugin(render_js("5")));
        let rows = rows(&report2);
        for (path, broken) in [
            ("/js-ok.html", false),
            ("/js-missing.html", true),
            ("/fetched-ok.html", false),
            ("/fetched-missing.html", true),
            ("/timer-ok.html", false),
            ("/timer-missing.html", true),
            ("/app/settings", false),
            ("/logo.png", false),
        ] {
            assert!(
                rows.contains(&(path.to_owned(), true, broken)),
                "-t {threads}: {path} rendered, broken={broken}: {rows:#?}"
            );
        }
        // Each JS-only 404 names the page it came from.
        let missing = report2
            .entries
            .iter()
            .find(|e| e.result.url.ends_with("/js-missing.html"))
            .unwrap();
        assert_eq!(missing.referrer.as_ref().unwrap().parent, server.url("/"));
        // Static links stay unmarked; the hash route is no error.
        assert!(
            rows.contains(&("/static-ok.html".into(), false, false)),
            "{rows:#?}"
        );
        assert!(!report2.broken().any(|e| e.result.url.contains("settings")));
        // The throwing page is warned about and its static link checked.
        let throws = report2
            .entries
            .iter()
            .find(|e| e.result.url.ends_with("/throws.html"))
            .unwrap();
        assert!(
            throws
                .result
                .warnings
                .iter()
                .any(|w| w.tag == "render-script-error"
                    && w.message.contains("boom from the fixture")),
            "{:?}",
            throws.result.warnings
        );
        assert!(server.count("/static-ok-2.html") > 0);
        // The never-settling page ends at the timeout, with what it had by then.
        let busy = report2
            .entries
            .iter()
            .find(|e| e.result.url.ends_with("/busy.html"))
            .unwrap();
        assert!(
            busy.result
                .warnings
                .iter()
                .any(|w| w.tag == "render-timeout"),
            "{:?}",
            busy.result.warnings
        );
        assert!(server.count("/busy-ok.html") > 0);
        assert!(
            report2.stats.rendered >= JS_ONLY.len(),
            "{}",
            report2.stats.rendered
        );
        assert_eq!(report.stats.rendered, 0);
    }
}

#[test]
fn ids_scripts_create_and_hash_routes_count_as_anchors() {
    if !have_chromium("ids_scripts_create_and_hash_routes_count_as_anchors") {
        return;
    }
    let anchors = || plugins::builtin("anchors", &Options::new("anchors")).unwrap();
    for threads in [1, 8] {
        let server = spa::start();
        let shell = server.url("/");
        let cfg = |c: linkpatrol::Config| c.recursion_level(Some(1)).plugin(anchors());
        // Without rendering the shell's `#made-by-script` names no anchor of its source.
        let plain = run(cfg(config(&shell, threads)));
        let missing: Vec<_> = plain.broken().map(|e| e.fragment.clone()).collect();
        assert!(
            missing.contains(&Some("made-by-script".into())),
            "-t {threads}: {missing:?}"
        );
        let rendered = run(cfg(config(&shell, threads)).plugin(render_js("5")));
        let broken: Vec<_> = rendered
            .broken()
            .filter(|e| e.fragment.is_some())
            .map(|e| (e.result.url.clone(), e.fragment.clone()))
            .collect();
        assert!(broken.is_empty(), "-t {threads}: {broken:?}");
    }
}

/// The browser's own requests (the page again, the app's script, its JSON, its image) go
/// through the run's rules: robots.txt forbids the JSON, so the links it would add are never
/// seen, and every request waits for its turn at the host gate under the run's rate.
#[test]
fn the_browsers_requests_keep_robots_and_the_rate() {
    if !have_chromium("the_browsers_requests_keep_robots_and_the_rate") {
        return;
    }
    for threads in [1, 8] {
        let robots = Reply::html("User-agent: *\nDisallow: /api/\n").content_type("text/plain");
        let server = spa::start_with(Routes::new().reply("/robots.txt", robots));
        let report = run(config(&server.url("/"), threads)
            .recursion_level(Some(1))
            .max_requests_per_second(5.0)
            .plugin(render_js("5")));
        assert!(
            server.count("/app.js") > 0,
            "-t {threads}: the browser ran the app"
        );
        assert_eq!(
            server.count("/api/links.json"),
            0,
            "-t {threads}: robots.txt forbids it"
        );
        let rows = rows(&report);
        assert!(
            rows.contains(&("/js-ok.html".into(), true, false)),
            "{rows:#?}"
        );
        assert!(
            !rows.iter().any(|(p, _, _)| p.starts_with("/fetched")),
            "{rows:#?}"
        );
        // Every request the server saw, the browser's included, took its turn at the host
        // gate, which counts a request when it grants the turn (at 5 per second, 200 ms
        // apart): unpaced, the browser's would be missing from the host's count.
        let counted: u64 = report.stats.hosts.iter().map(|(h, _)| h.requests).sum();
        let seen = server.requests().len() as u64;
        assert!(
            counted >= seen,
            "-t {threads}: {counted} turns for {seen} requests: {:?}",
            server
                .requests()
                .iter()
                .map(|r| r.path.clone())
                .collect::<Vec<_>>()
        );
    }
}

/// The processes whose environment holds `marker` (as root every /proc/PID/environ is
/// readable): the browser and its helpers inherit it from the linkpatrol that started them.
fn processes_with(marker: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == marker.as_bytes()))
        })
        // A zombie has finished; only its parent's wait is missing.
        .filter(|e| {
            std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| {
                s.rsplit_once(") ")
                    .is_some_and(|(_, rest)| !rest.starts_with('Z'))
            })
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The flag through the command line: the JS-only 404 is an error marked in every format
/// that lists links (the sitemap lists good pages, `failures` bare URLs: neither has room).
#[test]
fn the_flag_marks_rendered_links_in_every_format_and_no_chromium_outlives_the_run() {
    if !have_chromium("the_flag_marks_rendered_links_in_every_format") {
        return;
    }
    let server = spa::start();
    let dir = TempDir::new("render-js-formats");
    std::fs::create_dir_all(&*dir).unwrap();
    let marker = format!("LINKPATROL_RENDER_TEST={}", std::process::id());
    let formats = [
        "text", "compact", "github", "markdown", "csv", "html", "json", "ndjson", "junit", "sarif",
        "dot", "gml",
    ];
    let mut args = vec![
        "--render-js".to_owned(),
        "--render-timeout=5".to_owned(),
        "-r1".to_owned(),
        "-o".to_owned(),
        "json".to_owned(),
    ];
    for f in formats {
        args.push(format!("-F{f}/{}", dir.join(f).display()));
    }
    args.push(server.url("/"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (key, value) = marker.split_once('=').unwrap();
    let out = cli_with_env(&args, &[(key, value)]);
    assert_exit(&out, 1);
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(
        json.contains("\"rendered\":"),
        "the summary counts them: {json}"
    );
    for f in formats {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        let mark = match f {
            "json" | "ndjson" | "sarif" => "\"rendered\":true",
            "dot" | "gml" => "rendered",
            _ => "found after rendering",
        };
        let text = text.replace("\"rendered\": true", "\"rendered\":true");
        assert!(text.contains(mark), "{f} has no `{mark}':\n{text}");
        assert!(text.contains("js-missing.html"), "{f}");
    }
    // Every Chromium process of the run is gone once it returns (helpers exit with the
    // browser: waited for, within a bound).
    assert_no_chromium_left(&marker);
}

/// --max-run-time ends a run whose page never settles (a render timeout far beyond it): the
/// browser is closed with the run, and no Chromium process is left.
#[test]
fn the_time_limit_closes_the_browser() {
    if !have_chromium("the_time_limit_closes_the_browser") {
        return;
    }
    let server = spa::start();
    let marker = format!("LINKPATROL_RENDER_LIMIT={}", std::process::id());
    let (key, value) = marker.split_once('=').unwrap();
    let busy = server.url("/busy.html");
    let out = cli_with_env(
        &[
            "--render-js",
            "--render-timeout=120",
            "--max-run-time=2",
            "--abort-timeout=1",
            "-o",
            "json",
            &busy,
        ],
        &[(key, value)],
    );
    // The time limit ended the run, not the two-minute render.
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(json.contains("\"time_limit_reached\""), "{json}");
    assert_no_chromium_left(&marker);
}

/// Ctrl-C while a page that never settles renders (its timeout two minutes): the browser is
/// killed at once, so the page's check ends well within the abort timeout, reported with the
/// reason, instead of being abandoned unchecked; the run ends interrupted, no Chromium left.
#[test]
fn ctrl_c_closes_the_browser() {
    if !have_chromium("ctrl_c_closes_the_browser") {
        return;
    }
    let server = spa::start();
    let marker = format!("LINKPATROL_RENDER_CTRL_C={}", std::process::id());
    let (key, value) = marker.split_once('=').unwrap();
    let mut child = linkpatrol()
        .env(key, value)
        .args(["--render-js", "--render-timeout=120", "--abort-timeout=30"])
        .args(["-o", "json", &server.url("/busy.html")])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The browser is up and the page loading.
    eventually("the browser renders the page", || {
        processes_with(&marker).len() > 1 && server.count("/busy.html") > 1
    });
    signal(&child, "-INT");
    let mut json = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut json).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "interrupted");
    assert!(json.contains("\"unchecked\":0"), "{json}");
    assert!(
        json.contains("render-failed") && json.contains("the run has ended"),
        "{json}"
    );
    assert_no_chromium_left(&marker);
}

/// No browser: an error at start (exit 2) that names the package, and no request made.
#[test]
fn a_missing_chromium_is_an_error_at_start() {
    let server = spa::start();
    let out = cli_with_env(
        &[
            "--render-js",
            "--plugin=render-js:chromium=/nonexistent/chromium",
            &server.url("/"),
        ],
        &[],
    );
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`chromium' package") || err.contains("`chromium` package"),
        "{err}"
    );
    assert_eq!(
        server.requests().len(),
        0,
        "nothing is checked without the browser"
    );
}

/// Waits (at most 10 s: Chromium's helpers exit with the browser) until no process carries
/// `marker` in its environment, and fails naming those left.
fn assert_no_chromium_left(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_with(marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        processes_with(marker),
        Vec::<String>::new(),
        "Chromium outlived the run"
    );
}
