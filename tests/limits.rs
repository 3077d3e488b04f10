//! Out-of-range settings: huge timeouts, tiny or negative rates, control characters in the
//! user agent or a header, a resolver that is no address, a switch variable that is no yes or
//! no, the largest body size (a huge robots.txt `Crawl-delay`: the robots unit tests). Each is
//! refused with one clear line (exit 2) naming the option, or clamped — never a panic.

use std::time::Duration;

use linkpatrol::{Checker, Config, ErrorKind, HostRule};
use regex::Regex;

use crate::support::server::{Routes, TestServer};
use crate::support::util::{cli, cli_with_env};

/// Runs the binary with `flags` against a dead local port and returns (exit code, stderr).
fn refused(flags: &[&str]) -> (Option<i32>, String) {
    refused_with(flags, &[])
}

/// Environment variables of a run, `(NAME, VALUE)`.
type Env<'a> = &'a [(&'a str, &'a str)];

/// [`refused`] with environment variables.
fn refused_with(flags: &[&str], env: Env) -> (Option<i32>, String) {
    let mut args = vec!["--no-status"];
    args.extend_from_slice(flags);
    args.push("http://127.0.0.1:9/");
    let out = cli_with_env(&args, env);
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn values_no_request_can_carry_exit_2_naming_the_option() {
    let cases: [(&[&str], Env, &str); 15] = [
        (&["--user-agent", "a\nb"], &[], "--user-agent"),
        (&["--user-agent", "a\u{1}b"], &[], "--user-agent"),
        (&["-H", "X-A: a\r\nEvil: 1"], &[], "--header"),
        (&["--host-header", ".=X-A: a\nb"], &[], "--host-header"),
        (&["--host-rate", ".*=-1"], &[], "--host-rate"),
        (&[], &[("LINKPATROL_HOST_RATE", ".*=-1")], "--host-rate"),
        (&[], &[("LINKPATROL_HOST_RATE", ".*=NaN")], "--host-rate"),
        (&["--dns-server", "notanip"], &[], "--dns-server"),
        (&[], &[("LINKPATROL_USER_AGENT", "a\rb")], "--user-agent"),
        (&[], &[("LINKPATROL_QUIET", "2")], "--quiet"),
        (&[], &[("LINKPATROL_QUIET", "maybe")], "--quiet"),
        // An extension that names a path panicked on every missing file.
        (
            &["--fallback-extensions", "md,x/y"],
            &[],
            "--fallback-extensions",
        ),
        (
            &["--fallback-extensions", "..md"],
            &[],
            "--fallback-extensions",
        ),
        (
            &["--fallback-extensions", "a\\b"],
            &[],
            "--fallback-extensions",
        ),
        (
            &[],
            &[("LINKPATROL_FALLBACK_EXTENSIONS", "/etc/passwd")],
            "--fallback-extensions",
        ),
    ];
    for (flags, env, option) in cases {
        let (code, stderr) = refused_with(flags, env);
        assert_eq!(code, Some(2), "{flags:?} {env:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{flags:?} {env:?}: {stderr}");
        assert!(stderr.contains(option), "{flags:?} {env:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{flags:?} {env:?}: {stderr}");
    }
    // The spellings of a switch still read as before.
    for value in ["1", "YES", "off", "no"] {
        let (code, stderr) = refused_with(&[], &[("LINKPATROL_QUIET", value)]);
        assert_eq!(code, Some(1), "LINKPATROL_QUIET={value}: {stderr}");
    }
}

#[test]
fn out_of_range_flags_exit_2_with_one_line_naming_the_flag() {
    for (flags, flag) in [
        (&["--timeout", "1e20"][..], "--timeout"),
        (&["--timeout", "1e15"], "--timeout"),
        (&["--abort-timeout", "1e300"], "--abort-timeout"),
        (&["--max-retry-wait", "1e300"], "--max-retry-wait"),
        (
            &["--max-requests-per-second", "1e-300"],
            "--max-requests-per-second",
        ),
        (&["--host-rate", ".*=1e-300"], "--host-rate"),
    ] {
        let (code, stderr) = refused(flags);
        assert_eq!(code, Some(2), "{flags:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{flags:?}: one line: {stderr}");
        assert!(stderr.contains(flag), "{flags:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{flags:?}: {stderr}");
    }
}

#[test]
fn the_library_refuses_the_same_values_as_invalid_config() {
    let base = || Config::new().input_url("http://127.0.0.1:9/");
    for config in [
        base().timeout(Duration::from_secs(u64::MAX)),
        base().timeout(Duration::ZERO),
        base().abort_timeout(Duration::from_secs(1 << 40)),
        base().max_retry_wait(Duration::MAX),
        base().retry_backoff(Duration::MAX),
        base().max_requests_per_second(1e-300),
        base().host_rule(HostRule::new(Regex::new(".*").unwrap()).max_requests_per_second(1e-12)),
        base().max_requests_per_second(-1.0),
        base().host_rule(HostRule::new(Regex::new(".*").unwrap()).max_requests_per_second(-1.0)),
        base()
            .host_rule(HostRule::new(Regex::new(".*").unwrap()).max_requests_per_second(f64::NAN)),
        base().user_agent("linkpatrol\r\nX-Evil: 1"),
        base().header("X-A", "a\nb"),
        base().header("X A", "b"),
        base().host_rule(HostRule::new(Regex::new(".*").unwrap()).header("X-A", "\u{0}")),
        base().fallback_extensions(vec!["md".into(), "../x".into()]),
        base().fallback_extensions(vec!["a\u{0}b".into()]),
        base().fallback_extensions(vec!["x\\y".into()]),
    ] {
        let err = Checker::new(config).expect_err("refused");
        assert_eq!(err.kind(), ErrorKind::InvalidConfig, "{err}");
    }
    // the limits themselves are fine
    let year = linkpatrol::MAX_DURATION;
    assert!(Checker::new(base().timeout(year).max_retry_wait(year)).is_ok());
    assert!(Checker::new(base().max_requests_per_second(1.0 / year.as_secs_f64())).is_ok());
}

#[test]
fn the_largest_max_body_size_reads_the_page_instead_of_wrapping_to_0() {
    let server = TestServer::start(Routes::new().page("/", "<a href='/gone'>gone</a>"));
    let out = cli(&[
        "--no-status",
        "--max-requests-per-second",
        "0",
        "--max-body-size",
        &u64::MAX.to_string(),
        "-o",
        "csv",
        &server.url("/"),
    ]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{csv}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        csv.lines()
            .any(|l| l.starts_with("/gone;") && l.contains("404 Not Found")),
        "{csv}"
    );
}
