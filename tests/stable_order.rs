//! Every report format prints the same bytes on every run, whatever the thread count: rows by
//! page, line and column, ties by URL, and each URL at its shortest link distance from a start
//! URL (the `level` of CSV, JSON and NDJSON). Only what a format measures differs between runs
//! — the run's duration (text, Markdown, HTML, JSON, NDJSON, SARIF, JUnit), each link's check
//! and download times (CSV, HTML, JSON, NDJSON, JUnit), the time spent waiting on a host and
//! the rate it was served at (text, HTML, JSON, NDJSON) — and only those are blanked before
//! the comparison. `--stream` writes rows as they finish instead.

use std::path::Path;

use linkpatrol::report::Format;
use regex::Regex;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, cli_in};

/// A folder site of 12 pages, each linking to every page, to a missing page, to a missing
/// anchor, with whitespace around one link (a warning).
fn folder_site(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    for i in 0..12 {
        let mut html = format!("<html><body><h1 id='top'>page {i}</h1>\n");
        for j in 0..12 {
            html.push_str(&format!(
                "<a href='p{j}.html'>p{j}</a> <a href='gone{j}.html'>gone</a> \
                 <a href='p{j}.html#nope'>frag</a> <a href=' p{j}.html#top '>ws</a>\n"
            ));
        }
        html.push_str("</body></html>\n");
        std::fs::write(dir.join(format!("p{i}.html")), &html).unwrap();
        if i == 0 {
            std::fs::write(dir.join("index.html"), &html).unwrap();
        }
    }
    dir
}

/// The same over HTTP, with redirects and error statuses among the links.
fn web_site() -> TestServer {
    let mut routes = Routes::new();
    for i in 0..10 {
        let mut html = String::from("<html><body>\n");
        for j in 0..10 {
            html.push_str(&format!(
                "<a href='/p{j}'>p{j}</a> <a href='/gone{j}'>gone</a> \
                 <a href='/moved{j}'>moved</a> <a href='/p{j}#nope'>frag</a>\n"
            ));
        }
        html.push_str("</body></html>\n");
        routes = routes.page(&format!("/p{i}"), &html).reply(
            &format!("/moved{i}"),
            Reply::redirect(301, &format!("/p{i}")),
        );
        if i == 0 {
            routes = routes.page("/", &html);
        }
    }
    TestServer::start(routes.fallback(Reply::not_found()))
}

/// `text` with every measured time replaced by `T`.
fn without_times(format: &str, text: &str) -> String {
    let timed = Format::from_name(format).is_some_and(Format::is_timed);
    let patterns: &[&str] = match format {
        _ if !timed => &[],
        "csv" => &[],
        "junit" => &[r#"time="[^"]*""#],
        "json" | "ndjson" | "sarif" => {
            &[r#""(check_time|download_time|duration|waited|effective_rate)": ?[-0-9.e]+"#]
        }
        "html" => &[
            // The run's start and its thread count, named at the top of the page.
            r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC",
            r"[0-9]+ threads,",
            r"[0-9.]+ seconds",
            r"[0-9.]+/s",
            r#"<td class="num">[0-9]+\.[0-9]{3}</td></tr>"#,
        ],
        "text" | "markdown" => &[r"[0-9.]+ seconds", r"[0-9.]+/s"],
        other => panic!("{other} writes measured times: say here how to blank them"),
    };
    let mut out = text.to_owned();
    for p in patterns {
        out = Regex::new(p).unwrap().replace_all(&out, "T").into_owned();
    }
    if format == "csv" {
        // dltime and checktime.
        out = out
            .lines()
            .map(|line| {
                let mut cells: Vec<&str> = line.split(';').collect();
                if cells.len() == 18 {
                    cells[11] = "T";
                    cells[13] = "T";
                }
                cells.join(";") + "\n"
            })
            .collect();
    }
    out
}

fn report(dir: &Path, format: &str, threads: &str, input: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "--no-config",
        "--no-status",
        "--max-requests-per-second",
        "0",
        "--check-anchors",
        "-v",
        "-t",
        threads,
        "-o",
        format,
        input,
    ];
    args.extend_from_slice(extra);
    let out = cli_in(dir, &[], &args);
    assert_eq!(out.status.code(), Some(1), "{format}: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (said, flag) in [
        ("queued URL", "--queue-memory"),
        ("report row", "--max-memory"),
    ] {
        assert_eq!(
            stderr.contains(said),
            extra.contains(&flag),
            "{format} -t {threads} {extra:?}: {stderr}"
        );
    }
    without_times(format, &String::from_utf8(out.stdout).unwrap())
}

/// Three runs at `-t 1` and three at `-t 8` of every format print the same.
fn assert_stable(dir: &Path, input: &str) {
    for format in Format::ALL.iter().map(|f| f.name()) {
        let first = report(dir, format, "1", input, &[]);
        assert!(
            format == "sitemap" || first.lines().count() > 3,
            "{format}: {first}"
        );
        for threads in ["1", "1", "8", "8", "8"] {
            let again = report(dir, format, threads, input, &[]);
            assert!(
                again == first,
                "{format} -t {threads} differs:\n{}",
                first_difference(&first, &again)
            );
        }
    }
}

fn first_difference(a: &str, b: &str) -> String {
    let (i, (x, y)) = a
        .lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .unwrap_or((0, ("(same lines)", "(different length)")));
    format!("line {}:\n{x}\n{y}", i + 1)
}

/// A run given `extra` reports the same bytes as one without it, in every format, at `-t 1`
/// and `-t 8`, over the web site and the folder site (`name` names its folders).
fn assert_same_bytes_with(name: &str, extra: &[&str]) {
    let server = web_site();
    let folder = folder_site(&format!("{name}-folder"));
    let dir = TempDir::new(name);
    for input in [
        server.url("/"),
        folder.join("index.html").display().to_string(),
    ] {
        for format in Format::ALL.iter().map(|f| f.name()) {
            let first = report(&dir, format, "1", &input, &[]);
            for threads in ["1", "8"] {
                let again = report(&dir, format, threads, &input, extra);
                assert!(
                    again == first,
                    "{input} {format} -t {threads} {extra:?} differs:\n{}",
                    first_difference(&first, &again)
                );
            }
        }
    }
}

/// A run whose queued URLs wait on disk (a queue memory share of 0: every queued URL but each
/// host's next one) reports the same bytes as one that keeps them in memory, in every format.
#[test]
fn a_run_whose_queue_waits_on_disk_reports_the_same_bytes() {
    assert_same_bytes_with("stable-spill", &["--queue-memory", "0"]);
}

/// A run whose report rows wait on disk (a budget whose quarter holds a few dozen rows) reports
/// the same bytes as one that holds them all in memory, in every format.
#[test]
fn a_run_whose_report_rows_wait_on_disk_reports_the_same_bytes() {
    assert_same_bytes_with("stable-rows", &["--max-memory", "100K"]);
}

#[test]
fn a_folder_site_reports_the_same_bytes_every_run() {
    let dir = folder_site("stable-folder");
    assert_stable(&dir, ".");
}

#[test]
fn a_web_site_reports_the_same_bytes_every_run() {
    let server = web_site();
    let dir = TempDir::new("stable-web");
    assert_stable(&dir, &server.url("/"));
}

#[test]
fn rows_come_by_page_line_and_column_unless_streamed() {
    let dir = folder_site("stable-order");
    let out = report(&dir, "compact", "8", ".", &[]);
    let places: Vec<(String, usize, usize)> = out
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let (page, line, col) = (parts.next()?, parts.next()?, parts.next()?);
            Some((page.to_owned(), line.parse().ok()?, col.parse().ok()?))
        })
        .collect();
    assert!(places.len() > 100, "{out}");
    assert!(places.is_sorted(), "{out}");
    // Streamed rows still hold every problem.
    let streamed = report(&dir, "compact", "8", ".", &["--stream"]);
    let mut a: Vec<&str> = out.lines().collect();
    let mut b: Vec<&str> = streamed.lines().collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
}

/// The level of every row of URL `path` in the NDJSON report of a crawl of `server`.
fn levels_of(
    dir: &Path,
    server: &TestServer,
    threads: &str,
    path: &str,
    extra: &[&str],
) -> Vec<u64> {
    let start = server.url("/");
    let mut args = vec![
        "--no-config",
        "--no-status",
        "-v",
        "-t",
        threads,
        "-o",
        "ndjson",
    ];
    args.extend_from_slice(extra);
    args.push(&start);
    let out = cli_in(dir, &[], &args);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let url = server.url(path);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["url"] == url.as_str())
        .map(|v| v["level"].as_u64().unwrap())
        .collect()
}

/// A page one link below the start that answers slowly, and a chain of quick pages three deep:
/// both link to `/x`. The chain reaches `/x` first at several threads; its level is still 2.
fn slow_and_deep() -> TestServer {
    let a = |next: &str| format!("<a href='{next}'>next</a>");
    TestServer::start(
        Routes::new()
            .page("/", "<a href='/a1'>a</a> <a href='/slow'>slow</a>")
            .page("/a1", &a("/a2"))
            .page("/a2", &a("/a3"))
            .page("/a3", &a("/x"))
            .reply(
                "/slow",
                Reply::html(a("/x")).delayed(std::time::Duration::from_millis(500)),
            )
            .page("/x", "<a href='/a3'>back</a>"),
    )
}

#[test]
fn a_url_is_reported_at_its_shortest_link_distance_whichever_page_found_it_first() {
    let server = slow_and_deep();
    let dir = TempDir::new("stable-level");
    for threads in ["1", "8"] {
        // Two rows (from /a3 and /slow), both at /x's level.
        assert_eq!(
            levels_of(&dir, &server, threads, "/x", &[]),
            [2, 2],
            "-t {threads}"
        );
        assert_eq!(
            levels_of(&dir, &server, threads, "/a3", &[]),
            [3, 3],
            "-t {threads}"
        );
        // Under `-r 3` /a3 (level 3) is checked, not parsed, whichever page came first: /x
        // has one row, from /slow; /a3 two, from /a2 and from /x.
        let limited = ["-r", "3"];
        assert_eq!(levels_of(&dir, &server, threads, "/x", &limited), [2]);
        assert_eq!(levels_of(&dir, &server, threads, "/a3", &limited), [3, 3]);
    }
}

/// The library's report keeps entries at their settled levels too, and says which URLs were
/// sent with another level while the run went on.
#[test]
fn the_library_report_holds_the_settled_levels() {
    let server = slow_and_deep();
    let report = crate::support::util::run(crate::support::util::config(&server.url("/"), 8));
    let x = server.url("/x");
    let levels: Vec<usize> = report
        .entries
        .iter()
        .filter(|e| e.result.url == x)
        .map(|e| e.result.level)
        .collect();
    assert_eq!(levels, [2, 2]);
    // Either /x came at its settled level, or the report says what it is.
    assert!(report.levels.get(&x).is_none_or(|l| *l == 2));
}
