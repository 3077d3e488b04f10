//! Shared helpers: build and run a checker against a loopback server, summarise reports, run
//! the CLI binary and read its CSV back, wait for and signal running processes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use linkpatrol::{Checker, Config, Entry, FailKind, Outcome, Report};

use crate::support::server::{Reply, Routes, TestServer};

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

/// The `linkpatrol` binary, not started yet, that reads no config file (`--no-config`) and
/// none of this machine's settings (see [`hermetic`]), with `HOME` in an empty folder.
pub fn linkpatrol() -> Command {
    let mut cmd = hermetic(empty_home());
    cmd.arg("--no-config");
    cmd
}

/// The `linkpatrol` binary, not started yet, with none of this machine's settings: no
/// `LINKPATROL_*` variable, no proxy variable, no colour variable (`NO_COLOR`, `CLICOLOR`,
/// `CLICOLOR_FORCE`) and no `GITHUB_TOKEN` of this process reaches it, and `HOME` and
/// `XDG_CONFIG_HOME` point into `home`, so the user's own config file is never read. Variables
/// this process reads itself (`LINKPATROL_REQUIRE_TOOLS`) are unaffected.
pub fn hermetic(home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_linkpatrol"));
    without_machine_settings(&mut cmd, home);
    cmd
}

/// Takes the machine's settings out of `cmd`'s environment (proxies, colour, `LINKPATROL_*`,
/// `HOME`), for the binary itself or a program that runs it (a shell loading completions).
pub fn without_machine_settings<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    for var in PROXY_VARS {
        cmd.env_remove(var);
    }
    // Colour is decided by the test (`--color`, NO_COLOR), never by the machine's settings.
    for var in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        cmd.env_remove(var);
    }
    // A token of the machine's would be sent to what tests remap from github.com.
    cmd.env_remove("GITHUB_TOKEN");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("LINKPATROL_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
}

/// An empty folder for `HOME`, the same for every test of this process (nothing writes to it).
fn empty_home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| temp_dir("empty-home"))
}

/// Runs `linkpatrol --no-config` with `args` (see [`linkpatrol`]).
pub fn cli(args: &[&str]) -> Output {
    cli_with_env(args, &[])
}

/// Runs `linkpatrol --no-config` with `args` and `env` set (see [`linkpatrol`]).
pub fn cli_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    linkpatrol()
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs")
}

/// Runs the binary in `dir` with extra environment variables and no `--no-config`: the config
/// tests pass their own flags. `HOME` and `XDG_CONFIG_HOME` point into `dir/home` (see
/// [`hermetic`]), so a test can put a user config there.
pub fn cli_in(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    hermetic(&dir.join("home"))
        .current_dir(dir)
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The flags of a verbose CSV report on stdout, with no status line and no politeness delay.
pub const CSV_FLAGS: [&str; 6] = [
    "--no-status",
    "--max-requests-per-second",
    "0",
    "-o",
    "csv",
    "-v",
];

/// Runs `linkpatrol --no-config` with [`CSV_FLAGS`] and `extra` in `dir` (see [`cli_in`]).
pub fn csv_run_in(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--no-config"];
    args.extend_from_slice(&CSV_FLAGS);
    args.extend_from_slice(extra);
    cli_in(dir, &[], &args)
}

/// The rows of a `;`-separated CSV report with a header line.
pub fn csv_records(csv: &[u8]) -> Vec<csv::StringRecord> {
    csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_reader(csv)
        .records()
        .map(|r| r.expect("a CSV row"))
        .collect()
}

/// The CSV rows a `-o csv` run wrote on stdout. By column: 0 urlname, 1 parentname, 3 result,
/// 4 warningstring, 5 infostring, 6 valid, 7 url, 8 line, 9 column, 10 name.
pub fn rows(out: &Output) -> Vec<csv::StringRecord> {
    csv_records(&out.stdout)
}

/// The first row for the link written `urlname`.
pub fn row_named<'a>(rows: &'a [csv::StringRecord], urlname: &str) -> &'a csv::StringRecord {
    rows.iter()
        .find(|r| &r[0] == urlname)
        .unwrap_or_else(|| panic!("no row {urlname} in {rows:#?}"))
}

/// The process exited with `code`; its stderr is shown when not.
#[track_caller]
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One line on stderr, exit status 2, the line contains every `needle`.
#[track_caller]
pub fn assert_one_line_error(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "`{n}' missing from: {err}");
    }
}

/// Sends `sig` (`-INT`, `-TERM`…) to a running child with kill(1).
#[track_caller]
pub fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig}");
}

/// Waits (polling, up to 20 s) until `done` holds.
#[track_caller]
pub fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An endless site: page `/i` links to `/2i+1` and `/2i+2` and answers after `delay`.
pub fn endless_site(delay: Duration) -> TestServer {
    TestServer::start(Routes::new().dynamic(move |req| {
        let i: usize = req.path_only().trim_start_matches('/').parse().unwrap_or(0);
        let html = format!(
            "<a href='/{}'>n</a><a href='/{}'>m</a>",
            i * 2 + 1,
            i * 2 + 2
        );
        Some(Reply::html(html).delayed(delay))
    }))
}

/// The entry of `url` in a report; panics listing the reported URLs when there is none.
#[track_caller]
pub fn entry<'a>(report: &'a Report, url: &str) -> &'a Entry {
    report
        .entries
        .iter()
        .find(|e| e.result.url == url)
        .unwrap_or_else(|| {
            panic!(
                "no entry for {url}: {:#?}",
                report
                    .entries
                    .iter()
                    .map(|e| &e.result.url)
                    .collect::<Vec<_>>()
            )
        })
}

/// A fresh, empty folder, left in place (tests use [`TempDir`], which removes it).
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("linkpatrol-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh, empty folder for one test's files that is removed with everything in it when the
/// guard is dropped, also when the test panics. Keep it in a variable for as long as the
/// folder is used: a path joined to a temporary guard names a folder already removed.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    /// The folder `linkpatrol-test-<pid>-<name>` in the system's temporary folder.
    pub fn new(name: &str) -> TempDir {
        TempDir(temp_dir(name))
    }
}

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for TempDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The kind of a failed outcome; `None` for any other verdict.
pub fn failed_kind(o: &Outcome) -> Option<FailKind> {
    match o {
        Outcome::Failed { kind, .. } => Some(*kind),
        _ => None,
    }
}

/// A zip archive of `parts` (name, text), deflated: the Office and ODF documents the tests
/// build.
pub fn zip_archive(parts: &[(&str, String)]) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in parts {
        zip.start_file(*name, options).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}
