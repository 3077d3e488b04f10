//! The state file (`--cache`): fresh results reused without a request, failures checked
//! again, unchanged pages answered 304 and their links taken from the file, broken history
//! across runs, and bad state files (corrupt, truncated, not SQLite,
//! another program's, newer, unwritable, held by another run) each ending in one warning and
//! a complete report.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use linkpatrol::{AcceptStatus, Config, Report};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, broken, config, entry, linkpatrol, run};

/// A site with a page, an image, a missing page and a link to `external`.
fn site(external: &str) -> TestServer {
    let index = format!(
        r#"<a href="/a.html">a</a> <img src="/p.png"> <a href="/missing">m</a>
           <a href="{external}">x</a>"#
    );
    TestServer::start(
        Routes::new()
            .page("/", &index)
            .page("/a.html", r#"<a href="/">home</a> <img src="/p.png">"#)
            .reply(
                "/p.png",
                Reply::status(200).content_type("image/png").body("png"),
            ),
    )
}

/// A second server: every URL on it is external to `site`.
fn external() -> TestServer {
    TestServer::start(Routes::new().page("/ext", "<p>external</p>"))
}

fn with_state(url: &str, threads: usize, file: &Path) -> Config {
    config(url, threads).state_file(file)
}

/// A link broken when last checked is asked with GET at once: the HEAD-then-GET confirmation
/// does not double the cost of a known failure. Its first check asked HEAD first.
#[test]
fn a_link_broken_last_run_is_asked_with_get_alone() {
    for threads in [1, 8] {
        let ext = TestServer::start(Routes::new().fallback(Reply::not_found()));
        let page = format!(r#"<a href="{}">gone</a>"#, ext.url("/gone"));
        let s = TestServer::start(Routes::new().page("/", &page));
        let dir = TempDir::new(&format!("state-broken-get-{threads}"));
        let file = dir.join("state.sqlite");
        run(with_state(&s.url("/"), threads, &file));
        assert!(
            ext.count_method("HEAD", "/gone") >= 1,
            "the first run asks HEAD first"
        );
        let before = (
            ext.count_method("HEAD", "/gone"),
            ext.count_method("GET", "/gone"),
        );
        let second = run(with_state(&s.url("/"), threads, &file));
        assert!(broken(&second).iter().any(|u| u.ends_with("/gone")));
        let after = (
            ext.count_method("HEAD", "/gone"),
            ext.count_method("GET", "/gone"),
        );
        assert_eq!(
            (after.0 - before.0, after.1 - before.1),
            (0, 1),
            "-t {threads}: one GET, no HEAD"
        );
    }
}

#[test]
fn fresh_leaf_and_external_results_are_not_requested_again() {
    for threads in [1, 8] {
        let ext = external();
        let s = site(&ext.url("/ext"));
        let dir = TempDir::new(&format!("state-reuse-{threads}"));
        let file = dir.join("state.sqlite");
        let first = run(with_state(&s.url("/"), threads, &file));
        assert!(
            first.state_warnings.is_empty(),
            "{:?}",
            first.state_warnings
        );
        let second = run(with_state(&s.url("/"), threads, &file));
        assert!(
            second.state_warnings.is_empty(),
            "{:?}",
            second.state_warnings
        );
        assert_eq!(broken(&first), broken(&second));
        assert_eq!(broken(&second), [s.url("/missing")].into());
        // Leaves and external URLs: one request over both runs.
        assert_eq!(s.count("/p.png"), 1, "{threads} threads");
        assert_eq!(ext.count("/ext"), 1, "{threads} threads");
        // Pages (parsed) and failures: requested again.
        assert_eq!(s.count("/a.html"), 2);
        assert_eq!(s.count("/missing"), 2);
        let image = entry(&second, &s.url("/p.png"));
        assert!(image.result.cached_from.is_some());
        assert!(
            image
                .result
                .infos
                .iter()
                .any(|i| i.starts_with("cached from ")),
            "{:?}",
            image.result.infos
        );
        assert!(entry(&first, &s.url("/p.png")).result.cached_from.is_none());
    }
}

#[test]
fn failures_are_reused_only_when_asked_and_old_results_never() {
    let ext = external();
    let s = site(&ext.url("/ext"));
    let dir = TempDir::new("state-failures");
    let file = dir.join("state.sqlite");
    run(with_state(&s.url("/"), 4, &file));
    let reused = run(with_state(&s.url("/"), 4, &file).cache_failures(true));
    assert_eq!(s.count("/missing"), 1, "a cached failure is not requested");
    assert_eq!(broken(&reused), [s.url("/missing")].into());
    // Nothing is fresh with a max age of zero: everything is requested again.
    run(with_state(&s.url("/"), 4, &file).max_cache_age(Duration::ZERO));
    assert_eq!(s.count("/p.png"), 2);
    assert_eq!(ext.count("/ext"), 2);
}

/// `cache_exclude_status` (`--cache-exclude-status`): a stored result with one of its
/// statuses is requested again, the others are still reused.
#[test]
fn results_with_an_excluded_status_are_requested_again() {
    let statuses = |s: &str| AcceptStatus::parse(s).unwrap();
    for threads in [1, 8] {
        let ext = external();
        let s = site(&ext.url("/ext"));
        let dir = TempDir::new(&format!("state-exclude-status-{threads}"));
        let file = dir.join("state.sqlite");
        run(with_state(&s.url("/"), threads, &file));
        let reused = |c: Config| c.cache_failures(true);
        // 404 excluded: the missing page is asked again, the image and the external link not.
        let second =
            run(reused(with_state(&s.url("/"), threads, &file))
                .cache_exclude_status(statuses("404")));
        assert_eq!(broken(&second), [s.url("/missing")].into());
        assert_eq!(s.count("/missing"), 2, "-t {threads}");
        assert_eq!(s.count("/p.png"), 1, "-t {threads}");
        assert_eq!(ext.count("/ext"), 1, "-t {threads}");
        // A range: every 2xx is asked again; the 404 is reused now.
        let third = run(reused(with_state(&s.url("/"), threads, &file))
            .cache_exclude_status(statuses("200..=299")));
        assert!(entry(&third, &s.url("/p.png")).result.cached_from.is_none());
        assert!(
            entry(&third, &s.url("/missing"))
                .result
                .cached_from
                .is_some()
        );
        assert_eq!(s.count("/p.png"), 2, "-t {threads}");
        assert_eq!(ext.count("/ext"), 2, "-t {threads}");
        assert_eq!(s.count("/missing"), 2, "-t {threads}");
    }
}

#[test]
fn a_link_fails_the_run_only_after_n_consecutive_broken_runs() {
    let ext = external();
    let s = site(&ext.url("/ext"));
    let dir = TempDir::new("state-history");
    let file = dir.join("state.sqlite");
    let runs: Vec<Report> = (0..3)
        .map(|_| run(with_state(&s.url("/"), 4, &file).fail_after_runs(3)))
        .collect();
    let streaks: Vec<u32> = runs
        .iter()
        .map(|r| entry(r, &s.url("/missing")).result.broken_runs)
        .collect();
    assert_eq!(streaks, [1, 2, 3]);
    let failing: Vec<usize> = runs.iter().map(|r| r.failing).collect();
    // One page links the missing URL: its one entry fails run 3.
    assert_eq!(failing, [0, 0, 1]);
    let third = &entry(&runs[2], &s.url("/missing")).result;
    assert_eq!(
        third.broken_since,
        entry(&runs[0], &s.url("/missing")).result.broken_since
    );
    assert!(
        third
            .infos
            .iter()
            .any(|i| i.starts_with("broken since ") && i.ends_with("(3 runs)")),
        "{:?}",
        third.infos
    );
    // Without a state file every broken entry fails the run.
    assert_eq!(run(config(&s.url("/"), 4).fail_after_runs(3)).failing, 1);
}

/// The files in `dir` whose names start with `prefix`, sorted.
pub(crate) fn files_named(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    v.sort();
    v
}

/// Asserts `report` has exactly one state-file warning, and that it contains `needle`.
pub(crate) fn assert_one_state_warning(report: &Report, needle: &str) {
    assert_eq!(
        report.state_warnings.len(),
        1,
        "{:?}",
        report.state_warnings
    );
    assert!(
        report.state_warnings[0].contains(needle),
        "`{needle}' not in {:?}",
        report.state_warnings
    );
}

/// Runs the site with `file` as state: the report must be complete (the same broken set and
/// entries as a run without state) with exactly one warning containing `needle`.
fn run_despite(s: &TestServer, file: &Path, needle: &str) -> Report {
    let without = run(config(&s.url("/"), 4));
    let report = run(with_state(&s.url("/"), 4, file));
    assert_one_state_warning(&report, needle);
    assert!(!report.state_warnings[0].contains('\n'));
    assert_eq!(broken(&report), broken(&without));
    assert_eq!(report.entries.len(), without.entries.len());
    report
}

/// A state file with one finished run of `s` in it.
fn good_state(s: &TestServer, dir: &Path) -> PathBuf {
    let file = dir.join("state.sqlite");
    let r = run(with_state(&s.url("/"), 2, &file));
    assert!(r.state_warnings.is_empty(), "{:?}", r.state_warnings);
    file
}

#[test]
fn unreadable_state_files_are_moved_aside_and_the_check_goes_on() {
    let ext = external();
    let s = site(&ext.url("/ext"));
    type Spoil = fn(&Path);
    let cases: [(&str, Spoil, &str); 4] = [
        (
            "truncated",
            |f| {
                let file = fs::OpenOptions::new().write(true).open(f).unwrap();
                file.set_len(5000).unwrap();
            },
            "malformed",
        ),
        (
            "corrupt",
            |f| {
                let mut bytes = fs::read(f).unwrap();
                bytes[4096..].fill(0xff);
                fs::write(f, bytes).unwrap();
            },
            "malformed",
        ),
        (
            "not-sqlite",
            |f| fs::write(f, "this is a text file, not a database\n".repeat(200)).unwrap(),
            "not a database",
        ),
        (
            "foreign",
            |f| {
                fs::remove_file(f).unwrap();
                let c = rusqlite::Connection::open(f).unwrap();
                c.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
                    .unwrap();
            },
            "another program",
        ),
    ];
    for (name, spoil, needle) in cases {
        let dir = TempDir::new(&format!("state-bad-{name}"));
        let file = good_state(&s, &dir);
        spoil(&file);
        let spoiled = fs::read(&file).unwrap();
        run_despite(&s, &file, needle);
        let aside = files_named(&dir, "state.sqlite.bad-");
        assert_eq!(aside.len(), 1, "{name}: {aside:?}");
        assert!(
            fs::read(&aside[0]).unwrap() == spoiled,
            "{name}: kept as it was"
        );
        // A fresh file took its place and works on the next run.
        let next = run(with_state(&s.url("/"), 4, &file));
        assert!(
            next.state_warnings.is_empty(),
            "{name}: {:?}",
            next.state_warnings
        );
        assert!(
            entry(&next, &s.url("/p.png")).result.cached_from.is_some(),
            "{name}"
        );
    }
}

#[test]
fn a_newer_schema_is_left_alone() {
    let ext = external();
    let s = site(&ext.url("/ext"));
    let dir = TempDir::new("state-newer");
    let file = good_state(&s, &dir);
    rusqlite::Connection::open(&file)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let before = fs::read(&file).unwrap();
    run_despite(&s, &file, "newer linkpatrol (schema 99)");
    assert!(fs::read(&file).unwrap() == before, "left as it was");
    assert!(files_named(&dir, "state.sqlite.bad-").is_empty());
}

#[test]
fn an_unwritable_folder_means_no_state() {
    let ext = external();
    let s = site(&ext.url("/ext"));
    // Nobody may create files in /proc, root included.
    run_despite(
        &s,
        Path::new("/proc/linkpatrol-state.sqlite"),
        "unable to open",
    );
}

#[test]
fn a_file_held_by_another_run_is_waited_for_then_skipped() {
    let ext = external();
    let s = site(&ext.url("/ext"));
    let dir = TempDir::new("state-busy");
    let file = good_state(&s, &dir);
    let holder = rusqlite::Connection::open(&file).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
        .unwrap();
    run_despite(&s, &file, "in use by another run");
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    let next = run(with_state(&s.url("/"), 4, &file));
    assert!(next.state_warnings.is_empty(), "{:?}", next.state_warnings);
}

#[test]
fn the_binary_warns_on_one_line_and_exits_by_fail_after_runs() {
    let ext = external();
    let s = site(&ext.url("/ext"));
    let dir = TempDir::new("state-cli");
    fs::write(dir.join("state.sqlite"), "not a database").unwrap();
    let cli = |extra: &[&str]| {
        linkpatrol()
            .current_dir(&dir)
            .args(["--no-status", "--max-requests-per-second", "0", "-o", "csv"])
            .args(extra)
            .arg(s.url("/"))
            .output()
            .unwrap()
    };
    let args = ["--cache-file", "state.sqlite", "--fail-after-runs", "2"];
    let first = cli(&args);
    assert_exit(&first, 0);
    let err = String::from_utf8_lossy(&first.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("moved aside"), "{err}");
    let second = cli(&args);
    assert_exit(&second, 1);
    assert!(second.stderr.is_empty());
    // The CSV keeps LinkChecker's columns; the history is in `infostring`.
    let rows = crate::support::util::rows(&second);
    let missing = crate::support::util::row_named(&rows, "/missing");
    assert!(
        missing.iter().any(|c| c.contains("(2 runs)")),
        "{missing:?}"
    );
    // --cache alone uses the file in the current folder.
    assert_exit(&cli(&["--cache"]), 1);
    assert!(dir.join(".linkpatrol-cache.sqlite").is_file());
}

#[test]
fn tolerated_errors_are_explained_until_they_fail_the_run() {
    let ext = external();
    let s = site(&ext.url("/ext"));
    let dir = TempDir::new("state-tolerated");
    let cli = |format: &str| {
        linkpatrol()
            .current_dir(&dir)
            .args([
                "--no-status",
                "--max-requests-per-second",
                "0",
                "-o",
                format,
            ])
            .args(["--cache-file", "state.sqlite", "--fail-after-runs", "3"])
            .arg(s.url("/"))
            .output()
            .unwrap()
    };
    for run in 1..=2 {
        let out = cli(if run == 1 { "text" } else { "compact" });
        assert_exit(&out, 0);
        let text = String::from_utf8_lossy(&out.stdout);
        let want = format!(
            "1 error tolerated: --fail-after-runs 3 fails the run only for a link broken in 3 \
             consecutive runs; this one has been broken in at most {run} so far (this run \
             included). Exit status 0."
        );
        assert!(text.lines().any(|l| l == want), "run {run}: {text}");
    }
    let third = cli("json");
    assert_exit(&third, 1);
    let json: serde_json::Value = serde_json::from_slice(&third.stdout).unwrap();
    assert_eq!(json["summary"]["errors"], 1);
    assert!(json["summary"].get("tolerated").is_none(), "{json}");
}

/// A site whose pages carry an ETag per version and answer 304 to a request that names the
/// current one. `touch` makes a new version of a page; `answers` counts (full, 304) per path.
struct VersionedSite {
    server: TestServer,
    versions: Arc<Mutex<HashMap<String, u32>>>,
    answers: Arc<Mutex<HashMap<String, (u32, u32)>>>,
}

impl VersionedSite {
    fn start() -> VersionedSite {
        let versions: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
        let answers: Arc<Mutex<HashMap<String, (u32, u32)>>> = Arc::default();
        let (v, a) = (versions.clone(), answers.clone());
        let server = TestServer::start(Routes::new().dynamic(move |req| {
            let path = req.path_only().to_owned();
            let body = match path.as_str() {
                "/" => r#"<a href="/p1">1</a> <a href="/p2">2</a> <a href="/p3">3</a>
                          <img src="/logo.png"> <a href="/gone">gone</a>"#
                    .to_owned(),
                "/p1" | "/p2" | "/p3" => {
                    let n = *v.lock().unwrap().get(&path).unwrap_or(&0);
                    // Each version links one page of its own: /p2-v1 after one touch.
                    format!(r#"<a href="/">home</a> <a href="{path}-v{n}">v</a>"#)
                }
                "/logo.png" => {
                    return Some(Reply::status(200).content_type("image/png").body("png"));
                }
                p if p.contains("-v") => "<p>leaf page</p>".to_owned(),
                _ => return None,
            };
            let etag = format!("\"{}\"", v.lock().unwrap().get(&path).unwrap_or(&0));
            let fresh = req.header("if-none-match") == Some(etag.as_str());
            let mut counts = a.lock().unwrap();
            let c = counts.entry(path).or_default();
            if fresh {
                c.1 += 1;
                Some(Reply::status(304).header("ETag", &etag))
            } else {
                c.0 += 1;
                Some(Reply::html(body).header("ETag", &etag))
            }
        }));
        VersionedSite {
            server,
            versions,
            answers,
        }
    }

    fn touch(&self, path: &str) {
        *self
            .versions
            .lock()
            .unwrap()
            .entry(path.into())
            .or_default() += 1;
    }

    /// (full answers, 304 answers) of `path` since the last call, then forgets them.
    fn take(&self, path: &str) -> (u32, u32) {
        self.answers
            .lock()
            .unwrap()
            .remove(path)
            .unwrap_or_default()
    }
}

#[test]
fn unchanged_pages_answer_304_and_only_a_touched_page_is_parsed_again() {
    for threads in [1, 8] {
        let site = VersionedSite::start();
        let s = &site.server;
        let dir = TempDir::new(&format!("state-304-{threads}"));
        let file = dir.join("state.sqlite");
        let first = run(with_state(&s.url("/"), threads, &file));
        for p in ["/", "/p1", "/p2", "/p3"] {
            assert_eq!(site.take(p), (1, 0), "{p}, first run");
        }
        site.touch("/p2");
        let second = run(with_state(&s.url("/"), threads, &file));
        assert!(
            second.state_warnings.is_empty(),
            "{:?}",
            second.state_warnings
        );
        for p in ["/", "/p1", "/p3"] {
            assert_eq!(site.take(p), (0, 1), "{p}: 304, links from the state file");
        }
        assert_eq!(
            site.take("/p2"),
            (1, 0),
            "the touched page is fetched and parsed"
        );
        // Its new link is checked; the links of the unchanged pages are all still there.
        assert_eq!(site.take("/p2-v1"), (1, 0));
        entry(&second, &s.url("/p1-v0"));
        entry(&second, &s.url("/p3-v0"));
        assert_eq!(broken(&second), broken(&first));
        assert_eq!(broken(&second), [s.url("/gone")].into());
        let index = entry(&second, &s.url("/"));
        assert_eq!(
            index.result.links_found,
            entry(&first, &s.url("/")).result.links_found
        );
        assert!(
            index
                .result
                .infos
                .iter()
                .any(|i| i.starts_with("not modified")),
            "{:?}",
            index.result.infos
        );
        // Each occurrence keeps its place in the page.
        let line = |r: &Report| {
            r.entries
                .iter()
                .find(|e| e.result.url == s.url("/p2"))
                .and_then(|e| e.referrer.as_ref())
                .map(|r| (r.line, r.column))
        };
        assert_eq!(line(&second), line(&first));
    }
}

#[test]
fn reuse_from_the_state_file_is_its_own_field_and_summary_line() {
    let site = VersionedSite::start();
    let dir = TempDir::new("state-reuse-visible");
    let cli = |args: &[&str]| {
        linkpatrol()
            .current_dir(&dir)
            .args(["--no-status", "--max-requests-per-second", "0", "-v"])
            .args(["--cache-file", "state.sqlite"])
            .args(args)
            .arg(site.server.url("/"))
            .output()
            .unwrap()
    };
    let first = cli(&["-o", "json"]);
    assert_exit(&first, 1);
    let json: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert!(
        json["summary"].get("reused").is_none(),
        "{}",
        json["summary"]
    );
    assert!(
        json["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["from_state"] == false)
    );

    let second = cli(&["-o", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    let entries = json["entries"].as_array().unwrap();
    let logo: Vec<&serde_json::Value> = entries
        .iter()
        .filter(|e| e["url"] == site.server.url("/logo.png"))
        .collect();
    assert_eq!(logo.len(), 1);
    // Reused from the state file, and the first row of its URL in this run: LinkChecker's
    // `cached` stays false.
    assert_eq!(
        (&logo[0]["from_state"], &logo[0]["cached"]),
        (&true.into(), &false.into())
    );
    assert!(
        logo[0]["infos"].to_string().contains("cached from"),
        "{}",
        logo[0]
    );
    // Each page linked back to / is a second row of / in this run: cached, not from the state.
    let home = entries
        .iter()
        .find(|e| e["url"] == site.server.url("/") && e["cached"] == true)
        .unwrap();
    assert_eq!(home["from_state"], false);
    // The logo; /, /p1-3 and their leaf pages /pN-v0 answer 304.
    assert_eq!(
        (&json["summary"]["reused"], &json["summary"]["not_modified"]),
        (&1.into(), &7.into()),
        "{}",
        json["summary"]
    );

    let csv = cli(&["-o", "csv"]);
    let rows = crate::support::util::rows(&csv);
    let logo = crate::support::util::row_named(&rows, "/logo.png");
    assert_eq!(
        (&logo[14], &logo[17]),
        ("0", "1"),
        "cached, from_state: {logo:?}"
    );
    let text = cli(&[]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.lines()
            .any(|l| l == "1 result reused from the state file, 7 pages not modified."),
        "{text}"
    );
}
