//! Where reports go: the `-F` files (opened by `report_file.rs`), and stdout, which may be
//! closed early by its reader (`linkpatrol … | head`) without ending or failing the run.

use std::io::{self, BufWriter, Write};

use linkpatrol::HeldRows;
use linkpatrol::report::{Fanout, Format, ReportOptions, Reporter, SortedReporter, reporter_for};

use crate::report_file::NamedFile;
use crate::values::FileOutput;

/// How the rows reach the reporters.
#[derive(Debug, Clone)]
pub enum Rows {
    /// As they finish (`--stream`).
    Streamed,
    /// At the end, in a stable order ([`SortedReporter`]): at most this many bytes of them
    /// held in memory, counted in that budget's count, and the rest on disk (`None`: all in
    /// memory).
    Sorted(Option<(usize, HeldRows)>),
}

/// The reporters of a run: `stdout_format` on stdout (unless `quiet`) and each `-F` output
/// into its opened file, which gets `file_options` (no colour codes in a file).
pub fn reporters(
    stdout_format: Format,
    quiet: bool,
    stdout_options: &ReportOptions,
    outputs: &[FileOutput],
    files: Vec<NamedFile>,
    file_options: &ReportOptions,
    rows: Rows,
) -> Box<dyn Reporter> {
    let all = fanout(
        stdout_format,
        quiet,
        stdout_options,
        outputs,
        files,
        file_options,
    );
    match rows {
        Rows::Streamed => Box::new(all),
        Rows::Sorted(None) => Box::new(SortedReporter::new(all)),
        Rows::Sorted(Some((share, held))) => {
            Box::new(SortedReporter::new(all).spill_past(share).counting(held))
        }
    }
}

fn fanout(
    stdout_format: Format,
    quiet: bool,
    stdout_options: &ReportOptions,
    outputs: &[FileOutput],
    files: Vec<NamedFile>,
    file_options: &ReportOptions,
) -> Fanout<'static> {
    let mut reporter = Fanout::new();
    if !quiet {
        reporter.push(reporter_for(
            stdout_format,
            Box::new(BufWriter::new(UntilClosed::new(io::stdout().lock()))),
            stdout_options,
        ));
    }
    for (f, file) in outputs.iter().zip(files) {
        reporter.push(reporter_for(
            f.format,
            Box::new(BufWriter::new(file)),
            file_options,
        ));
    }
    reporter
}

/// A writer that stops writing, silently, once its reader has gone (`EPIPE`): `| head` then
/// costs the run nothing — it goes on, the `-F` files are completed, and the exit status still
/// says whether links are broken. Other errors pass through.
#[derive(Debug)]
pub struct UntilClosed<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> UntilClosed<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        UntilClosed {
            inner,
            closed: false,
        }
    }

    fn gone(&mut self, r: io::Result<()>) -> io::Result<()> {
        match r {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

impl<W: Write> Write for UntilClosed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.closed {
            let r = self.inner.write_all(buf);
            self.gone(r)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.inner.flush();
        self.gone(r)
    }
}
