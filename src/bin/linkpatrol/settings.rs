//! Flags → `linkpatrol::Config`: the command line and its config file read, the check's
//! options mapped by the library (`CheckOptions::to_config`), and what only the command has
//! (its reports, the config file's sections, a shard's files) added here.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use clap::{ArgMatches, CommandFactory, FromArgMatches};
use linkpatrol::options::{Cap, Local};
use linkpatrol::report::escape_controls;
use linkpatrol::{CancelHandle, Config, ErrorKind, Inputs, Notice};
use regex::Regex;

use crate::args::Args;
use crate::config_file::{self, FileConfig, Found};
use crate::sections::Sections;
use crate::usage::usage_error;
use crate::{help, trust};

/// What the run needs: the flags as clap parsed them, merged with the config file, and what
/// only the file has.
#[derive(Debug)]
pub struct Settings {
    /// The flags, with the config file's values under them.
    pub args: Args,
    /// Warnings about the config file, printed before the run (a local config asked for more
    /// than it may set).
    pub config_warnings: Vec<String>,
    /// `true` when only an untrusted config file found in the current folder turned the state
    /// file on (`cache`, `resume`): the file may come from the checkout, so nothing in it is
    /// reused (`Config::trust_state_file`).
    pub state_untrusted: bool,
    /// The config file read, where it is, and the matches of the flags and variables alone:
    /// what names the file's line in an error about one of its values.
    pub file: Option<(FileConfig, PathBuf, ArgMatches)>,
    /// `--print-config`: the effective configuration as TOML.
    pub printed_config: Option<String>,
    /// The config file's `[[hosts]]` and `[[auth]]` (its plugins are in `args`).
    pub sections: Sections,
}

impl Settings {
    /// The flags alone, with no config file.
    fn flags(args: Args) -> Settings {
        Settings {
            args,
            config_warnings: Vec::new(),
            state_untrusted: false,
            file: None,
            printed_config: None,
            sections: Sections::default(),
        }
    }
}

/// Parses the command line with its environment variables, then fills what neither gave from
/// the config file (refused when it was found in the current folder, is not trusted and sets a
/// key such a file may not set). A usage error comes back as one line; `--help` and `--version` print and
/// exit here.
pub fn settings() -> Result<Settings> {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let short = help::wants_short_help(argv.iter().cloned());
    let matches = match help::decorate(Args::command(), short).try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => return Err(usage_error(e)),
    };
    let mut args = Args::from_arg_matches(&matches).map_err(usage_error)?;
    if args.generate.is_some() {
        // Completions and the man page depend on no config file (a broken one must not stop them).
        return Ok(Settings::flags(args));
    }
    args.check.rate_given = config_file::given(&matches, "max_requests_per_second");
    let command = command();
    let Some((mut file, path, found)) = crate::config_sources::read(&command, &args)? else {
        let mut settings = Settings::flags(args);
        if settings.args.print_config {
            settings.printed_config = Some(printed(&command, &matches, &settings)?);
        }
        return Ok(settings);
    };
    let untrusted = found == Found::InCurrentFolder && !args.trust_config;
    if untrusted {
        trust::check_local(
            &command,
            &file,
            &path,
            config_file::given(&matches, "allow_private"),
        )?;
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
        trust::check_local_printing(&command, &file, &path, &matches)?;
    }
    let warnings = if untrusted {
        cap_local(&command, &mut file, &matches, &path)
    } else {
        Vec::new()
    };
    let merged = config_file::merge(&command, &file, &path, &matches, &argv)?;
    args = Args::from_arg_matches(&merged).map_err(usage_error)?;
    // Given by the flags, the environment or the file: it then holds for loopback hosts too.
    args.check.rate_given = merged
        .value_source("max_requests_per_second")
        .is_some_and(|s| s != clap::parser::ValueSource::DefaultValue);
    // What only the file has: its `inputs` when the command line names none, its plugin
    // sections unless the flags name plugins, its `[[hosts]]` and `[[auth]]`.
    if let Some(inputs) = file.inputs(&matches) {
        args.inputs = inputs;
    }
    if !config_file::given(&matches, "plugins") {
        let sections = crate::plugin_flags::from_sections(&file.sections.plugins)
            .map_err(|e| anyhow!("config file `{}': plugins: {e}", path.display()))?;
        args.check.plugins.extend(sections);
    }
    file.sections.check(&path)?;
    let sections = Sections {
        plugins: Default::default(),
        ..file.sections.clone()
    };
    let mut settings = Settings {
        args,
        config_warnings: warnings,
        // The user's own flags (or variables) chose the state file; otherwise, a local file
        // did, and the file it opens may be the checkout's.
        state_untrusted: untrusted
            && !["cache", "cache_file", "resume"]
                .iter()
                .any(|id| config_file::given(&matches, id)),
        file: None,
        printed_config: None,
        sections,
    };
    if settings.args.print_config {
        settings.printed_config = Some(printed(&command, &merged, &settings)?);
    }
    settings.file = Some((file, path, matches));
    Ok(settings)
}

/// `--print-config`'s text: the effective configuration of `settings` (`m`: its matches).
fn printed(command: &clap::Command, m: &ArgMatches, settings: &Settings) -> Result<String> {
    config_file::effective(
        command,
        m,
        &settings.args.inputs,
        &settings.args.check.plugins,
        &settings.sections,
    )
}

/// Caps what an untrusted local config `file` at `path` sets (and the command line does not)
/// to the cap its option declares (`Local::capped`), returning a warning for each value cut:
/// a checkout could otherwise have one run wait a year on a host, retry it four billion
/// times, read a 2 GB page or never stop on a spider trap.
fn cap_local(
    command: &clap::Command,
    file: &mut FileConfig,
    matches: &ArgMatches,
    path: &std::path::Path,
) -> Vec<String> {
    use toml::Value;
    let p = path.display();
    let mut warnings = Vec::new();
    for key in &mut file.keys {
        let Some(arg) = command
            .get_arguments()
            .find(|a| a.get_long() == Some(&key.key))
        else {
            continue;
        };
        let Some(cap) = Local::of(arg).and_then(|l| l.cap) else {
            continue;
        };
        if config_file::given(matches, arg.get_id().as_str()) {
            continue;
        }
        match cap {
            Cap::Seconds(most) => {
                let secs = match &key.value {
                    Value::Integer(n) => Some(*n as f64),
                    Value::Float(x) => Some(*x),
                    Value::String(s) => linkpatrol::options::values::seconds(s),
                    _ => None,
                };
                if let Some(secs) = secs.filter(|v| v.is_nan() || *v > most) {
                    warnings.push(format!(
                        "{p}: {} {} is more than a config found in the current folder may \
                         set; using {most} s (give it on the command line, or trust the file)",
                        key.key,
                        shown(secs)
                    ));
                    key.value = Value::Float(most);
                }
            }
            Cap::Count {
                max,
                zero_is_unlimited,
            } => {
                // A number as the flag's parser would read it: an integer, or a string of
                // digits (or a size with a unit, `4G`, which only a size's parser takes).
                let given = match &key.value {
                    Value::Integer(n) => u64::try_from(*n).ok(),
                    Value::String(s) => linkpatrol::options::values::byte_size(s).ok().map(|b| b.0),
                    _ => None,
                };
                if let Some(n) = given
                    && (n > max || (zero_is_unlimited && n == 0))
                {
                    let what = if n == 0 {
                        "0 (no limit)".to_owned()
                    } else {
                        n.to_string()
                    };
                    warnings.push(format!(
                        "{p}: {} {what} is more than a config found in the current folder \
                         may set; using {max} (give it on the command line, or trust the file)",
                        key.key
                    ));
                    key.value = Value::Integer(i64::try_from(max).unwrap_or(i64::MAX));
                }
            }
            _ => {}
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
pub fn config_from(settings: &Settings, cancel: &CancelHandle) -> Result<Config> {
    let args = &settings.args;
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
        .trust_state_file(!settings.state_untrusted);
    let mut check = args.check.clone();
    check.login_password = crate::login::prompted_password(&check)?;
    // An option the config file set is named with the file and line.
    let (mut config, inputs) = check.to_config(config).map_err(|e| {
        let place = settings
            .file
            .as_ref()
            .and_then(|(file, path, m)| config_file::place_of(&command(), file, path, m, e.option));
        match place {
            Some(place) => anyhow!("{place}: {}", e.message),
            None => anyhow!("{e}"),
        }
    })?;
    config = settings.sections.add_to(config)?;
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
