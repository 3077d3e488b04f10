//! Flags → `linkpatrol::Config`: the command line and its config file read, the check's
//! options mapped by the library (`CheckOptions::to_config`), and what only the command has
//! (its reports, the config file's sections, a shard's files) added here.

use anyhow::{Context, Result, anyhow, bail};
use clap::{CommandFactory, FromArgMatches};
use linkpatrol::report::escape_controls;
use linkpatrol::{BasicAuth, CancelHandle, Config, ErrorKind, HostRule, Inputs, Notice};
use regex::Regex;

use crate::args::Args;
use crate::config_file::{self, FileConfig, Found};
use crate::values::HostSection;
use crate::{help, trust};

/// Parses the command line with its environment variables, then fills what neither gave from
/// the config file (refused when it was found in the current folder, is not trusted and sets a
/// key such a file may not set). A usage error comes back as one line; `--help` and `--version` print and
/// exit here.
pub fn args_from_command_line() -> Result<Args> {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let short = help::wants_short_help(argv.iter().cloned());
    let matches = match help::decorate(Args::command(), short).try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => return Err(usage_error(e)),
    };
    let mut args = Args::from_arg_matches(&matches).map_err(usage_error)?;
    if args.generate.is_some() {
        // Completions and the man page depend on no config file (a broken one must not stop them).
        return Ok(args);
    }
    args.check.rate_given = config_file::given(&matches, "max_requests_per_second");
    let Some((mut file, path, found)) = crate::config_sources::read(&args)? else {
        if args.print_config {
            args.printed_config = Some(config_file::effective(&matches, &args)?);
        }
        return Ok(args);
    };
    let untrusted = found == Found::InCurrentFolder && !args.trust_config;
    if untrusted {
        trust::check_local(&file, &path, config_file::given(&matches, "allow_private"))?;
    }
    // A GitHub token reads private repositories: credentials too.
    let github_token = config_file::given(&matches, "github_token")
        || std::env::var_os("GITHUB_TOKEN").is_some_and(|v| !v.is_empty());
    if untrusted
        && (github_token
            || [
                "headers",
                "host_header",
                "cookie_file",
                "cookie_jar",
                "login_url",
            ]
            .iter()
            .any(|id| config_file::given(&matches, id)))
    {
        trust::check_local_printing(&file, &path, config_file::given(&matches, "verbose"))?;
    }
    let warnings = if untrusted {
        cap_local(&mut file, &matches, &path)
    } else {
        Vec::new()
    };
    let merged = config_file::merge(&file, &path, &matches, &argv)?;
    args = Args::from_arg_matches(&merged).map_err(usage_error)?;
    // Given by the flags, the environment or the file: it then holds for loopback hosts too.
    args.check.rate_given = merged
        .value_source("max_requests_per_second")
        .is_some_and(|s| s != clap::parser::ValueSource::DefaultValue);
    config_file::add_sections(&mut args, &matches, &file, &path)?;
    args.file_places = Some((file.clone(), path.clone(), matches.clone()));
    args.config_warnings = warnings;
    // The user's own flags (or variables) chose the state file; otherwise, a local file
    // did, and the file it opens may be the checkout's.
    args.state_untrusted = untrusted
        && !["cache", "cache_file", "resume"]
            .iter()
            .any(|id| config_file::given(&matches, id));
    if args.print_config {
        args.printed_config = Some(config_file::effective(&merged, &args)?);
    }
    Ok(args)
}

/// The most time a config file found in the current folder may set for `timeout`,
/// `abort-timeout` and `max-retry-wait`: five minutes.
pub const LOCAL_MAX_SECS: f64 = 300.0;

/// The most retries a config file found in the current folder may set.
pub const LOCAL_MAX_RETRIES: u32 = 10;

/// The whole numbers a config file found in the current folder may raise only so far, each
/// with its cap; 0, where it means "no limit", counts as over the cap:
/// - `max-retries`: [`LOCAL_MAX_RETRIES`];
/// - `max-body-size`: 64 MiB (a 2 GB page would take 3 GB to read and parse);
/// - `max-urls`: the default, [`linkpatrol::DEFAULT_MAX_URLS`] (the brake on a spider trap);
/// - `max-redirects`: 20, as browsers follow.
pub const LOCAL_CAPPED_NUMBERS: [(&str, u64, bool); 4] = [
    ("max-retries", LOCAL_MAX_RETRIES as u64, false),
    ("max-body-size", 64 << 20, false),
    ("max-urls", linkpatrol::DEFAULT_MAX_URLS as u64, true),
    ("max-redirects", 20, false),
];

/// Caps what an untrusted local config `file` at `path` sets (and the command line does not)
/// to [`LOCAL_MAX_SECS`] and [`LOCAL_CAPPED_NUMBERS`], returning a warning for each value cut:
/// a checkout could otherwise have one run wait a year on a host, retry it four billion
/// times, read a 2 GB page or never stop on a spider trap.
fn cap_local(
    file: &mut FileConfig,
    matches: &clap::ArgMatches,
    path: &std::path::Path,
) -> Vec<String> {
    use toml::Value;
    let p = path.display();
    let mut warnings = Vec::new();
    let seconds = ["timeout", "abort-timeout", "max-retry-wait"];
    for key in &mut file.keys {
        let number = LOCAL_CAPPED_NUMBERS
            .iter()
            .find(|(k, _, _)| *k == key.key.as_str());
        if !(seconds.contains(&key.key.as_str()) || number.is_some())
            || config_file::given(matches, &key.key.replace('-', "_"))
        {
            continue;
        }
        if ["timeout", "abort-timeout", "max-retry-wait"].contains(&key.key.as_str()) {
            let secs = match &key.value {
                Value::Integer(n) => Some(*n as f64),
                Value::Float(x) => Some(*x),
                Value::String(s) => linkpatrol::options::values::seconds(s),
                _ => None,
            };
            if let Some(secs) = secs.filter(|v| v.is_nan() || *v > LOCAL_MAX_SECS) {
                warnings.push(format!(
                    "{p}: {} {} is more than a config found in the current folder may set; \
                     using {LOCAL_MAX_SECS} s (give it on the command line, or trust the file)",
                    key.key,
                    shown(secs)
                ));
                key.value = Value::Float(LOCAL_MAX_SECS);
            }
        }
        // A number as the flag's parser would read it: an integer, or a string of digits.
        let given = match &key.value {
            Value::Integer(n) => u64::try_from(*n).ok(),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        if let Some(&(name, cap, zero_unlimited)) = number
            && let Some(n) = given
            && (n > cap || (zero_unlimited && n == 0))
        {
            let what = if n == 0 {
                "0 (no limit)".to_owned()
            } else {
                n.to_string()
            };
            warnings.push(format!(
                "{p}: {name} {what} is more than a config found in the current folder may \
                 set; using {cap} (give it on the command line, or trust the file)"
            ));
            key.value = Value::Integer(i64::try_from(cap).unwrap_or(i64::MAX));
        }
    }
    warnings
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
pub fn usage_error(e: clap::Error) -> anyhow::Error {
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

/// The start inputs of `args` added by the library's [`Inputs`] (`inputs` holds the walk's
/// rules), its notes and warnings printed; `cancel` (Ctrl-C) stops the reading. When
/// `--changed-since` finds no page touched, says so and exits with 0.
fn add_inputs(
    config: Config,
    mut inputs: Inputs,
    args: &Args,
    cancel: &CancelHandle,
) -> Result<Config> {
    inputs = inputs.cancel_handle(cancel.clone()).stdin(args.stdin);
    for input in &args.inputs {
        // A built site checked for its sources: every page it built is a start page (the
        // walk leaves out those that only repeat others, below), not only what links reach.
        if args.sources.is_some() && std::path::Path::new(input).is_dir() {
            inputs = inputs.input(format!("{}/**/*.html", input.trim_end_matches('/')));
        } else {
            inputs = inputs.input(input);
        }
    }
    for file in &args.input_file {
        inputs = inputs.list_file(file);
    }
    if !args.no_status {
        // A huge folder takes a while to read: say so, and that Ctrl-C stops it.
        inputs = inputs.on_progress(|n| {
            stderr_line!("linkpatrol: reading the inputs: {n} files so far (Ctrl-C stops)");
        });
    }
    // The message names the input and the reason; the error's source would say it again. A
    // Ctrl-C keeps its error, for `main` to tell from the others.
    let resolved = inputs.resolve(config).map_err(|e| match e.kind() {
        ErrorKind::Interrupted => anyhow::Error::new(e),
        _ => anyhow!("{e}"),
    })?;
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
            escape_controls(args.check.changed_since.as_deref().unwrap_or_default())
        );
        std::process::exit(0);
    }
    Ok(resolved.config)
}

/// Builds the library configuration from the parsed flags: the check's options by the
/// library's one mapping, then what only the command has (its reports, the config file's
/// sections, a shard's files); `cancel` (Ctrl-C) stops the reading of the inputs.
pub fn config_from(args: &Args, cancel: &CancelHandle) -> Result<Config> {
    let config = Config::new()
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
        .trust_state_file(!args.state_untrusted);
    let mut check = args.check.clone();
    check.login_password = crate::login::prompted_password(&check)?;
    // An option the config file set is named with the file and line.
    let (mut config, inputs) = check.to_config(config).map_err(|e| {
        let place = args
            .file_places
            .as_ref()
            .and_then(|(file, path, m)| config_file::place_of(file, path, m, e.option));
        match place {
            Some(place) => anyhow!("{place}: {}", e.message),
            None => anyhow!("{e}"),
        }
    })?;
    for section in &args.hosts {
        config = config.host_rule(host_section(section)?);
    }
    for a in &args.auth {
        let pattern = Regex::new(&a.pattern).with_context(|| {
            format!(
                "config file: [[auth]] pattern `{}' is not a valid regex",
                a.pattern
            )
        })?;
        config = config.basic_auth(BasicAuth::new(pattern, &a.username, &a.password));
    }
    // A built book's pages that only repeat others (or have no source) are checked, not
    // read: each problem is reported once, at its source.
    if let Some(src) = &args.sources
        && let Some(built) = crate::report_setup::checked_folder(args)
        && let Ok(built) = url::Url::from_directory_path(built)
    {
        for page in linkpatrol::SourceMap::pages_not_read(src) {
            let pattern = format!("^{}$", regex::escape(&format!("{built}{page}")));
            let pattern = Regex::new(&pattern).context("--sources")?;
            config = config.no_follow(pattern);
        }
    }
    config = add_inputs(config, inputs, args, cancel)?;
    if let Some(shard) = args.check.shard {
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

/// A number as the user would write it: `1e20`, not twenty digits.
fn shown(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
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
    if let Some(m) = &section.method {
        let m = linkpatrol::options::values::method(m)
            .map_err(|e| anyhow!("config file: [[hosts]] method: {e}"))?;
        rule = rule.always_get(m == "get");
    }
    Ok(rule)
}
