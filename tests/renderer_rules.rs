//! A repository checked as its renderer shows it: a missing file is found under another
//! extension only where the renderer swaps it (`.html` → `.md` in an mdBook, a fallback
//! extension for a name with no extension or `.html`); a reference whose label is defined
//! nowhere is a broken link.

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
