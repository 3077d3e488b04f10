//! Flags → `linkpatrol::Config`, in one place. Validation that needs more than one flag, and
//! turning input strings into URLs or paths, happens here.

use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use clap::{CommandFactory, FromArgMatches};
use linkpatrol::MAX_DURATION;
use linkpatrol::report::escape_controls;
use linkpatrol::{AcceptStatus, BasicAuth, Config, CookieJar, HostRule, Inputs, Notice, Remap};
use regex::Regex;
use std::net::SocketAddr;

use linkpatrol::resolver_from_resolv_conf;
use url::Url;

use crate::args::Args;
use crate::config_file::{self, Found};
use crate::values::HostSection;
use crate::{help, trust};

/// Parses the command line with its environment variables, then fills what neither gave from
/// the config file (refused when it was found in the current folder, is not trusted and sets a
/// key such a file may not set). A usage error comes back as one line; `--help` and `--version` print and
/// exit here.
pub fn args_from_command_line() -> Result<Args> {
    let short = help::wants_short_help(std::env::args_os());
    let matches = match help::decorate(Args::command(), short).try_get_matches() {
        Ok(m) => m,
        Err(e) => return Err(usage_error(e)),
    };
    let mut args = Args::from_arg_matches(&matches).map_err(usage_error)?;
    if args.generate.is_some() {
        // Completions and the man page depend on no config file (a broken one must not stop them).
        return Ok(args);
    }
    args.rate_given = config_file::given(&matches, "max_requests_per_second");
    if let Some((path, found)) = config_file::locate(&args) {
        let file = config_file::load(&path, found)?;
        let untrusted = found == Found::InCurrentFolder && !args.trust_config;
        if untrusted {
            trust::check_local(&file, &path)?;
        }
        // A GitHub token reads private repositories: credentials too.
        let github_token = config_file::given(&matches, "github_token")
            || std::env::var_os("GITHUB_TOKEN").is_some_and(|v| !v.is_empty());
        if untrusted
            && (github_token
                || ["headers", "host_header", "cookie_file", "login_url"]
                    .iter()
                    .any(|id| config_file::given(&matches, id)))
        {
            trust::check_local_printing(&file, &path, config_file::given(&matches, "verbose"))?;
        }
        config_file::apply(&mut args, &matches, &file, &path)?;
        if untrusted {
            cap_local(&mut args, &matches, &path);
        }
        // The user's own flags (or variables) chose the state file; otherwise, a local file
        // did, and the file it opens may be the checkout's.
        args.state_untrusted = untrusted
            && !["cache", "cache_file", "resume"]
                .iter()
                .any(|id| config_file::given(&matches, id));
    }
    Ok(args)
}

/// The most time a config file found in the current folder may set for `timeout`,
/// `abort-timeout` and `max-retry-wait`: five minutes.
pub const LOCAL_MAX_SECS: f64 = 300.0;

/// The most retries a config file found in the current folder may set.
pub const LOCAL_MAX_RETRIES: u32 = 10;

/// Caps what an untrusted local config at `path` set (and the command line did not) to
/// [`LOCAL_MAX_SECS`] and [`LOCAL_MAX_RETRIES`], with a warning for each value cut: a
/// checkout could otherwise have one run wait a year on a host, or retry it four billion
/// times.
fn cap_local(args: &mut Args, matches: &clap::ArgMatches, path: &std::path::Path) {
    let p = path.display();
    for (id, key, value) in [
        ("timeout", "timeout", &mut args.timeout),
        ("abort_timeout", "abort-timeout", &mut args.abort_timeout),
        ("max_retry_wait", "max-retry-wait", &mut args.max_retry_wait),
    ] {
        if !config_file::given(matches, id) && (value.is_nan() || *value > LOCAL_MAX_SECS) {
            args.config_warnings.push(format!(
                "{p}: {key} {} is more than a config found in the current folder may set; \
                 using {LOCAL_MAX_SECS} s (give it on the command line, or trust the file)",
                shown(*value)
            ));
            *value = LOCAL_MAX_SECS;
        }
    }
    if !config_file::given(matches, "max_retries") && args.max_retries > LOCAL_MAX_RETRIES {
        args.config_warnings.push(format!(
            "{p}: max-retries {} is more than a config found in the current folder may set; \
             using {LOCAL_MAX_RETRIES} (give it on the command line, or trust the file)",
            args.max_retries
        ));
        args.max_retries = LOCAL_MAX_RETRIES;
    }
}

/// The one clap definition of the command line: the flags of `Args` with their help topics and
/// environment variables. It parses the flags and `--generate` writes completions and the man
/// page from it.
pub fn command() -> clap::Command {
    help::decorate(Args::command(), false)
}

/// A value its parser refused, as one line: clap quotes the value as given, and one with a
/// line break (`--user-agent $'a\nb'`) would cut the line short; here it is spelled out.
fn invalid_value(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
        e.get(ContextKind::InvalidArg),
        e.get(ContextKind::InvalidValue),
    ) else {
        return None;
    };
    let why = std::error::Error::source(e).map_or_else(String::new, |s| format!(": {s}"));
    Some(format!(
        "invalid value '{}' for '{arg}'{why}",
        value.escape_debug()
    ))
}

/// A clap error as one line (its first, the values allowed, and its tips: `a similar argument
/// exists: '--threads'`), or the help or version text printed at once.
fn usage_error(e: clap::Error) -> anyhow::Error {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    if let Some(line) = invalid_value(&e) {
        return anyhow::anyhow!("{line}");
    }
    let text = e.to_string();
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let first = first.trim().trim_start_matches("error: ");
    // A value not among an argument's values lists them on a line of its own.
    let values = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("[possible values: "));
    let first = match values {
        Some(v) => format!("{first} {v}"),
        None => first.to_owned(),
    };
    let tips: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .collect();
    if tips.is_empty() {
        anyhow::anyhow!("{first}")
    } else {
        anyhow::anyhow!("{first} ({})", tips.join("; "))
    }
}

/// The start inputs of `args` added to `config` by the library's [`Inputs`], its notes and
/// warnings printed. When `--changed-since` finds no page touched, says so and exits with 0.
fn add_inputs(config: Config, args: &Args) -> Result<Config> {
    let mut inputs = Inputs::new()
        .stdin(args.stdin)
        .no_ignore(args.no_ignore)
        .hidden(args.hidden)
        .follow(args.follow);
    for input in &args.inputs {
        inputs = inputs.input(input);
    }
    for file in &args.input_file {
        inputs = inputs.list_file(file);
    }
    for pattern in &args.exclude_path {
        inputs = inputs.exclude_path(pattern);
    }
    if let Some(reference) = &args.changed_since {
        inputs = inputs.changed_since(reference);
    }
    // The message names the input and the reason; the error's source would say it again.
    let resolved = inputs.resolve(config).map_err(|e| anyhow!("{e}"))?;
    for notice in &resolved.notices {
        match notice {
            Notice::Note(text) => stderr_line!("linkpatrol: note: {}", escape_controls(text)),
            Notice::Warning(text) => stderr_line!("linkpatrol: warning: {}", escape_controls(text)),
            _ => stderr_line!("linkpatrol: {notice:?}"),
        }
    }
    if resolved.nothing_changed {
        stderr_line!(
            "linkpatrol: no Markdown or HTML file is touched by the changes since `{}': \
             nothing to check",
            escape_controls(args.changed_since.as_deref().unwrap_or_default())
        );
        std::process::exit(0);
    }
    Ok(resolved.config)
}

/// Builds the library configuration from the parsed flags.
pub fn config_from(args: &Args) -> Result<Config> {
    let mut config = Config::new()
        .threads(args.threads)
        .timeout(secs("--timeout", args.timeout)?)
        .max_requests_per_second(rate(
            "--max-requests-per-second",
            args.max_requests_per_second,
        )?)
        // Loopback (a local development server) is exempt from the default rate only.
        .loopback_unthrottled(!args.rate_given)
        .host_concurrency(args.host_concurrency)
        // What a change touches is checked, not the pages it links to (unless -r says so).
        .recursion_level(
            args.recursion_level
                .or(args.changed_since.as_ref().map(|_| 1)),
        )
        .check_external(!args.internal_only)
        .max_redirects(args.max_redirects)
        .abort_timeout(secs("--abort-timeout", args.abort_timeout)?);
    config = config
        // The reporters consume the stream; the report needs only its counts.
        .keep_entries(false)
        // Without -v, every report but JUnit, sitemap and the graphs shows problems only: the
        // other entries are then counted, never built (most of the cost of a big crawl).
        .only_problems(
            !args.verbose
                && !std::iter::once(args.output)
                    .chain(args.file_outputs.iter().map(|f| f.format))
                    .any(|f| f.lists_every_entry()),
        )
        .robots(!args.no_robots)
        .follow_outside_root(args.follow_outside_root)
        .include_verbatim(args.include_verbatim)
        .fallback_extensions(args.fallback_extensions.clone())
        .seed_sitemaps(args.sitemaps)
        .max_retries(args.max_retries)
        .max_retry_wait(secs("--max-retry-wait", args.max_retry_wait)?)
        .insecure(args.insecure)
        .exclude_private(args.exclude_private)
        .exclude_loopback(args.exclude_loopback)
        .exclude_link_local(args.exclude_link_local)
        .allow_private(args.allow_private)
        .fail_on_blocked(args.fail_on_blocked)
        // 0 means no limit, like the other limits.
        .max_urls(args.max_urls.filter(|&n| n > 0))
        .max_run_time(
            args.max_run_time
                .map(|t| secs("--max-run-time", t))
                .transpose()?,
        )
        .max_body_size(args.max_body_size)
        .max_cache_age(args.max_cache_age)
        .cache_failures(args.cache_failures)
        .resume(args.resume)
        .trust_state_file(!args.state_untrusted)
        .fail_after_runs(args.fail_after_runs);
    if let Some(path) = &args.cache_file {
        config = config.state_file(path);
    } else if args.cache || args.resume {
        config = config.state_file(linkpatrol::DEFAULT_STATE_FILE);
    }
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
    for section in &args.hosts {
        config = config.host_rule(host_section(section)?);
    }
    if let Some(dir) = &args.root_dir {
        config = config.root_dir(dir);
    }
    if let Some(ua) = &args.user_agent {
        config = config.user_agent(ua);
    }
    if let Some(proxy) = &args.proxy {
        config = config.proxy(proxy);
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
    for rule in &args.remap {
        config = config.remap(Remap::parse(rule).map_err(|e| anyhow!("--remap {e}"))?);
    }
    config = add_requests(config, args)?;
    config = add_inputs(config, args)?;
    let mut plugins = args.plugins.clone();
    // `--check-anchors` is `--plugin anchors` (whose settings, when also given, still apply).
    if args.check_anchors && !plugins.iter().any(|(name, _)| name == "anchors") {
        plugins.push(("anchors".into(), Vec::new()));
    }
    config = crate::plugin_flags::add_plugins(config, &plugins)?;
    if let Some(shard) = args.shard {
        config = config.shard(shard);
        for link in crate::shard_files::read_exports(&args.external_from, shard)? {
            config = config.found_link(link);
        }
        if let Some(path) = &args.reuse_results {
            for result in crate::shard_files::read_results(path)? {
                config = config.reuse_result(result);
            }
        }
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

/// A request rate, refused (naming the flag) when negative, not finite, or when it implies more
/// than a year between requests.
fn rate(flag: &str, per_second: f64) -> Result<f64> {
    if !(per_second >= 0.0 && per_second.is_finite()) {
        bail!(
            "{flag} {}: not a rate of 0 or more (0 means no limit)",
            shown(per_second)
        );
    }
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

/// The resolver for `--check-mx`: `--dns-server` (`IP` or `IP:PORT`), else the first
/// nameserver of /etc/resolv.conf.
fn mx_resolver(given: Option<&str>) -> Result<SocketAddr> {
    if let Some(s) = given {
        return linkpatrol::parse_dns_server(s).map_err(|e| anyhow!("--dns-server {e}"));
    }
    let conf = std::fs::read_to_string("/etc/resolv.conf")
        .context("--check-mx: cannot read /etc/resolv.conf (use --dns-server)")?;
    resolver_from_resolv_conf(&conf)
        .ok_or_else(|| anyhow!("--check-mx: no nameserver in /etc/resolv.conf (use --dns-server)"))
}

/// A `[[hosts]]` section of the config file as a host rule.
fn host_section(section: &HostSection) -> Result<HostRule> {
    let pattern = Regex::new(&section.pattern).with_context(|| {
        format!(
            "config file: [[hosts]] pattern `{}' is not a valid regex",
            section.pattern
        )
    })?;
    let mut rule = HostRule::new(pattern);
    if let Some(n) = section.rate {
        rule = rule.max_requests_per_second(n);
    }
    if let Some(n) = section.max_concurrency {
        rule = rule.concurrency(n);
    }
    for (name, value) in &section.headers {
        rule = rule.header(name, value);
    }
    Ok(rule)
}

fn regex(p: &str, flag: &str) -> Result<Regex> {
    Regex::new(p).with_context(|| format!("{flag} `{p}' is not a valid regex"))
}

/// Cookies, basic auth, the method, accepted statuses and the site's public URL.
fn add_requests(mut config: Config, args: &Args) -> Result<Config> {
    if let Some(path) = &args.cookie_file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read cookie file `{}'", path.display()))?;
        let jar = CookieJar::parse_netscape(&text)
            .map_err(|e| anyhow!("cookie file `{}', {e}", path.display()))?;
        config = config.cookies(jar);
    }
    config = config.login(crate::login::form_login(args)?);
    for a in &args.auth {
        let pattern = Regex::new(&a.pattern).with_context(|| {
            format!(
                "config file: [[auth]] pattern `{}' is not a valid regex",
                a.pattern
            )
        })?;
        config = config.basic_auth(BasicAuth::new(pattern, &a.username, &a.password));
    }
    let accept = AcceptStatus::parse(&args.accept).map_err(|e| anyhow!("--accept: {e}"))?;
    config = config.accept(accept).always_get(args.method == "get");
    // A bad --dns-server is an error even without --check-mx, which alone asks it.
    let resolver = args
        .dns_server
        .as_deref()
        .map(|s| mx_resolver(Some(s)))
        .transpose()?;
    if args.check_mx {
        let resolver = resolver.map_or_else(|| mx_resolver(None), Ok)?;
        config = config.mx_resolver(Some(resolver));
    }
    config = config.suggest(args.suggest);
    config = config.detect_soft_404(args.detect_soft_404);
    if let Some(url) = &args.archive_url {
        config = config
            .archive_url(url)
            .map_err(|e| anyhow!("--archive-url: {e}"))?;
    }
    // The flag (or its variable, or the config file), else GitHub's usual variable.
    let github_token = match &args.github_token {
        Some(token) => Some(("--github-token", token.clone())),
        None => std::env::var("GITHUB_TOKEN")
            .ok()
            .filter(|t| !t.trim().is_empty())
            .map(|t| ("GITHUB_TOKEN", t)),
    };
    if let Some((source, token)) = github_token {
        config = config
            .github_token(&token)
            .map_err(|e| anyhow!("{source}: {e}"))?;
    }
    if let Some(base) = &args.base_url {
        Url::parse(base).map_err(|e| anyhow!("--base-url `{base}' is not a valid URL: {e}"))?;
        config = config.base_url(base);
    }
    Ok(config)
}
