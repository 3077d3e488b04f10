//! Running a program with input, capturing its output, bounded by a timeout.
//!
//! The program runs in a process group of its own (on Unix), and the run ends with that whole
//! group killed: a shell script's `sleep`, or a child it started in the background, does not
//! outlive the run. Each output stream is read on its own thread into a buffer as it arrives,
//! so what a program printed before it was killed is kept.
//!
//! When the run ends:
//! - The program exits in time: its pipes close when the last process holding them does. A
//!   process it left running may keep them open, so the output is waited for up to
//!   [`OUTPUT_GRACE`] after the exit (never past the timeout); then the group is killed.
//! - The program runs past the timeout: the group is killed at once, which closes the pipes.
//!
//! Either way the readers get up to [`OUTPUT_GRACE`] after the kill to reach the end of their
//! stream (a process that left the group with `setsid` may still hold a pipe: it is not waited
//! for, its reader thread ends when it closes the pipe).

use std::io::{self, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// Output kept from each stream; the rest is read and dropped, so the program never blocks
/// on a full pipe.
const MAX_OUTPUT: usize = 256 * 1024;
/// How long output is waited for after the program exited, and again after its group was
/// killed.
const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// How a program run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// Its stdout (lossy UTF-8, capped), up to when the run ended.
    pub stdout: String,
    /// Its stderr (lossy UTF-8, capped), up to when the run ended.
    pub stderr: String,
    /// Its exit code; `None` when killed by a signal or by us.
    pub status: Option<i32>,
    /// It ran past the timeout and was killed.
    pub timed_out: bool,
}

/// One output stream, read on its own thread into `bytes` as it arrives.
struct Captured {
    /// What was read so far (at most `MAX_OUTPUT`). Written by the reader thread, read once
    /// by the run at its end; the lock is held only to append or to copy.
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl Captured {
    /// Starts reading `stream`; `eof` gets one message when the stream ends (or fails).
    fn start(stream: Option<impl Read + Send + 'static>, eof: Sender<()>) -> Captured {
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let Some(mut stream) = stream else {
            let _ = eof.send(());
            return Captured { bytes };
        };
        let into = bytes.clone();
        thread::spawn(move || {
            let mut chunk = [0; 8192];
            loop {
                match stream.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut kept = into.lock().unwrap_or_else(PoisonError::into_inner);
                        let room = MAX_OUTPUT - kept.len();
                        kept.extend_from_slice(&chunk[..n.min(room)]);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = eof.send(());
        });
        Captured { bytes }
    }

    /// What was read so far, as lossy UTF-8.
    fn text(&self) -> String {
        let kept = self.bytes.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&kept).into_owned()
    }
}

/// A program's stdout and stderr, each read on its own thread.
struct Outputs {
    stdout: Captured,
    stderr: Captured,
    /// One message per stream that ended.
    eof: Receiver<()>,
    /// Streams that have not ended yet, as far as `eof` told.
    open: usize,
}

impl Outputs {
    /// Starts reading the stdout and stderr of `child`.
    fn start(child: &mut Child) -> Outputs {
        let (eof_tx, eof) = mpsc::channel();
        Outputs {
            stdout: Captured::start(child.stdout.take(), eof_tx.clone()),
            stderr: Captured::start(child.stderr.take(), eof_tx),
            eof,
            open: 2,
        }
    }

    /// Waits until both streams have ended, or `until` has passed.
    fn wait_until(&mut self, until: Instant) {
        while self.open > 0 {
            let left = until.saturating_duration_since(Instant::now());
            if self.eof.recv_timeout(left).is_err() {
                return;
            }
            self.open -= 1;
        }
    }
}

/// The process group a program runs in: its own, led by it (on Unix; elsewhere there is no
/// group, and only the program itself is killed).
struct Group {
    #[cfg(unix)]
    id: nix::unistd::Pid,
}

#[cfg(unix)]
impl Group {
    /// Makes the program `command` starts the leader of a new process group.
    fn prepare(command: &mut Command) {
        std::os::unix::process::CommandExt::process_group(command, 0);
    }

    /// The group of `child`, started from a command passed to [`prepare`](Self::prepare): its
    /// id is the child's process id.
    fn of(child: &Child) -> Group {
        // A process id always fits in `pid_t`; std hands it over as `u32`.
        let id = i32::try_from(child.id()).expect("a process id fits in pid_t");
        Group {
            id: nix::unistd::Pid::from_raw(id),
        }
    }

    /// Sends `SIGKILL` to every process in the group; nothing happens when it is empty.
    ///
    /// The group's id stays reserved while any process is in it (the leader too, until it is
    /// reaped), so the signal reaches only the program and what it started. Once the group is
    /// empty the id is free: a process that became a group leader with that id in between
    /// would get the signal. The run kills at once when the program's pipes close, which
    /// happens as soon as the group is empty, so that needs process ids to wrap around within
    /// microseconds (or within [`OUTPUT_GRACE`] when a process outside the group holds a pipe).
    fn kill(&self) {
        let _ = nix::sys::signal::killpg(self.id, nix::sys::signal::Signal::SIGKILL);
    }
}

#[cfg(not(unix))]
impl Group {
    fn prepare(_: &mut Command) {}

    fn of(_: &Child) -> Group {
        Group {}
    }

    fn kill(&self) {}
}

/// Runs `program` with `args` and `env`, writes `input` to its stdin, and returns its output.
/// Once `timeout` has passed the program is killed, with every process in its group.
///
/// # Errors
/// The program cannot be started, or cannot be waited for.
pub fn run_with_timeout(
    program: &str,
    args: &[String],
    env: &[(&str, &str)],
    input: &[u8],
    timeout: Duration,
) -> io::Result<Finished> {
    let deadline = Instant::now() + timeout;
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    Group::prepare(&mut command);
    let mut child = command.spawn()?;
    let group = Group::of(&child);
    // The writer runs on its own thread: a program that does not read its stdin must not
    // block us (the pipe buffer is finite). It ends when the program exits or closes stdin.
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_vec();
        thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let mut outputs = Outputs::start(&mut child);
    let ended = end(&mut child, &group, &mut outputs, deadline);
    // Kill what the program left running (nothing happens when nothing is left), so that the
    // pipes close, then give the readers a moment to reach their end.
    group.kill();
    if ended.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    outputs.wait_until(Instant::now() + OUTPUT_GRACE);
    let (status, timed_out) = ended?;
    Ok(Finished {
        stdout: outputs.stdout.text(),
        stderr: outputs.stderr.text(),
        status,
        timed_out,
    })
}

/// Waits for `child` until `deadline`, then for its output up to the grace (see the module
/// docs); at the deadline kills its group and reaps it. Returns its exit code and whether it
/// timed out.
///
/// `wait_timeout` sleeps until the child exits or the time is up (on Unix it installs a
/// process-wide `SIGCHLD` handler, with `SA_RESTART`, the first time it is called). It rounds
/// the time left down to whole milliseconds for `poll`, so it may give up to a millisecond
/// before `deadline`: it is called again for what is left (the last call, under a millisecond,
/// returns at once), so a program is never killed before its time.
fn end(
    child: &mut Child,
    group: &Group,
    outputs: &mut Outputs,
    deadline: Instant,
) -> io::Result<(Option<i32>, bool)> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Some(status) = child.wait_timeout(left)? {
            outputs.wait_until((Instant::now() + OUTPUT_GRACE).min(deadline));
            return Ok((status.code(), false));
        }
        if left.is_zero() {
            break;
        }
    }
    // The group is killed before its leader is reaped, so its id cannot have been reused.
    group.kill();
    // Killing a child that exited just now fails harmlessly; `wait` then reaps it either way.
    let _ = child.kill();
    child.wait()?;
    Ok((None, true))
}
