//! A local file read through the user's `--preprocess` program ([`Config::preprocess`](
//! crate::Config::preprocess)): the file is found as usual (scope, folders, mdBooks), then
//! the program's stdout replaces its content. A program that fails is an error result for
//! that file, with the reason: never a panic, never a lost row.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use url::Url;

use super::Fetched;
use super::bounded_command::{Ran, run};
use super::file::{self, FileScope};
use crate::extract::format::is_parsed;
use crate::extract::sniff::sniff;
use crate::model::outcome::{FailKind, Outcome};

/// The program and its limits.
#[derive(Debug)]
pub(crate) struct Preprocess {
    /// Run with the file's absolute path as its one argument.
    pub(crate) program: PathBuf,
    /// How long one run may take: the run's request timeout.
    pub(crate) timeout: Duration,
    /// The most bytes it may print: the run's body budget.
    pub(crate) max_body: u64,
}

/// The media types whose files keep their type when the program's output does not look like
/// HTML; any other (PDF, office documents) is then read as plain text.
const TEXT_TYPES: [&str; 7] = [
    "text/html",
    "application/xhtml+xml",
    "text/markdown",
    "text/css",
    "text/plain",
    "application/xml",
    "text/xml",
];

impl Preprocess {
    /// `file::fetch` of `url`, its content (when it is a file whose links are read) the
    /// program's output.
    pub(crate) fn fetch(&self, url: &Url, scope: &FileScope) -> Fetched {
        let mut f = file::fetch(url, false, self.max_body, scope);
        // A folder's listing is ours, not a file's: read as usual.
        if file::is_listing(&f.final_url) {
            return file::fetch(url, true, self.max_body, scope);
        }
        if !matches!(f.outcome, Outcome::Ok { .. })
            || !is_parsed(&f.final_url, f.content_type.as_deref())
        {
            return f;
        }
        let Ok(path) = f.final_url.to_file_path() else {
            return f;
        };
        // A FIFO or a device is not read, preprocessed or not.
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            return file::fetch(url, true, self.max_body, scope);
        }
        let started = Instant::now();
        let shown = self.program.display();
        let failed =
            |kind, why: String| Fetched::failed(url, kind, format!("--preprocess `{shown}' {why}"));
        let output = match run(&self.program, path.as_os_str(), self.max_body, self.timeout) {
            Ok(Ran::Output(out)) => out,
            Ok(Ran::Failed(code, stderr)) => {
                let status = code.map_or_else(
                    || "was killed by a signal".to_owned(),
                    |c| format!("exited with status {c}"),
                );
                let said = first_line(&stderr);
                let said = if said.is_empty() {
                    String::new()
                } else {
                    format!(": {said}")
                };
                return failed(
                    FailKind::Io,
                    format!("{status} on {}{said}", path.display()),
                );
            }
            Ok(Ran::TimedOut) => {
                return failed(
                    FailKind::Timeout,
                    format!(
                        "ran longer than {:?} on {} and was killed",
                        self.timeout,
                        path.display()
                    ),
                );
            }
            Ok(Ran::TooLarge) => {
                return failed(
                    FailKind::Io,
                    format!(
                        "printed more than {} bytes (--max-body-size) for {} and was killed",
                        self.max_body,
                        path.display()
                    ),
                );
            }
            Err(e) => return failed(FailKind::Io, format!("cannot run: {e}")),
        };
        let own = f.content_type.as_deref().filter(|t| TEXT_TYPES.contains(t));
        let kind = match sniff(&output, true) {
            Some("text/html") => "text/html",
            _ => own.unwrap_or("text/plain"),
        };
        f.content_type = Some(kind.to_owned());
        f.size = Some(output.len() as u64);
        f.download_time = Some(started.elapsed());
        f.body = Some(output);
        f
    }
}

/// The first non-blank line of a program's stderr, short and without control characters.
fn first_line(stderr: &str) -> String {
    let line = stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let line: String = line.chars().filter(|c| !c.is_control()).take(200).collect();
    line
}
