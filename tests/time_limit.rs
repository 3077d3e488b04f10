//! `--max-run-time` (`Config::max_run_time`): at the limit no new URL starts, what is in
//! flight gets the abort timeout, every report is written and says first that the time limit
//! stopped the check, and the exit status (124) never reads as a complete run.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli_in, config, csv_records, entry, run};

/// Hanging links: none ever answers, so the limit is what ends every run.
const HANGS: usize = 10;

/// `/` links to `/ok`, then to [`HANGS`] pages that never answer.
fn slow_site() -> TestServer {
    let mut html = String::from("<a href='/ok'>ok</a>");
    let mut routes = Routes::new().page("/ok", "fine");
    for i in 0..HANGS {
        html.push_str(&format!("<a href='/hang{i}'>h</a>"));
        routes = routes.reply(&format!("/hang{i}"), Reply::hang());
    }
    TestServer::start(routes.page("/", &html))
}

/// Runs the binary on `url` with `threads` workers and `extra` flags, writing the text report
/// to stdout and a CSV and a JSON report into `dir`.
fn run_limited(dir: &Path, url: &str, threads: usize, extra: &[&str]) -> Output {
    let threads = threads.to_string();
    let mut args = vec![
        "--no-status",
        "--max-requests-per-second",
        "0",
        "--timeout",
        "600",
        "--abort-timeout",
        "0.3",
        "-t",
        &threads,
        "-v",
        "-F",
        "csv/out.csv",
        "-F",
        "json/out.json",
        url,
    ];
    args.extend_from_slice(extra);
    cli_in(dir, &[], &args)
}

/// What every report of a run cut short by the limit says.
fn assert_stopped_at_limit(dir: &Path, out: &Output, threads: usize) {
    assert_exit(out, 124);
    let text = String::from_utf8_lossy(&out.stdout);
    // The summary opens with the time limit, before the statistics.
    let summary = &text[text.find("The check stopped").expect("a time-limit line")..];
    assert!(
        summary.starts_with(&format!(
            "The check stopped at the time limit of 1.5 s: {HANGS} URLs not checked \
             (--max-run-time)."
        )),
        "{threads} threads: {text}"
    );
    assert!(summary.find("Statistics:").is_some(), "{text}");
    assert!(
        text.contains(&format!(
            "Stopped at the time limit of 1.5 s, results not complete: 2 links in 2 URLs \
             checked, {HANGS} URLs not checked."
        )),
        "{threads} threads: {text}"
    );
    assert!(!text.contains("That's it."), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "stopped at the time limit of 1.5 s (--max-run-time): {HANGS} URLs not checked; \
             exit status 124"
        )),
        "{err}"
    );

    let json: Value =
        serde_json::from_slice(&std::fs::read(dir.join("out.json")).unwrap()).unwrap();
    let s = &json["summary"];
    assert_eq!(s["time_limit_reached"], 1.5, "{s}");
    assert_eq!(s["interrupted"], true, "{s}");
    assert_eq!(s["unchecked"], HANGS, "{s}");
    assert_eq!(s["urls"], 2, "{s}");
    let urls: Vec<&str> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls.len(), 2, "{urls:?}");
    assert!(urls.iter().all(|u| !u.contains("hang")), "{urls:?}");

    // The CSV is whole: its header, and a row for each URL checked, none for the rest.
    let csv = std::fs::read(dir.join("out.csv")).unwrap();
    assert!(csv.ends_with(b"\n"));
    let rows = csv_records(&csv);
    let names: Vec<&str> = rows.iter().map(|r| &r[0]).collect();
    assert!(names.len() == 2 && names.contains(&"/ok"), "{names:?}");
    assert!(rows.iter().all(|r| r.len() == 18 && &r[6] == "True"));
}

#[test]
fn a_run_stops_at_its_time_limit_with_every_report_written() {
    for threads in [1, 8] {
        let server = slow_site();
        let dir = TempDir::new(&format!("time-limit-{threads}"));
        let out = run_limited(
            &dir,
            &server.url("/"),
            threads,
            &["--no-config", "--max-run-time", "1.5s"],
        );
        assert_stopped_at_limit(&dir, &out, threads);
        // Nothing started after the limit: each hang was asked once at most.
        for i in 0..HANGS {
            assert!(server.count(&format!("/hang{i}")) <= 1);
        }
    }
}

#[test]
fn the_time_limit_comes_from_the_config_file_too() {
    for threads in [1, 8] {
        let server = slow_site();
        let dir = TempDir::new(&format!("time-limit-config-{threads}"));
        std::fs::write(dir.join("limits.toml"), "max-run-time = \"1.5s\"\n").unwrap();
        let out = run_limited(&dir, &server.url("/"), threads, &["-c", "limits.toml"]);
        assert_stopped_at_limit(&dir, &out, threads);
    }
}

#[test]
fn a_run_that_ends_before_its_limit_is_a_complete_one() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/ok'>ok</a>")
            .page("/ok", "ok"),
    );
    let dir = TempDir::new("time-limit-unreached");
    let out = run_limited(
        &dir,
        &server.url("/"),
        2,
        &["--no-config", "--max-run-time", "1h"],
    );
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("That's it."), "{text}");
    assert!(!text.contains("time limit"), "{text}");
    let json: Value =
        serde_json::from_slice(&std::fs::read(dir.join("out.json")).unwrap()).unwrap();
    assert!(json["summary"].get("time_limit_reached").is_none());
    assert_eq!(json["summary"]["interrupted"], false);
}

#[test]
fn a_url_in_flight_at_the_limit_finishes_within_the_abort_timeout() {
    for threads in [1, 8] {
        // /late is asked right after / and answers 3 s later: in flight at the 2 s limit,
        // done well within the 4 s abort timeout. The hangs never answer.
        let mut html = String::from("<a href='/late'>late</a>");
        let mut routes =
            Routes::new().reply("/late", Reply::html("late").delayed(Duration::from_secs(3)));
        for i in 0..HANGS {
            html.push_str(&format!("<a href='/hang{i}'>h</a>"));
            routes = routes.reply(&format!("/hang{i}"), Reply::hang());
        }
        let server = TestServer::start(routes.page("/", &html));
        let report = run(config(&server.url("/"), threads)
            .timeout(Duration::from_secs(600))
            .abort_timeout(Duration::from_secs(4))
            .max_run_time(Some(Duration::from_secs(2))));
        assert_eq!(report.time_limit_reached, Some(Duration::from_secs(2)));
        assert!(report.interrupted);
        let late = entry(&report, &server.url("/late"));
        assert!(
            !late.result.outcome.is_broken(),
            "{threads} threads: {late:?}"
        );
        assert_eq!(report.unchecked, HANGS, "{threads} threads");
    }
}
