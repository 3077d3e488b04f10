//! A repository's Markdown and HTML as inputs, as a pre-commit hook or a CI job checks them:
//! `../` links under `--internal-only`.

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
