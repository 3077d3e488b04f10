//! The `linkpatrol` command: flags → `Config` → `Checker::run_with` streaming into a reporter →
//! exit code. Ctrl-C handling lives here, not in the library.

mod args;
mod settings;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Parser;
use linkpatrol::Checker;
use linkpatrol::report::{CsvReporter, Reporter, TextReporter, Verbosity};

use crate::args::{Args, OutputKind};

/// Exit status: no broken links.
const EXIT_OK: u8 = 0;
/// Exit status: broken links found.
const EXIT_BROKEN: u8 = 1;
/// Exit status: usage, configuration or runtime error.
const EXIT_ERROR: u8 = 2;
/// Exit status: interrupted (the report of what was checked is still written).
const EXIT_INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            {
                return ExitCode::from(EXIT_OK);
            }
            eprintln!("linkpatrol: error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn run(args: &Args) -> anyhow::Result<u8> {
    let config = settings::config_from(args)?;
    let abort_secs = args.abort_timeout;
    let checker = Checker::new(config)?;
    let cancel = checker.cancel_handle();
    let presses = AtomicUsize::new(0);
    ctrlc::set_handler(move || {
        if presses.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!(
                "linkpatrol: interrupted; finishing active URLs for up to {abort_secs} s \
                 (press Ctrl-C again to exit at once)"
            );
            cancel.cancel();
        } else {
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    })?;

    let verbosity = if args.verbose {
        Verbosity::All
    } else {
        Verbosity::Problems
    };
    let stdout = BufWriter::new(io::stdout().lock());
    let mut reporter: Box<dyn Reporter> = match args.output {
        OutputKind::Text => Box::new(TextReporter::new(stdout, verbosity)),
        OutputKind::Csv => Box::new(CsvReporter::new(
            stdout,
            args.csv_delimiter as u8,
            verbosity,
        )),
    };
    let mut write_error: Option<io::Error> = None;
    let report = checker.run_with(|entry| {
        if write_error.is_none()
            && let Err(e) = reporter.entry(entry)
        {
            write_error = Some(e);
        }
    })?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    reporter.finish(&report)?;
    drop(reporter);
    io::stdout().flush()?;
    Ok(if report.interrupted {
        EXIT_INTERRUPTED
    } else if report.errors() > 0 {
        EXIT_BROKEN
    } else {
        EXIT_OK
    })
}
