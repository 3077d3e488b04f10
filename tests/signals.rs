//! Signals sent to the real binary (SIGINT, SIGKILL) while a loopback server hangs or a huge
//! folder is read, and the library's cancel bookkeeping: no torn CSV row, no lost finished
//! row, no vanished redirect, `urls` the reported URLs, a cancelled checker that runs again,
//! a walk that stops.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use linkpatrol::{CancelHandle, Checker, Config, ErrorKind, Inputs, Report};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{
    TempDir, config, csv_records, endless_site, entry, eventually, linkpatrol, signal,
};

fn spawn(args: &[&str]) -> Child {
    linkpatrol()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Every row of a CSV file; panics on a row without 18 fields or a file not ending in `\n`.
fn whole_rows(path: &Path) -> Vec<csv::StringRecord> {
    let bytes = std::fs::read(path).unwrap();
    assert!(
        bytes.is_empty() || bytes.ends_with(b"\n"),
        "the file ends in the middle of a row: …{}",
        String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(200)..])
    );
    let rows = csv_records(&bytes);
    for r in &rows {
        assert_eq!(r.len(), 18);
    }
    rows
}

#[test]
fn sigkill_keeps_every_row_finished_before_it() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/ok1'>1</a><a href='/ok2'>2</a><a href='/ok3'>3</a><a href='/hang'>h</a>",
            )
            .page("/ok1", "1")
            .page("/ok2", "2")
            .page("/ok3", "3")
            .reply("/hang", Reply::hang()),
    );
    let dir = TempDir::new("sigkill");
    let csv = dir.join("rows.csv");
    // Rows reach a file as they finish only when streamed.
    let mut child = spawn(&[
        "--stream",
        "--no-status",
        "-q",
        "-v",
        "-t",
        "4",
        "--max-requests-per-second",
        "0",
        "--timeout",
        "60",
        "-F",
        &format!("csv/{}", csv.display()),
        &server.url("/"),
    ]);
    // The run now hangs on /hang; the finished rows must reach the file meanwhile.
    eventually("the four finished rows in the file", || {
        std::fs::read_to_string(&csv).is_ok_and(|s| s.lines().count() == 5)
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let urls: BTreeSet<String> = whole_rows(&csv).iter().map(|r| r[7].to_owned()).collect();
    let want: BTreeSet<String> = ["/", "/ok1", "/ok2", "/ok3"]
        .iter()
        .map(|p| server.url(p))
        .collect();
    assert_eq!(urls, want);
}

/// An endless site (page `/i` links to `/2i+1` and `/2i+2`, with a query of `pad` bytes) whose
/// page 60 also links to `/hang`, which never answers.
fn hanging_at_page_60(pad: usize) -> TestServer {
    TestServer::start(Routes::new().dynamic(move |req| {
        let path = req.path_only();
        if path == "/hang" {
            return Some(Reply::hang());
        }
        let i: usize = path.trim_start_matches('/').parse().unwrap_or(0);
        let query = if pad > 0 {
            format!("?{}", "p".repeat(pad))
        } else {
            String::new()
        };
        let hang = if i == 60 { "<a href='/hang'>h</a>" } else { "" };
        let html = format!(
            "<a href='/{}{query}'>n</a><a href='/{}{query}'>m</a>{hang}",
            i * 2 + 1,
            i * 2 + 2
        );
        Some(Reply::html(html).delayed(Duration::from_millis(5)))
    }))
}

/// The binary on `server` with `threads` and `extra`, whose timeouts last a day: only a
/// second Ctrl-C ends it. Its stderr is piped, for [`ctrl_c_twice`] to read.
fn spawn_for_a_day(threads: &str, extra: &[&str], server: &TestServer) -> Child {
    let mut args = vec![
        "--no-status",
        "-q",
        "-v",
        "-t",
        threads,
        "--max-requests-per-second",
        "0",
        "--timeout",
        "86400",
        "--abort-timeout",
        "86400",
    ];
    args.extend_from_slice(extra);
    let url = server.url("/");
    args.push(&url);
    linkpatrol()
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Ctrl-C twice; the hang and the abort timeout last a day, so only the second ends the run,
/// with the interrupted status. The second is sent once the binary says it heard the first:
/// two signals sent before the first is handled would count as one.
fn ctrl_c_twice(child: &mut Child) {
    use std::io::BufRead;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let heard = Arc::new(AtomicBool::new(false));
    let stderr = child.stderr.take().expect("stderr piped");
    let reader = {
        let heard = Arc::clone(&heard);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if line.contains("press Ctrl-C again") {
                    heard.store(true, Ordering::SeqCst);
                }
            }
        })
    };
    signal(child, "-INT");
    eventually("the first Ctrl-C is heard", || heard.load(Ordering::SeqCst));
    signal(child, "-INT");
    assert_eq!(child.wait().unwrap().code(), Some(130));
    reader.join().unwrap();
}

#[test]
fn a_second_ctrl_c_exits_at_once_and_never_leaves_half_a_row() {
    for threads in ["1", "8"] {
        // An endless site whose rows are long (two 3 KB URLs), so rows cross buffer
        // boundaries all the time. Page 60 links to a URL that hangs: a lone worker stops there
        // (its rows are all written), while with 8 the others keep streaming rows; either way
        // the first Ctrl-C alone would wait for it (--abort-timeout of a day).
        let server = hanging_at_page_60(3000);
        let dir = TempDir::new(&format!("second-ctrl-c-{threads}"));
        let csv = dir.join("rows.csv");
        let csv_output = format!("csv/{}", csv.display());
        let mut child = spawn_for_a_day(threads, &["--stream", "-F", &csv_output], &server);
        eventually("200 KB of rows and a hanging request", || {
            server.count("/hang") == 1 && std::fs::metadata(&csv).is_ok_and(|m| m.len() > 200_000)
        });
        ctrl_c_twice(&mut child);
        let rows = whole_rows(&csv);
        assert!(rows.len() > 50, "{} rows", rows.len());
    }
}

#[test]
fn a_second_ctrl_c_writes_the_sorted_rows_that_finished() {
    for threads in ["1", "8"] {
        // Page 60 links to a URL that hangs for a day; without --stream every row is held
        // in memory until the end, which only the second Ctrl-C brings.
        let server = hanging_at_page_60(0);
        let dir = TempDir::new(&format!("second-ctrl-c-sorted-{threads}"));
        let csv = dir.join("rows.csv");
        let json = dir.join("rows.json");
        let outputs = [
            "-F".to_owned(),
            format!("csv/{}", csv.display()),
            "-F".to_owned(),
            format!("json/{}", json.display()),
        ];
        let outputs: Vec<&str> = outputs.iter().map(String::as_str).collect();
        let mut child = spawn_for_a_day(threads, &outputs, &server);
        eventually("100 requests and a hanging one", || {
            server.count("/hang") == 1 && server.requests().len() > 100
        });
        ctrl_c_twice(&mut child);
        let rows = whole_rows(&csv);
        assert!(rows.len() > 50, "{threads} threads: {} rows", rows.len());
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert!(
            doc.to_string().len() > 1000,
            "a whole JSON document with rows"
        );
    }
}

/// Distinct URLs reported as results.
fn reported(report: &Report) -> usize {
    report
        .entries
        .iter()
        .map(|e| e.result.url.as_str())
        .collect::<BTreeSet<_>>()
        .len()
}

#[test]
fn a_redirect_waiting_on_a_queued_target_is_reported_after_a_cancel() {
    for threads in [1, 4] {
        // Start URLs are claimed before any worker starts, in order: /r, /h0…, /target. The
        // workers take /r and the hanging /h*; /r redirects to /target, which is claimed and
        // stays queued, as every worker then hangs.
        let server = TestServer::start(
            Routes::new()
                .reply("/r", Reply::redirect(301, "/target"))
                .page("/target", "target")
                .dynamic(|req| req.path_only().starts_with("/h").then(Reply::hang)),
        );
        let mut cfg = config(&server.url("/r"), threads)
            .timeout(Duration::from_secs(60))
            .abort_timeout(Duration::from_millis(200));
        for i in 0..threads {
            cfg = cfg.input_url(server.url(&format!("/h{i}")));
        }
        let checker = Checker::new(cfg.input_url(server.url("/target"))).unwrap();
        let cancel = checker.cancel_handle();
        let report = std::thread::scope(|s| {
            let run = s.spawn(|| checker.run().unwrap());
            eventually("every worker on a hanging URL", || {
                (0..threads).all(|i| server.count(&format!("/h{i}")) == 1)
            });
            cancel.cancel();
            run.join().unwrap()
        });
        assert!(report.interrupted);
        assert_eq!(server.count("/target"), 0, "the target stayed queued");
        let r = entry(&report, &server.url("/r"));
        assert!(r.result.outcome.is_ignored(), "{:?}", r.result.outcome);
        assert!(
            r.result.outcome.to_string().contains("interrupted"),
            "{}",
            r.result.outcome
        );
        assert_eq!(r.result.redirects.len(), 1, "its own hop is kept");
        // /r reported ("URLs checked" counts the rows' URLs); /target and every /h* unchecked
        assert_eq!(report.urls, 1);
        assert_eq!(reported(&report), 1);
        assert_eq!(report.unchecked, threads + 1);
    }
}

#[test]
fn urls_are_the_reported_ones_after_any_cancel() {
    let server = endless_site(Duration::from_millis(2));
    for threads in [1, 8] {
        for cancel_after in [1, 5, 40] {
            let checker = Checker::new(config(&server.url("/"), threads)).unwrap();
            let cancel = checker.cancel_handle();
            let mut seen = 0;
            let report = checker
                .run_with(|_| {
                    seen += 1;
                    if seen == cancel_after {
                        cancel.cancel();
                    }
                })
                .unwrap();
            assert!(report.interrupted);
            assert_eq!(
                report.urls,
                reported(&report),
                "{threads} threads, cancelled after {cancel_after} rows"
            );
        }
    }
}

#[test]
fn a_cancelled_checker_runs_again_uncancelled() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/a'>a</a><a href='/b'>b</a>")
            .reply("/a", Reply::html("a").delayed(Duration::from_millis(100)))
            .reply("/b", Reply::html("b").delayed(Duration::from_millis(100))),
    );
    for threads in [1, 4] {
        let checker = Checker::new(config(&server.url("/"), threads)).unwrap();
        let cancel = checker.cancel_handle();
        let first = checker.run_with(|_| cancel.cancel()).unwrap();
        assert!(first.interrupted);
        let second = checker.run().unwrap();
        assert!(!second.interrupted, "the first cancel is over");
        assert_eq!((second.urls, second.unchecked), (3, 0));
        assert_eq!(second.entries.len(), 3);
        assert!(!cancel.is_cancelled());
    }
}

/// A folder `levels` deep, each level holding `files` empty Markdown files: a walk of it takes
/// a while.
fn huge_folder(name: &str, levels: usize, files: usize) -> TempDir {
    let dir = TempDir::new(name);
    let mut folder = dir.to_path_buf();
    for level in 0..levels {
        folder = folder.join(format!("d{level}"));
        std::fs::create_dir(&folder).unwrap();
        for i in 0..files {
            std::fs::write(folder.join(format!("f{i}.md")), "").unwrap();
        }
    }
    dir
}

#[test]
fn a_cancel_stops_the_walk_of_a_huge_folder() {
    let dir = huge_folder("walk-cancel", 3, 3_400);
    let cancel = CancelHandle::new();
    let trip = cancel.clone();
    let e = Inputs::new()
        .input(dir.to_str().unwrap())
        .cancel_handle(cancel)
        .on_progress(move |n| {
            if n == 10_000 {
                trip.cancel();
            }
        })
        .resolve(Config::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Interrupted);
    assert!(
        e.to_string()
            .contains("interrupted while reading the inputs (10000 files found)"),
        "{e}"
    );
}

#[test]
fn ctrl_c_while_a_huge_folder_is_read_ends_with_a_summary() {
    use std::io::BufRead;
    // 60,000 files: the walk goes on long after it says it found 10,000.
    let dir = huge_folder("walk-ctrl-c", 30, 2_000);
    let mut child = linkpatrol()
        .args(["-t", "1", "-o", "text", dir.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut lines = Vec::new();
    while !lines
        .iter()
        .any(|l: &String| l.contains("reading the inputs: 10000 files so far"))
    {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| {
                panic!("no progress line ({e}): {lines:?}");
            });
        lines.push(line);
    }
    signal(&child, "-INT");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "{out}");
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    let said = lines.join("\n");
    assert!(
        said.contains("interrupted while reading the inputs (")
            && said.contains("files found): nothing was checked"),
        "{said}"
    );
    assert!(out.contains("The check has been interrupted"), "{out}");
}
