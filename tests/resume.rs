//! `--resume`: a crawl killed with SIGKILL mid-way and resumed gives the report of an
//! uninterrupted run (infos included), and no URL is requested twice across both runs except
//! those in flight at the kill; `--resume` with nothing to resume checks everything; with
//! options that change what is checked it is refused.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, linkpatrol, rows};

/// Pages of the site.
const PAGES: usize = 200;

/// Requests answered before the server starts holding every response.
const ANSWERED: usize = 60;

/// The held requests and whether they may go on.
#[derive(Default)]
struct Hold {
    /// Requests answered so far (until `released`).
    answered: usize,
    /// Paths of the requests being held.
    held: BTreeSet<String>,
    /// Every request is answered from now on.
    released: bool,
}

type Gate = Arc<(Mutex<Hold>, Condvar)>;

/// Page `i`: links to two other pages, an image every page shares, and on every tenth page a
/// missing page; page 0 also links an image answered only on its second try.
fn page(i: usize) -> String {
    let mut html = format!(
        r#"<a href="/p{}.html">n</a> <a href="/p{}.html">m</a> <img src="/img.png">"#,
        (i + 1) % PAGES,
        (i * 7 + 3) % PAGES
    );
    if i.is_multiple_of(10) {
        html.push_str(&format!(r#" <a href="/gone{i}.html">gone</a>"#));
    }
    if i == 0 {
        html.push_str(r#" <img src="/flaky.png">"#);
    }
    html
}

/// The site; with a gate, every request after the first [`ANSWERED`] waits until released.
fn site(gate: Option<Gate>) -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/", &page(0))
            .reply(
                "/img.png",
                Reply::status(200).content_type("image/png").body("png"),
            )
            // Its result carries `checked after 2 tries`, which a resumed run must show too.
            // (A 503 pauses the host for its Retry-After; a 429 would slow it for the run.)
            .sequence(
                "/flaky.png",
                vec![
                    Reply::status(503).header("Retry-After", "0"),
                    Reply::status(200).content_type("image/png").body("png"),
                ],
            )
            .dynamic(move |req| {
                if let Some(gate) = &gate {
                    let (hold, changed) = &**gate;
                    let mut h = hold.lock().unwrap();
                    if !h.released && h.answered >= ANSWERED {
                        h.held.insert(req.path.clone());
                        changed.notify_all();
                        h = changed.wait_while(h, |h| !h.released).unwrap();
                    }
                    h.answered += 1;
                }
                let i: usize = req
                    .path_only()
                    .strip_prefix("/p")?
                    .strip_suffix(".html")?
                    .parse()
                    .ok()?;
                // Unchanged since the last run: 304 to its validator.
                let etag = "\"v1\"";
                (i < PAGES).then(|| match req.header("if-none-match") {
                    Some(tag) if tag == etag => Reply::status(304),
                    _ => Reply::html(page(i)).header("ETag", etag),
                })
            }),
    )
}

/// The URLs with a result of the latest run in the state file `file`, read from a copy (the running check
/// holds the file itself); empty while the copy cannot be read.
pub(crate) fn stored_urls(file: &Path, scratch: &Path) -> BTreeSet<String> {
    let _ = fs::remove_dir_all(scratch);
    fs::create_dir_all(scratch).unwrap();
    let copy = scratch.join("copy.sqlite");
    let mut wal = copy.clone().into_os_string();
    wal.push("-wal");
    let mut from_wal = file.to_path_buf().into_os_string();
    from_wal.push("-wal");
    if fs::copy(file, &copy).is_err() || fs::copy(&from_wal, &wal).is_err() {
        return BTreeSet::new();
    }
    let read = || -> rusqlite::Result<BTreeSet<String>> {
        let c = rusqlite::Connection::open(&copy)?;
        let mut stmt =
            c.prepare("SELECT url FROM results WHERE run_id = (SELECT max(id) FROM runs)")?;
        stmt.query_map([], |r| r.get(0))?.collect()
    };
    read().unwrap_or_default()
}

/// Sorted CSV rows without the timing columns (dltime, checktime), the `cached` flag and the
/// level (which occurrence comes first, and at which depth a page is first found, depend on
/// the threads' order) and the dates in infos.
pub(crate) fn comparable(out: &Output) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = rows(out)
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .filter(|(i, _)| ![11, 13, 14, 15].contains(i))
                .map(|(i, cell)| match i {
                    5 => without_dates(cell),
                    _ => cell.to_owned(),
                })
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

/// `text` with every date of an info (`broken since 2026-12-01 19:05 UTC`, `cached from …`)
/// replaced by `DATE`: two runs a minute apart give different ones.
fn without_dates(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = ["broken since ", "cached from "]
        .iter()
        .filter_map(|m| rest.find(m).map(|i| i + m.len()))
        .min()
    {
        out.push_str(&rest[..at]);
        out.push_str("DATE");
        rest = rest[at..].split_once(" UTC").map_or("", |(_, r)| r);
    }
    out.push_str(rest);
    out
}

/// The CSV check of `url` with state in `file` and `extra` flags.
fn check(url: &str, threads: usize, file: &Path, extra: &[&str]) -> std::process::Command {
    let mut cmd = linkpatrol();
    cmd.args(CSV_FLAGS)
        .args(["--no-robots", "-t", &threads.to_string(), "--cache-file"])
        .arg(file)
        .args(extra)
        .arg(url);
    cmd
}

/// Paths requested in `log`, with how often.
pub(crate) fn counts(log: &[crate::support::server::Request]) -> BTreeMap<String, usize> {
    let mut n = BTreeMap::new();
    for r in log {
        *n.entry(r.path.clone()).or_default() += 1;
    }
    n
}

/// Waits (at most 30 s) until every path that `answered` gives has a result of the check of
/// `site` in the state file `file`, read from copies in `scratch`. Polled: nothing in a check
/// tells when its writer has flushed, so the test reads copies of the file until they hold
/// every answered URL (no sleep stands in for that).
pub(crate) fn wait_until_stored(
    site: &TestServer,
    file: &Path,
    scratch: &Path,
    answered: impl Fn() -> BTreeSet<String>,
) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let answered = answered();
        let stored: BTreeSet<String> = stored_urls(file, scratch)
            .iter()
            .filter_map(|u| u.strip_prefix(&site.base()).map(str::to_owned))
            .collect();
        let unstored: Vec<_> = answered.difference(&stored).collect();
        if unstored.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "not stored {unstored:?}, stored {stored:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The paths requested by the resume of an interrupted run (`log` after its first
/// `first_len` requests, the interrupted run's), with how often; asserts that each path was
/// requested once across both runs, or once in each when it was `in_flight` at the kill.
pub(crate) fn requested_once(
    threads: usize,
    log: &[crate::support::server::Request],
    first_len: usize,
    in_flight: &BTreeSet<String>,
) -> BTreeMap<String, usize> {
    let (first, second) = log.split_at(first_len);
    let (first, second) = (counts(first), counts(second));
    for (path, n) in &second {
        let before = first.get(path).copied().unwrap_or(0);
        assert!(
            *n + before == 1 || (*n == 1 && in_flight.contains(path)),
            "{threads} threads: {path} requested {before} + {n} times; in flight: {in_flight:?}"
        );
    }
    second
}

#[test]
fn a_crawl_killed_mid_way_resumes_where_it_stopped() {
    for threads in [1, 4] {
        killed_and_resumed(threads, false, &[]);
    }
}

/// The same with the queued URLs waiting on disk (a queue memory share of 0) in both runs.
#[test]
fn a_crawl_whose_queue_waits_on_disk_killed_mid_way_resumes_where_it_stopped() {
    for threads in [1, 4] {
        killed_and_resumed(threads, false, &["--queue-memory", "0"]);
    }
}

#[test]
fn a_crawl_of_unchanged_pages_killed_mid_way_resumes_without_asking_again() {
    for threads in [1, 4] {
        killed_and_resumed(threads, true, &[]);
    }
}

/// Kills a `--cache` crawl of the site once [`ANSWERED`] requests were answered and their
/// results written, then resumes it. `warm`: a whole run has filled the state file first, so
/// the killed run's pages are answered 304 and their links replayed from the file.
fn killed_and_resumed(threads: usize, warm: bool, extra: &[&str]) {
    let resume: Vec<&str> = extra.iter().copied().chain(["--resume"]).collect();
    {
        let dir = TempDir::new(&format!("resume-kill-{threads}-{warm}-{}", extra.len()));
        let file = dir.join("state.sqlite");
        let gate: Gate = Arc::default();
        let s = site(Some(gate.clone()));
        if warm {
            gate.0.lock().unwrap().released = true;
            let out = check(&s.url("/"), threads, &file, &[]).output().unwrap();
            assert_eq!(out.status.code(), Some(1));
            let mut h = gate.0.lock().unwrap();
            (h.released, h.answered) = (false, 0);
            drop(h);
            s.clear_requests();
        }
        let mut child = check(&s.url("/"), threads, &file, extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait until the server holds a request and every answered URL has its result in the
        // state file (the writer flushes while the workers wait): then kill.
        let (hold, changed) = &*gate;
        let h = changed
            .wait_timeout_while(hold.lock().unwrap(), Duration::from_secs(30), |h| {
                h.held.is_empty()
            })
            .unwrap()
            .0;
        assert!(
            !h.held.is_empty(),
            "the check never reached the held requests"
        );
        drop(h);
        wait_until_stored(&s, &file, &dir.join("copy"), || {
            let held = hold.lock().unwrap().held.clone();
            s.requests()
                .iter()
                .map(|r| r.path.clone())
                .filter(|p| !held.contains(p))
                .collect()
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
        assert!(first_log.len() > ANSWERED, "{} requests", first_log.len());
        let resumed = check(&s.url("/"), threads, &file, &resume)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&resumed.stderr);
        assert!(!stderr.contains("--resume"), "{stderr}");
        let second = requested_once(threads, &s.requests(), first_log.len(), &in_flight);
        // The resumed run is the interrupted one, now ended: one row in `runs` per run.
        let runs: (i64, bool) = rusqlite::Connection::open(&file)
            .unwrap()
            .query_row(
                "SELECT count(*), min(finished IS NOT NULL AND interrupted = 0) FROM runs",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(runs, (1 + i64::from(warm), true));
        assert!(
            second.len() < PAGES,
            "the resumed run requested {} URLs",
            second.len()
        );
        // The same report as an uninterrupted run (on a site without a hold; after a whole run
        // too when `warm`).
        let whole = site(None);
        let fresh = dir.join("fresh.sqlite");
        if warm {
            check(&whole.url("/"), threads, &fresh, &[])
                .output()
                .unwrap();
        }
        let reference = check(&whole.url("/"), threads, &fresh, &[])
            .output()
            .unwrap();
        let base = |out: &Output, site: &TestServer| -> Vec<Vec<String>> {
            comparable(out)
                .into_iter()
                .map(|r| {
                    r.into_iter()
                        .map(|c| c.replace(&site.base(), "BASE"))
                        .collect()
                })
                .collect()
        };
        let (got, want) = (base(&resumed, &s), base(&reference, &whole));
        let only_got: Vec<_> = got.iter().filter(|r| !want.contains(r)).collect();
        let only_want: Vec<_> = want.iter().filter(|r| !got.contains(r)).collect();
        assert!(
            got == want,
            "{threads} threads: {} rows only resumed, e.g. {:?}; {} only uninterrupted, e.g. {:?}",
            only_got.len(),
            &only_got[..only_got.len().min(3)],
            only_want.len(),
            &only_want[..only_want.len().min(3)],
        );
        assert_eq!(resumed.status.code(), Some(1));
        let retried = got
            .iter()
            .filter(|r| r[5].contains("checked after 2 tries"))
            .count();
        // Linked from page 0, served as `/` and `/p0.html`.
        assert_eq!(retried, 2, "the retried image's info is kept");
        let broken = got.iter().filter(|r| r[6] == "False").count();
        // One row per link to a missing page; page 0 is served as `/` and `/p0.html`.
        assert_eq!(broken, PAGES / 10 + 1);
    }
}

#[test]
fn resume_with_nothing_to_resume_checks_everything() {
    let s = site(None);
    let dir = TempDir::new("resume-nothing");
    let file = dir.join("state.sqlite");
    let first = check(&s.url("/"), 2, &file, &["--resume"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(stderr.contains("no earlier run"), "{stderr}");
    let pages = (0..PAGES)
        .filter(|i| s.count(&format!("/p{i}.html")) == 1)
        .count();
    assert_eq!(pages, PAGES, "every page is requested once");
    // After a run that ended normally: as with --cache (pages requested again), with a
    // warning.
    let second = check(&s.url("/"), 2, &file, &["--resume"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(stderr.contains("ended normally"), "{stderr}");
    assert_eq!(s.count("/p1.html"), 2);
    assert_eq!(
        s.count("/img.png"),
        1,
        "a fresh leaf is reused as with --cache"
    );
    assert_eq!(comparable(&first).len(), comparable(&second).len());
}

#[test]
fn resume_with_options_that_change_what_is_checked_is_refused() {
    let s = site(None);
    let dir = TempDir::new("resume-options");
    let file = dir.join("state.sqlite");
    let first = check(&s.url("/"), 2, &file, &["--exclude", "/nothing/"])
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(1));
    // As a kill leaves it: the run has no end.
    rusqlite::Connection::open(&file)
        .unwrap()
        .execute("UPDATE runs SET finished = NULL", [])
        .unwrap();
    let requests = s.requests().len();
    for (url, extra, named) in [
        (
            s.url("/"),
            ["--exclude", "/gone"],
            "--exclude differs from the interrupted run's (run 1: `/nothing/`, now `/gone`)",
        ),
        (
            s.url("/p5.html"),
            ["--exclude", "/nothing/"],
            "start inputs differs",
        ),
    ] {
        let mut flags = vec!["--resume"];
        flags.extend(extra);
        let out = check(&url, 2, &file, &flags).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("linkpatrol: error: --resume: "),
            "{stderr}"
        );
        assert!(stderr.contains(named), "{stderr}");
        assert_eq!(
            s.requests().len(),
            requests,
            "a refused run requests nothing"
        );
    }
    // Other threads do not change what is checked: the run is resumed, every result reused
    // (no depth limit, so no page's level depends on the threads' order).
    let resumed = check(
        &s.url("/"),
        4,
        &file,
        &["--resume", "--exclude", "/nothing/"],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("--resume"), "{stderr}");
    assert_eq!(comparable(&resumed), comparable(&first));
    assert_eq!(
        s.requests().len(),
        requests,
        "every result of the run is reused"
    );
}
