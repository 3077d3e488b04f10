//! The `linkpatrol` command: flags → `Config` → `Checker::spawn`'s entries into a reporter →
//! exit code. Ctrl-C handling lives here, not in the library.

#![deny(clippy::print_stderr, clippy::print_stdout)]

#[macro_use]
mod diag;

mod allocator;
mod args;
mod config_file;
mod config_sources;
mod exit_guard;
mod generate;
mod help;
mod key_hint;
mod login;
mod merge;
mod outputs;
mod plugin_flags;
mod report_file;
mod report_setup;
mod sections;
mod settings;
mod shard_files;
mod status;
mod trust;
mod usage;
mod values;

#[cfg(test)]
mod python_surface;

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use linkpatrol::report::{ReportOptions, escape_controls};
use linkpatrol::{Checker, IDLE_INTERVAL, Step};

use crate::args::Args;
use crate::exit_guard::ExitGuard;
use crate::report_file::ReportFiles;

/// Exit status: no broken links.
const EXIT_OK: u8 = 0;
/// Exit status: broken links found.
const EXIT_BROKEN: u8 = 1;
/// Exit status: usage, configuration or runtime error.
const EXIT_ERROR: u8 = 2;
/// Exit status: interrupted (the report of what was checked is still written).
const EXIT_INTERRUPTED: u8 = 130;
/// Exit status: stopped at `--max-run-time` (the report of what was checked is still
/// written). `timeout(1)`'s status for a command it stopped, so a run cut short by its own
/// limit reads as one cut short by `timeout`, never as a complete run.
const EXIT_TIME_LIMIT: u8 = 124;

fn main() -> ExitCode {
    allocator::tune();
    if std::env::args_os().nth(1).is_some_and(|a| a == "merge") {
        return match merge::run() {
            Ok(code) => ExitCode::from(code),
            Err(e) => fail(&e),
        };
    }
    if std::env::args_os().nth(1).is_some_and(|a| a == "help") {
        return help_command();
    }
    let settings = match settings::settings() {
        Ok(settings) => settings,
        Err(e) => return fail(&e),
    };
    let args = &settings.args;
    for w in &settings.config_warnings {
        stderr_line!("linkpatrol: warning: {}", escape_controls(w));
    }
    if let Some(what) = args.generate {
        let written = generate::write(what, settings::command(), &mut io::stdout().lock());
        return match written {
            Ok(()) => ExitCode::from(EXIT_OK),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_OK),
            Err(e) => fail(&e.into()),
        };
    }
    if args.list_plugins {
        return match plugin_flags::list(&mut io::stdout().lock()) {
            Ok(()) => ExitCode::from(EXIT_OK),
            Err(e) => fail(&e.into()),
        };
    }
    if args.print_config {
        let text = settings.printed_config.as_deref().unwrap_or_default();
        return match io::stdout().lock().write_all(text.as_bytes()) {
            Ok(()) => ExitCode::from(EXIT_OK),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_OK),
            Err(e) => fail(&e.into()),
        };
    }
    match run(&settings) {
        Ok(code) => ExitCode::from(code),
        Err(e) => fail(&e),
    }
}

/// `linkpatrol help` (the `--help` text) and `linkpatrol help merge`. The word `help` first
/// is always this, even when a file of that name exists here: a note then says how to check
/// it (`linkpatrol ./help`).
fn help_command() -> ExitCode {
    if std::path::Path::new("help").exists() {
        stderr_line!(
            "linkpatrol: note: `linkpatrol help` shows this help; `linkpatrol ./help` checks \
             the file named help"
        );
    }
    let mut cmd = if std::env::args_os().nth(2).is_some_and(|a| a == "merge") {
        merge::command()
    } else {
        settings::command()
    };
    match cmd.write_long_help(&mut io::stdout().lock()) {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_OK),
        Err(e) => fail(&e.into()),
    }
}

/// Prints the error as one line on stderr (multi-line messages, such as a regex error's, are
/// joined) and returns the error exit status. Credentials in the URLs it quotes are masked
/// here, once for every message: an input, a setting or a config file may hold
/// `user:password@`, and the URL may not even parse. A message may also quote a line of an
/// input list or a file name from a checked-out folder, so its control characters are spelled
/// out.
fn fail(e: &anyhow::Error) -> ExitCode {
    let text = format!("{e:#}");
    let text = linkpatrol::redact_text(&text);
    let line: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    stderr_line!("linkpatrol: error: {}", escape_controls(&line.join(" ")));
    ExitCode::from(EXIT_ERROR)
}

/// Before an immediate exit (the second Ctrl-C): every report finished with `so_far`, what
/// is whole put into place. Errors are dropped: the process is ending.
fn exit_now(
    reporter: &mut dyn linkpatrol::report::Reporter,
    so_far: &linkpatrol::Report,
    files: &mut ReportFiles,
) {
    let _ = reporter.finish(so_far);
    let _ = reporter.flush();
    let _ = files.commit();
}

/// The reporters of the run: stdout's and every `-F` file's. A sorted report keeps at most
/// `share` bytes of rows in memory (`Config::report_share`), counted where the run's budget
/// reads them.
fn reporters(
    args: &Args,
    files: &mut ReportFiles,
    share: Option<(usize, linkpatrol::HeldRows)>,
) -> Box<dyn linkpatrol::report::Reporter> {
    let options = report_setup::stdout_options(args);
    // Files never get colour codes.
    let file_options = ReportOptions {
        color: false,
        ..options.clone()
    };
    outputs::reporters(
        args.output,
        args.quiet,
        &options,
        &args.file_outputs,
        std::mem::take(&mut files.writers),
        &file_options,
        if args.stream {
            outputs::Rows::Streamed
        } else {
            outputs::Rows::Sorted(share)
        },
    )
}

/// A Ctrl-C while the inputs were read: says so and writes every report, whole and empty,
/// marked interrupted, as a run cancelled before its first URL would.
fn interrupted_before_check(args: &Args, why: &linkpatrol::Error) -> anyhow::Result<u8> {
    stderr_line!("linkpatrol: {}", escape_controls(&why.to_string()));
    let mut files = ReportFiles::open_all(&args.file_outputs, args.stream)?;
    let mut reporter = reporters(args, &mut files, None);
    let mut report = linkpatrol::Report::default();
    report.interrupted = true;
    let finished = reporter.finish(&report).and_then(|()| reporter.flush());
    drop(reporter);
    files.commit()?;
    finished?;
    Ok(EXIT_INTERRUPTED)
}

fn run(settings: &settings::Settings) -> anyhow::Result<u8> {
    let args = &settings.args;
    let abort_secs = args.check.abort_timeout;
    // Ctrl-C is ours from before the inputs are read: a huge folder's walk stops too.
    let cancel = linkpatrol::CancelHandle::new();
    let guard = Arc::new(ExitGuard::new(EXIT_INTERRUPTED, !args.stream));
    let presses = AtomicUsize::new(0);
    let handler_guard = guard.clone();
    let handler_cancel = cancel.clone();
    ctrlc::set_handler(move || {
        if presses.fetch_add(1, Ordering::SeqCst) == 0 {
            // Cancelled before it is said: once the line is out, nothing new is discovered.
            handler_cancel.cancel();
            stderr_line!(
                "linkpatrol: interrupted; finishing active URLs for up to {abort_secs} s \
                 (press Ctrl-C again to exit at once)"
            );
        } else {
            handler_guard.exit_at_row_boundary();
        }
    })?;
    let config = match settings::config_from(settings, &cancel) {
        Ok(config) => config,
        Err(e) => {
            return match e.downcast_ref::<linkpatrol::Error>() {
                Some(why) if why.kind() == linkpatrol::ErrorKind::Interrupted => {
                    interrupted_before_check(args, why)
                }
                _ => Err(e),
            };
        }
    };
    // A sorted report's rows in memory count in the run's memory budget.
    let held = linkpatrol::HeldRows::new();
    let share = config
        .report_share()
        .filter(|_| !args.stream)
        .map(|bytes| (bytes, held.clone()));
    let checker = Checker::new(config.rows_held(held))?.with_cancel_handle(cancel);
    // `--sources SRC BUILT`: problems on the built pages are reported at their sources.
    let sources = match &args.sources {
        Some(src) => {
            let built = report_setup::checked_folder(args)
                .ok_or_else(|| anyhow::anyhow!("--sources needs the built site's folder"))?;
            Some(linkpatrol::SourceMap::new(src, built)?)
        }
        None => None,
    };
    // Every -F file opens before any is truncated (and before the run starts).
    let mut files = ReportFiles::open_all(&args.file_outputs, args.stream)?;
    let mut export = match &args.export_external {
        Some(path) => Some(shard_files::ExportWriter::create(path)?),
        None => None,
    };
    let mut reporter = reporters(args, &mut files, share);
    let counters = Arc::new(status::Counters::default());
    let display =
        status::StatusDisplay::start(checker.progress(), counters.clone(), !args.no_status);
    let mut write_error: Option<io::Error> = None;
    let mut run = checker.spawn()?;
    loop {
        let mut entry = match run.next_within(IDLE_INTERVAL) {
            Step::Entry(entry) => entry,
            Step::Idle => {
                // Rows reach their files while the run waits (and survive a kill).
                let _ = guard.idle(&mut *reporter, |r| {
                    exit_now(r, &run.report_so_far(), &mut files)
                });
                continue;
            }
            _ => break,
        };
        // An exported link is another shard's row: it goes to the export file only.
        if entry.result.exported_to.is_some() {
            if let Some(out) = export.as_mut()
                && let Err(e) = out.write(&entry)
            {
                write_error.get_or_insert(e);
            }
            continue;
        }
        if entry.result.outcome.is_broken() {
            counters.errors.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(map) = &sources {
            map.map(&mut entry);
        }
        // Keep feeding after an error so the other outputs stay complete; report it at the end.
        let written = guard.entry(&mut *reporter, &entry, |r| {
            exit_now(r, &run.report_so_far(), &mut files);
        });
        if let Err(e) = written {
            write_error.get_or_insert(e);
        }
    }
    let report = run.finish()?;
    // Said where CI logs show it, whatever stdout is redirected to.
    if let Some(limit) = report.time_limit_reached {
        stderr_line!(
            "linkpatrol: stopped at the time limit of {} s (--max-run-time): {} URL{} not \
             checked; exit status {EXIT_TIME_LIMIT}",
            limit.as_secs_f64(),
            report.unchecked,
            if report.unchecked == 1 { "" } else { "s" }
        );
    }
    if report.spilled > 0 {
        stderr_line!(
            "linkpatrol: {} queued URL{} waited on disk: the queue's memory share was full \
             (--queue-memory, --max-memory)",
            report.spilled,
            if report.spilled == 1 { "" } else { "s" }
        );
    }
    let rows_on_disk = reporter.rows_on_disk();
    if rows_on_disk > 0 {
        stderr_line!(
            "linkpatrol: {rows_on_disk} report row{} waited on disk: the sorted report's memory \
             share was full (a quarter of --max-memory; --stream writes rows as they come)",
            if rows_on_disk == 1 { "" } else { "s" }
        );
    }
    // The report's own warnings (a login session lost during the crawl).
    for w in report.state_warnings.iter().chain(&report.warnings) {
        stderr_line!("linkpatrol: warning: {}", escape_controls(w));
    }
    // Named only when the run found nothing beyond its inputs: in a folder of documents, a
    // few without links are no news.
    let nothing_beyond = report.links() == report.starts_without_links.len();
    for url in report
        .starts_without_links
        .iter()
        .filter(|_| nothing_beyond)
    {
        stderr_line!(
            "linkpatrol: warning: {} held no links: nothing was checked beyond it",
            escape_controls(&linkpatrol::redact_text(url))
        );
    }
    if let Some(d) = display {
        d.stop();
    }
    let finished = guard.finish(&mut *reporter, &report);
    drop(reporter);
    // Each whole report goes into place, also when another one failed.
    let committed = files.commit();
    if let Some(e) = write_error {
        return Err(e.into());
    }
    finished?;
    committed?;
    if let Some(out) = export {
        out.finish()?;
    }
    // The last, unterminated line may still sit in stdout's own buffer.
    if let Err(e) = io::stdout().flush()
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        return Err(e.into());
    }
    Ok(if report.time_limit_reached.is_some() {
        EXIT_TIME_LIMIT
    } else if report.interrupted {
        EXIT_INTERRUPTED
    } else if report.failing > 0 || (args.fail_on_warnings && report.warnings() > 0) {
        EXIT_BROKEN
    } else {
        EXIT_OK
    })
}
