//! `--preprocess PROGRAM`: each local file whose links are read is read through the program
//! (its absolute path the one argument, its stdout the content); a program that fails, runs
//! too long or prints too much is an error row for that file, and the other files are read.
#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::server::{Routes, TestServer};
use crate::support::util::{
    CSV_FLAGS, TempDir, assert_exit, assert_one_line_error, cli_in, eventually, linkpatrol,
    row_named, rows,
};

/// An executable script `name` in `dir` with `body` after its `#!/bin/sh` line.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn a_file_is_read_through_the_program() {
    for threads in ["1", "8"] {
        let site = TestServer::start(Routes::new().page("/converted", "ok").page("/raw", "ok"));
        let dir = TempDir::new(&format!("preprocess-read-{threads}"));
        let docs = dir.join("docs");
        fs::create_dir(&docs).unwrap();
        fs::write(
            docs.join("guide.md"),
            format!("[raw]({})\n", site.url("/raw")),
        )
        .unwrap();
        // Prints HTML, whatever the file: its links are what is checked.
        let program = script(
            &dir,
            "to-html",
            &format!(
                "printf '%s\\n' \"$1\" >> {log}\nprintf '<p><a href=\"{url}\">c</a>'",
                log = dir.join("args.log").display(),
                url = site.url("/converted"),
            ),
        );
        let out = linkpatrol()
            .args(CSV_FLAGS)
            .args(["-t", threads, "--preprocess"])
            .arg(&program)
            .arg(docs.join("guide.md"))
            .output()
            .unwrap();
        assert_exit(&out, 0);
        let rows = rows(&out);
        assert_eq!(&row_named(&rows, &site.url("/converted"))[6], "True");
        assert!(rows.iter().all(|r| !r[0].contains("/raw")), "{rows:#?}");
        assert_eq!(site.count("/raw"), 0, "-t {threads}");
        let args = fs::read_to_string(dir.join("args.log")).unwrap();
        let real = docs.join("guide.md").canonicalize().unwrap();
        assert_eq!(args.lines().collect::<Vec<_>>(), [real.to_str().unwrap()]);
    }
}

#[test]
fn a_failing_program_is_an_error_row_for_its_file_only() {
    for threads in ["1", "8"] {
        let dir = TempDir::new(&format!("preprocess-fail-{threads}"));
        let docs = dir.join("docs");
        fs::create_dir(&docs).unwrap();
        for name in ["fails.md", "slow.md", "verbose.md", "fine.md"] {
            fs::write(docs.join(name), "text\n").unwrap();
        }
        // One program, which behaves by the file's name: fails, hangs (a child of the script
        // holds the pipe: the group is killed), prints without end, or prints a page.
        let program = script(
            &dir,
            "by-name",
            "case \"$1\" in\n\
             *fails.md) echo 'cannot convert: bad input' >&2; exit 3 ;;\n\
             *slow.md) sleep 30 & echo $! > \"$0.pid\"; wait ;;\n\
             *verbose.md) yes 'a long line of output' ;;\n\
             *) echo '<p>fine</p>' ;;\n\
             esac",
        );
        let out = linkpatrol()
            .args(CSV_FLAGS)
            .args(["-t", threads, "--timeout", "3", "--max-body-size", "10000"])
            .arg("--preprocess")
            .arg(&program)
            .arg(docs.join("fails.md"))
            .arg(docs.join("slow.md"))
            .arg(docs.join("verbose.md"))
            .arg(docs.join("fine.md"))
            .output()
            .unwrap();
        // The script's `sleep`, in the program's process group, was killed with it.
        let pid = fs::read_to_string(dir.join("by-name.pid")).unwrap();
        let gone = || {
            fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
                .map_or(true, |stat| stat.contains(") Z "))
        };
        eventually("the sleep to be killed", gone);
        assert_exit(&out, 1);
        let rows = rows(&out);
        let result = |name: &str| {
            let row = rows
                .iter()
                .find(|r| r[7].ends_with(name))
                .unwrap_or_else(|| panic!("-t {threads}: no row for {name} in {rows:#?}"));
            (row[6].to_owned(), row[3].to_owned())
        };
        let (valid, why) = result("fails.md");
        assert_eq!(valid, "False");
        assert!(
            why.contains("exited with status 3") && why.contains("bad input"),
            "{why}"
        );
        let (valid, why) = result("slow.md");
        assert_eq!(valid, "False");
        assert!(why.contains("ran longer than"), "{why}");
        let (valid, why) = result("verbose.md");
        assert_eq!(valid, "False");
        assert!(why.contains("more than 10000 bytes"), "{why}");
        assert_eq!(result("fine.md").0, "True");
    }
}

#[test]
fn a_program_that_cannot_run_is_an_error_row() {
    for threads in ["1", "8"] {
        let dir = TempDir::new(&format!("preprocess-missing-{threads}"));
        fs::write(dir.join("a.md"), "text\n").unwrap();
        let out = linkpatrol()
            .args(CSV_FLAGS)
            .args(["-t", threads, "--preprocess", "/no/such/program"])
            .arg(dir.join("a.md"))
            .output()
            .unwrap();
        assert_exit(&out, 1);
        let rows = rows(&out);
        assert!(
            rows.iter()
                .any(|r| r[7].ends_with("a.md") && r[3].contains("cannot run")),
            "-t {threads}: {rows:#?}"
        );
    }
}

#[test]
fn a_local_config_may_not_set_the_program() {
    let dir = TempDir::new("preprocess-local");
    fs::write(
        dir.join("linkpatrol.toml"),
        "preprocess = \"/usr/bin/touch\"\n",
    )
    .unwrap();
    fs::write(dir.join("index.md"), "text\n").unwrap();
    let out = cli_in(&dir, &[], &["index.md"]);
    assert_one_line_error(
        &out,
        &["./linkpatrol.toml sets `preprocess`", "--trust-config"],
    );
}
