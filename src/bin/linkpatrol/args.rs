//! Command-line flags (clap derive): the check's options (the library's `CheckOptions`,
//! flattened) and the flags of the command's own input and output, as clap parsed them and
//! nothing more. `settings` merges them with the config file into `Settings`, and turns
//! those into a library `Config`.

use std::path::PathBuf;

use clap::Parser;
use linkpatrol::report::Format;

use linkpatrol::options::{CheckOptions, Inside, Local};

use crate::values::{FileOutput, file_output, format_parser};

/// Check the links of a web site or local files: broken links, redirects, bad anchors.
// `args_override_self`: a flag of one value given twice takes the last (`-o json -o csv`
// writes CSV), as ripgrep does, so a wrapper's defaults (the GitHub Action's `-o github`)
// yield to the user's own flags after them; a repeatable flag adds up.
#[derive(Debug, Parser)]
#[command(name = "linkpatrol", version, args_override_self = true)]
pub struct Args {
    /// URLs (http, https, file), local files and folders, glob patterns (`'docs/**/*.md'`), or
    /// `-` (URLs on stdin) to check. A folder without index.html stands for its Markdown files,
    /// walked as ripgrep walks: .gitignore (in a git repository), .ignore and git's exclude
    /// files honoured, hidden files skipped, symbolic links not followed.
    #[arg(help_heading = "Inputs", value_name = "URL_OR_PATH")]
    #[arg(add = Local::inside(Inside::Inputs, "a start input outside the folder would have the crawl read, parse and report files the checkout does not contain (/etc, ~/.ssh); a URL on a link-local or metadata address (or loopback, private, unless the user allows them) would have the machine's own services read"))]
    pub inputs: Vec<String>,

    /// Every option of the check, defined in the library (`linkpatrol::options`).
    #[command(flatten)]
    pub check: CheckOptions,

    /// Report format on stdout (see also -F).
    #[arg(help_heading = "Output", short = 'o', long, alias = "format", value_name = "TYPE", default_value = "text", value_parser = format_parser(), ignore_case = true)]
    #[arg(add = Local::allowed("the format on stdout"))]
    pub output: Format,

    /// Colour the text and compact reports on stdout: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(help_heading = "Output", long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    #[arg(add = Local::allowed("stdout"))]
    pub color: String,

    /// Group the text report by page (each page, then its problems by line) or by url (each
    /// broken URL, then the pages that link to it, as LinkChecker does).
    #[arg(help_heading = "Output", long, value_name = "BY", default_value = "page", value_parser = ["page", "url"])]
    #[arg(add = Local::allowed("the report's shape"))]
    pub group_by: String,

    /// Also write a report of TYPE to FILE (repeatable; each TYPE's default FILE is listed
    /// under -o). Without --stream the rows are written when the run ends (Ctrl-C, even twice,
    /// still writes them): a killed run keeps its finished rows only in the state file (--cache).
    #[arg(help_heading = "Output", short = 'F', long = "file-output", value_name = "TYPE[/FILE]", value_parser = file_output)]
    #[arg(add = Local::refused("writes (truncates) files at any path, outside the folder too"))]
    pub file_outputs: Vec<FileOutput>,

    /// Write each row as its link finishes (CSV, NDJSON, JSON entries, failures, compact and
    /// github lines), in an order that changes from run to run, with the level of the link
    /// that reached its URL first. By default every format is written at the end, ordered by
    /// page, line and column (ties by URL), each URL at its shortest link distance from a
    /// start URL: the same whatever the thread count.
    #[arg(help_heading = "Output", long)]
    #[arg(add = Local::allowed("the order of the report's rows"))]
    pub stream: bool,

    /// No report on stdout (files given with -F are still written).
    #[arg(help_heading = "Output", short = 'q', long)]
    #[arg(add = Local::allowed("stdout"))]
    pub quiet: bool,

    /// Field delimiter of the CSV output.
    #[arg(
        help_heading = "Output",
        long,
        value_name = "CHAR",
        default_value_t = ';'
    )]
    #[arg(add = Local::allowed("the report's shape"))]
    pub csv_delimiter: char,

    /// No progress display on stderr.
    #[arg(help_heading = "Output", long)]
    #[arg(add = Local::allowed("stderr"))]
    pub no_status: bool,

    /// Exit with status 1 when there are warnings, even without broken links.
    #[arg(help_heading = "Output", long)]
    #[arg(add = Local::allowed("the exit status"))]
    pub fail_on_warnings: bool,
    /// Start CSV output with a UTF-8 byte-order mark (for Excel).
    #[arg(help_heading = "Output", long)]
    #[arg(add = Local::allowed("the report's shape"))]
    pub csv_bom: bool,

    /// Write CSV cells as found. By default a text cell that a spreadsheet would run as a
    /// formula (it starts with =, +, -, @, a tab or a carriage return) gets a leading ' and
    /// control characters are spelled out (\e, \n, \u{7}).
    #[arg(help_heading = "Output", long)]
    #[arg(add = Local::refused("turns off the quote before CSV cells a spreadsheet would run as formulas, so the checkout's pages could put formulas into the CSV the user opens"))]
    pub csv_raw: bool,

    /// Report every checked link, not only broken ones and warnings.
    #[arg(help_heading = "Output", short = 'v', long)]
    #[arg(add = Local::allowed("stdout").prints())]
    pub verbose: bool,

    // ---- Config file, inputs and requests. Headings: see `help.rs`. ----
    /// Read settings from this TOML file (repeatable: merged in order, a later file's key
    /// wins); a pyproject.toml is read for its [tool.linkpatrol] table, a Cargo.toml for its
    /// [package.metadata.linkpatrol] [default: ./linkpatrol.toml, else such a table of
    /// ./pyproject.toml, else of ./Cargo.toml, else $XDG_CONFIG_HOME/linkpatrol/config.toml]
    #[arg(help_heading = "Config file", short = 'c', long, value_name = "FILE")]
    pub config: Vec<PathBuf>,

    /// The Markdown sources of the built site being checked (`mdbook build && linkpatrol
    /// --sources src book`): each problem on a built page is reported at its source's line.
    #[arg(help_heading = "Inputs", long, value_name = "DIR")]
    #[arg(add = Local::inside(Inside::Paths, "sources outside the folder would have the crawl read, parse and report files the checkout does not contain"))]
    pub sources: Option<PathBuf>,

    /// Read no config file (not even the default ones).
    #[arg(help_heading = "Config file", long, conflicts_with = "config")]
    pub no_config: bool,

    /// Trust a ./linkpatrol.toml (or the linkpatrol table of ./pyproject.toml or ./Cargo.toml)
    /// found in the current folder: let it set the keys that run programs, write files,
    /// reroute requests or read outside the folder (the command plugin, preprocess,
    /// file-output, proxy, …), which it may not set otherwise. A file given with -c and the
    /// user's own config file are always trusted.
    #[arg(help_heading = "Config file", long)]
    pub trust_config: bool,

    /// Print the effective configuration (file < environment < flags) as TOML and exit.
    #[arg(help_heading = "Config file", long)]
    pub print_config: bool,

    /// Also check the URLs read from stdin, one per line (`#` comments and blank lines
    /// skipped). An input `-` means the same.
    #[arg(help_heading = "Inputs", long)]
    #[arg(add = Local::allowed("reads the standard input the user gives"))]
    pub stdin: bool,

    /// Also check the URLs (or paths) listed in FILE, one per line, `#` comments (repeatable).
    #[arg(help_heading = "Inputs", long, value_name = "FILE")]
    #[arg(add = Local::refused("reads files at any path; every line becomes an input, requested or read, and shown in the report when it is not a valid one (/proc/self/environ)"))]
    pub input_file: Vec<PathBuf>,

    /// Phase 1 of a sharded check: write the links this shard exports to FILE (NDJSON).
    #[arg(
        help_heading = "Sharding",
        long,
        value_name = "FILE",
        requires = "shard"
    )]
    pub export_external: Option<PathBuf>,

    /// Phase 2 of a sharded check: check the links of this export (of any shard) that this
    /// shard owns, as found on their pages (repeatable; no start URL needed).
    #[arg(
        help_heading = "Sharding",
        long,
        value_name = "FILE",
        requires = "shard"
    )]
    pub external_from: Vec<PathBuf>,

    /// Phase 2 of a sharded check: this shard's phase-1 NDJSON report (written with -v); a
    /// link already checked there gets that result, with no new request.
    #[arg(
        help_heading = "Sharding",
        long,
        value_name = "FILE",
        requires = "shard"
    )]
    pub reuse_results: Option<PathBuf>,

    /// List the plugins of this build with their settings, then exit.
    #[arg(help_heading = "Plugins", long)]
    pub list_plugins: bool,

    // ---- Shell integration: written in `generate.rs`. ----
    /// Print a completion script for a shell (bash, zsh, fish, powershell, elvish) or the man
    /// page (man), then exit.
    #[arg(
        help_heading = "Shell integration",
        long,
        value_name = "WHAT",
        value_enum
    )]
    pub generate: Option<crate::generate::Generated>,
}
