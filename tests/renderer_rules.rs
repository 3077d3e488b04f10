//! A repository checked as its renderer shows it: a missing file is found under another
//! extension only where the renderer swaps it (`.html` → `.md` in an mdBook, a fallback
//! extension for a name with no extension or `.html`); a reference whose label is defined
//! nowhere is a broken link; a missing file names its closest sibling; a fragment in another case than its anchor is valid only where
//! GitHub shows the file, and an anchor error names the closest anchors.

use std::fs;

use crate::support::util::{TempDir, assert_exit, csv_run_in, row_named, rows};

/// The links written on rows with `valid` `False`, sorted.
fn broken(rows: &[csv::StringRecord]) -> Vec<String> {
    let mut names: Vec<String> = rows
        .iter()
        .filter(|r| &r[6] == "False")
        .map(|r| r[0].to_owned())
        .collect();
    names.sort();
    names
}

/// An mdBook (`src/intro.md`, `src/items/enumerations.md`) whose intro links to its chapters'
/// rendered pages, and to names that only share a stem with a source.
fn book_with_stems(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join("src/items")).unwrap();
    fs::write(dir.join("book.toml"), "[book]\ntitle = \"t\"\n").unwrap();
    fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [Intro](intro.md)\n- [Enums](items/enumerations.md)\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/intro.md"),
        "# Intro\n\n[page](items/enumerations.html) [png](intro.png) [pdf](intro.pdf)\n\
         [txt](intro.txt)\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/items/enumerations.md"),
        "# Enumerations\n\n[typo](../items/enumerations.mdr) [up](../intro.html)\n",
    )
    .unwrap();
    dir
}

#[test]
fn an_mdbook_swaps_only_html_for_md() {
    let dir = book_with_stems("render-book-stems");
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "."]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        assert_eq!(
            broken(&rows),
            [
                "../items/enumerations.mdr",
                "intro.pdf",
                "intro.png",
                "intro.txt"
            ],
            "{rows:#?}"
        );
        for good in ["items/enumerations.html", "../intro.html"] {
            assert_eq!(&row_named(&rows, good)[6], "True", "{good}: {rows:#?}");
        }
        // A missing file names its closest sibling.
        let typo = row_named(&rows, "../items/enumerations.mdr");
        assert!(
            typo[3].ends_with("did you mean `enumerations.md'?"),
            "{typo:?}"
        );
    }
}

#[test]
fn a_fallback_extension_is_tried_only_without_an_extension_or_for_html() {
    let dir = TempDir::new("render-fallback-stems");
    fs::write(dir.join("a.md"), "# A\n").unwrap();
    fs::write(
        dir.join("index.md"),
        "[bare](a) [page](a.html) [png](a.png) [typo](a.mdr)\n",
    )
    .unwrap();
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &dir,
            &["-t", threads, "--fallback-extensions", "md", "index.md"],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        assert_eq!(broken(&rows), ["a.mdr", "a.png"], "{rows:#?}");
    }
}

#[test]
fn a_reference_to_an_undefined_label_is_an_error_at_its_line() {
    let dir = TempDir::new("render-undefined-labels");
    fs::write(
        dir.join("README.md"),
        "# Readme\n\nSee [the guide][guide] and [Setup][].\n\
         A [shortcut] note, a[i][j] and [the docs][docs].\n\n\
         `[in][code]`\n\n```\n[in][block]\n```\n\n[docs]: ./README.md\n",
    )
    .unwrap();
    fs::write(dir.join("other.md"), "[again][guide]\n").unwrap();
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "."]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        let mut bad: Vec<(String, String, String)> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| {
                let page = r[1].rsplit('/').next().unwrap_or("").to_owned();
                (page, r[0].to_owned(), r[8].to_owned())
            })
            .collect();
        bad.sort();
        let want = [
            ("README.md", "[Setup]", "3"),
            ("README.md", "[guide]", "3"),
            ("other.md", "[guide]", "1"),
        ]
        .map(|(p, v, l)| (p.to_owned(), v.to_owned(), l.to_owned()));
        assert_eq!(bad, want, "{rows:#?}");
        let guide = row_named(&rows, "[guide]");
        assert!(guide[3].contains("undefined-reference"), "{guide:?}");
        assert_eq!(&row_named(&rows, "./README.md")[6], "True");
    }
}

/// GFM's extended autolinks make a bare `mailto:` or `xmpp:` address a link, as GitHub shows
/// it: the mail address is checked (a bad one is an error), the `xmpp:` one listed.
#[test]
fn bare_mailto_and_xmpp_addresses_in_markdown_are_links() {
    let dir = TempDir::new("render-bare-mailto");
    fs::write(
        dir.join("README.md"),
        "# Readme\n\nWrite to mailto:team@example.com or mailto:x..y@example.com, \
         chat at xmpp:team@example.com/web.\n",
    )
    .unwrap();
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "."]);
        let rows = rows(&out);
        let url = |u: &str| rows.iter().find(|r| &r[0] == u).cloned();
        assert_eq!(
            url("mailto:team@example.com")
                .map(|r| r[6].to_owned())
                .as_deref(),
            Some("True"),
            "-t {threads}: {rows:#?}"
        );
        assert!(
            url("mailto:x..y@example.com").is_some_and(|r| &r[6] == "False"),
            "{rows:#?}"
        );
        assert!(url("xmpp:team@example.com/web").is_some(), "{rows:#?}");
        assert_exit(&out, 1);
    }
}

/// CommonMark allows no link inside a link: `[outer [inner][label]](gone.md)` is a link to
/// `gone.md` whose text holds `[inner][label]` as text, not an undefined reference.
#[test]
fn a_reference_inside_a_links_text_is_text() {
    let dir = TempDir::new("render-nested-reference");
    fs::write(
        dir.join("README.md"),
        "# Readme\n\nSee [outer [inner][label] text](gone.md) and [ok [x][y]](README.md).\n",
    )
    .unwrap();
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "."]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        let bad: Vec<String> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| r[0].to_owned())
            .collect();
        assert_eq!(bad, ["gone.md"], "-t {threads}: {rows:#?}");
    }
}

/// A repository with a Markdown guide (headings `setup`, `the-tuple-type`), an HTML page
/// (id `Intro`), and an mdBook in `book/` whose chapter has the heading `the-tuple-type`.
fn repo_with_cased_fragments(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join("book/src")).unwrap();
    fs::write(
        dir.join("guide.md"),
        "# Guide\n\n## Setup\n\n## The Tuple Type\n",
    )
    .unwrap();
    fs::write(dir.join("page.html"), "<h1 id='Intro'>Intro</h1>").unwrap();
    fs::write(
        dir.join("README.md"),
        "[case](guide.md#Setup) [exact](guide.md#setup) [html](page.html#intro)\n\
         [typo](guide.md#the-tupel-type) [chapter](book/src/ch1.md#The-Tuple-Type)\n",
    )
    .unwrap();
    fs::write(dir.join("book/book.toml"), "[book]\ntitle = \"t\"\n").unwrap();
    fs::write(
        dir.join("book/src/SUMMARY.md"),
        "# Summary\n\n- [Ch1](ch1.md)\n",
    )
    .unwrap();
    fs::write(
        dir.join("book/src/ch1.md"),
        "# Ch1\n\n## The Tuple Type\n\n[in book](ch1.html#The-Tuple-Type)\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_fragment_in_another_case_is_valid_only_where_github_shows_the_file() {
    let dir = repo_with_cased_fragments("render-anchor-case");
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "--check-anchors", "."]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        assert_eq!(
            broken(&rows),
            [
                "ch1.html#The-Tuple-Type",
                "guide.md#the-tupel-type",
                "page.html#intro"
            ],
            "{rows:#?}"
        );
        for (name, id) in [
            ("guide.md#Setup", "setup"),
            ("book/src/ch1.md#The-Tuple-Type", "the-tuple-type"),
        ] {
            let row = row_named(&rows, name);
            assert_eq!(&row[6], "True", "{row:?}");
            assert!(
                row[4].starts_with("[anchor-case]") && row[4].contains(&format!("`{id}'")),
                "GitHub finds it, with a warning naming the id: {row:?}"
            );
        }
        assert!(row_named(&rows, "guide.md#setup")[4].is_empty());
        // Errors name the anchor meant.
        for (name, id) in [
            ("ch1.html#The-Tuple-Type", "the-tuple-type"),
            ("page.html#intro", "Intro"),
            ("guide.md#the-tupel-type", "the-tuple-type"),
        ] {
            let row = row_named(&rows, name);
            assert!(
                row[3].contains(&format!("Did you mean `{id}'?")),
                "{name}: {row:?}"
            );
        }
    }
}

/// An mdBook whose book.toml redirects old pages (`[output.html.redirect]`): into the book,
/// in a chain, in a circle, to nowhere, and off the book; its intro links to each.
fn book_with_redirects(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(
        dir.join("book.toml"),
        "[book]\ntitle = \"t\"\n\n[output.html.redirect]\n\"old.html\" = \"new.html\"\n\
         \"/inner/older.html\" = \"../old.html\"\n\"gone.html\" = \"nowhere.html\"\n\
         \"away.html\" = \"https://example.invalid/x\"\n\"up.html\" = \"../../secret.md\"\n\"loop.html\" = \"./loop.html\"\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [Intro](intro.md)\n- [New](new.md)\n",
    )
    .unwrap();
    fs::write(dir.join("src/new.md"), "# New\n\n## Section\n").unwrap();
    fs::write(
        dir.join("src/intro.md"),
        "# Intro\n\n[a](old.html) [b](old.html#section) [c](old.html#nope)\n\
         [d](inner/older.html#section) [e](gone.html) [f](away.html) [g](never.html)\n\
         [h](up.html) [i](loop.html)\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_page_an_mdbook_redirects_is_as_good_as_its_target() {
    let dir = book_with_redirects("render-book-redirects");
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "--check-anchors", "."]);
        assert_exit(&out, 1);
        let rows = rows(&out);
        assert_eq!(
            broken(&rows),
            ["gone.html", "loop.html", "never.html", "old.html#nope"],
            "{rows:#?}"
        );
        for good in ["old.html", "old.html#section", "inner/older.html#section"] {
            assert_eq!(&row_named(&rows, good)[6], "True", "{good}: {rows:#?}");
        }
        // A target that is missing is named; one off the book is not followed.
        let gone = row_named(&rows, "gone.html");
        assert!(gone[3].contains("redirected by book.toml"), "{gone:?}");
        let circle = row_named(&rows, "loop.html");
        assert!(circle[3].contains("redirects in a row"), "{circle:?}");
        for away in ["away.html", "up.html"] {
            let row = row_named(&rows, away);
            assert!(row[3].contains("outside the book: not checked"), "{row:?}");
        }
    }
}
