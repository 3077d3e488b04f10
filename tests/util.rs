//! Shared helpers: build and run a checker against a loopback server, summarise reports, run
//! the CLI binary.

use std::collections::BTreeSet;
use std::process::{Command, Output};
use std::time::Duration;

use linkpatrol::{Checker, Config, Report};

/// Proxy variables of the environment: removed for every run of the binary, so a proxy set
/// on the machine running the tests cannot reroute their loopback traffic.
pub const PROXY_VARS: [&str; 8] = [
    "ALL_PROXY",
    "all_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// A config for tests: no politeness limit, short timeouts, `threads` workers, no proxy from
/// the environment.
pub fn config(url: &str, threads: usize) -> Config {
    Config::new()
        .input_url(url)
        .proxy_from_env(false)
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
    cli_with_env(args, &[])
}

/// Runs the `linkpatrol` binary with `args`, without the machine's proxy variables and with
/// `env` set.
pub fn cli_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_linkpatrol"));
    for var in PROXY_VARS {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .envs(env.iter().copied())
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
