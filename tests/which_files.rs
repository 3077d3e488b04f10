//! Which local files are read, as lychee users expect: `--extensions` for folder and glob
//! walks, a file named as an input read whatever its extension, `--default-extension` for
//! files without one, `--glob-ignore-case`, `--index-files` for folder links, and a page named
//! through a symbolic link read where it is named.

use std::fs;
use std::path::Path;

use crate::support::server::{Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, assert_exit, cli_in, csv_run_in, rows};

/// One CSV row, by column: 0 urlname, 1 parentname, 3 result, 4 warningstring, 6 valid.
type Row = csv::StringRecord;

/// The row of the link written `urlname` on the page whose URL ends with `parent_end`.
fn row<'a>(rows: &'a [Row], urlname: &str, parent_end: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| &r[0] == urlname && r[1].ends_with(parent_end))
}

/// The pages (parent URLs) some row was found on, each once, sorted by their file names.
fn pages(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = rows
        .iter()
        .filter(|r| !r[1].is_empty())
        .map(|r| r[1].rsplit('/').next().unwrap_or("").to_owned())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn extensions_choose_the_files_of_folder_and_glob_walks() {
    let dir = TempDir::new("which-extensions");
    write(&dir.join("site/a.md"), "[gone](gone-a.md)\n");
    write(&dir.join("site/b.html"), "<a href='gone-b.html'>b</a>");
    write(&dir.join("site/c.HTM"), "<a href='gone-c.html'>c</a>");
    for threads in ["1", "8"] {
        // A folder stands for its Markdown files, as before.
        let out = csv_run_in(&dir, &["-t", threads, "site"]);
        assert_exit(&out, 1);
        assert_eq!(pages(&rows(&out)), ["a.md"]);
        // --extensions chooses them instead, without case.
        let out = csv_run_in(&dir, &["-t", threads, "--extensions", "html,htm", "site"]);
        assert_exit(&out, 1);
        assert_eq!(pages(&rows(&out)), ["b.html", "c.HTM"]);
        // A glob matches every file, as before; with --extensions only those.
        let out = csv_run_in(&dir, &["-t", threads, "site/*"]);
        assert_exit(&out, 1);
        assert_eq!(pages(&rows(&out)), ["a.md", "b.html", "c.HTM"]);
        let out = csv_run_in(&dir, &["-t", threads, "--extensions", ".md", "site/*"]);
        assert_exit(&out, 1);
        assert_eq!(pages(&rows(&out)), ["a.md"]);
    }
}

#[test]
fn a_named_file_is_read_whatever_its_extension() {
    let server = TestServer::start(
        Routes::new()
            .page("/from-log", "fine")
            .page("/from-notes", "fine"),
    );
    let dir = TempDir::new("which-named");
    write(
        &dir.join("build.log"),
        &format!("fetched {} at noon\n", server.url("/from-log")),
    );
    write(
        &dir.join("NOTES"),
        &format!("see {}\n", server.url("/from-notes")),
    );
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "build.log", "NOTES"]);
        assert_exit(&out, 0);
        let r = rows(&out);
        let log = row(&r, &server.url("/from-log"), "build.log").expect("build.log read");
        let notes = row(&r, &server.url("/from-notes"), "NOTES").expect("NOTES read");
        assert_eq!((&log[6], &notes[6]), ("True", "True"));
    }
    assert_eq!(server.count("/from-log"), 2);
    assert_eq!(server.count("/from-notes"), 2);
}

#[test]
fn default_extension_reads_files_without_one() {
    let dir = TempDir::new("which-default-extension");
    write(&dir.join("docs/intro"), "# Intro\n\n[next](missing.md)\n");
    write(&dir.join("page"), "<a href='gone.html'>gone</a>\n");
    for threads in ["1", "8"] {
        // Walked: a file without an extension counts as Markdown with `md`.
        let out = csv_run_in(&dir, &["-t", threads, "--default-extension", "md", "docs"]);
        assert_exit(&out, 1);
        let r = rows(&out);
        assert_eq!(
            &row(&r, "missing.md", "docs/intro").expect("intro read")[6],
            "False"
        );
        // Named: read as HTML with `html` (as plain text, its link would not be found).
        let out = csv_run_in(
            &dir,
            &["-t", threads, "--default-extension", "html", "page"],
        );
        assert_exit(&out, 1);
        let r = rows(&out);
        assert_eq!(
            &row(&r, "gone.html", "/page").expect("page read as HTML")[6],
            "False"
        );
    }
}

#[test]
fn glob_ignore_case_matches_names_in_any_case() {
    let dir = TempDir::new("which-glob-case");
    write(&dir.join("docs/GUIDE.MD"), "[gone](gone.md)\n");
    for threads in ["1", "8"] {
        let out = csv_run_in(&dir, &["-t", threads, "docs/*.md"]);
        assert_exit(&out, 2);
        let out = csv_run_in(&dir, &["-t", threads, "--glob-ignore-case", "docs/*.md"]);
        assert_exit(&out, 1);
        assert_eq!(pages(&rows(&out)), ["GUIDE.MD"]);
    }
}

#[test]
fn index_files_choose_what_a_folder_link_stands_for() {
    let dir = TempDir::new("which-index-files");
    write(
        &dir.join("site/index.html"),
        "<a href='readme/'>r</a> <a href='bare/'>b</a>",
    );
    write(&dir.join("site/readme/README.md"), "[gone](gone.md)\n");
    fs::create_dir_all(dir.join("site/bare")).unwrap();
    let index = dir.join("site/index.html");
    let index = index.to_str().unwrap();
    for threads in ["1", "8"] {
        let run = |names: Option<&str>| {
            let mut args = vec!["-t", threads, index];
            if let Some(n) = names {
                args.extend(["--index-files", n]);
            }
            let out = csv_run_in(&dir, &args);
            let r = rows(&out);
            let valid = |link: &str| row(&r, link, "index.html").expect(link)[6].to_owned();
            let readme_read = row(&r, "gone.md", "README.md").is_some();
            (valid("readme/"), valid("bare/"), readme_read)
        };
        let t = || "True".to_owned();
        let f = || "False".to_owned();
        // Today's rule: index.html, else the folder's listing (whose pages are read).
        assert_eq!(run(None), (t(), t(), true));
        assert_eq!(run(Some("README.md")), (t(), f(), true));
        assert_eq!(run(Some("README.md,.")), (t(), t(), true));
        // None: a link must name a file, as lychee's `--index-files ''`.
        assert_eq!(run(Some("")), (f(), f(), false));
    }
    // The warning on a link to a folder listed names the index files asked for.
    for (names, said) in [
        (None, "without index.html:"),
        (Some("README.md,."), "without README.md:"),
    ] {
        let mut args = vec!["-v", index];
        if let Some(n) = names {
            args.extend(["--index-files", n]);
        }
        let out = csv_run_in(&dir, &args);
        let r = rows(&out);
        let warning = &row(&r, "bare/", "index.html").expect("bare/")[4];
        assert!(warning.contains(said), "{names:?}: {warning}");
    }
    // A folder given as input is still a local site started at its index.html.
    for names in ["README.md", ""] {
        let out = csv_run_in(&dir, &["--index-files", names, "site"]);
        let r = rows(&out);
        assert!(row(&r, "bare/", "index.html").is_some(), "{names}: {r:#?}");
    }
    // In the config file an empty list is no names too, not the default.
    write(&dir.join("none.toml"), "index-files = []\n");
    let mut args = vec!["-c", "none.toml"];
    args.extend(CSV_FLAGS);
    args.push(index);
    let out = cli_in(&dir, &[], &args);
    assert_exit(&out, 1);
    let r = rows(&out);
    assert_eq!(&row(&r, "bare/", "index.html").expect("bare/")[6], "False");
    // A name is a file name, never a path.
    let out = csv_run_in(&dir, &["--index-files", "../x", index]);
    assert_exit(&out, 2);
}

/// `root/link.md` leads to `elsewhere/real.md`: its links resolve in `root`, where it is
/// named (so `/`, relative links and `--remap` rules written for `root` work), and only the
/// file it leads to is read, not its folder.
#[cfg(unix)]
#[test]
fn a_page_named_through_a_symbolic_link_is_read_where_it_is_named() {
    let dir = TempDir::new("which-symlink");
    write(
        &dir.join("elsewhere/real.md"),
        "[a](/target.md) [b](sibling.md) [c](../elsewhere/other.md) [d](old.md)\n",
    );
    write(&dir.join("elsewhere/other.md"), "[z](zzz.md)\n");
    write(&dir.join("root/target.md"), "t\n");
    write(&dir.join("root/sibling.md"), "s\n");
    std::os::unix::fs::symlink("../elsewhere/real.md", dir.join("root/link.md")).unwrap();
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &dir,
            &[
                "-t",
                threads,
                "--root-dir",
                "root",
                "--remap",
                "/root/old\\.md$ /root/sibling.md",
                "root/link.md",
            ],
        );
        assert_exit(&out, 0);
        let r = rows(&out);
        assert_eq!(&row(&r, "old.md", "root/link.md").expect("d")[6], "True");
        assert_eq!(
            &row(&r, "/target.md", "root/link.md").expect("a")[6],
            "True"
        );
        assert_eq!(
            &row(&r, "sibling.md", "root/link.md").expect("b")[6],
            "True"
        );
        // The folder the link leads into is no checked folder: other.md exists, unread.
        let other = row(&r, "../elsewhere/other.md", "root/link.md").expect("c");
        assert!(other[4].contains("outside-root"), "{other:?}");
        assert!(row(&r, "zzz.md", "other.md").is_none(), "{r:#?}");
    }
}
