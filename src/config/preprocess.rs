//! [`Config::preprocess`]: the program each local file is read through before its links are
//! extracted (lychee's `--preprocess`).

use std::path::PathBuf;

use crate::config::Config;

impl Config {
    /// Reads each local file whose links are extracted through `program`: it is run directly
    /// (no shell), with the file's absolute path as its one argument, and what it prints on
    /// stdout is read instead of the file: as HTML when it looks like HTML, else as the file's
    /// own format when that is a text format (Markdown, CSS, plain text, XML), else as plain text.
    /// A program that cannot start, exits with a failure, runs longer than the
    /// [`timeout`](Self::timeout) or prints more than [`max_body_size`](Self::max_body_size)
    /// bytes is an error result for that file (its process group is killed). `program` is
    /// looked up on `PATH` when it has no `/`. Whoever sets it runs programs with the user's
    /// rights: never take it from a file the user did not write. Defaults to `None` (files
    /// are read as they are).
    pub fn preprocess(mut self, program: impl Into<PathBuf>) -> Self {
        self.preprocess = Some(program.into());
        self
    }
}
