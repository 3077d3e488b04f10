//! Every input kind end to end through the binary, on loopback: several start URLs, stdin and
//! `-`, URL list files, sitemaps (plain, index, gzipped; over HTTP and local), Markdown files
//! and folders, CSS, plain text URL lists, and a local site with `--root-dir` / `--base-url`.

use std::io::Write;
use std::process::{Output, Stdio};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, assert_exit, csv_run_in, linkpatrol, rows};

/// One CSV row, by column: 0 urlname, 1 parentname, 3 result, 6 valid, 7 url, 8 line, 9 column.
type Row = csv::StringRecord;

/// The row for the link written `urlname` on the page whose URL ends with `parent_end`.
fn row<'a>(rows: &'a [Row], urlname: &str, parent_end: &str) -> &'a Row {
    rows.iter()
        .find(|r| &r[0] == urlname && r[1].ends_with(parent_end))
        .unwrap_or_else(|| panic!("no row {urlname} on *{parent_end} in {rows:#?}"))
}

/// Runs the binary with `stdin` fed in.
fn check_with_stdin(extra: &[&str], stdin: &str) -> Output {
    let mut child = linkpatrol()
        .args(CSV_FLAGS)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn site() -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/a", "<a href='/ok'>ok</a>")
            .page("/b", "<a href='/gone'>gone</a>")
            .page("/ok", "fine"),
    )
}

/// The start URLs (rows without a parent), sorted.
fn starts(rows: &[Row]) -> Vec<String> {
    let mut s: Vec<String> = rows
        .iter()
        .filter(|r| r[1].is_empty())
        .map(|r| r[7].to_owned())
        .collect();
    s.sort();
    s
}

#[test]
fn several_start_urls_stdin_and_list_files() {
    let server = site();
    let dir = TempDir::new("inputs-lists");
    for threads in ["1", "8"] {
        // Several start URLs on the command line.
        let out = csv_run_in(&dir, &["-t", threads, &server.url("/a"), &server.url("/b")]);
        assert_exit(&out, 1);
        let r = rows(&out);
        assert_eq!(starts(&r), [server.url("/a"), server.url("/b")]);
        assert_eq!(&row(&r, "/gone", "/b")[6], "False");

        // `-` and --stdin: one URL per line, comments and blank lines skipped.
        let list = format!(
            "# start pages\n\n{}\n  {}  \n# {}\n",
            server.url("/a"),
            server.url("/b"),
            server.url("/nope")
        );
        for flag in ["-", "--stdin"] {
            let out = check_with_stdin(&["-t", threads, flag], &list);
            assert_exit(&out, 1);
            assert_eq!(
                starts(&rows(&out)),
                [server.url("/a"), server.url("/b")],
                "{flag}"
            );
        }

        // --input-file, together with a URL on the command line.
        std::fs::write(
            dir.join("urls.txt"),
            format!("{}\n# skipped\n", server.url("/b")),
        )
        .unwrap();
        let out = csv_run_in(
            &dir,
            &["-t", threads, "--input-file", "urls.txt", &server.url("/a")],
        );
        assert_eq!(starts(&rows(&out)), [server.url("/a"), server.url("/b")]);
    }
}

#[test]
fn a_plain_text_file_is_a_list_of_links() {
    let server = site();
    let dir = TempDir::new("inputs-text");
    std::fs::write(
        dir.join("links.txt"),
        format!(
            "Our pages:\n- {} (fine)\n- see {}.\n",
            server.url("/ok"),
            server.url("/gone")
        ),
    )
    .unwrap();
    let out = csv_run_in(&dir, &["links.txt"]);
    assert_eq!(out.status.code(), Some(1));
    let r = rows(&out);
    let ok = row(&r, &server.url("/ok"), "links.txt");
    assert_eq!((&ok[6], &ok[8], &ok[9]), ("True", "2", "3"));
    let gone = row(&r, &server.url("/gone"), "links.txt");
    assert_eq!((&gone[6], &gone[8], &gone[9]), ("False", "3", "7"));
    // Links of a text file are checked, not crawled: /ok is not parsed for more links.
    assert_eq!(server.count("/a"), 0);
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn urlset(urls: &[String]) -> String {
    let items: String = urls
        .iter()
        .map(|u| format!("<url><loc>{u}</loc></url>\n"))
        .collect();
    format!(
        "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{items}</urlset>\n"
    )
}

#[test]
fn sitemaps_plain_index_and_gzipped_over_http_and_local() {
    let server =
        TestServer::start(
            Routes::new()
                .dynamic(|req| {
                    let base = format!("http://{}", req.header("host").unwrap_or(""));
                    match req.path_only() {
            "/sitemap_index.xml" => Some(
                Reply::status(200).content_type("application/xml").body(format!(
                    "<sitemapindex><sitemap><loc>{base}/pages.xml.gz</loc></sitemap>\
                     <sitemap><loc>{base}/more.xml</loc></sitemap></sitemapindex>"
                )),
            ),
            "/pages.xml.gz" => Some(
                Reply::status(200)
                    .content_type("application/gzip")
                    .body(gz(urlset(&[format!("{base}/ok"), format!("{base}/gone")]).as_bytes())),
            ),
            "/more.xml" => Some(
                Reply::status(200)
                    .content_type("text/xml")
                    .body(urlset(&[format!("{base}/a")])),
            ),
            _ => None,
        }
                })
                .page("/a", "<a href='/ok'>ok</a>")
                .page("/ok", "fine"),
        );
    let dir = TempDir::new("inputs-sitemaps");
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, &server.url("/sitemap_index.xml")]);
        assert_exit(&out, 1);
        let r = rows(&out);
        assert_eq!(
            &row(&r, &server.url("/pages.xml.gz"), "/sitemap_index.xml")[6],
            "True"
        );
        let gone = row(&r, &server.url("/gone"), "/pages.xml.gz");
        assert_eq!((&gone[6], &gone[8]), ("False", "4"));
        assert_eq!(&row(&r, &server.url("/a"), "/more.xml")[6], "True");
        // Pages listed in a sitemap are crawled: /a's link to /ok was read.
        assert_eq!(&row(&r, "/ok", "/a")[6], "True");
    }

    // Local sitemap files, gzipped or not.
    std::fs::write(
        dir.join("sitemap.xml.gz"),
        gz(urlset(&[server.url("/gone")]).as_bytes()),
    )
    .unwrap();
    std::fs::write(dir.join("sitemap.xml"), urlset(&[server.url("/ok")])).unwrap();
    let out = csv_run_in(&dir, &["sitemap.xml.gz", "sitemap.xml"]);
    assert_eq!(out.status.code(), Some(1));
    let r = rows(&out);
    assert_eq!(&row(&r, &server.url("/gone"), "sitemap.xml.gz")[6], "False");
    assert_eq!(&row(&r, &server.url("/ok"), "sitemap.xml")[6], "True");
}

#[test]
fn markdown_files_and_folders() {
    let server = site();
    let dir = TempDir::new("inputs-markdown");
    std::fs::create_dir_all(dir.join("docs/guide")).unwrap();
    std::fs::create_dir_all(dir.join("docs/.hidden")).unwrap();
    std::fs::write(
        dir.join("docs/README.md"),
        format!(
            "# Docs\n\nRead the [guide](guide/intro.md) or [this](missing.md).\n\n\
             ![logo](logo.png \"Logo\")\n\nOnline: <{}> and [gone]({}).\n\n`[code](not-a-link.md)`\n",
            server.url("/ok"),
            server.url("/gone")
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("docs/guide/intro.md"),
        "Back to [the start](/README.md).\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("docs/guide/extra.markdown"),
        "[top](../README.md)\n",
    )
    .unwrap();
    std::fs::write(dir.join("docs/.hidden/skip.md"), "[x](nowhere.md)\n").unwrap();
    std::fs::write(dir.join("docs/logo.png"), "png").unwrap();

    // One Markdown file: its links, with line and column.
    let out = csv_run_in(&dir, &["docs/README.md"]);
    assert_exit(&out, 1);
    let r = rows(&out);
    let missing = row(&r, "missing.md", "README.md");
    assert_eq!(
        (&missing[6], &missing[8], &missing[9], &missing[10]),
        ("False", "3", "37", "this")
    );
    assert_eq!(&row(&r, "guide/intro.md", "README.md")[6], "True");
    assert_eq!(&row(&r, "logo.png", "README.md")[10], "Logo");
    assert_eq!(&row(&r, &server.url("/ok"), "README.md")[6], "True");
    assert_eq!(&row(&r, &server.url("/gone"), "README.md")[6], "False");
    assert!(
        !r.iter().any(|r| &r[0] == "not-a-link.md"),
        "code spans hold no links"
    );
    // The linked Markdown file is parsed too.
    assert_eq!(&row(&r, "/README.md", "intro.md")[1][..7], "file://");

    // A folder without index.html: every Markdown file below it; `/` is the folder.
    let out = csv_run_in(&dir, &["-t", "4", "docs"]);
    let r = rows(&out);
    let mut started: Vec<String> = starts(&r)
        .iter()
        .map(|u| u.rsplit('/').next().unwrap().to_owned())
        .collect();
    started.sort();
    assert_eq!(started, ["README.md", "extra.markdown", "intro.md"]);
    assert_eq!(
        &row(&r, "/README.md", "intro.md")[6],
        "True",
        "root-relative into the folder"
    );
    assert!(
        !r.iter().any(|r| &r[0] == "nowhere.md"),
        "hidden folders are skipped"
    );
}

#[test]
fn css_is_crawled_over_http_and_from_files() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<link rel=stylesheet href='/css/site.css'><p>hi</p>")
            .reply(
                "/css/site.css",
                Reply::status(200).content_type("text/css").body(
                    "@import \"base.css\";\n/* url(commented.png) */\nbody { background: url('../img/bg.png') }\n.x { background: url(/missing.png) }\n",
                ),
            )
            .reply(
                "/css/base.css",
                Reply::status(200).content_type("text/css; charset=utf-8").body("h1 { background: url(\"h1.png\") }"),
            )
            .reply("/img/bg.png", Reply::status(200).content_type("image/png").body("png"))
            .reply("/css/h1.png", Reply::status(200).content_type("image/png").body("png")),
    );
    let dir = TempDir::new("inputs-css");
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, &server.url("/")]);
        assert_exit(&out, 1);
        let r = rows(&out);
        assert_eq!(&row(&r, "base.css", "/css/site.css")[8], "1");
        assert_eq!(&row(&r, "../img/bg.png", "/css/site.css")[6], "True");
        assert_eq!(&row(&r, "h1.png", "/css/base.css")[6], "True");
        let missing = row(&r, "/missing.png", "/css/site.css");
        assert_eq!(
            (&missing[6], &missing[8], &missing[9]),
            ("False", "4", "18")
        );
        assert!(!r.iter().any(|r| r[0].contains("commented")));
    }

    std::fs::create_dir_all(dir.join("site")).unwrap();
    std::fs::write(
        dir.join("site/index.html"),
        "<link rel=stylesheet href=style.css>",
    )
    .unwrap();
    std::fs::write(
        dir.join("site/style.css"),
        "a { background: url(gone.png) }",
    )
    .unwrap();
    let out = csv_run_in(&dir, &["site"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(&row(&rows(&out), "gone.png", "style.css")[6], "False");
}

#[test]
fn css_in_style_blocks_and_style_attributes_is_checked() {
    // Line 5 column 20 and line 8 column 37 are where the broken `url(`s are written; the
    // relative `ok.png` resolves against `<base href>`.
    let page = "<!DOCTYPE html>\n<base href=\"/sub/\">\n<style>\n  body { background: url(ok.png) }\n  \
                .x { background: url( \"/missing-block.png\" ) }\n  \
                .d { background: url(\"data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg'/>\") }\n\
                </style>\n<div style=\"color: red; background: url('/missing-attr.png')\">x</div>\n";
    let server = TestServer::start(Routes::new().page("/", page).reply(
        "/sub/ok.png",
        Reply::status(200).content_type("image/png").body("png"),
    ));
    let dir = TempDir::new("inputs-css-in-html");
    for threads in ["1", "4"] {
        let out = csv_run_in(&dir, &["-t", threads, &server.url("/")]);
        assert_exit(&out, 1);
        let r = rows(&out);
        let ok = row(&r, "ok.png", "/");
        assert_eq!(
            (&ok[6], &ok[7]),
            ("True", server.url("/sub/ok.png").as_str())
        );
        let block = row(&r, "/missing-block.png", "/");
        assert_eq!((&block[6], &block[8], &block[9]), ("False", "5", "20"));
        let attr = row(&r, "/missing-attr.png", "/");
        assert_eq!((&attr[6], &attr[8], &attr[9]), ("False", "8", "37"));
        // The data: URL is listed whole (its `(` and quotes inside) and ignored, not checked.
        let data = row(
            &r,
            "data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg'/>",
            "/",
        );
        assert!(data[3].starts_with("ignored"), "{data:?}");
        assert_eq!((&data[6], &data[8], &data[9]), ("True", "6", "20"));
        let broken = r.iter().filter(|r| &r[6] == "False").count();
        assert_eq!(broken, 2, "{r:#?}");
    }
}

#[test]
fn a_local_site_with_root_dir_and_base_url() {
    let dir = TempDir::new("inputs-local-site");
    std::fs::create_dir_all(dir.join("public/about")).unwrap();
    std::fs::write(dir.join("public/about/index.html"), "<p>about</p>").unwrap();
    // The public URL is a loopback port nothing listens on: a link that were not mapped into
    // the folder would fail, not reach any network.
    let base = "http://127.0.0.1:9/site/";
    std::fs::write(
        dir.join("public/index.html"),
        format!(
            "<a href='/site/about/'>root-relative</a>\n<a href='{base}about/'>absolute</a>\n\
             <a href='{base}missing.html'>missing</a>\n<a href='http://127.0.0.1:9/other/'>outside</a>\n\
             <a href='/about/'>above the site</a>"
        ),
    )
    .unwrap();
    let out = csv_run_in(
        &dir,
        &[
            "--timeout",
            "2",
            "--max-retries",
            "0",
            "--base-url",
            base,
            "public",
        ],
    );
    let r = rows(&out);
    // A root-relative link means the deployed site's root, as a browser there sees it: under
    // the base URL it is the folder's page, above it a page of the host (here: refused).
    assert_eq!(&row(&r, "/site/about/", "public/index.html")[6], "True");
    let above = row(&r, "/about/", "public/index.html");
    assert_eq!(
        (&above[6], &above[7]),
        ("False", "http://127.0.0.1:9/about/"),
        "{above:?}"
    );
    let absolute = row(&r, &format!("{base}about/"), "public/index.html");
    assert_eq!(&absolute[6], "True");
    assert!(
        absolute[7].starts_with("file://") && absolute[7].ends_with("/public/about/index.html"),
        "{absolute:?}"
    );
    let missing = row(&r, &format!("{base}missing.html"), "public/index.html");
    assert_eq!(&missing[6], "False");
    assert!(missing[3].contains("file-not-found"), "{missing:?}");
    // Outside the public URL nothing is mapped.
    assert_eq!(
        &row(&r, "http://127.0.0.1:9/other/", "public/index.html")[7],
        "http://127.0.0.1:9/other/"
    );

    // --root-dir names the folder when the input is one file of it.
    let out = csv_run_in(
        &dir,
        &[
            "--timeout",
            "2",
            "--max-retries",
            "0",
            "--root-dir",
            "public",
            "--base-url",
            base,
            "public/index.html",
        ],
    );
    let r = rows(&out);
    assert_eq!(&row(&r, "/site/about/", "index.html")[6], "True");
    assert_eq!(&row(&r, "/about/", "index.html")[6], "False");
    assert_eq!(&row(&r, &format!("{base}about/"), "index.html")[6], "True");
}

#[test]
fn a_protocol_relative_link_in_a_folder_takes_the_site_scheme() {
    let dir = TempDir::new("inputs-protocol-relative");
    std::fs::create_dir_all(dir.join("public")).unwrap();
    std::fs::write(
        dir.join("public/index.html"),
        "<script src='//cdn.example.net/lib.js'></script>",
    )
    .unwrap();
    // --internal-only: the CDN link is listed, never requested.
    for (extra, want) in [
        (&[][..], "https://cdn.example.net/lib.js"),
        (
            &["--base-url", "http://example.org/"][..],
            "http://cdn.example.net/lib.js",
        ),
    ] {
        let mut args = vec!["--internal-only"];
        args.extend_from_slice(extra);
        args.push("public");
        let out = csv_run_in(&dir, &args);
        let r = rows(&out);
        let link = row(&r, "//cdn.example.net/lib.js", "public/index.html");
        assert_eq!(&link[7], want, "{extra:?}: {link:?}");
        assert!(!link[3].contains("invalid-url"), "{extra:?}: {link:?}");
        assert!(link[3].contains("external link"), "{extra:?}: {link:?}");
    }
}

#[test]
fn a_protocol_relative_link_on_a_web_page_keeps_its_scheme() {
    let server = TestServer::start(Routes::new().page("/ok", "ok"));
    let link = format!("//{}", server.url("/ok").trim_start_matches("http://"));
    let server_page =
        TestServer::start(Routes::new().page("/", &format!("<a href='{link}'>x</a>")));
    let dir = TempDir::new("inputs-protocol-relative-web");
    let out = csv_run_in(&dir, &[&server_page.url("/")]);
    let r = rows(&out);
    let row = row(&r, &link, "/");
    assert_eq!(&row[7], &server.url("/ok"), "{row:?}");
    assert_eq!(&row[6], "True", "{row:?}");
}

/// An input of a scheme that is not checked says so, as a link of that scheme would, instead
/// of "cannot read file".
#[test]
fn an_input_of_another_scheme_says_the_scheme_is_not_checked() {
    let dir = TempDir::new("input-ftp");
    for input in ["ftp://127.0.0.1/x", "sftp://127.0.0.1/x"] {
        let out = crate::support::util::cli_in(&dir, &[], &["--no-config", input]);
        crate::support::util::assert_one_line_error(
            &out,
            &[input, "URLs are not checked", "http, https and file"],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("cannot read"), "{err}");
    }
}

/// A start page (or file) that held no links says so on stderr when nothing else was found;
/// the exit status stays 0. In a folder where other files have links, a file without any is
/// no news.
#[test]
fn an_input_without_links_gets_a_warning() {
    let dir = TempDir::new("input-no-links");
    std::fs::write(dir.join("empty.md"), "").unwrap();
    std::fs::write(dir.join("words.md"), "# Title\n\nNo link here.\n").unwrap();
    std::fs::write(dir.join("plain.html"), "<p>hello</p>\n").unwrap();
    let server = TestServer::start(Routes::new().page("/", "<p>nothing</p>"));
    let site = server.url("/");
    for (input, warned) in [
        ("empty.md", "empty.md"),
        ("words.md", "words.md"),
        ("plain.html", "plain.html"),
        (site.as_str(), site.as_str()),
    ] {
        let out = crate::support::util::cli_in(
            &dir,
            &[],
            &[
                "--no-config",
                "--no-status",
                "--max-requests-per-second",
                "0",
                input,
            ],
        );
        assert_exit(&out, 0);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("warning: ") && err.contains(warned) && err.contains("held no links"),
            "{input}: {err}"
        );
    }
    // With -r 0 the start page is not read for links: no such warning.
    let out = crate::support::util::cli_in(
        &dir,
        &[],
        &["--no-config", "--no-status", "-r", "0", "plain.html"],
    );
    assert_exit(&out, 0);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("held no links"));
    // Beside a page with links: quiet.
    std::fs::write(dir.join("links.html"), "<a href='plain.html'>p</a>\n").unwrap();
    let out = crate::support::util::cli_in(
        &dir,
        &[],
        &["--no-config", "--no-status", "links.html", "words.md"],
    );
    assert_exit(&out, 0);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("held no links"));
}

/// Quarto (`.qmd`), R Markdown (`.Rmd`) and MDX (`.mdx`) files are Markdown with extras: a
/// folder's walk reads them, and a file named on the command line is read as Markdown (MDX's
/// JSX as HTML), as lychee reads them.
#[test]
fn quarto_r_markdown_and_mdx_files_are_read_as_markdown() {
    let dir = TempDir::new("inputs-markdown-kinds");
    std::fs::write(
        dir.join("a.qmd"),
        "---\ntitle: A\n---\n\n[gone](gone-a.md)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.Rmd"),
        "```{r}\nx <- 1\n```\n\n[gone](gone-b.md)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("c.mdx"),
        "import Tabs from './tabs'\n\n<Tabs>\n  <a href='gone-c.html'>tab</a>\n</Tabs>\n\n\
         [ok](a.qmd) and [gone](gone-d.md)\n",
    )
    .unwrap();
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "."]);
        let r = rows(&out);
        let mut broken: Vec<&str> = r
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| &r[0])
            .collect();
        broken.sort_unstable();
        assert_eq!(
            broken,
            ["gone-a.md", "gone-b.md", "gone-c.html", "gone-d.md"],
            "-t {threads}: {r:#?}"
        );
        // Named alone, c.mdx is read, and so is the a.qmd it links (a page of the folder).
        let mdx = rows(&csv_run_in(&dir, &["-t", threads, "c.mdx"]));
        let mut broken: Vec<&str> = mdx
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| &r[0])
            .collect();
        broken.sort_unstable();
        assert_eq!(
            broken,
            ["gone-a.md", "gone-c.html", "gone-d.md"],
            "-t {threads}"
        );
    }
}
