//! Running a program with input, capturing its output, bounded by a timeout.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use wait_timeout::ChildExt;

/// Output kept from each stream.
const MAX_OUTPUT: u64 = 256 * 1024;
/// After the program ended (or was killed), how long to wait for the rest of its output: a
/// grandchild may keep the pipe open, and we never wait on it beyond this.
const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// How a program run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// Its stdout (lossy UTF-8, capped).
    pub stdout: String,
    /// Its stderr (lossy UTF-8, capped).
    pub stderr: String,
    /// Its exit code; `None` when killed by a signal or by us.
    pub status: Option<i32>,
    /// It ran past the timeout and was killed.
    pub timed_out: bool,
}

/// Reads a stream to its end (up to `MAX_OUTPUT`) on its own thread.
fn collect(stream: Option<impl Read + Send + 'static>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    if let Some(stream) = stream {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stream.take(MAX_OUTPUT).read_to_end(&mut buf);
            let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
        });
    }
    rx
}

/// Waits for `child` up to `timeout`; kills it then. Returns its exit code and whether it was
/// killed.
///
/// `wait_timeout` sleeps until the child exits or the time is up (on Unix it installs a
/// process-wide `SIGCHLD` handler, with `SA_RESTART`, the first time it is called).
fn wait_or_kill(child: &mut Child, timeout: Duration) -> std::io::Result<(Option<i32>, bool)> {
    if let Some(status) = child.wait_timeout(timeout)? {
        return Ok((status.code(), false));
    }
    // Killing a child that exited just now fails harmlessly; `wait` then reaps it either way.
    let _ = child.kill();
    let _ = child.wait();
    Ok((None, true))
}

/// Runs `program` with `args` and `env`, writes `input` to its stdin, and returns its output.
/// The program is killed once `timeout` has passed.
///
/// # Errors
/// The program cannot be started.
pub fn run_with_timeout(
    program: &str,
    args: &[String],
    env: &[(&str, &str)],
    input: &[u8],
    timeout: Duration,
) -> std::io::Result<Finished> {
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // The writer runs on its own thread: a program that does not read its stdin must not
    // block us (the pipe buffer is finite). It ends when the program exits or closes stdin.
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_vec();
        thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let stdout = collect(child.stdout.take());
    let stderr = collect(child.stderr.take());
    let (status, timed_out) = wait_or_kill(&mut child, timeout)?;
    let take = |rx: mpsc::Receiver<String>| rx.recv_timeout(OUTPUT_GRACE).unwrap_or_default();
    Ok(Finished {
        stdout: take(stdout),
        stderr: take(stderr),
        status,
        timed_out,
    })
}
