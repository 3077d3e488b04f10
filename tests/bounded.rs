//! Memory bounded by the limits a user sets, and by default: past `--max-urls` links are
//! counted, not stored; a cancelled run discovers nothing more, and with very many URLs
//! pending exits with its whole report.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use linkpatrol::{Config, DEFAULT_MAX_URLS, Outcome};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, eventually, linkpatrol, run, signal};

/// A spider trap: page `/p/N` links to `/p/N*fanout+1` … `/p/N*fanout+fanout`, every one new.
fn trap(fanout: usize) -> TestServer {
    TestServer::start(Routes::new().dynamic(move |req| {
        let n: usize = req
            .path_only()
            .rsplit('/')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut html = String::with_capacity(fanout * 24);
        for i in 1..=fanout {
            html.push_str(&format!("<a href='/p/{}'>x</a>", n * fanout + i));
        }
        Some(Reply::html(html))
    }))
}

#[test]
fn past_max_urls_links_are_counted_not_stored() {
    let server = trap(100);
    for threads in [1, 4] {
        let report = run(config(&server.url("/p/0"), threads).max_urls(Some(300)));
        // Every URL stored is one of the 300 allowed, and checked: one row each (every link
        // of the trap is new, so each URL has one referrer).
        assert_eq!(report.urls, 300, "threads {threads}");
        assert_eq!(report.entries.len(), 300, "threads {threads}");
        assert!(
            report
                .entries
                .iter()
                .all(|e| e.result.outcome == Outcome::Ok { status: Some(200) }),
            "threads {threads}"
        );
        // The 300 pages hold 30,000 links: 299 were stored, the rest only counted.
        assert_eq!(report.over_limit, 300 * 100 - 299, "threads {threads}");
    }
}

#[test]
fn the_summary_states_how_many_links_the_limit_left_unchecked() {
    let server = trap(100);
    let out = linkpatrol()
        .args([
            "--no-status",
            "-t",
            "4",
            "--max-urls",
            "300",
            &server.url("/p/0"),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    // 300 pages of 100 new links each, 299 of them stored: 29,701 counted.
    assert!(
        text.contains(
            "29701 links to further URLs not checked: the limit of 300 URLs (--max-urls) was \
             reached and no further URLs were discovered; raise it with --max-urls N (0: no \
             limit)."
        ),
        "{text}"
    );
    assert!(text.contains("in 300 URLs checked"), "{text}");
}

/// Ctrl-C with a hundred thousand URLs queued and more: the binary writes its whole report and
/// exits with 130. (How long tearing the queued URLs down takes is a benchmark's question.)
#[test]
fn ctrl_c_with_many_urls_pending_exits_within_the_abort_timeout() {
    let server = trap(2000);
    let mut child = linkpatrol()
        .args([
            "--no-status",
            "-t",
            "4",
            "--abort-timeout",
            "1",
            "-o",
            "csv",
            &server.url("/p/0"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // 60 pages parsed: some 120,000 URLs are queued.
    eventually("60 pages served", || server.requests().len() >= 60);
    signal(&child, "-INT");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let mut csv = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut csv).unwrap();
    assert!(csv.ends_with('\n'), "the report is complete");
}

#[test]
fn a_run_is_bounded_by_default() {
    let server = trap(3);
    let start_only = |cfg: Config| run(cfg.recursion_level(Some(0)));
    let by_default = start_only(config(&server.url("/p/0"), 2));
    assert_eq!(by_default.url_limit, Some(DEFAULT_MAX_URLS));
    assert_eq!(by_default.urls, 1);
    let lifted = start_only(config(&server.url("/p/0"), 2).max_urls(Some(0)));
    assert_eq!((lifted.urls, lifted.url_limit), (1, None));
}

/// Pages of the gated trap answered at once; the later ones wait for [`Gate::open`].
const ANSWERED: usize = 10;
/// New links on each page of the gated trap.
const FANOUT: usize = 50;

/// Holds the requests of a trap's pages after the first [`ANSWERED`] until opened.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
    /// Page requests so far (robots.txt aside).
    asked: AtomicUsize,
    /// Requests waiting at the gate now.
    waiting: AtomicUsize,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    /// Waits, when `nth` page request is past the answered ones, until the gate opens (at
    /// most a minute: a failed test must not leave the server's threads behind for good).
    fn pass(&self, nth: usize) {
        if nth <= ANSWERED {
            return;
        }
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let open = self.open.lock().unwrap();
        let _ = self
            .opened
            .wait_timeout_while(open, Duration::from_secs(60), |open| !*open)
            .unwrap();
        self.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A trap whose page `/p/N` links to [`FANOUT`] new pages; the pages asked after the first
/// [`ANSWERED`] wait at `gate`.
fn gated_trap(gate: &Arc<Gate>) -> TestServer {
    let gate = Arc::clone(gate);
    TestServer::start(Routes::new().dynamic(move |req| {
        let n: usize = req.path_only().strip_prefix("/p/")?.parse().ok()?;
        gate.pass(gate.asked.fetch_add(1, Ordering::SeqCst) + 1);
        let mut html = String::new();
        for i in 1..=FANOUT {
            html.push_str(&format!("<a href='/p/{}'>x</a>", n * FANOUT + i));
        }
        Some(Reply::html(html))
    }))
}

#[test]
fn ctrl_c_stops_discovering_and_the_pages_in_flight_end_the_run() {
    for threads in [1usize, 8] {
        let gate = Arc::new(Gate::default());
        let server = gated_trap(&gate);
        // The timeouts last a day: the run ends because its pages in flight end.
        let mut child = linkpatrol()
            .args(["--no-status", "-t", &threads.to_string()])
            .args(["--max-requests-per-second", "0", "--timeout", "86400"])
            .args([
                "--abort-timeout",
                "86400",
                "-o",
                "json",
                &server.url("/p/0"),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Every worker waits at the gate: the pages answered before were parsed, their links
        // claimed (a worker takes its next URL only after that), and nothing else moves.
        eventually("every worker at the gate", || {
            gate.waiting.load(Ordering::SeqCst) == threads
        });
        let heard = Arc::new(AtomicBool::new(false));
        let stderr = child.stderr.take().unwrap();
        let reader = {
            let heard = Arc::clone(&heard);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if line.contains("interrupted; finishing active URLs") {
                        heard.store(true, Ordering::SeqCst);
                    }
                }
            })
        };
        signal(&child, "-INT");
        // The binary says it heard the Ctrl-C once the run is cancelled; then the pages in
        // flight are answered, each with 50 links to URLs never seen.
        eventually("the Ctrl-C is heard", || heard.load(Ordering::SeqCst));
        gate.open();
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        assert_eq!(child.wait().unwrap().code(), Some(130), "threads {threads}");
        reader.join().unwrap();
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        let summary = &doc["summary"];
        // No request after the Ctrl-C: the pages asked are those answered and those in flight.
        assert_eq!(
            gate.asked.load(Ordering::SeqCst),
            ANSWERED + threads,
            "threads {threads}"
        );
        assert_eq!(summary["interrupted"], true);
        assert_eq!(summary["urls"], ANSWERED + threads, "threads {threads}");
        // Known at the Ctrl-C: the start page and the links of the pages answered. The pages
        // in flight added none of theirs.
        let known = 1 + ANSWERED * FANOUT;
        assert_eq!(
            summary["unchecked"],
            known - ANSWERED - threads,
            "threads {threads}: {summary}"
        );
        assert_eq!(summary["over_limit"], 0, "threads {threads}");
    }
}

/// A robots.txt of 500 KiB and more: a group for another agent, then ours with `/private/`,
/// `/*.pdf$` and plain rules up to 500 KiB, then `/late/`, which Google (reading 500 KiB) and
/// linkpatrol never read.
fn large_robots_txt() -> String {
    let mut body = String::from("User-agent: otherbot\n");
    while body.len() < 200 * 1024 {
        body.push_str("Disallow: /public$\nDisallow: /late/\n");
    }
    body.push_str("User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\n");
    let mut i = 0;
    while body.len() < 500 * 1024 {
        body.push_str(&format!("Disallow: /filler/{i}/\n"));
        i += 1;
    }
    body.push_str("Disallow: /late/\n");
    body
}

#[test]
fn many_origins_with_large_robots_txt_files_keep_their_verdicts() {
    let robots = large_robots_txt();
    let origins: Vec<TestServer> = (0..20)
        .map(|_| {
            let routes = Routes::new()
                .reply(
                    "/robots.txt",
                    Reply::html(robots.clone()).content_type("text/plain"),
                )
                .fallback(Reply::html("page"));
            TestServer::start(routes)
        })
        .collect();
    let paths = ["/public", "/private/a", "/doc.pdf", "/doc.pdfx", "/late/a"];
    let mut links = String::new();
    for o in &origins {
        for p in paths {
            links.push_str(&format!("<a href='{}'>x</a>\n", o.url(p)));
        }
    }
    let site = TestServer::start(Routes::new().page("/", &links));
    for threads in [1, 8] {
        for o in &origins {
            o.clear_requests();
        }
        let report = run(config(&site.url("/"), threads));
        for o in &origins {
            let asked: Vec<String> = o.requests().into_iter().map(|r| r.path).collect();
            assert_eq!(
                asked.iter().filter(|p| *p == "/robots.txt").count(),
                1,
                "threads {threads}: {asked:?}"
            );
            for p in ["/public", "/doc.pdfx", "/late/a"] {
                assert!(asked.iter().any(|a| a == p), "threads {threads}: {p}");
            }
            for p in ["/private/a", "/doc.pdf"] {
                assert!(!asked.iter().any(|a| a == p), "threads {threads}: {p}");
                let e = crate::support::util::entry(&report, &o.url(p));
                assert!(e.result.outcome.is_ignored(), "{}", e.result.outcome);
            }
        }
    }
}

/// Past the 64 MiB that all origins' robots.txt rules may take, an origin allows everything,
/// and the run says how many were treated so.
#[test]
fn past_the_robots_budget_the_run_says_how_many_origins_allow_all() {
    let mut robots = String::from("User-agent: *\nDisallow: /private/\n");
    while robots.len() < 500 * 1024 {
        robots.push_str("Disallow: /path/to/filler/\n");
    }
    let origins: Vec<TestServer> = (0..40)
        .map(|_| {
            TestServer::start(
                Routes::new()
                    .reply(
                        "/robots.txt",
                        Reply::html(robots.clone()).content_type("text/plain"),
                    )
                    .fallback(Reply::html("page")),
            )
        })
        .collect();
    let links: String = origins
        .iter()
        .map(|o| format!("<a href='{}'>x</a>\n", o.url("/private/a")))
        .collect();
    let site = TestServer::start(Routes::new().page("/", &links));
    for threads in ["1", "8"] {
        for o in &origins {
            o.clear_requests();
        }
        let out = linkpatrol()
            .args(["--no-status", "-t", threads, &site.url("/")])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        // 10,000 rules of 16 characters are estimated at 1.92 MB: 34 origins fit in 64 MiB.
        assert!(
            stderr.contains("robots.txt: the rules of 6 origins were not kept, past the 64 MiB"),
            "threads {threads}: {stderr}"
        );
        let requested = origins
            .iter()
            .filter(|o| o.requests().iter().any(|r| r.path == "/private/a"))
            .count();
        assert_eq!(requested, 6, "threads {threads}");
    }
}

/// A site of 40 pages, each linking every page and 50 shared leaves.
fn dense_site() -> TestServer {
    let mut html = String::new();
    for j in 0..40 {
        html.push_str(&format!("<a href='/p{j}'>p</a>\n"));
    }
    for k in 0..50 {
        html.push_str(&format!("<a href='/leaf{k}'>leaf</a>\n"));
    }
    let mut routes = Routes::new();
    for i in 0..40 {
        routes = routes.page(&format!("/p{i}"), &html);
    }
    TestServer::start(routes.fallback(Reply::html("leaf")))
}

/// With the queued URLs waiting on disk (a queue memory share of 0: all but each host's
/// next one), every URL is still requested exactly once.
#[test]
fn each_url_is_requested_once_while_the_queue_waits_on_disk() {
    let server = dense_site();
    for threads in ["1", "8"] {
        server.clear_requests();
        let out = linkpatrol()
            .args([
                "--no-status",
                "--no-robots",
                "-t",
                threads,
                "--queue-memory",
                "0",
            ])
            .arg(server.url("/p0"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains("queued URLs waited on disk"), "{stderr}");
        let mut paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
        paths.sort();
        let total = paths.len();
        paths.dedup();
        assert_eq!((total, paths.len()), (90, 90), "-t {threads}: {paths:?}");
    }
}

/// Past `--max-memory` a run stops discovering URLs, as past `--max-urls`: the links to new
/// URLs are counted, and the summary names the budget.
#[test]
fn a_memory_budget_stops_discovering_and_the_summary_says_so() {
    let server = trap(100);
    for threads in [1, 8] {
        let report = run(config(&server.url("/p/0"), threads).max_memory(Some(256 << 10)));
        assert_eq!(report.memory_limit, Some(256 << 10), "-t {threads}");
        assert!(report.over_limit > 0, "-t {threads}");
        // 256 KiB at some 400 bytes a URL (its key and slot): hundreds, not thousands.
        assert!(
            (100..1_000).contains(&report.urls),
            "-t {threads}: {} URLs",
            report.urls
        );
    }
    let out = linkpatrol()
        .args(["--no-status", "--max-memory", "256K", &server.url("/p/0")])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "links to further URLs not checked: the memory budget of 256KB (--max-memory) was \
             reached and no further URLs were discovered; raise it with --max-memory SIZE (0: \
             no budget)."
        ),
        "{text}"
    );
}

/// Ctrl-C while a URL hangs and the rows of every other wait on disk: the whole report is
/// written in order from them, exit 130.
#[test]
fn ctrl_c_with_report_rows_on_disk_writes_the_whole_report() {
    let mut index = String::new();
    for i in 0..300 {
        index.push_str(&format!("<a href='/p{i}'>p{i}</a>\n"));
    }
    index.push_str("<a href='/hang'>hang</a>\n");
    let server = TestServer::start(
        Routes::new()
            .page("/", &index)
            .reply("/hang", Reply::hang())
            .fallback(Reply::html("<p>leaf</p>")),
    );
    for threads in ["1", "8"] {
        server.clear_requests();
        let child = linkpatrol()
            .args([
                "--no-status",
                "--max-requests-per-second",
                "0",
                "-t",
                threads,
            ])
            // A quarter of it holds about 200 rows; the rest holds the 302 URLs.
            .args(["--abort-timeout", "1", "--max-memory", "400K"])
            .args(["-v", "-o", "csv", &server.url("/")])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        eventually("every link requested", || {
            server.count("/hang") >= 1 && server.requests().len() >= 302
        });
        signal(&child, "-INT");
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(130), "-t {threads}");
        let csv = String::from_utf8(out.stdout).unwrap();
        // A header, the start page and its 300 leaves, in the order of the links (the hanging
        // one was interrupted: counted as not checked).
        assert_eq!(csv.lines().count(), 302, "-t {threads}: {csv}");
        let leaves: Vec<u32> = csv
            .lines()
            .filter_map(|l| l.split(';').next()?.strip_prefix("/p")?.parse().ok())
            .collect();
        assert_eq!(leaves, (0..300).collect::<Vec<_>>(), "-t {threads}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("report rows waited on disk"), "{stderr}");
    }
}

/// Ctrl-C while most queued URLs wait on disk: the whole report is written, exit 130.
#[test]
fn ctrl_c_with_the_queue_on_disk_writes_the_whole_report() {
    let server = trap(500);
    let child = linkpatrol()
        .args([
            "--no-status",
            "-t",
            "4",
            "--abort-timeout",
            "1",
            "--queue-memory",
            "0",
        ])
        .args(["-v", "-o", "csv", &server.url("/p/0")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    eventually("30 pages served", || server.requests().len() >= 30);
    signal(&child, "-INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.ends_with('\n') && csv.lines().count() >= 30, "{csv}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("queued URLs waited on disk"), "{stderr}");
}
