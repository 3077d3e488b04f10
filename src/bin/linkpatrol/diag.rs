//! Lines on stderr (warnings, notes, errors, the plain status line) that may not get there:
//! stderr can be a full disk (`2>/dev/full`) or a pipe whose reader has gone. Such a line is
//! dropped; the run and its reports go on. `eprintln!` would panic instead, so `main.rs`
//! forbids it (`clippy::print_stderr`).

use std::fmt;
use std::io::{self, Write};

/// Writes one line on stderr, or nothing when stderr cannot take it.
pub fn line(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// `eprintln!` that drops the line when stderr cannot take it (see [`line`]).
macro_rules! stderr_line {
    ($($arg:tt)*) => {
        $crate::diag::line(format_args!($($arg)*))
    };
}
