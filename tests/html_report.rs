//! The HTML report, read back with a real HTML parser (scraper, on html5ever): the summary
//! numbers, broken links under the page that contains them, hostile link text kept as text, the
//! interrupted banner; then the page in headless Chromium: a screenshot and the inline script
//! filtering and sorting the table.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use linkpatrol::Checker;
use linkpatrol::report::{HtmlReporter, Reporter, Verbosity};
use scraper::{ElementRef, Html, Selector};

use crate::support::desktop_tools::{notice, program_or_skip, run_with_deadline};
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli, config};

/// The link text of `/missing` once the page's character references are decoded.
const HOSTILE: &str = r#"<script>alert("pwned")</script> & 'single' "double""#;

/// A home page with a 404 and a redirect, and a docs page with a hostile link text, a hostile
/// href, the same 404 again and a link back home.
fn site() -> TestServer {
    TestServer::start(
        Routes::new()
            .page(
                "/",
                "<!doctype html><title>Home</title>\n<a href='/docs'>Docs</a>\n\
                 <a href='/gone'>gone page</a>\n<a href='/moved'>moved</a>",
            )
            .page(
                "/docs",
                "<!doctype html><title>Docs</title>\n<a href='/'>home</a>\n\
                 <a href='/missing'>&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; \
                 'single' \"double\"</a>\n<a href='/gone'>gone again</a>\n\
                 <a href='/evil?x=\"><b id=injected>bold</b>'>evil href</a>",
            )
            .reply("/moved", Reply::redirect(301, "/docs")),
    )
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

fn text(e: ElementRef<'_>) -> String {
    e.text().collect()
}

/// The text of the one element matching `selector`.
fn one(doc: &Html, selector: &str) -> String {
    let found: Vec<_> = doc.select(&sel(selector)).collect();
    assert_eq!(found.len(), 1, "exactly one {selector}");
    text(found[0])
}

/// Runs the binary on `site` writing HTML (and the text report, for its summary line) to files
/// in a folder (returned, with `report.html`'s text and the text report's).
fn html_of(server: &TestServer, name: &str, extra: &[&str]) -> (TempDir, String, String) {
    let dir = TempDir::new(name);
    let html = dir.join("report.html");
    let txt = dir.join("report.txt");
    let mut args = vec![
        "--max-requests-per-second".to_owned(),
        "0".into(),
        "-q".into(),
        "-F".into(),
        format!("html/{}", html.display()),
        "-F".into(),
        format!("text/{}", txt.display()),
    ];
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args.push(server.url("/"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = cli(&args);
    assert_exit(&out, 1);
    let page = std::fs::read_to_string(&html).unwrap();
    let summary = std::fs::read_to_string(&txt).unwrap();
    (dir, page, summary)
}

#[test]
fn summary_numbers_match_the_text_report() {
    let server = site();
    let (_, page, txt) = html_of(&server, "html-summary", &["-v"]);
    let doc = Html::parse_document(&page);
    let stat = |k: &str| one(&doc, &format!("[data-stat={k}]"));
    // 8 links: the start URL, 3 on /, 4 on /docs; 6 URLs; /gone twice, /missing and /evil are
    // broken; the redirect of /moved is the one warning.
    assert_eq!(
        (
            stat("links"),
            stat("urls"),
            stat("errors"),
            stat("warnings")
        ),
        ("8".into(), "6".into(), "4".into(), "1".into())
    );
    assert!(
        txt.contains(
            "That's it. 8 links in 6 URLs checked. 1 warning found. 4 errors found (3 broken URLs)."
        ),
        "{txt}"
    );
    assert!(stat("duration").ends_with("seconds"));
    assert_eq!(one(&doc, "title"), "linkpatrol: 4 broken links");
    assert!(doc.select(&sel("#interrupted")).next().is_none());
    let host = server.addr().to_string();
    let hosts: Vec<String> = doc
        .select(&sel("#hosts tbody tr td:first-child"))
        .map(text)
        .collect();
    assert_eq!(hosts, [host]);
    // verbose: the 4 broken entries are listed once, under their pages; the table has the
    // other 4 (the redirect with its warning among them), no error
    assert_eq!(doc.select(&sel("tr.broken-link")).count(), 4);
    assert_eq!(doc.select(&sel("#entries tbody tr")).count(), 4);
    assert_eq!(doc.select(&sel("#entries tbody tr.error")).count(), 0);
    assert_eq!(doc.select(&sel("#entries tbody tr.warning")).count(), 1);
}

#[test]
fn the_page_says_what_was_checked_and_when_and_lists_each_row_once() {
    let server = site();
    let before = std::time::SystemTime::now();
    let (_, page, _) = html_of(
        &server,
        "html-what",
        &["-r", "3", "--exclude", "/never", "-H", "X-Token: s3cret"],
    );
    let doc = Html::parse_document(&page);
    let run: BTreeMap<String, String> = doc
        .select(&sel("#run div"))
        .map(|d| {
            let cell = |s: &str| text(d.select(&sel(s)).next().unwrap());
            (cell("dt"), cell("dd"))
        })
        .collect();
    assert_eq!(run["Inputs"], server.url("/"), "{run:?}");
    assert_eq!(run["Recursion level"], "3");
    assert_eq!(run["Exclude"], "/never");
    assert!(
        run["Requests"].contains("timeout 30 s, 2 retries"),
        "{run:?}"
    );
    assert_eq!(run["Headers sent"], "X-Token", "the name, never the value");
    assert!(!page.contains("s3cret"));
    // When: the run's start (UTC, to the minute) and its duration.
    let checked = &run["Checked"];
    let (date, duration) = checked.split_once(" UTC, for ").expect(checked);
    let after = std::time::SystemTime::now();
    let hour_minute = |t: std::time::SystemTime| {
        let s = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        format!("{:02}:{:02}", s % 86_400 / 3600, s % 3600 / 60)
    };
    let (y, rest) = date.split_once('-').unwrap();
    assert!(y.parse::<u32>().unwrap() >= 2024, "{checked}");
    assert_eq!(rest.len(), "MM-DD HH:MM".len(), "{checked}");
    assert!(
        [hour_minute(before), hour_minute(after)].contains(&rest[6..].to_owned()),
        "{checked}"
    );
    assert!(duration.ends_with("seconds"), "{checked}");

    // Without -v: each broken link once under its page, the warning alone in the table.
    assert_eq!(doc.select(&sel("tr.broken-link")).count(), 4);
    let rows: Vec<_> = doc.select(&sel("#entries tbody tr")).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].attr("class"), Some("warning"));
    let listed: Vec<String> = doc
        .select(&sel("tr.broken-link td.raw, #entries td.url"))
        .map(text)
        .collect();
    assert!(listed.iter().any(|u| u.ends_with("/moved")), "{listed:?}");
}

#[test]
fn broken_links_are_listed_under_the_page_that_contains_them() {
    let server = site();
    let (_, page, _) = html_of(&server, "html-broken", &[]);
    let doc = Html::parse_document(&page);
    let block = |p: &str| {
        let s = format!("article.page[data-page=\"{}\"]", server.url(p));
        doc.select(&sel(&s))
            .next()
            .unwrap_or_else(|| panic!("no block for {p}"))
    };
    let rows = |p: &str| -> Vec<[String; 6]> {
        block(p)
            .select(&sel("tr.broken-link"))
            .map(|tr| {
                let cells: Vec<String> = tr.select(&sel("td")).map(text).collect();
                cells.try_into().unwrap()
            })
            .collect()
    };
    assert_eq!(doc.select(&sel("article.page")).count(), 2);
    let home = rows("/");
    assert_eq!(home.len(), 1);
    let [line, col, raw, name, result, real] = &home[0];
    assert_eq!(
        (line.as_str(), col.as_str(), raw.as_str(), name.as_str()),
        ("3", "1", "/gone", "gone page")
    );
    assert_eq!(result, "404 Not Found");
    assert_eq!(real, &server.url("/gone"));
    // the heading links to the page
    let heading_link = block("/").select(&sel("h3 a")).next().unwrap();
    assert_eq!(heading_link.attr("href"), Some(server.url("/").as_str()));

    let docs = rows("/docs");
    let lines: Vec<&str> = docs.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(lines, ["3", "4", "5"], "sorted by line: {docs:?}");
    assert_eq!(docs[0][2], "/missing");
    assert_eq!(docs[0][3], HOSTILE, "the hostile text is shown as text");
    assert_eq!(docs[1][2], "/gone");
    assert_eq!(docs[2][2], "/evil?x=\"><b id=injected>bold</b>");
}

#[test]
fn a_folder_report_shows_paths_hints_and_what_was_not_checked() {
    let dir = TempDir::new("html-folder");
    std::fs::create_dir_all(dir.join("repo/docs")).unwrap();
    std::fs::write(dir.join("repo/docs/guide.md"), "# Guide\n\n## Setup\n").unwrap();
    std::fs::write(
        dir.join("repo/README.md"),
        "# Repo\n\n[typo](docs/guide.md#set-up) [gone](docs/guid.md)\n\
         [web](https://example.invalid/)\n",
    )
    .unwrap();
    let html = dir.join("report.html");
    for threads in ["1", "8"] {
        let out = crate::support::util::cli_in(
            &dir.join("repo"),
            &[],
            &[
                "--no-config",
                "-q",
                "-t",
                threads,
                "--internal-only",
                "--check-anchors",
                "-F",
                &format!("html/{}", html.display()),
                ".",
            ],
        );
        assert_exit(&out, 1);
        let page = std::fs::read_to_string(&html).unwrap();
        let doc = Html::parse_document(&page);
        // The page's heading names it relative to the checked folder, linking to the file.
        let heading = doc.select(&sel("article.page h3 a")).next().unwrap();
        assert_eq!(text(heading), "README.md");
        assert!(
            heading
                .attr("href")
                .is_some_and(|h| h.starts_with("file:///")),
            "{page}"
        );
        let results: Vec<String> = doc
            .select(&sel("tr.broken-link td.result"))
            .map(text)
            .collect();
        assert_eq!(results.len(), 2, "{results:?}");
        // The closest anchor and sibling are named; no absolute path is repeated.
        assert!(
            results.iter().any(|r| r.contains("Did you mean `setup'?")),
            "{results:?}"
        );
        assert!(
            results
                .iter()
                .any(|r| r.contains("did you mean `guide.md'?")),
            "{results:?}"
        );
        for r in &results {
            assert!(
                !r.contains("file://") && !r.contains(&*dir.to_string_lossy()),
                "{r}"
            );
        }
        // What was not checked is counted, as in the text report.
        assert_eq!(
            one(&doc, "#skipped"),
            "1 URL not checked: 1 outside the scope."
        );
    }
}

#[test]
fn hostile_text_and_urls_inject_nothing() {
    let server = site();
    let (_, page, _) = html_of(&server, "html-hostile", &["-v"]);
    assert!(!page.contains("<script>alert"), "raw markup in the page");
    let doc = Html::parse_document(&page);
    assert_eq!(
        doc.select(&sel("script")).count(),
        1,
        "only the report's own script"
    );
    assert!(doc.select(&sel("#injected, b")).next().is_none());
    for e in doc
        .root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
    {
        for (name, value) in e.value().attrs() {
            assert!(!name.starts_with("on"), "event handler {name}={value}");
        }
        assert!(
            e.attr("src").is_none(),
            "nothing is loaded: {:?}",
            e.value()
        );
    }
    // links go only to the crawled site; nothing else is fetched or linked
    for a in doc.select(&sel("a[href]")) {
        let href = a.attr("href").unwrap();
        assert!(href.starts_with(&server.url("/")), "{href}");
    }
    assert_eq!(doc.select(&sel("link, img, iframe, object")).count(), 0);
    let csp = doc
        .select(&sel("meta[http-equiv=Content-Security-Policy]"))
        .next()
        .unwrap();
    assert!(
        csp.attr("content")
            .unwrap()
            .starts_with("default-src 'none'")
    );
    // the hostile text is a name cell of its broken link, as text
    let names: Vec<String> = doc
        .select(&sel("tr.broken-link td.name"))
        .map(text)
        .collect();
    assert!(names.iter().any(|n| n == HOSTILE), "{names:?}");
}

#[test]
fn without_verbose_the_table_lists_problems_only() {
    let server = site();
    let out = cli(&[
        "--max-requests-per-second",
        "0",
        "-o",
        "html",
        &server.url("/"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc = Html::parse_document(&String::from_utf8(out.stdout).unwrap());
    let rows: Vec<_> = doc.select(&sel("#entries tbody tr")).collect();
    // the redirect with its warning; the 4 broken links are listed above it
    assert_eq!(rows.len(), 1);
    assert!(rows.iter().all(|r| r.attr("class") == Some("warning")));
    assert_eq!(doc.select(&sel("tr.broken-link")).count(), 4);
    assert!(one(&doc, "p.note").contains("3 other links"));
    assert_eq!(one(&doc, "[data-stat=links]"), "8");
}

#[test]
fn an_interrupted_run_still_gives_a_complete_page() {
    let server = TestServer::start(Routes::new().dynamic(|req| {
        let i: usize = req.path_only().trim_start_matches('/').parse().unwrap_or(0);
        let html = format!("<a href='/{}'>n</a><a href='/x{i}'>m</a>", i + 1);
        Some(Reply::html(html).delayed(Duration::from_millis(20)))
    }));
    let checker = Checker::new(config(&server.url("/"), 4)).unwrap();
    let cancel = checker.cancel_handle();
    let (tx, rx) = mpsc::channel();
    let canceller = std::thread::spawn(move || {
        rx.recv().unwrap();
        cancel.cancel();
    });
    let mut reporter = HtmlReporter::new(Vec::new(), Verbosity::Problems);
    let mut seen = 0;
    let report = checker
        .run_with(|e| {
            reporter.entry(e).unwrap();
            seen += 1;
            if seen == 6 {
                tx.send(()).unwrap();
            }
        })
        .unwrap();
    canceller.join().unwrap();
    reporter.finish(&report).unwrap();
    let page = String::from_utf8(reporter.into_inner()).unwrap();
    assert!(report.interrupted);
    assert!(page.trim_end().ends_with("</html>"), "a complete page");
    let doc = Html::parse_document(&page);
    assert!(one(&doc, "#interrupted").contains("results are not complete"));
    let stat = |k: &str| one(&doc, &format!("[data-stat={k}]"));
    assert_eq!(stat("unchecked"), report.unchecked.to_string());
    assert_eq!(stat("links"), report.entries.len().to_string());
    assert_eq!(stat("errors"), report.errors().to_string());
    assert_eq!(stat("urls"), report.urls.to_string());
    assert_eq!(
        doc.select(&sel("tr.broken-link")).count(),
        report.errors(),
        "every broken link is listed"
    );
}

/// Chromium flags for a headless run on a machine without network: no sandbox (root), no GPU,
/// no background connections, a fresh profile.
fn chromium(bin: &Path, profile: &Path, args: &[String]) -> std::process::Output {
    let mut cmd = std::process::Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(args);
    let out = run_with_deadline(&mut cmd, Duration::from_secs(120));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn file_url(p: &Path) -> String {
    url::Url::from_file_path(p).unwrap().to_string()
}

#[test]
fn chromium_renders_the_report_and_runs_its_script() {
    let Some(bin) = program_or_skip(
        &["chromium", "chromium-browser"],
        "chromium not found (install Debian's chromium)",
    ) else {
        return;
    };
    let server = site();
    let (work, page, _) = html_of(&server, "html-chromium", &["-v"]);
    let html = work.join("report.html");

    // The screenshot, kept at a stable path under the target folder for people to look at.
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join("report.png");
    let _ = std::fs::remove_file(&png);
    chromium(
        &bin,
        &work.join("profile-shot"),
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1280,1600".into(),
            file_url(&html),
        ],
    );
    std::fs::copy(&html, shots.join("report.html")).unwrap();
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let dim = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!((dim(16), dim(20)), (1280, 1600), "IHDR width and height");
    assert!(
        bytes.len() > 40_000,
        "a page with text, not a blank image: {} bytes",
        bytes.len()
    );
    notice(&format!("HTML report screenshot: {}", png.display()));

    // The inline script in a real browser: show the fine links only, then sort by URL twice
    // (descending).
    let clicks = "<script>document.querySelector('[data-filter=ok]').click();\
                  var b = document.querySelectorAll('#entries th button');\
                  b[1].click(); b[1].click();</script>\n</body>";
    let interactive = work.join("interactive.html");
    std::fs::write(&interactive, page.replace("</body>", clicks)).unwrap();
    let out = chromium(
        &bin,
        &work.join("profile-dom"),
        &["--dump-dom".into(), file_url(&interactive)],
    );
    let doc = Html::parse_document(&String::from_utf8(out.stdout).unwrap());
    let th = doc.select(&sel("#entries th")).nth(1).unwrap();
    assert_eq!(th.attr("aria-sort"), Some("descending"));
    assert!(
        th.select(&sel("button")).next().is_some(),
        "headers became buttons"
    );
    let rows: Vec<_> = doc.select(&sel("#entries tbody tr")).collect();
    assert_eq!(rows.len(), 4, "the links that are not broken");
    let visible: Vec<_> = rows.iter().filter(|r| r.attr("hidden").is_none()).collect();
    assert_eq!(visible.len(), 3, "only the fine links are shown");
    assert!(visible.iter().all(|r| r.attr("class") == Some("ok")));
    let urls: Vec<String> = visible
        .iter()
        .map(|r| text(r.select(&sel("td.url")).next().unwrap()).to_lowercase())
        .collect();
    let mut sorted = urls.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(urls, sorted, "sorted by URL, descending");
    assert_ne!(urls[0], urls[2], "{urls:?}");
    assert_eq!(one(&doc, "#shown-count"), "showing 3 of 4");
    assert_eq!(one(&doc, "[data-filter=ok][aria-pressed=true]"), "OK (3)");
}
