//! `--changed-since` in an untrusted checkout: none of the checkout's git configuration runs,
//! a changed file that leads out of the checkout is not read, and a changed file whose name
//! is not UTF-8 is checked.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;

use crate::repository::git;
use crate::support::util::{TempDir, assert_exit, csv_run_in, rows};

/// A git checkout `repo` with `a.md` committed, then `changes` made and committed (`HEAD~1`
/// is before them).
fn checkout(name: &str, changes: impl FnOnce(&std::path::Path)) -> TempDir {
    let dir = TempDir::new(name);
    let repo = dir.join("repo");
    fs::create_dir_all(&repo).unwrap();
    fs::write(repo.join("a.md"), "# A\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    changes(&repo);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "second"]);
    dir
}

#[test]
fn the_checkouts_git_configuration_runs_nothing() {
    let dir = checkout("changed-git-config", |repo| {
        fs::write(repo.join(".gitattributes"), "*.md filter=evil\n").unwrap();
        fs::write(repo.join("b.md"), "[a](a.md)\n").unwrap();
    });
    let repo = dir.join("repo");
    // A script that leaves a marker named after how it was called, then passes its input on.
    let script = dir.join("hook.sh");
    fs::write(
        &script,
        format!("#!/bin/sh\ntouch '{}/ran-'\"$1\"\ncat\n", dir.display()),
    )
    .unwrap();
    fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let hook = script.display().to_string();
    git(&repo, &["config", "core.fsmonitor", &hook]);
    git(
        &repo,
        &["config", "filter.evil.clean", &format!("{hook} clean")],
    );
    git(
        &repo,
        &["config", "filter.evil.process", &format!("{hook} process")],
    );
    git(&repo, &["config", "diff.external", &format!("{hook} diff")]);
    // A change in the working tree, which git compares through the filter.
    fs::write(repo.join("a.md"), "# A\n\nchanged\n").unwrap();
    let out = csv_run_in(&repo, &["--changed-since", "HEAD~1"]);
    assert_exit(&out, 0);
    let ran: Vec<_> = fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.as_bytes().starts_with(b"ran-"))
        .collect();
    assert!(
        ran.is_empty(),
        "the checkout's git configuration ran: {ran:?}"
    );
    let starts: Vec<String> = rows(&out)
        .iter()
        .filter(|r| r[1].is_empty())
        .map(|r| r[0].rsplit('/').next().unwrap().to_owned())
        .collect();
    assert_eq!(starts, ["a.md", "b.md"]);
}

#[test]
fn a_changed_file_that_leads_out_of_the_checkout_is_not_read() {
    let dir = checkout("changed-link-out", |repo| {
        let outside = repo.parent().unwrap().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.md"), "[private](nowhere.md)\n").unwrap();
        std::os::unix::fs::symlink("../outside/secret.md", repo.join("leak.md")).unwrap();
        fs::write(repo.join("b.md"), "[a](a.md)\n").unwrap();
    });
    let out = csv_run_in(&dir.join("repo"), &["--changed-since", "HEAD~1"]);
    assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("leak.md' leads out of the checkout"), "{err}");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(!report.contains("nowhere.md"), "{report}");
    assert!(!report.contains("secret.md"), "{report}");
}

#[test]
fn a_changed_file_whose_name_is_not_utf8_is_checked() {
    let name = OsStr::from_bytes(b"caf\xe9.md");
    let dir = checkout("changed-not-utf8", |repo| {
        fs::write(repo.join(name), "[broken](missing.md)\n").unwrap();
    });
    let out = csv_run_in(&dir.join("repo"), &["--changed-since", "HEAD~1"]);
    assert_exit(&out, 1);
    let rows = rows(&out);
    let broken: Vec<_> = rows.iter().filter(|r| &r[6] == "False").collect();
    assert_eq!(broken.len(), 1, "{rows:#?}");
    assert_eq!(&broken[0][0], "missing.md");
    assert!(broken[0][1].ends_with("/caf%E9.md"), "{:?}", broken[0]);
}
