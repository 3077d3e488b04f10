//! `--check-anchors`: a link whose `#fragment` names nothing on its page is broken (exit 1),
//! `anchors:severity=warning` makes it a warning; Markdown pages have GitHub's heading anchors,
//! explicit `{#id}`s and raw HTML ids; a start URL's fragment is checked too; text fragments
//! (`#:~:text=`) are looked for in the page's text.

use std::collections::BTreeSet;
use std::path::Path;

use linkpatrol::{FailKind, Outcome, Report};

use crate::support::server::{Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, cli, cli_in, config, rows, run};

/// A Markdown folder: a README and a guide that link into each other's headings.
fn markdown_folder(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    std::fs::write(
        dir.join("README.md"),
        "# Project\n\n## Setup\n\n[bad](#set-up) [good](#setup) [guide](guide.md#setup)\n\
         [gone](guide.md#nope) [top](#project)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("guide.md"),
        "# Guide\n\n## Setup\n\n## Setup\n\n<a id=\"raw\"></a>\n\n## Install {#custom}\n\n\
         ## What's new? (2026)\n\n[second](#setup-1) [raw](#raw) [custom](#custom) \
         [new](#whats-new-2026) [readme](README.md#setup) [third](#setup-2)\n",
    )
    .unwrap();
    dir
}

/// `(link as written, page file name)` of every broken row of a CSV run.
fn broken_rows(rows: &[csv::StringRecord]) -> BTreeSet<(String, String)> {
    rows.iter()
        .filter(|r| &r[6] == "False")
        .map(|r| {
            let page = Path::new(&r[1]).file_name().unwrap().to_string_lossy();
            (r[0].to_owned(), page.into_owned())
        })
        .collect()
}

fn pair(link: &str, page: &str) -> (String, String) {
    (link.to_owned(), page.to_owned())
}

#[test]
fn markdown_heading_anchors_are_checked_with_github_slugs() {
    let dir = markdown_folder("fragments-md");
    for threads in ["1", "4"] {
        let out = cli(&[
            &CSV_FLAGS[..],
            &["--threads", threads, "--check-anchors"],
            &[dir.to_str().unwrap()],
        ]
        .concat());
        let rows = rows(&out);
        assert_eq!(out.status.code(), Some(1), "{rows:#?}");
        assert_eq!(
            broken_rows(&rows),
            BTreeSet::from([
                pair("#set-up", "README.md"),
                pair("guide.md#nope", "README.md"),
                pair("#setup-2", "guide.md"),
            ]),
            "threads={threads}"
        );
        let bad = rows.iter().find(|r| &r[0] == "#set-up").unwrap();
        assert!(bad[3].contains("Anchor `set-up' not found"), "{bad:?}");
        assert!(
            bad[3].contains("`setup'"),
            "the message lists what there is: {bad:?}"
        );
    }
    // As a warning: exit 0, the same links warned about.
    let out = cli(&[
        &CSV_FLAGS[..],
        &["--plugin", "anchors:severity=warning"],
        &[dir.to_str().unwrap()],
    ]
    .concat());
    assert_eq!(out.status.code(), Some(0));
    let warned: BTreeSet<String> = rows(&out)
        .iter()
        .filter(|r| r[4].contains("[anchor-not-found]"))
        .map(|r| r[0].to_owned())
        .collect();
    assert_eq!(
        warned,
        BTreeSet::from(["#set-up".into(), "guide.md#nope".into(), "#setup-2".into()])
    );
    // Without the check, fragments are not looked at.
    let out = cli(&[&CSV_FLAGS[..], &[dir.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(0));
}

/// Headings whose slugs need combining marks (Devanagari's virama, Thai vowels, Arabic
/// harakat, a Latin combining accent): GitHub keeps every mark, so these links are good. A
/// link that drops the mark is not.
#[test]
fn markdown_slugs_keep_combining_marks() {
    let dir = TempDir::new("fragments-marks");
    std::fs::write(
        dir.join("README.md"),
        "# दिशानिर्देश\n\n## ภาษาไทย\n\n## العَرَبِيَّة\n\n## Cafe\u{301}\n\n\
         [hi](#दिशानिर्देश) [th](#ภาษาไทย) [ar](#العَرَبِيَّة) [fr](#cafe\u{301}) \
         [no-virama](#दिशानिरदेश)\n",
    )
    .unwrap();
    for threads in ["1", "8"] {
        let out = cli(&[
            &CSV_FLAGS[..],
            &["--threads", threads, "--check-anchors"],
            &[dir.to_str().unwrap()],
        ]
        .concat());
        let rows = rows(&out);
        assert_eq!(
            broken_rows(&rows),
            BTreeSet::from([pair("#दिशानिरदेश", "README.md")]),
            "threads={threads}: {rows:#?}"
        );
    }
}

/// A page accepted with an error status (`--accept 200,404`) is accepted as it is: its
/// fragments are not looked for (as lychee does), while a 200 page's still are.
#[test]
fn fragments_of_a_page_accepted_with_an_error_status_are_not_checked() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/gone#part'>g</a> <a href='/here#nowhere'>h</a>",
            )
            .page("/here", "<h1 id='top'>here</h1>"),
    );
    for threads in ["1", "8"] {
        let out = cli(&[
            &CSV_FLAGS[..],
            &["-t", threads, "--check-anchors", "--accept", "200,404"],
            &[&server.url("/")],
        ]
        .concat());
        let rows = rows(&out);
        let bad: Vec<&str> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| &r[0])
            .collect();
        assert_eq!(bad, ["/here#nowhere"], "-t {threads}: {rows:#?}");
    }
}

#[test]
fn check_anchors_is_a_config_file_key() {
    let dir = markdown_folder("fragments-config");
    std::fs::write(dir.join("linkpatrol.toml"), "check-anchors = true\n").unwrap();
    let out = cli_in(
        &dir,
        &[],
        &[
            "-c",
            "linkpatrol.toml",
            "--no-status",
            "-o",
            "csv",
            "-v",
            "README.md",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(broken_rows(&rows(&out)).contains(&pair("#set-up", "README.md")));
}

/// Every (URL#fragment, page) reported broken for its fragment; the page is empty for a start
/// URL.
fn broken_fragments(report: &Report) -> BTreeSet<(String, String)> {
    report
        .entries
        .iter()
        .filter(|e| {
            matches!(
                e.result.outcome,
                Outcome::Failed {
                    kind: FailKind::Fragment,
                    ..
                }
            )
        })
        .map(|e| {
            (
                format!("{}#{}", e.result.url, e.fragment.as_deref().unwrap_or("")),
                e.referrer
                    .as_ref()
                    .map(|r| r.parent.clone())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn html_fragments_over_http_and_on_a_start_url_are_errors() {
    let site = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/doc#here'>1</a> <a href='/doc#gone'>2</a> <a href='/doc'>3</a> \
                 <a href='#self'>4</a> <p id=self></p>",
            )
            .page("/doc", "<h2 id=here>h</h2>"),
    );
    for threads in [1, 8] {
        let anchors =
            linkpatrol::plugins::builtin("anchors", &linkpatrol::plugin::Options::new("anchors"))
                .unwrap();
        let report = run(config(&site.url("/"), threads)
            .input_url(site.url("/doc#nowhere"))
            .plugin(anchors));
        assert_eq!(
            broken_fragments(&report),
            BTreeSet::from([
                (site.url("/doc#gone"), site.url("/")),
                (site.url("/doc#nowhere"), String::new()),
            ]),
            "threads={threads}"
        );
        assert_eq!(report.errors(), 2, "threads={threads}");
        // The URL itself is fine: its other links are not broken, and each broken link
        // counts as one broken URL.
        assert_eq!(report.stats.broken_urls, 2, "threads={threads}");
        assert!(
            report
                .entries
                .iter()
                .filter(|e| e.result.url == site.url("/doc"))
                .filter(|e| e.fragment.as_deref() != Some("gone")
                    && e.fragment.as_deref() != Some("nowhere"))
                .all(|e| matches!(e.result.outcome, Outcome::Ok { .. }))
        );
    }
    let out = cli(&[
        "--no-status",
        "--max-requests-per-second",
        "0",
        "--check-anchors",
        &site.url("/doc#nowhere"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Anchor `nowhere' not found"), "{text}");
}

/// Text fragments (`#:~:text=`) are looked for in the target's visible text: found ones are
/// fine, missing and malformed ones broken, an element id before `:~:` is an anchor; the
/// target is fetched once more for its text, once per run.
#[test]
fn text_fragments_are_checked_against_the_page_text() {
    let site = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/doc#:~:text=install%20the%20tool'>1</a>\
                 <a href='/doc#:~:text=Getting-,started,-now'>2</a>\
                 <a href='/doc#:~:text=getting,run%20it'>3</a>\
                 <a href='/doc#usage:~:text=run'>4</a>\
                 <a href='/doc#:~:text=started%20install'>5</a>\
                 <a href='/doc#gone:~:text=run'>6</a>\
                 <a href='/doc#:~:text=a,b,c'>7</a>\
                 <a href='/doc#:~:text=secret'>8</a>",
            )
            .page(
                "/doc",
                "<title>secret</title><h1 id=usage>Getting  started&nbsp;now</h1>\
                 <p>Install <b>the</b>\n tool, then run it.<script>secret</script></p>",
            ),
    );
    for threads in [1, 8] {
        site.clear_requests();
        let anchors =
            linkpatrol::plugins::builtin("anchors", &linkpatrol::plugin::Options::new("anchors"))
                .unwrap();
        let report = run(config(&site.url("/"), threads).plugin(anchors));
        let doc = site.url("/doc");
        assert_eq!(
            broken_fragments(&report),
            [
                ":~:text=started%20install",
                "gone:~:text=run",
                ":~:text=a,b,c",
                ":~:text=secret"
            ]
            .into_iter()
            .map(|f| (format!("{doc}#{f}"), site.url("/")))
            .collect(),
            "threads={threads}"
        );
        assert_eq!(report.errors(), 4, "threads={threads}");
        assert_eq!(
            site.count("/doc"),
            2,
            "crawled, then fetched once for its text"
        );
    }
}

/// A text fragment into a Markdown page is looked for in the text it renders to.
#[test]
fn text_fragments_into_markdown_pages() {
    let dir = TempDir::new("fragments-md-text");
    std::fs::write(
        dir.join("README.md"),
        "# Readme\n\n[ok](guide.md#:~:text=install%20steps) [range](guide.md#:~:text=run,done)\n\
         [gone](guide.md#:~:text=no%20such%20words) [across](guide.md#:~:text=steps%20run)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("guide.md"),
        "# Guide\n\nThe *install   steps*.\n\n- run `it`\n- done\n",
    )
    .unwrap();
    for threads in ["1", "8"] {
        let out = cli(&[
            &CSV_FLAGS[..],
            &["--threads", threads, "--check-anchors"],
            &[dir.to_str().unwrap()],
        ]
        .concat());
        let rows = rows(&out);
        assert_eq!(out.status.code(), Some(1), "{rows:#?}");
        assert_eq!(
            broken_rows(&rows),
            BTreeSet::from([
                pair("guide.md#:~:text=no%20such%20words", "README.md"),
                pair("guide.md#:~:text=steps%20run", "README.md"),
            ]),
            "threads={threads}"
        );
    }
}

/// A single-page app's hash routes (`#/settings`, `#!/page`) are no anchors: never "anchor not
/// found", an info says they were not checked; a real missing anchor on the page still is.
#[test]
fn client_side_routes_are_not_anchors() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/app#/settings'>s</a><a href='/app#!/page'>p</a>\
                 <a href='/app#missing'>m</a>",
            )
            .page("/app", "<div id='root'></div>"),
    );
    for threads in ["1", "8"] {
        let out = cli(&[
            &CSV_FLAGS[..],
            &["--threads", threads, "--check-anchors", &server.url("/")],
        ]
        .concat());
        let rows = rows(&out);
        assert_eq!(out.status.code(), Some(1), "{rows:#?}");
        let broken: BTreeSet<&str> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| &r[0])
            .collect();
        assert_eq!(
            broken,
            BTreeSet::from(["/app#missing"]),
            "threads={threads}"
        );
        for route in ["/app#/settings", "/app#!/page"] {
            let row = rows.iter().find(|r| &r[0] == route).unwrap();
            assert!(
                row[5].contains("client-side route, not an anchor: not checked"),
                "{row:?}"
            );
        }
    }
}
