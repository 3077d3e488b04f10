//! A folder check reads only the folders it was given: links that leave them — `../`, an
//! encoded `..%2F`, `--base-url` with `..%2F`, a symbolic link pointing out — are checked for
//! existence only (`outside-root`), never read, parsed or listed; `--follow-outside-root`
//! reads them again.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::server::{Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, csv_run_in, rows};

/// `root/docs/` (the folder checked) beside `root/private/notes.md`, whose one link goes to
/// `server`'s `/secret-link`: any request there means the private file was parsed.
fn layout(name: &str, server: &TestServer, docs_index: &str) -> (TempDir, PathBuf) {
    let root = TempDir::new(name);
    let docs = root.join("docs");
    fs::create_dir_all(&docs).unwrap();
    fs::create_dir_all(root.join("private")).unwrap();
    fs::write(
        root.join("private/notes.md"),
        format!(
            "# notes\n\n[PRIVATE LINK TEXT]({})\n",
            server.url("/secret-link")
        ),
    )
    .unwrap();
    fs::write(docs.join("index.html"), docs_index).unwrap();
    (root, docs)
}

fn check(dir: &Path, extra: &[&str]) -> std::process::Output {
    let docs = dir.to_str().unwrap();
    let mut args = vec![docs];
    args.extend_from_slice(extra);
    csv_run_in(dir, &args)
}

fn server() -> TestServer {
    TestServer::start(Routes::new().page("/secret-link", "<p>secret</p>"))
}

#[test]
fn an_encoded_dot_dot_link_is_checked_for_existence_only() {
    let server = server();
    let (_root, docs) = layout(
        "scope-encoded",
        &server,
        "<a href='..%2F..%2Fprivate%2Fnotes.md'>up</a>\
         <a href='..%2Fprivate%2Fnotes.md'>up2</a>\
         <a href='..%2F..%2F..%2F..%2F..%2F..%2Fetc%2F'>etc</a>",
    );
    let out = check(&docs, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        server.count("/secret-link"),
        0,
        "the private file was parsed"
    );
    assert!(!text.contains("PRIVATE LINK TEXT"), "{text}");
    assert!(!text.contains("passwd"), "/etc was listed: {text}");
    let rows = rows(&out);
    for link in [
        "..%2Fprivate%2Fnotes.md",
        "..%2F..%2F..%2F..%2F..%2F..%2Fetc%2F",
    ] {
        let row = rows.iter().find(|r| &r[0] == link).unwrap();
        assert!(row[4].contains("outside-root"), "{link}: {row:?}");
        assert_eq!(&row[6], "True", "it exists: {row:?}");
    }
    // The one two levels up does not exist (it leaves the temp folder's parent): still an
    // existence check.
    let missing = rows
        .iter()
        .find(|r| &r[0] == "..%2F..%2Fprivate%2Fnotes.md")
        .unwrap();
    assert_eq!(&missing[6], "False", "{missing:?}");
    assert_exit(&out, 1);
}

#[test]
fn a_plain_dot_dot_link_and_a_symbolic_link_out_are_not_read() {
    let server = server();
    let (root, docs) = layout(
        "scope-plain",
        &server,
        "<a href='../private/notes.md'>up</a><a href='inside.md'>in</a><a href='sub/'>sub</a>",
    );
    std::os::unix::fs::symlink(root.join("private/notes.md"), docs.join("inside.md")).unwrap();
    std::os::unix::fs::symlink(root.join("private"), docs.join("sub")).unwrap();
    let out = check(&docs, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(server.count("/secret-link"), 0, "{text}");
    assert!(!text.contains("PRIVATE LINK TEXT"), "{text}");
    let rows = rows(&out);
    for link in ["../private/notes.md", "inside.md", "sub/"] {
        let row = rows.iter().find(|r| &r[0] == link).unwrap();
        assert!(row[4].contains("outside-root"), "{link}: {row:?}");
        assert_eq!(&row[6], "True", "{row:?}");
    }
    assert_exit(&out, 0);
}

#[test]
fn the_base_url_cannot_lead_out_of_the_folder() {
    let server = server();
    let (_root, docs) = layout(
        "scope-base-url",
        &server,
        "<a href='https://example.org/..%2Fprivate%2Fnotes.md'>up</a>",
    );
    let out = check(
        &docs,
        &["--base-url", "https://example.org/", "--internal-only"],
    );
    assert_eq!(server.count("/secret-link"), 0);
    let rows = rows(&out);
    let row = rows
        .iter()
        .find(|r| r[0].contains("..%2Fprivate"))
        .unwrap_or_else(|| panic!("{rows:#?}"));
    assert!(row[4].contains("outside-root"), "{row:?}");
}

#[test]
fn follow_outside_root_reads_them_as_before() {
    let server = server();
    let (_root, docs) = layout(
        "scope-follow",
        &server,
        "<a href='..%2Fprivate%2Fnotes.md'>up</a>",
    );
    let out = check(&docs, &["--follow-outside-root"]);
    assert_eq!(
        server.count("/secret-link"),
        1,
        "parsed and its link checked"
    );
    let rows = rows(&out);
    assert!(
        rows.iter().all(|r| !r[4].contains("outside-root")),
        "{rows:#?}"
    );
    assert!(
        rows.iter().any(|r| &r[10] == "PRIVATE LINK TEXT"),
        "{rows:#?}"
    );
}

#[test]
fn an_outside_folder_is_only_outside_whether_or_not_it_has_an_index() {
    let server = server();
    let (root, docs) = layout(
        "scope-outside-index",
        &server,
        "<a href='../with-index/'>a</a> <a href='../without-index/'>b</a>\
         <a href='../with-index'>c</a> <a href='../without-index'>d</a>",
    );
    fs::create_dir_all(root.join("with-index")).unwrap();
    fs::write(root.join("with-index/index.html"), "<p>hi</p>").unwrap();
    fs::create_dir_all(root.join("without-index")).unwrap();
    let out = check(&docs, &[]);
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("file-no-index"), "{text}");
    assert!(!text.contains("without index.html"), "{text}");
    // The rows of the two folders tell the same: outside the folder, nothing more.
    let rows = rows(&out);
    let told = |name: &str| -> Vec<String> {
        rows.iter()
            .filter(|r| r.get(0).is_some_and(|u| u.contains(name)))
            .map(|r| format!("{} | {}", &r[4], &r[5]))
            .collect()
    };
    let (with, without) = (told("with-index"), told("without-index"));
    assert_eq!(with.len(), 2, "{text}");
    assert!(
        with.iter()
            .all(|w| w.contains("outside the checked folder")),
        "{with:?}"
    );
    assert_eq!(with, without);
}
