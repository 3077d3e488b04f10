//! No silent passes: a folder without `index.html` is listed (as LinkChecker does), naming only
//! what the folder walk keeps, and a link to one from HTML is warned about (from a Markdown page a folder that exists is valid, as
//! GitHub shows it, and is not walked); a start file we cannot parse (a PDF) and an empty
//! file are warned about;
//! robots.txt groups follow `--user-agent`; `--max-urls 0` means no limit.

use linkpatrol::Outcome;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, cli, config, entry, rows, run};

/// `-o csv -v` rows of a CLI run, and its exit code.
fn csv_rows(args: &[&str]) -> (Option<i32>, Vec<csv::StringRecord>) {
    let out = cli(&[&CSV_FLAGS[..], args].concat());
    (out.status.code(), rows(&out))
}

#[test]
fn a_folder_without_index_html_is_listed_and_a_link_to_one_is_warned_about() {
    let dir = TempDir::new("no-index");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(dir.join("with-index")).unwrap();
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(
        dir.join("a.html"),
        "<a href='missing.html'>m</a>\n<a href='sub/'>sub</a>\n<a href='with-index/'>ok</a>",
    )
    .unwrap();
    std::fs::write(dir.join("sub/b.txt"), "b").unwrap();
    std::fs::write(dir.join("with-index/index.html"), "fine").unwrap();
    std::fs::write(dir.join(".git/config"), "hidden").unwrap();
    let (code, rows) = csv_rows(&[dir.to_str().unwrap()]);
    assert_eq!(code, Some(1), "missing.html, found through the listing");
    let row = |url_end: &str, parent_end: &str| {
        rows.iter()
            .find(|r| r[7].ends_with(url_end) && r[1].ends_with(parent_end))
            .unwrap_or_else(|| panic!("no row {url_end} on {parent_end}: {rows:?}"))
    };
    let start = rows.iter().find(|r| r[1].is_empty()).unwrap();
    assert!(start[5].contains("without index.html"), "{start:?}");
    assert_eq!(&row("/missing.html", "/a.html")[6], "False");
    assert_eq!(
        &row("/sub/b.txt", "/sub/")[6],
        "True",
        "the listing recursed"
    );
    let sub_link = row("/sub/", "/a.html");
    assert!(sub_link[4].starts_with("[file-no-index]"), "{sub_link:?}");
    assert!(
        row("/with-index/index.html", "/a.html")[4].is_empty(),
        "a folder with index.html is fine"
    );
    assert!(
        !rows.iter().any(|r| r[7].contains(".git")),
        "hidden entries are not listed"
    );
}

#[test]
fn a_markdown_link_to_a_folder_is_valid_and_the_folder_is_not_walked() {
    let dir = TempDir::new("readme-folder");
    for sub in ["docs", "guide", "plain"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("docs/README.md"), "# docs").unwrap();
    std::fs::write(dir.join("guide/index.md"), "# guide").unwrap();
    std::fs::write(dir.join("plain/notes.txt"), "notes").unwrap();
    // Walked as a page, this empty file would warn `http-empty-content`.
    std::fs::write(dir.join("plain/py.typed"), "").unwrap();
    std::fs::write(
        dir.join("README.md"),
        "[docs](docs/)\n[guide](guide)\n[plain](plain/)\n[gone](gone/)\n",
    )
    .unwrap();
    std::fs::write(dir.join("page.html"), "<a href='docs/'>docs</a>").unwrap();
    let (code, rows) = csv_rows(&[dir.join("README.md").to_str().unwrap()]);
    assert_eq!(code, Some(1), "gone/ does not exist: {rows:?}");
    assert_eq!(
        &rows.iter().find(|r| &r[0] == "gone/").unwrap()[6],
        "False",
        "{rows:?}"
    );
    assert!(
        !rows
            .iter()
            .any(|r| r[7].contains("py.typed") || r[7].contains("notes.txt")),
        "the folder's files are no pages of the site: {rows:?}"
    );
    let (code, html_rows) = csv_rows(&[dir.join("page.html").to_str().unwrap()]);
    assert_eq!(code, Some(0), "{html_rows:?}");
    let warnings = |rows: &[csv::StringRecord], name: &str| {
        rows.iter()
            .find(|r| &r[0] == name && !r[1].is_empty())
            .unwrap_or_else(|| panic!("no link {name}: {rows:?}"))[4]
            .to_owned()
    };
    assert_eq!(warnings(&rows, "docs/"), "", "GitHub shows docs/README.md");
    assert_eq!(warnings(&rows, "guide"), "", "guide/index.md");
    assert_eq!(warnings(&rows, "plain/"), "", "GitHub shows the folder");
    assert!(
        warnings(&html_rows, "docs/").starts_with("[file-no-index]"),
        "a web server does not serve a README: {html_rows:?}"
    );
}

#[test]
fn an_empty_file_is_warned_about_as_an_empty_http_page_is() {
    let dir = TempDir::new("empty-file");
    std::fs::write(
        dir.join("index.html"),
        "<a href='empty.html'>e</a>\n<a href='full.html'>f</a>",
    )
    .unwrap();
    std::fs::write(dir.join("empty.html"), "").unwrap();
    std::fs::write(dir.join("full.html"), "<p>content</p>").unwrap();
    let (code, rows) = csv_rows(&[dir.to_str().unwrap()]);
    assert_eq!(code, Some(0), "a warning is not a failure: {rows:?}");
    let row = |name: &str| {
        rows.iter()
            .find(|r| &r[0] == name)
            .unwrap_or_else(|| panic!("no row {name}: {rows:?}"))
    };
    let empty = row("empty.html");
    assert!(empty[4].starts_with("[http-empty-content]"), "{empty:?}");
    assert_eq!(&empty[6], "True", "{empty:?}");
    assert!(row("full.html")[4].is_empty(), "{rows:?}");
}

#[test]
fn a_start_file_we_cannot_parse_is_warned_about_not_silently_valid() {
    let dir = TempDir::new("unparseable");
    let pdf = dir.join("manual.png");
    std::fs::write(&pdf, "\x7fPNG http://127.0.0.1:9/never-read\n").unwrap();
    let (code, rows) = csv_rows(&[pdf.to_str().unwrap()]);
    assert_eq!(code, Some(0), "a warning alone does not fail the run");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        &rows[0][4],
        "[url-content-type-unparseable] The URL with content type 'image/png' is not parseable."
    );
    let (code, _) = csv_rows(&["--fail-on-warnings", pdf.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    // Markdown is parsed (no warning), and so is a page reached by a link (level > 0)
    let md = dir.join("README.md");
    std::fs::write(&md, "[manual](manual.png)\n").unwrap();
    let (code, rows) = csv_rows(&[md.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r[4].is_empty()), "{rows:?}");
}

#[test]
fn robots_txt_groups_are_matched_with_the_configured_user_agent() {
    for threads in [1, 4] {
        let server = TestServer::start(
            Routes::new()
                .reply(
                    "/robots.txt",
                    Reply::status(200)
                        .body("User-agent: custombot\nDisallow: /private\n\nUser-agent: *\nDisallow:\n")
                        .content_type("text/plain"),
                )
                .page("/", "<a href='/private'>p</a>")
                .page("/private", "private"),
        );
        let private = server.url("/private");
        let verdict = |report: &linkpatrol::Report| entry(report, &private).result.outcome.clone();
        let report = run(config(&server.url("/"), threads));
        assert_eq!(verdict(&report), Outcome::Ok { status: Some(200) });
        let ua = "CustomBot/1.0 (+http://bot.test/)";
        let report = run(config(&server.url("/"), threads).user_agent(ua));
        assert!(verdict(&report).is_ignored(), "{:?}", verdict(&report));
        assert_eq!(
            server.count("/private"),
            1,
            "only the default agent fetched it"
        );
        assert!(
            server
                .requests()
                .iter()
                .filter(|r| r.path == "/")
                .any(|r| r.header("user-agent") == Some(ua))
        );
    }
}

#[test]
fn max_urls_0_means_no_limit() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/a'>a</a><a href='/b'>b</a>")
            .page("/a", "a")
            .page("/b", "b"),
    );
    let (code, rows) = csv_rows(&["--max-urls", "0", &server.url("/")]);
    assert_eq!(code, Some(0));
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().all(|r| r[3] == *"200 OK"), "{rows:?}");
    let report = run(config(&server.url("/"), 2).max_urls(Some(0)));
    assert_eq!(report.urls, 3);
    assert!(
        report
            .entries
            .iter()
            .all(|e| !e.result.outcome.is_ignored())
    );
    // a limit of 1 still checks only the start URL; its two links are counted, not stored
    let report = run(config(&server.url("/"), 2).max_urls(Some(1)));
    assert_eq!((report.urls, report.entries.len()), (1, 1));
    assert_eq!(report.over_limit, 2);
}

#[test]
fn a_folder_listing_names_only_what_the_walk_keeps() {
    let dir = TempDir::new("listing-walk-rules");
    std::fs::create_dir_all(dir.join("drafts")).unwrap();
    std::fs::create_dir_all(dir.join("public")).unwrap();
    // Every Markdown file is left out by .ignore, so the folder is read as a listing.
    std::fs::write(dir.join(".ignore"), "drafts/\nold.md\n").unwrap();
    std::fs::write(dir.join("drafts/x.md"), "[gone](gone.md)\n").unwrap();
    std::fs::write(dir.join("old.md"), "[gone](gone.md)\n").unwrap();
    std::fs::write(dir.join("public/page.html"), "<a href='../notes.txt'>n</a>").unwrap();
    std::fs::write(dir.join("notes.txt"), "notes").unwrap();
    for threads in ["1", "8"] {
        let (code, rows) = csv_rows(&["-t", threads, dir.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{rows:#?}");
        let urls: Vec<&str> = rows.iter().map(|r| r.get(7).unwrap()).collect();
        assert!(
            !urls
                .iter()
                .any(|u| u.contains("drafts") || u.contains("old.md") || u.contains("gone")),
            "the files .ignore leaves out are not read: {urls:#?}"
        );
        for kept in ["/public/page.html", "/notes.txt"] {
            assert!(urls.iter().any(|u| u.ends_with(kept)), "{kept}: {urls:#?}");
        }
    }
}
