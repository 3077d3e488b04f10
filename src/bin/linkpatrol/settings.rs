//! Flags → `linkpatrol::Config`, in one place. Validation that needs more than one flag, and
//! turning input strings into URLs or paths, happens here.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use linkpatrol::plugin::Options;
use linkpatrol::{Config, HostRule};
use regex::Regex;

use crate::args::Args;

/// Builds the library configuration from the parsed flags.
pub fn config_from(args: &Args) -> Result<Config> {
    let mut config = Config::new()
        .threads(args.threads)
        .timeout(Duration::from_secs_f64(args.timeout))
        .max_requests_per_second(args.max_requests_per_second)
        .host_concurrency(args.host_concurrency)
        .recursion_level(args.recursion_level)
        .check_external(!args.internal_only)
        .max_redirects(args.max_redirects)
        .abort_timeout(Duration::from_secs_f64(args.abort_timeout));
    config = config
        // The reporters consume the stream; the report needs only its counts.
        .keep_entries(false)
        .robots(!args.no_robots)
        .seed_sitemaps(args.sitemaps)
        .max_retries(args.max_retries)
        .max_retry_wait(Duration::from_secs_f64(args.max_retry_wait))
        .insecure(args.insecure)
        .max_urls(args.max_urls)
        .max_body_size(args.max_body_size);
    for tag in &args.ignore_warning {
        config = config.ignore_warning(tag);
    }
    for (name, value) in &args.headers {
        config = config.header(name, value);
    }
    for (pattern, n) in &args.host_rate {
        config = config
            .host_rule(HostRule::new(regex(pattern, "--host-rate")?).max_requests_per_second(*n));
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
    config = add_plugins(config, &args.plugins)?;
    if !args.csv_delimiter.is_ascii() {
        bail!("--csv-delimiter must be a single ASCII character");
    }
    Ok(config)
}

/// Makes each named built-in plugin once, with the settings of every `--plugin` that names it.
fn add_plugins(mut config: Config, specs: &[(String, Vec<(String, String)>)]) -> Result<Config> {
    let mut order: Vec<Options> = Vec::new();
    for (name, pairs) in specs {
        let options = match order.iter_mut().find(|o| o.plugin() == name) {
            Some(o) => o,
            None => {
                order.push(Options::new(name.clone()));
                order.last_mut().expect("just pushed")
            }
        };
        for (k, v) in pairs {
            options.push(k.clone(), v.clone());
        }
    }
    for options in &order {
        let plugin = linkpatrol::plugins::builtin(options.plugin(), options)
            .with_context(|| "--plugin".to_owned())?;
        config = config.plugin(plugin);
    }
    Ok(config)
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
