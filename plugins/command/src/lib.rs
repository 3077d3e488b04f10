//! The `command` plugin: runs an external program on every parsed page — extension without
//! Rust. The page's content goes to its stdin, the URL is in `LINKPATROL_URL` (without its user
//! name and password; the media type is in `LINKPATROL_CONTENT_TYPE`); each non-empty line it
//! prints on stdout becomes a warning. A program that runs past the timeout is killed, with
//! every process it started (its process group, on Unix), and reported; the lines it printed
//! before are kept.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod run;

use std::time::Duration;

use linkpatrol_plugin_api::{ContentView, Options, Plugin, Remark, Services, Url};

pub use run::{Finished, run_with_timeout};

/// The plugin's name.
pub const NAME: &str = "command";
/// One line for `--list-plugins`.
pub const DESCRIPTION: &str = "run a program per parsed page (content on stdin, URL in \
                               $LINKPATROL_URL), its stdout lines become warnings; settings: \
                               program=PATH, arg=ARG (repeatable), timeout=SECS (default 10)";
/// Tag of a warning printed by the program.
pub const TAG: &str = "command-warning";
/// Tag of a program that could not run, failed or timed out.
pub const TAG_FAILED: &str = "command-failed";
/// Seconds a program may run by default.
pub const DEFAULT_TIMEOUT_SECS: f64 = 10.0;
/// Most warnings taken from one run's output.
const MAX_LINES: usize = 50;

/// The `command` plugin: the program, its arguments and its time limit.
#[derive(Debug)]
pub struct Command {
    program: String,
    args: Vec<String>,
    timeout: Duration,
}

impl Command {
    /// The plugin from its settings: `program=` (required), `arg=` (repeatable), `timeout=`.
    ///
    /// # Errors
    /// No program, a timeout that is not a positive number, or an unknown setting.
    pub fn from_options(options: &Options) -> Result<Command, String> {
        options.only(&["program", "arg", "timeout"])?;
        let program = options
            .get("program")
            .filter(|p| !p.trim().is_empty())
            .ok_or("plugin command: give program=PATH")?
            .to_owned();
        let secs: f64 = options.parse_or("timeout", DEFAULT_TIMEOUT_SECS)?;
        if !(secs.is_finite() && secs > 0.0) {
            return Err(format!("plugin command: timeout={secs} must be positive"));
        }
        Ok(Command {
            program,
            args: options.get_all("arg").map(str::to_owned).collect(),
            timeout: Duration::from_secs_f64(secs),
        })
    }
}

impl Plugin for Command {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check_content(&self, content: &ContentView<'_>, _: &dyn Services) -> Vec<Remark> {
        let url = without_userinfo(content.final_url);
        let env = [
            ("LINKPATROL_URL", url.as_str()),
            (
                "LINKPATROL_CONTENT_TYPE",
                content.content_type.unwrap_or(""),
            ),
        ];
        let finished =
            match run_with_timeout(&self.program, &self.args, &env, content.body, self.timeout) {
                Ok(f) => f,
                Err(e) => {
                    return vec![Remark::warning(
                        TAG_FAILED,
                        format!("cannot run `{}': {e}", self.program),
                    )];
                }
            };
        let mut remarks: Vec<Remark> = finished
            .stdout
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(MAX_LINES)
            .map(|l| Remark::warning(TAG, l))
            .collect();
        if finished.timed_out {
            remarks.push(Remark::warning(
                TAG_FAILED,
                format!(
                    "`{}' ran longer than {:?} and was killed",
                    self.program, self.timeout
                ),
            ));
        } else if let Some(code) = finished.status.filter(|c| *c != 0) {
            let why = finished
                .stderr
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_owned();
            remarks.push(Remark::warning(
                TAG_FAILED,
                format!("`{}' exited with status {code}: {why}", self.program),
            ));
        }
        remarks
    }
}

/// `url` without its user name and password: what the program is told.
///
/// The credentials are taken away here, not by the engine for every plugin. A plugin in the
/// process is code the embedder compiled in, running where the credentials are anyway, and it
/// may need the URL whole (`Services::fetch` of a page behind its own `user:password@`). The
/// program is another process: its environment can be read by the same user
/// (`/proc/PID/environ`), is inherited by everything it starts and ends up in its logs, and it
/// only needs the URL to know which page it is reading.
fn without_userinfo(url: &Url) -> Url {
    let mut bare = url.clone();
    // Both fail only for a URL without a host, which has no userinfo either.
    let _ = bare.set_username("");
    let _ = bare.set_password(None);
    bare
}

#[cfg(test)]
mod tests;
