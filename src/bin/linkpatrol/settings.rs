//! Flags → `linkpatrol::Config`, in one place. Validation that needs more than one flag, and
//! turning input strings into URLs or paths, happens here.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use linkpatrol::config::MAX_DURATION;
use linkpatrol::{Config, HostRule};
use regex::Regex;

use crate::args::Args;

/// Builds the library configuration from the parsed flags.
pub fn config_from(args: &Args) -> Result<Config> {
    let mut config = Config::new()
        .threads(args.threads)
        .timeout(secs("--timeout", args.timeout)?)
        .max_requests_per_second(rate(
            "--max-requests-per-second",
            args.max_requests_per_second,
        )?)
        .host_concurrency(args.host_concurrency)
        .recursion_level(args.recursion_level)
        .check_external(!args.internal_only)
        .max_redirects(args.max_redirects)
        .abort_timeout(secs("--abort-timeout", args.abort_timeout)?);
    config = config
        // The reporters consume the stream; the report needs only its counts.
        .keep_entries(false)
        .robots(!args.no_robots)
        .seed_sitemaps(args.sitemaps)
        .max_retries(args.max_retries)
        .max_retry_wait(secs("--max-retry-wait", args.max_retry_wait)?)
        .insecure(args.insecure)
        // 0 means no limit, like the other limits.
        .max_urls(args.max_urls.filter(|&n| n > 0))
        .max_body_size(args.max_body_size);
    for tag in &args.ignore_warning {
        config = config.ignore_warning(tag);
    }
    for (name, value) in &args.headers {
        config = config.header(name, value);
    }
    for (pattern, n) in &args.host_rate {
        let n = rate("--host-rate", *n)?;
        config = config
            .host_rule(HostRule::new(regex(pattern, "--host-rate")?).max_requests_per_second(n));
    }
    for (pattern, n) in &args.host_max_concurrency {
        config = config
            .host_rule(HostRule::new(regex(pattern, "--host-max-concurrency")?).concurrency(*n));
    }
    for (pattern, (name, value)) in &args.host_header {
        config =
            config.host_rule(HostRule::new(regex(pattern, "--host-header")?).header(name, value));
    }
    if let Some(dir) = &args.root_dir {
        config = config.root_dir(dir);
    }
    if let Some(ua) = &args.user_agent {
        config = config.user_agent(ua);
    }
    for p in &args.include {
        config = config.include(regex(p, "--include")?);
    }
    for p in &args.exclude {
        config = config.exclude(regex(p, "--exclude")?);
    }
    for p in &args.no_follow {
        config = config.no_follow(regex(p, "--no-follow")?);
    }
    for input in &args.inputs {
        config = if looks_like_url(input) {
            config.input_url(input)
        } else {
            config.input_path(input)
        };
    }
    if !args.csv_delimiter.is_ascii() {
        bail!("--csv-delimiter must be a single ASCII character");
    }
    Ok(config)
}

/// Seconds as a `Duration`, refused (naming the flag) beyond what the library accepts.
fn secs(flag: &str, value: f64) -> Result<Duration> {
    if !(value.is_finite() && value >= 0.0 && value <= MAX_DURATION.as_secs_f64()) {
        bail!(
            "{flag} {}: at most {} seconds (one year)",
            shown(value),
            MAX_DURATION.as_secs()
        );
    }
    Ok(Duration::from_secs_f64(value))
}

/// A request rate, refused (naming the flag) when it implies more than a year between requests.
fn rate(flag: &str, per_second: f64) -> Result<f64> {
    if per_second > 0.0 && 1.0 / per_second > MAX_DURATION.as_secs_f64() {
        bail!(
            "{flag} {}: too low, one request in more than a year (0 means no limit)",
            shown(per_second)
        );
    }
    Ok(per_second)
}

/// A number as the user would write it: `1e20`, not twenty digits.
fn shown(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

fn regex(p: &str, flag: &str) -> Result<Regex> {
    Regex::new(p).with_context(|| format!("{flag} `{p}' is not a valid regex"))
}

/// `http://…`, `https://…`, `file:…` are URLs; anything else is a path.
fn looks_like_url(s: &str) -> bool {
    let lower = s.trim_start().to_ascii_lowercase();
    ["http://", "https://", "file:"]
        .iter()
        .any(|p| lower.starts_with(p))
}
