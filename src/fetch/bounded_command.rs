//! Running a program of the user's with one argument and capturing its stdout within a byte
//! budget and a time limit, for `--preprocess`. No shell: the program is started directly.
//!
//! The program runs in a process group of its own (on Unix). Its stdout is read on a thread
//! into a buffer of at most the budget; the run ends when that stream ends (every process
//! holding it closed it), then the program is reaped. Past the deadline, or once the output
//! goes over the budget, the whole group is killed at once (a script's children too) and
//! reaped. Its stderr is read on another thread, and its first bytes are kept for the error
//! message. The same design as the command plugin's runner (`plugins/command/src/run.rs`),
//! with a budget that fails instead of truncating.

use std::ffi::OsStr;
use std::io::{self, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// Bytes of stderr kept for the error message.
const STDERR_KEPT: usize = 2048;
/// How long a failed program's stderr is waited for after it exited.
const STDERR_GRACE: Duration = Duration::from_millis(500);

/// How a program's run ended.
#[derive(Debug)]
pub(crate) enum Ran {
    /// It exited with status 0: its stdout.
    Output(Vec<u8>),
    /// It exited with a failure (`None`: killed by a signal), with the start of its stderr.
    Failed(Option<i32>, String),
    /// It ran past the time limit and was killed.
    TimedOut,
    /// It printed more than the budget and was killed.
    TooLarge,
}

/// What the stdout reader tells the run.
enum Stdout {
    Ended(io::Result<Vec<u8>>),
    OverBudget,
}

/// Runs `program` with `arg`, keeping at most `budget` bytes of its stdout, for at most
/// `timeout`.
///
/// # Errors
/// The program cannot be started, or cannot be waited for.
pub(crate) fn run(program: &Path, arg: &OsStr, budget: u64, timeout: Duration) -> io::Result<Ran> {
    let deadline = Instant::now() + timeout;
    let mut command = Command::new(program);
    command
        .arg(arg)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn()?;
    let (tx, rx) = mpsc::channel();
    if let Some(mut out) = child.stdout.take() {
        thread::spawn(move || {
            let mut kept = Vec::new();
            let read = (&mut out).take(budget + 1).read_to_end(&mut kept);
            let _ = tx.send(match read {
                Ok(_) if kept.len() as u64 > budget => Stdout::OverBudget,
                Ok(_) => Stdout::Ended(Ok(kept)),
                Err(e) => Stdout::Ended(Err(e)),
            });
        });
    }
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let (err_done, err_ended) = mpsc::channel::<()>();
    if let Some(mut err) = child.stderr.take() {
        let into = stderr.clone();
        thread::spawn(move || {
            let _done = err_done;
            let mut chunk = [0; 4096];
            // Read to the end, so the program never blocks on a full pipe.
            while let Ok(n @ 1..) = err.read(&mut chunk) {
                let mut kept = into.lock().unwrap_or_else(PoisonError::into_inner);
                let room = STDERR_KEPT.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
            }
        });
    }
    let left = deadline.saturating_duration_since(Instant::now());
    let output = match rx.recv_timeout(left) {
        Ok(Stdout::Ended(read)) => read,
        Ok(Stdout::OverBudget) => return kill(&mut child).map(|()| Ran::TooLarge),
        Err(_) => return kill(&mut child).map(|()| Ran::TimedOut),
    };
    let status = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        // `wait_timeout` may return up to a millisecond early: asked again for what is left.
        if let Some(status) = child.wait_timeout(left)? {
            break status;
        }
        if left.is_zero() {
            return kill(&mut child).map(|()| Ran::TimedOut);
        }
    };
    if !status.success() {
        // Its message may still be in the pipe: read up to the deadline, and a moment at most
        // (a process it left running may hold the pipe).
        let left = deadline.saturating_duration_since(Instant::now());
        let _ = err_ended.recv_timeout(left.min(STDERR_GRACE));
        let kept = stderr.lock().unwrap_or_else(PoisonError::into_inner);
        return Ok(Ran::Failed(
            status.code(),
            String::from_utf8_lossy(&kept).into_owned(),
        ));
    }
    Ok(Ran::Output(output?))
}

/// Kills `child` with its whole process group, then reaps it. The group is killed before its
/// leader is reaped, so its id cannot have been reused by then.
fn kill(child: &mut Child) -> io::Result<()> {
    #[cfg(unix)]
    if let Ok(id) = i32::try_from(child.id()) {
        let group = nix::unistd::Pid::from_raw(id);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    }
    // Killing a child that exited just now fails harmlessly; `wait` reaps it either way.
    let _ = child.kill();
    child.wait().map(|_| ())
}
