//! A repository's Markdown and HTML as inputs, as a pre-commit hook or a CI job checks them:
//! `../` links under `--internal-only`, the folder walk (ignore files, hidden files, symbolic
//! links, globs, `--exclude-path`).

use std::fs;

use crate::support::server::{Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, csv_run_in, row_named, rows};

/// `repo/README.md` (headings `readme`, `setup`) and `repo/docs/links.md` linking up to it,
/// to a missing file, to a missing heading, and to `server`'s `/external`.
fn repo_with_up_links(name: &str, server: &TestServer) -> TempDir {
    let repo = TempDir::new(name);
    fs::create_dir_all(repo.join("docs")).unwrap();
    fs::write(repo.join("README.md"), "# Readme\n\n## Setup\n").unwrap();
    fs::write(
        repo.join("docs/links.md"),
        format!(
            "# Links\n\n[nope](../NOPE.md) [gone](../README.md#no-such-heading)\n\
             [ok](../README.md#setup) [web]({})\n",
            server.url("/external")
        ),
    )
    .unwrap();
    fs::write(
        repo.join("docs/index.html"),
        "<a href='../about.html'>about</a><a href='../missing.html'>missing</a>",
    )
    .unwrap();
    fs::write(repo.join("about.html"), "<p>about</p>").unwrap();
    repo
}

#[test]
fn internal_only_checks_dot_dot_links_and_makes_no_request() {
    let server = TestServer::start(Routes::new().page("/external", "<p>x</p>"));
    let repo = repo_with_up_links("repo-internal-only", &server);
    for threads in ["1", "8"] {
        // As the pre-commit hook runs: the staged files, from the repository's root.
        let out = csv_run_in(
            &repo,
            &[
                "-t",
                threads,
                "--internal-only",
                "--check-anchors",
                "--root-dir",
                ".",
                "docs/links.md",
                "docs/index.html",
            ],
        );
        let rows = rows(&out);
        assert_exit(&out, 1);
        assert_eq!(&row_named(&rows, "../NOPE.md")[6], "False", "{rows:#?}");
        let heading = row_named(&rows, "../README.md#no-such-heading");
        assert_eq!(&heading[6], "False", "{heading:?}");
        assert!(heading[3].contains("no-such-heading"), "{heading:?}");
        assert_eq!(&row_named(&rows, "../README.md#setup")[6], "True");
        assert_eq!(&row_named(&rows, "../about.html")[6], "True");
        assert_eq!(&row_named(&rows, "../missing.html")[6], "False");
        // The web link is listed, not requested.
        let web = row_named(&rows, &server.url("/external"));
        assert!(web[3].contains("checking internal links only"), "{web:?}");
        assert_eq!(server.count("/external"), 0);
    }
}

#[test]
fn internal_only_outside_the_checked_folder_checks_existence() {
    let server = TestServer::start(Routes::new());
    let repo = repo_with_up_links("repo-internal-only-scope", &server);
    // Only docs/ is checked: ../ files are outside it, so they are checked for existence only
    // (never read), as any link out of a checked folder.
    let out = csv_run_in(
        &repo,
        &["--internal-only", "--check-anchors", "docs/links.md"],
    );
    let rows = rows(&out);
    assert_exit(&out, 1);
    let nope = row_named(&rows, "../NOPE.md");
    assert_eq!(&nope[6], "False", "{nope:?}");
    assert!(nope[3].contains("file-not-found"), "{nope:?}");
    let heading = row_named(&rows, "../README.md#no-such-heading");
    assert_eq!(&heading[6], "True", "{heading:?}");
    assert!(heading[4].contains("outside-root"), "{heading:?}");
}

/// `(page file name, link as written)` of every row of a CSV run that has a page, and the
/// start inputs (rows without one) by file name.
fn pages_and_starts(rows: &[csv::StringRecord]) -> (Vec<(String, String)>, Vec<String>) {
    let name = |s: &str| s.rsplit('/').next().unwrap_or(s).to_owned();
    let mut links: Vec<(String, String)> = rows
        .iter()
        .filter(|r| !r[1].is_empty())
        .map(|r| (name(&r[1]), r[0].to_owned()))
        .collect();
    let mut starts: Vec<String> = rows
        .iter()
        .filter(|r| r[1].is_empty())
        .map(|r| name(&r[0]))
        .collect();
    links.sort();
    starts.sort();
    (links, starts)
}

/// A repository: `a.md` and `sub/b.md` linking each other, a gitignored `node_modules/x.md`
/// and a hidden `.notes/h.md` with broken links, and two symbolic-link loops
/// (`loop -> .`, `sub/up -> ..`).
fn walked_repo(name: &str) -> TempDir {
    let repo = TempDir::new(name);
    for d in [".git", "sub", "node_modules", ".notes"] {
        fs::create_dir_all(repo.join(d)).unwrap();
    }
    fs::write(repo.join(".gitignore"), "node_modules/\n").unwrap();
    fs::write(repo.join("a.md"), "[b](sub/b.md)\n").unwrap();
    fs::write(repo.join("sub/b.md"), "[a](../a.md)\n").unwrap();
    fs::write(repo.join("node_modules/x.md"), "[gone](gone.md)\n").unwrap();
    fs::write(repo.join(".notes/h.md"), "[gone](gone.md)\n").unwrap();
    std::os::unix::fs::symlink(".", repo.join("loop")).unwrap();
    std::os::unix::fs::symlink("..", repo.join("sub/up")).unwrap();
    repo
}

#[test]
fn the_walk_skips_ignored_and_hidden_files_and_reads_each_file_once() {
    let repo = walked_repo("repo-walk");
    for threads in ["1", "8"] {
        for follow in [&[][..], &["--follow"][..]] {
            let mut args = vec!["-t", threads, "."];
            args.extend_from_slice(follow);
            let out = csv_run_in(&repo, &args);
            assert_exit(&out, 0);
            let (links, starts) = pages_and_starts(&rows(&out));
            assert_eq!(starts, ["a.md", "b.md"], "{follow:?}");
            assert_eq!(
                links,
                [
                    ("a.md".to_owned(), "sub/b.md".to_owned()),
                    ("b.md".to_owned(), "../a.md".to_owned())
                ],
                "{follow:?}"
            );
        }
    }
    // --no-ignore and --hidden walk them too.
    let out = csv_run_in(&repo, &["--no-ignore", "--hidden", "."]);
    assert_exit(&out, 1);
    let (_, starts) = pages_and_starts(&rows(&out));
    assert_eq!(starts, ["a.md", "b.md", "h.md", "x.md"]);
}

#[test]
fn outside_a_git_repository_only_dot_ignore_files_count() {
    let repo = walked_repo("repo-walk-no-git");
    fs::remove_dir(repo.join(".git")).unwrap();
    let out = csv_run_in(&repo, &["."]);
    let (_, starts) = pages_and_starts(&rows(&out));
    assert_eq!(
        starts,
        ["a.md", "b.md", "x.md"],
        "as ripgrep: .gitignore needs git"
    );
    fs::write(repo.join(".ignore"), "node_modules/\n").unwrap();
    let out = csv_run_in(&repo, &["."]);
    let (_, starts) = pages_and_starts(&rows(&out));
    assert_eq!(starts, ["a.md", "b.md"]);
}

#[test]
fn globs_and_exclude_path_choose_the_files() {
    let repo = walked_repo("repo-globs");
    fs::create_dir_all(repo.join("sub/deep")).unwrap();
    fs::write(repo.join("sub/deep/c.md"), "[b](../b.md)\n").unwrap();
    fs::write(repo.join("sub/deep/c.html"), "<a href='../b.md'>b</a>\n").unwrap();
    let starts_of = |args: &[&str]| {
        let out = csv_run_in(&repo, args);
        assert_exit(&out, 0);
        pages_and_starts(&rows(&out)).1
    };
    assert_eq!(starts_of(&["sub/**/*.md"]), ["b.md", "c.md"]);
    assert_eq!(starts_of(&["*.md"]), ["a.md"]);
    assert_eq!(
        starts_of(&["sub/**/*.{md,html}"]),
        ["b.md", "c.html", "c.md"]
    );
    assert_eq!(
        starts_of(&[".", "--exclude-path", "deep"]),
        ["a.md", "b.md"]
    );
    assert_eq!(
        starts_of(&["a.md", "sub/b.md", "--exclude-path", r"^sub/"]),
        ["a.md"]
    );
    let out = csv_run_in(&repo, &["nothing/**/*.md"]);
    assert_exit(&out, 2);
}

#[test]
fn a_followed_link_out_of_the_folder_is_not_read() {
    let root = TempDir::new("repo-follow-out");
    let repo = root.join("repo");
    fs::create_dir_all(root.join("private")).unwrap();
    fs::create_dir_all(&repo).unwrap();
    fs::write(root.join("private/secret.md"), "[s](gone.md)\n").unwrap();
    fs::write(repo.join("a.md"), "# a\n").unwrap();
    std::os::unix::fs::symlink(root.join("private"), repo.join("private")).unwrap();
    let out = csv_run_in(&repo, &["--follow", "."]);
    assert_exit(&out, 0);
    assert_eq!(pages_and_starts(&rows(&out)).1, ["a.md"]);
    let out = csv_run_in(&repo, &["--follow", "--follow-outside-root", "."]);
    assert_eq!(pages_and_starts(&rows(&out)).1, ["a.md", "secret.md"]);
}

#[test]
fn bare_and_www_links_in_markdown_are_checked_but_not_in_code() {
    let server = TestServer::start(Routes::new().page("/ok", "<p>ok</p>"));
    let repo = TempDir::new("repo-autolinks");
    let ok = server.url("/ok");
    let gone = server.url("/gone");
    fs::write(
        repo.join("README.md"),
        format!(
            "See {ok}. Also (www.example.test/ok) and {gone}, or write to me@example.test.\n\n\
             `{gone}?code`\n\n```\n{gone}?block\nwww.example.test/block\n```\n"
        ),
    )
    .unwrap();
    // www.example.test goes to the loopback server: no name is looked up.
    let remap = format!("^http://www\\.example\\.test/ {}/", server.base());
    for threads in ["1", "8"] {
        let out = csv_run_in(&repo, &["-t", threads, "--remap", &remap, "README.md"]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        assert_eq!(&row_named(&rows, &ok)[6], "True");
        assert_eq!(&row_named(&rows, &gone)[6], "False", "{rows:#?}");
        assert_eq!(&row_named(&rows, "http://www.example.test/ok")[6], "True");
        assert_eq!(&row_named(&rows, "mailto:me@example.test")[6], "True");
        assert!(
            !rows
                .iter()
                .any(|r| r[0].contains("code") || r[0].contains("block")),
            "{rows:#?}"
        );
    }
    // Once a run (its failing HEAD and the GET that confirms it), never for the code.
    assert_eq!(server.count("/gone"), 4);
    let out = csv_run_in(
        &repo,
        &["--include-verbatim", "--remap", &remap, "README.md"],
    );
    let rows = rows(&out);
    for link in [format!("{gone}?code"), format!("{gone}?block")] {
        assert_eq!(&row_named(&rows, &link)[6], "False", "{rows:#?}");
    }
    row_named(&rows, "http://www.example.test/block");
}

#[test]
fn include_wikilinks_finds_pages_by_name_and_checks_their_headings() {
    let repo = TempDir::new("repo-wikilinks");
    for dir in ["notes", "guides"] {
        fs::create_dir_all(repo.join(dir)).unwrap();
    }
    fs::write(
        repo.join("Index.md"),
        "# Index\n\n[[Setup]], [[Setup#Install steps]] and [[setup|the setup]].\n\n\
         [[guides/Deep]] [[Missing]] [[Setup#No such heading]] [[#Index]]\n\n![[diagram.png]]\n",
    )
    .unwrap();
    fs::write(repo.join("notes/Setup.md"), "# Setup\n\n## Install steps\n").unwrap();
    fs::write(repo.join("guides/Deep.md"), "# Deep\n").unwrap();
    fs::write(repo.join("diagram.png"), "png").unwrap();
    for threads in ["1", "8"] {
        let t = ["-t", threads, "--check-anchors"];
        let out = csv_run_in(&repo, &[&t[..], &["."]].concat());
        assert_exit(&out, 0);
        let written =
            |r: &csv::StringRecord| r[0].starts_with("notes/") || r[0].contains("Missing");
        let rows_before = rows(&out);
        assert!(
            !rows_before.iter().any(written),
            "text without the flag: {rows_before:#?}"
        );
        let out = csv_run_in(&repo, &[&t[..], &["--include-wikilinks", "."]].concat());
        assert_exit(&out, 1);
        let rows = rows(&out);
        let valid = |name: &str| row_named(&rows, name)[6].to_owned();
        // Found by name in another folder, linked relative to the page; the heading by its slug.
        assert_eq!(valid("notes/Setup.md"), "True", "-t {threads}: {rows:#?}");
        assert_eq!(rows.iter().filter(|r| &r[0] == "notes/Setup.md").count(), 2);
        assert_eq!(valid("notes/Setup.md#install-steps"), "True");
        assert_eq!(valid("guides/Deep.md"), "True");
        assert_eq!(valid("#index"), "True");
        assert_eq!(valid("diagram.png"), "True");
        assert_eq!(valid("Missing.md"), "False");
        assert_eq!(valid("notes/Setup.md#no-such-heading"), "False");
        assert_eq!(&row_named(&rows, "Missing.md")[8], "5", "its line");
    }
}

#[test]
fn include_verbatim_reads_bare_urls_in_html_pre_and_code() {
    let server = TestServer::start(Routes::new().page("/ok", "<p>ok</p>"));
    let repo = TempDir::new("repo-verbatim-html");
    let (pre, code, linked) = (
        server.url("/pre-gone"),
        server.url("/code-gone"),
        server.url("/ok"),
    );
    fs::write(
        repo.join("page.html"),
        format!(
            "<p>Run:</p>\n<pre>curl {pre}\n</pre>\n<p>or <code>GET {code}</code></p>\n\
             <pre><a href='{linked}'>{linked}</a></pre>\n"
        ),
    )
    .unwrap();
    for threads in ["1", "8"] {
        let out = csv_run_in(&repo, &["-t", threads, "page.html"]);
        assert_exit(&out, 0);
        let out = csv_run_in(&repo, &["-t", threads, "--include-verbatim", "page.html"]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        // Each bare URL at its own line; the one inside an `<a>` is that link, once.
        assert_eq!(&row_named(&rows, &pre)[6], "False", "{rows:#?}");
        assert_eq!(&row_named(&rows, &pre)[8], "2", "{rows:#?}");
        assert_eq!(&row_named(&rows, &code)[6], "False", "{rows:#?}");
        assert_eq!(&row_named(&rows, &code)[8], "4", "{rows:#?}");
        assert_eq!(
            rows.iter().filter(|r| r[0] == linked).count(),
            1,
            "{rows:#?}"
        );
    }
    assert_eq!(server.count("/pre-gone"), 4);
}

#[test]
fn ignore_comments_and_the_ignore_file_leave_links_out_and_count_them() {
    let server = TestServer::start(Routes::new().page("/ok", "<p>ok</p>"));
    let repo = TempDir::new("repo-ignore");
    let url = |p: &str| server.url(p);
    fs::write(
        repo.join("README.md"),
        format!(
            "<!-- linkpatrol-ignore -->\n[one]({}) [two]({})\n\n\
             <!-- linkpatrol-ignore-start -->\n[three]({}) {}\n<!-- linkpatrol-ignore-end -->\n\n\
             [ok]({}) [file]({})\n",
            url("/md-next"),
            url("/md-after"),
            url("/md-region"),
            url("/md-bare"),
            url("/ok"),
            url("/by-file/x"),
        ),
    )
    .unwrap();
    fs::write(
        repo.join("page.html"),
        format!(
            "<!-- linkpatrol-ignore --><a href='{}'>1</a><a href='{}'>2</a>\n\
             <!--linkpatrol-ignore-start--><img src='{}'><a href='{}'>4</a>\
             <!-- linkpatrol-ignore-end --><a href='{}'>5</a>\n",
            url("/html-next"),
            url("/html-after"),
            url("/html-region-img"),
            url("/html-region-a"),
            url("/ok"),
        ),
    )
    .unwrap();
    fs::write(
        repo.join(".linkpatrolignore"),
        "# links to the old server\n/by-file/\n(unclosed\n",
    )
    .unwrap();
    for threads in ["1", "8"] {
        server.clear_requests();
        let out = csv_run_in(&repo, &["-t", threads, "README.md", "page.html"]);
        let rows = rows(&out);
        let requested: Vec<String> = server
            .requests()
            .iter()
            .map(|r| r.path_only().to_owned())
            .collect();
        for ignored in [
            "/md-next",
            "/md-region",
            "/md-bare",
            "/by-file/x",
            "/html-next",
            "/html-region-img",
            "/html-region-a",
        ] {
            assert!(
                !requested.iter().any(|p| p == ignored),
                "{ignored}: {requested:?}"
            );
        }
        for checked in ["/md-after", "/html-after", "/ok"] {
            assert!(
                requested.iter().any(|p| p == checked),
                "{checked}: {requested:?}"
            );
        }
        assert!(
            rows.iter()
                .any(|r| &r[0] == url("/by-file/x").as_str() && r[3].contains(".linkpatrolignore"))
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("line 3: not a valid regex"), "{err}");
        // The summary counts them with their reason.
        let out = crate::support::util::cli_in(
            &repo,
            &[],
            &[
                "--no-config",
                "--no-status",
                "-t",
                threads,
                "README.md",
                "page.html",
            ],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("6 by a linkpatrol-ignore comment")
                && text.contains("1 by .linkpatrolignore"),
            "{text}"
        );
    }
}

/// An mdBook: book.toml (sources in `book/`), SUMMARY.md, chapters linking each other's
/// rendered `.html` pages and headings, one broken link and one missing heading.
fn mdbook(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join("book/sub")).unwrap();
    fs::write(
        dir.join("book.toml"),
        "[book]\ntitle = \"t\"\nsrc = \"book\"\n",
    )
    .unwrap();
    fs::write(
        dir.join("book/SUMMARY.md"),
        "# Summary\n\n[Intro](README.md)\n- [Ch1](ch1.md)\n- [Sub](sub/README.md)\n",
    )
    .unwrap();
    fs::write(
        dir.join("book/README.md"),
        "# Intro\n\n[tuple](ch1.html#the-tuple-type) [nope](ch1.html#nope) [gone](ch9.html)\n\
         [sub](sub/index.html)\n",
    )
    .unwrap();
    fs::write(
        dir.join("book/ch1.md"),
        "# Ch1\n\n## The Tuple Type\n\n[home](index.html) [intro](README.md#intro)\n",
    )
    .unwrap();
    fs::write(
        dir.join("book/sub/README.md"),
        "# Sub\n\n[up](../ch1.html#ch1)\n",
    )
    .unwrap();
    dir
}

#[test]
fn an_mdbook_is_checked_as_the_site_it_builds() {
    let dir = mdbook("repo-mdbook");
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "--check-anchors", "."]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        let broken: Vec<&str> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| r.get(0).unwrap())
            .collect();
        assert_eq!(broken, ["ch1.html#nope", "ch9.html"], "{rows:#?}");
        for good in [
            "ch1.html#the-tuple-type",
            "sub/index.html",
            "index.html",
            "../ch1.html#ch1",
        ] {
            assert_eq!(&row_named(&rows, good)[6], "True", "{good}");
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("read as an mdBook"), "{err}");
    }
}

/// An mdBook whose SUMMARY.md lists a chapter that does not exist, and a source it does not
/// list (a draft) that a chapter links to, with a broken link of its own; the chapter
/// includes a part (`{{#include}}`) with a broken link; the repository's README links to the
/// draft.
fn mdbook_with_gaps(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(dir.join("book.toml"), "[book]\ntitle = \"t\"\n").unwrap();
    fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [One](one.md)\n- [Two](two.md)\n- [Draft]()\n",
    )
    .unwrap();
    fs::write(dir.join("src/draft.md"), "# Draft\n\n[lost](lost.md)\n").unwrap();
    // Pulled into one.md by mdBook: read, its links checked.
    fs::write(
        dir.join("src/one.md"),
        "# One\n\n[draft page](draft.html) [draft source](draft.md#draft) [two](two.html)\n\n\
         {{#include part.md:2}}\n",
    )
    .unwrap();
    fs::write(dir.join("src/part.md"), "[missing](missing.md)\n").unwrap();
    // The repository's README is no page of the book: GitHub shows the draft it links to.
    fs::write(dir.join("README.md"), "[the draft](src/draft.md)\n").unwrap();
    fs::write(dir.join("src/image.png"), b"png").unwrap();
    dir
}

#[test]
fn an_mdbook_has_the_pages_its_summary_lists_and_says_so_in_the_summary() {
    let dir = mdbook_with_gaps("repo-mdbook-summary");
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "--check-anchors", "."]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        let mut broken: Vec<(String, String)> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| (r[0].to_owned(), r[3].to_owned()))
            .collect();
        broken.sort();
        let names: Vec<&str> = broken.iter().map(|(n, _)| n.as_str()).collect();
        // two.md is listed and missing: broken in SUMMARY.md and from one.md. The draft is a
        // source mdBook does not render: broken from one.md, and its own link is not checked.
        assert_eq!(
            names,
            [
                "draft.html",
                "draft.md#draft",
                "missing.md",
                "two.html",
                "two.md"
            ],
            "{rows:#?}"
        );
        for (name, result) in &broken[..2] {
            assert!(
                result.contains("not in SUMMARY.md, so mdBook does not render it"),
                "{name}: {result}"
            );
        }
        assert_eq!(&row_named(&rows, "src/draft.md")[6], "True", "{rows:#?}");
        // The included part's broken link (missing.md) is found; the draft's is not.
        assert!(!rows.iter().any(|r| &r[0] == "lost.md"), "{rows:#?}");
    }
    // The summaries say the folder was read as an mdBook, with its chapters.
    let out = crate::support::util::cli_in(&dir, &[], &["--no-config", "--no-status", "."]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Read as an mdBook: `./src' (a link to page.html is page.md")
            && text.contains("its pages are the 3 files SUMMARY.md lists or includes"),
        "{text}"
    );
    let out = crate::support::util::cli_in(
        &dir,
        &[],
        &["--no-config", "--no-status", "-o", "json", "."],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["summary"]["mdbooks"],
        serde_json::json!([{"src": "./src", "chapters": 3}]),
        "{json}"
    );
}

#[test]
fn fallback_extensions_try_each_extension_in_turn() {
    let dir = TempDir::new("repo-fallback");
    fs::write(dir.join("a.md"), "# A\n\n## Part\n").unwrap();
    fs::write(dir.join("b.html"), "<h1 id='top'>b</h1>").unwrap();
    fs::write(
        dir.join("index.md"),
        "[a](a.html#part) [b](b) [gone](c.html)\n",
    )
    .unwrap();
    let out = csv_run_in(&dir, &["--check-anchors", "index.md"]);
    let before = rows(&out);
    assert_eq!(
        &row_named(&before, "a.html#part")[6],
        "False",
        "no fallback yet"
    );
    let out = csv_run_in(
        &dir,
        &[
            "--check-anchors",
            "--fallback-extensions",
            "md,html",
            "index.md",
        ],
    );
    assert_exit(&out, 1);
    let rows = rows(&out);
    assert_eq!(&row_named(&rows, "a.html#part")[6], "True", "{rows:#?}");
    assert_eq!(&row_named(&rows, "b")[6], "True");
    assert_eq!(&row_named(&rows, "c.html")[6], "False");
}

#[test]
fn an_mdbook_source_folder_out_of_the_checkout_is_not_read() {
    let root = TempDir::new("repo-mdbook-out");
    let repo = root.join("repo");
    fs::create_dir_all(root.join("private")).unwrap();
    fs::create_dir_all(&repo).unwrap();
    fs::write(root.join("private/secret.md"), "[s](gone.md)\n").unwrap();
    fs::write(repo.join("README.md"), "# r\n").unwrap();
    std::os::unix::fs::symlink(root.join("private"), repo.join("src")).unwrap();
    fs::write(repo.join("book.toml"), "[book]\ntitle = \"t\"\n").unwrap();
    let out = csv_run_in(&repo, &["."]);
    assert_exit(&out, 0);
    let (_, starts) = pages_and_starts(&rows(&out));
    assert_eq!(starts, ["README.md"]);
    fs::write(repo.join("book.toml"), "[book]\nsrc = \"../private\"\n").unwrap();
    let out = csv_run_in(&repo, &["."]);
    assert_eq!(pages_and_starts(&rows(&out)).1, ["README.md"]);
}

/// Runs `git ARGS` in `dir` as a test user, without the machine's git configuration.
pub(crate) fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t.test",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[test]
fn changed_since_rechecks_the_links_into_a_changed_pages_anchors() {
    let repo = TempDir::new("repo-changed-heading");
    fs::create_dir_all(repo.join("docs")).unwrap();
    fs::write(repo.join("docs/guide.md"), "# Guide\n\n## Setup\n").unwrap();
    fs::write(repo.join("index.md"), "[setup](docs/guide.md#setup)\n").unwrap();
    fs::write(repo.join("built.md"), "[setup](docs/guide.html#setup)\n").unwrap();
    fs::write(repo.join("plain.md"), "[guide](docs/guide.md)\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    // The heading is renamed, not committed.
    fs::write(repo.join("docs/guide.md"), "# Guide\n\n## Installation\n").unwrap();
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &repo,
            &[
                "-t",
                threads,
                "--check-anchors",
                "--fallback-extensions",
                "md",
                "--changed-since",
                "HEAD",
            ],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        let (_, starts) = pages_and_starts(&rows);
        assert_eq!(starts, ["built.md", "guide.md", "index.md"], "{rows:#?}");
        let mut broken: Vec<String> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| r[0].to_owned())
            .collect();
        broken.sort();
        assert_eq!(
            broken,
            ["docs/guide.html#setup", "docs/guide.md#setup"],
            "{rows:#?}"
        );
    }
}

#[test]
fn changed_since_checks_what_a_change_touches_and_nothing_else() {
    let repo = TempDir::new("repo-changed");
    fs::create_dir_all(repo.join("docs")).unwrap();
    fs::write(repo.join("docs/guide.md"), "# Guide\n").unwrap();
    fs::write(
        repo.join("index.md"),
        "[guide](docs/guide.md) [same](same.md)\n",
    )
    .unwrap();
    fs::write(repo.join("docs/other.md"), "[guide](guide.html)\n").unwrap();
    fs::write(repo.join("same.md"), "[broken but untouched](nowhere.md)\n").unwrap();
    fs::write(repo.join("untouched.md"), "[fine](same.md)\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    git(&repo, &["mv", "docs/guide.md", "docs/handbook.md"]);
    fs::write(repo.join("new.md"), "[bad](missing.md) [ok](index.md)\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "rename and add"]);
    let out = csv_run_in(
        &repo,
        &["--changed-since", "HEAD~1", "--fallback-extensions", "md"],
    );
    assert_exit(&out, 1);
    let rows = rows(&out);
    let (links, starts) = pages_and_starts(&rows);
    assert_eq!(
        starts,
        ["handbook.md", "index.md", "new.md", "other.md"],
        "{rows:#?}"
    );
    let mut broken: Vec<(String, String)> = rows
        .iter()
        .filter(|r| &r[6] == "False")
        .map(|r| (r[1].rsplit('/').next().unwrap().to_owned(), r[0].to_owned()))
        .collect();
    broken.sort();
    assert_eq!(
        broken,
        [
            ("index.md".to_owned(), "docs/guide.md".to_owned()),
            ("new.md".to_owned(), "missing.md".to_owned()),
            ("other.md".to_owned(), "guide.html".to_owned()),
        ]
    );
    // same.md is linked, so checked to exist, but not read: its broken link is not reported.
    assert!(
        !links
            .iter()
            .any(|(page, _)| page == "same.md" || page == "untouched.md")
    );
    // Outside a git checkout: one clear error.
    let plain = TempDir::new("repo-changed-no-git");
    let out = csv_run_in(&plain, &["--changed-since", "HEAD"]);
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a git checkout"));
}
