//! Files a checkout supplies (`.linkpatrolignore`, `.gitignore`/`.ignore`, `book.toml`, a
//! local `linkpatrol.toml`) as FIFOs, devices and symbolic links out of the folder: never
//! read, never a hang, and no line of theirs printed.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::support::util::{CSV_FLAGS, TempDir, assert_exit, hermetic};

/// A FIFO at `path`.
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

/// Runs the binary in `dir` with `args` (and `--no-config` unless `config`) and its output;
/// a run that blocks on a file is killed after a minute and fails the test, rather than
/// hanging the suite.
fn run_in(dir: &Path, args: &[&str], config: bool) -> Output {
    let mut cmd = hermetic(&dir.join("home"));
    if !config {
        cmd.arg("--no-config");
    }
    let child = cmd
        .args(CSV_FLAGS)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let pid = child.id().to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(out) => out.expect("the binary's output"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid]).status();
            panic!("linkpatrol {args:?} in {} never ended", dir.display());
        }
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A folder `site` with `a.md` linking to `b.md`, and a secret outside it.
fn site(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    fs::create_dir_all(dir.join("site")).unwrap();
    fs::write(dir.join("site/a.md"), "[b](b.md)\n").unwrap();
    fs::write(dir.join("site/b.md"), "# B\n").unwrap();
    fs::write(dir.join("secret"), "API_TOKEN=hunter2(\n").unwrap();
    dir
}

#[test]
fn a_linkpatrolignore_out_of_the_folder_a_fifo_or_a_device_is_not_read() {
    for (kind, why) in [
        ("link out", "leads out of its folder"),
        ("fifo", "is not a regular file"),
        ("dev/zero", "leads out of its folder"),
    ] {
        let dir = site("checkout-linkpatrolignore");
        let file = dir.join("site/.linkpatrolignore");
        match kind {
            "link out" => symlink(dir.join("secret"), &file).unwrap(),
            "fifo" => mkfifo(&file),
            _ => symlink("/dev/zero", &file).unwrap(),
        }
        let out = run_in(&dir.join("site"), &["a.md"], false);
        assert_exit(&out, 0);
        let err = stderr(&out);
        assert!(
            err.contains(".linkpatrolignore is not read: it"),
            "{kind}: {err}"
        );
        assert!(err.contains(why), "{kind}: {err}");
        assert!(!err.contains("hunter2"), "{kind}: {err}");
    }
}

#[test]
fn a_bad_linkpatrolignore_line_is_named_by_its_number_not_its_text() {
    let dir = site("checkout-linkpatrolignore-line");
    fs::write(
        dir.join("site/.linkpatrolignore"),
        "# comment\nAPI_TOKEN=hunter2(\n",
    )
    .unwrap();
    let out = run_in(&dir.join("site"), &["a.md"], false);
    assert_exit(&out, 0);
    let err = stderr(&out);
    assert!(
        err.contains(".linkpatrolignore, line 2: not a valid regex, skipped"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn walk_ignore_files_that_are_fifos_devices_or_huge_are_refused() {
    for name in [".gitignore", ".ignore"] {
        for place in ["site", "site/sub"] {
            for kind in ["fifo", "dev/zero"] {
                let dir = site("checkout-walk-ignore");
                fs::create_dir_all(dir.join("site/sub")).unwrap();
                fs::write(dir.join("site/sub/c.md"), "[a](../a.md)\n").unwrap();
                let file = dir.join(place).join(name);
                match kind {
                    "fifo" => mkfifo(&file),
                    _ => symlink("/dev/zero", &file).unwrap(),
                }
                let out = run_in(&dir, &["site"], false);
                assert_exit(&out, 2);
                let err = stderr(&out);
                assert!(err.contains(name), "{name} in {place} ({kind}): {err}");
                let why = match kind {
                    "fifo" => "is not a regular file",
                    _ => "leads out of its folder",
                };
                assert!(err.contains(why), "{err}");
                assert!(err.contains("--no-ignore"), "{err}");
                // Without ignore files the folder is walked as usual.
                let out = run_in(&dir, &["--no-ignore", "site"], false);
                assert_exit(&out, 0);
            }
        }
    }
    let dir = site("checkout-walk-ignore-huge");
    let huge = fs::File::create(dir.join("site/.ignore")).unwrap();
    huge.set_len(2 << 20).unwrap();
    let out = run_in(&dir, &["site"], false);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("is larger than"), "{}", stderr(&out));
}

#[test]
fn a_bad_walk_ignore_line_is_named_by_its_number_not_its_text() {
    let dir = site("checkout-walk-ignore-line");
    fs::write(dir.join("site/.ignore"), "ok.md\nAPI_TOKEN=hunter2[z-a]\n").unwrap();
    let out = run_in(&dir, &["site"], false);
    assert_exit(&out, 0);
    let err = stderr(&out);
    assert!(err.contains("line 2: not a valid glob"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn a_book_toml_that_is_a_fifo_or_a_device_makes_no_book() {
    for kind in ["fifo", "dev/zero", "link out"] {
        let dir = site("checkout-book-toml");
        fs::create_dir_all(dir.join("site/src")).unwrap();
        fs::write(dir.join("book.toml"), "[book]\n").unwrap();
        let file = dir.join("site/book.toml");
        match kind {
            "fifo" => mkfifo(&file),
            "dev/zero" => symlink("/dev/zero", &file).unwrap(),
            _ => symlink(dir.join("book.toml"), &file).unwrap(),
        }
        let out = run_in(&dir, &["site"], false);
        assert_exit(&out, 0);
        assert!(!stderr(&out).contains("mdBook"), "{kind}: {}", stderr(&out));
    }
}

#[test]
fn a_config_file_that_is_a_fifo_a_device_or_a_link_out_is_an_error() {
    for (kind, named, why) in [
        ("fifo", true, "is not a regular file"),
        ("dev/zero", true, "is not a regular file"),
        ("fifo", false, "is not a regular file"),
        ("dev/zero", false, "leads out of its folder"),
        ("link out", false, "leads out of its folder"),
    ] {
        let dir = site("checkout-config");
        let file = dir.join("site/linkpatrol.toml");
        match kind {
            "fifo" => mkfifo(&file),
            "dev/zero" => symlink("/dev/zero", &file).unwrap(),
            _ => symlink(dir.join("secret"), &file).unwrap(),
        }
        let args: &[&str] = if named {
            &["-c", "linkpatrol.toml", "a.md"]
        } else {
            &["a.md"]
        };
        let out = run_in(&dir.join("site"), args, true);
        assert_exit(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains("cannot read config file `") && err.contains(why),
            "{kind} (named: {named}): {err}"
        );
        assert!(!err.contains("hunter2"), "{err}");
    }
}
