//! Shared helpers: build and run a checker against a loopback server, summarise reports, run
//! the CLI binary.

use std::collections::BTreeSet;
use std::process::{Command, Output};
use std::time::Duration;

use linkpatrol::{Checker, Config, Report};

/// A config for tests: no politeness limit, short timeouts, `threads` workers.
pub fn config(url: &str, threads: usize) -> Config {
    Config::new()
        .input_url(url)
        .threads(threads)
        .max_requests_per_second(0.0)
        .timeout(Duration::from_secs(5))
        .abort_timeout(Duration::from_secs(2))
        .retry_backoff(Duration::from_millis(20))
}

/// Runs a check to the end.
pub fn run(config: Config) -> Report {
    Checker::new(config)
        .expect("valid config")
        .run()
        .expect("run")
}

/// Every (url, verdict, parent, line) in a report, order-free: two runs agree when equal.
pub fn result_set(report: &Report) -> BTreeSet<(String, String, String, Option<usize>)> {
    report
        .entries
        .iter()
        .map(|e| {
            let r = e.referrer.as_ref();
            (
                e.result.url.clone(),
                e.result.outcome.to_string(),
                r.map(|r| r.parent.clone()).unwrap_or_default(),
                r.and_then(|r| r.line),
            )
        })
        .collect()
}

/// The URLs reported broken.
pub fn broken(report: &Report) -> BTreeSet<String> {
    report.broken().map(|e| e.result.url.clone()).collect()
}

/// Runs the `linkpatrol` binary with `args`.
pub fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_linkpatrol"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A fresh, empty folder for one test's files.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("linkpatrol-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
