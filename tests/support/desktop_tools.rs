//! External programs the report tests drive (headless Chromium, LibreOffice): finding them on
//! `PATH`, running them with a deadline, and skipping loudly when one is missing.
//!
//! A missing program is a skip, not a failure (`.ci/run` installs them when it can), but never a
//! silent one: the `SKIPPED:` line goes straight to the process's stderr, past libtest's output
//! capture, so it shows in a plain `cargo test`. Set `LINKPATROL_REQUIRE_TOOLS=1` to turn a skip
//! into a failure.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// When set (to anything), a missing program fails the test instead of skipping it.
pub const REQUIRE_TOOLS: &str = "LINKPATROL_REQUIRE_TOOLS";

/// The first of `names` found as an executable file on `PATH`.
pub fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| is_executable(p))
    })
}

fn is_executable(p: &Path) -> bool {
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The program, or `None` after printing `SKIPPED: {reason}` (a panic when
/// [`REQUIRE_TOOLS`] is set).
pub fn program_or_skip(names: &[&str], reason: &str) -> Option<PathBuf> {
    let found = find_program(names);
    if found.is_none() {
        assert!(
            std::env::var_os(REQUIRE_TOOLS).is_none(),
            "{reason}, and {REQUIRE_TOOLS} is set"
        );
        notice(&format!("SKIPPED: {reason}"));
    }
    found
}

/// Writes one line to the process's stderr. libtest captures only the `print!` family, so this
/// shows even for a passing test.
pub fn notice(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Runs `cmd` with no stdin and captured output; panics when it runs longer than `limit`
/// (after killing it) or cannot start.
pub fn run_with_deadline(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    // Drained on their own threads so a chatty program never blocks on a full pipe.
    let drain = |mut r: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            // Not joining the readers: a grandchild may still hold the pipes open.
            panic!("{cmd:?} ran longer than {limit:?} and was killed");
        }
        thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}
