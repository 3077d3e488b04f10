//! The `linkpatrol` binary: exit codes, CSV shape, Ctrl-C.

use std::io::Read;
use std::process::Stdio;
use std::time::Duration;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{
    TempDir, assert_exit, cli, csv_records, endless_site, linkpatrol, signal,
};

fn site() -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/", "<a href='/ok'>fine</a>\n<a href='/gone'>broken; with \"quotes\"</a>\n<a href='mailto:x@y.test'>m</a>")
            .page("/ok", "<a href='/'>home</a>"),
    )
}

#[test]
fn exit_code_0_when_all_links_work() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/ok'>ok</a>")
            .page("/ok", "ok"),
    );
    let out = cli(&["--max-requests-per-second", "0", &server.url("/")]);
    assert_exit(&out, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("That's it. 2 links in 2 URLs checked. 0 warnings found. 0 errors found (0 broken URLs)."),
        "{text}"
    );
}

#[test]
fn exit_code_1_and_a_text_block_for_broken_links() {
    let server = site();
    let out = cli(&["--max-requests-per-second", "0", &server.url("/")]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    // By page (the default): the page, then the link at its line and column, then the verdict.
    let page = format!(
        "Page {}\n  2:1 `/gone'\n      Error: 404 Not Found\n",
        server.url("/")
    );
    assert!(text.contains(&page), "{text}");
    assert!(text.contains("1 error found (1 broken URL)."), "{text}");

    // By URL: LinkChecker's blocks.
    let out = cli(&[
        "--max-requests-per-second",
        "0",
        "--group-by",
        "url",
        &server.url("/"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("URL        `/gone'"), "{text}");
    assert!(
        text.contains(&format!("Parent URL {}, line 2, col 1", server.url("/"))),
        "{text}"
    );
    assert!(text.contains("Result     Error: 404 Not Found"), "{text}");
    assert!(text.contains("1 error found (1 broken URL)."), "{text}");
}

#[test]
fn exit_code_2_for_usage_errors_and_unreadable_paths() {
    let out = cli(&["--threads", "0", "http://127.0.0.1:1/"]);
    assert_eq!(out.status.code(), Some(2));
    let out = cli(&["--no-such-flag", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let out = cli(&["/definitely/not/here"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "one clear line: {err}");
    assert!(err.contains("/definitely/not/here"), "{err}");
    let out = cli(&["--exclude", "(", "http://127.0.0.1:1/"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn csv_has_17_fields_in_every_row() {
    let server = site();
    let out = cli(&[
        "--max-requests-per-second",
        "0",
        "-o",
        "csv",
        "-v",
        &server.url("/"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_reader(&out.stdout[..]);
    let headers = rdr.headers().unwrap().clone();
    // LinkChecker's 17 columns in place, then ours.
    assert_eq!(headers.len(), 18);
    assert_eq!(&headers[0], "urlname");
    assert_eq!(&headers[14], "cached");
    assert_eq!(&headers[16], "modified");
    assert_eq!(&headers[17], "from_state");
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    assert!(rows.iter().all(|r| r.len() == 18));
    // the start URL has empty line and column, and the columns do not shift
    let start = rows.iter().find(|r| r[1].is_empty()).unwrap();
    assert_eq!((&start[8], &start[9], &start[6]), ("", "", "True"));
    let gone = rows.iter().find(|r| &r[0] == "/gone").unwrap();
    assert_eq!(&gone[6], "False");
    assert_eq!(&gone[7], server.url("/gone"));
    assert_eq!(&gone[10], "broken; with \"quotes\"");
    assert_eq!((&gone[8], &gone[9]), ("2", "1"));
    // one row per (URL, referrer): / is linked from /ok and is the start URL
    assert_eq!(rows.iter().filter(|r| r[7] == server.url("/")).count(), 2);
}

#[test]
fn a_bundled_folder_is_checked_offline() {
    let out = cli(&[
        "-o",
        "csv",
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    for broken in [
        "news.html",
        "img/banner.png",
        "api.html",
        "mailto:not-an-address",
        "http://127.0.0.1:9/unreachable",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(broken)),
            "{broken} missing from\n{text}"
        );
    }
    assert!(
        !text.contains("not-a-link.html"),
        "script text yields no links"
    );
}

#[test]
fn ctrl_c_writes_the_report_and_exits_130() {
    let server = endless_site(Duration::from_millis(20));
    let mut child = linkpatrol()
        .args([
            "--max-requests-per-second",
            "0",
            "-t",
            "4",
            "-o",
            "csv",
            "-v",
            &server.url("/"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(server.wait_for_requests(10, Duration::from_secs(10)));
    // The endless site never ends on its own: the exit is the Ctrl-C's doing.
    signal(&child, "-INT");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let code = child.wait().unwrap().code();
    assert_eq!(code, Some(130));
    let rows = csv_records(stdout.as_bytes());
    assert!(rows.len() >= 5, "{stdout}");
    assert!(rows.iter().all(|r| r.len() == 18));
}

#[test]
fn several_file_outputs_from_one_run() {
    let server = site();
    let dir = TempDir::new("file-outputs");
    let csv_path = dir.join("report.csv");
    let txt_path = dir.join("report.txt");
    let out = cli(&[
        "--max-requests-per-second",
        "0",
        "-q",
        "-F",
        &format!("csv/{}", csv_path.display()),
        "-F",
        &format!("text/{}", txt_path.display()),
        &server.url("/"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "-q: nothing on stdout");
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert!(
        csv.starts_with("urlname;parentname;") && csv.contains("/gone"),
        "{csv}"
    );
    let txt = std::fs::read_to_string(&txt_path).unwrap();
    assert!(txt.contains("1 error found (1 broken URL)."), "{txt}");
    let bad = cli(&["-F", "nosuchformat", &server.url("/")]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn warnings_have_tags_can_be_ignored_and_can_fail_the_run() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href=' /ok '>padded</a>\n<a href='/moved'>moved</a>",
            )
            .page("/ok", "fine")
            .reply("/moved", Reply::redirect(301, "/ok")),
    );
    let base = ["--max-requests-per-second", "0", "--no-status", "-o", "csv"];
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        let url = server.url("/");
        args.push(&url);
        let out = cli(&args);
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            out.stderr,
        )
    };
    let (code, csv, stderr) = run(&[]);
    assert_eq!(code, Some(0), "warnings alone do not fail the run");
    assert!(
        stderr.is_empty(),
        "--no-status: {}",
        String::from_utf8_lossy(&stderr)
    );
    assert!(csv.contains("[url-whitespace]"), "{csv}");
    assert!(csv.contains("[http-redirected]"), "{csv}");
    let (code, _, _) = run(&["--fail-on-warnings"]);
    assert_eq!(code, Some(1));
    let (code, csv, _) = run(&[
        "--fail-on-warnings",
        "--ignore-warning",
        "url-whitespace",
        "--ignore-warning",
        "http-redirected",
    ]);
    assert_eq!(code, Some(0), "{csv}");
    assert!(
        !csv.contains("[url-whitespace]") && !csv.contains("[http-redirected]"),
        "{csv}"
    );
}

#[test]
fn root_relative_links_in_a_folder_resolve_inside_it() {
    let dir = TempDir::new("root-dir");
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<a href='/docs/'>docs</a><a href='/nope.html'>gone</a>",
    )
    .unwrap();
    std::fs::write(
        dir.join("docs/index.html"),
        "<a href='/index.html'>home</a><a href='../index.html'>up</a>",
    )
    .unwrap();
    let out = cli(&["-o", "csv", "--no-status", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let csv = String::from_utf8(out.stdout).unwrap();
    let broken: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(broken.len(), 1, "{csv}");
    assert!(broken[0].starts_with("/nope.html;"), "{csv}");
    // a single file input has no root: `/docs/` points to the file system's root
    let out = cli(&[
        "-o",
        "csv",
        "--no-status",
        dir.join("index.html").to_str().unwrap(),
    ]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("/docs/;")), "{csv}");
    // unless --root-dir says where the site is
    let out = cli(&[
        "-o",
        "csv",
        "--no-status",
        "--root-dir",
        dir.to_str().unwrap(),
        dir.join("index.html").to_str().unwrap(),
    ]);
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
}
