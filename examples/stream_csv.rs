//! Stream results into a custom CSV (url, status, page, line) as they finish, reading the
//! run as an iterator, with a cancel handle that stops it after a time limit.
//!
//! `cargo run --example stream_csv -- URL_OR_PATH [SECONDS]`

use std::time::Duration;

use linkpatrol::{Checker, Config, Input};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let target = args
        .next()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site").to_owned());
    let limit = args.next().and_then(|s| s.parse().ok()).unwrap_or(60.0);
    let input = if target.contains("://") {
        Input::Url(target)
    } else {
        Input::Path(target.into())
    };
    // The rows go out as they come: the report need not keep them too.
    let checker = Checker::new(Config::new().input(input).keep_entries(false))?;

    // Another thread may stop the run at any time; the report keeps what finished.
    let cancel = checker.cancel_handle();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs_f64(limit));
        cancel.cancel();
    });

    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    out.write_record(["url", "status", "page", "line"])?;
    let mut run = checker.spawn()?;
    let mut rows = 0;
    for entry in run.by_ref() {
        let r = entry.referrer.as_ref();
        let line = r
            .and_then(|r| r.line)
            .map(|l| l.to_string())
            .unwrap_or_default();
        // A failed write (closed pipe) just ends the output; the check itself goes on.
        let _ = out.write_record([
            entry.result.url.as_str(),
            &entry.result.outcome.to_string(),
            r.map_or("", |r| r.parent.as_str()),
            &line,
        ]);
        rows += 1;
    }
    let report = run.finish()?;
    out.flush()?;
    eprintln!(
        "{} entries, {} broken{}",
        rows,
        report.errors(),
        if report.interrupted {
            " (stopped early)"
        } else {
            ""
        }
    );
    Ok(())
}
