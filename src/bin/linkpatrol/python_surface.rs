//! The Python package's option docs follow the one definition of the options
//! (`linkpatrol::options::CheckOptions`): its docstring (`options_doc.rs`) and the keywords
//! of `Checker` in its stubs are written from it. `LINKPATROL_BLESS=1 cargo test --bin
//! linkpatrol python_surface` rewrites them; otherwise a difference fails.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use linkpatrol::options::{CheckOptions, Described, Kind};

/// Flags of the command line that are not options of a check: its inputs, reports, config
/// file, shard files and what prints and exits. Every other flag is a `CheckOptions` field.
const COMMAND_ONLY: &[&str] = &[
    "inputs",
    "help",
    "version",
    "output",
    "color",
    "group-by",
    "file-output",
    "stream",
    "quiet",
    "verbose",
    "no-status",
    "csv-delimiter",
    "csv-bom",
    "csv-raw",
    "fail-on-warnings",
    "config",
    "no-config",
    "trust-config",
    "print-config",
    "stdin",
    "input-file",
    "sources",
    "export-external",
    "external-from",
    "reuse-results",
    "list-plugins",
    "generate",
];

fn bindings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/python")
}

fn python_name(flag: &str) -> String {
    flag.replace('-', "_")
}

/// `--max-urls` in a help text as Python spells the option, `max_urls`.
fn pythonic(help: &str, all: &[Described]) -> String {
    let mut out = help.to_owned();
    let mut flags: Vec<&str> = all.iter().map(|d| d.flag.as_str()).collect();
    // Longest first, so `--cache-file` is not read as `--cache`.
    flags.sort_by_key(|f| std::cmp::Reverse(f.len()));
    for flag in flags {
        out = out.replace(&format!("--{flag}"), &python_name(flag));
    }
    out
}

/// The type of an option as the docstring writes it.
fn doc_type(d: &Described) -> String {
    match d.kind {
        Kind::Switch | Kind::Bool => "bool".into(),
        Kind::Count => "int".into(),
        Kind::Size => "int | str".into(),
        Kind::Number => "float | str".into(),
        Kind::Duration => "float | str".into(),
        Kind::Path => "str | os.PathLike".into(),
        Kind::Shard => "str | tuple[int, int]".into(),
        _ if !d.choices.is_empty() => d
            .choices
            .iter()
            .map(|c| format!("'{c}'"))
            .collect::<Vec<_>>()
            .join(" | "),
        _ if d.repeats => "str | list[str]".into(),
        _ => "str".into(),
    }
}

/// The default as Python writes it.
fn doc_default(d: &Described) -> String {
    match (&d.default, d.kind) {
        (_, Kind::Switch) => "False".into(),
        (_, _) if d.repeats => "[]".into(),
        (None, _) => "None".into(),
        (Some(v), Kind::Count) => v.clone(),
        // `30.0`, as Python writes a float.
        (Some(v), Kind::Number) => v
            .parse::<f64>()
            .map_or_else(|_| v.clone(), |x| format!("{x:?}")),
        (Some(v), _) => format!("'{v}'"),
    }
}

/// Words wrapped to lines of at most `width` characters, each starting with `indent`.
fn wrapped(text: &str, indent: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::from(indent);
    for word in text.split_whitespace() {
        if line.len() > indent.len() && line.len() + 1 + word.len() > width {
            out.push_str(&line);
            out.push('\n');
            line = String::from(indent);
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The options part of the docstrings of `Checker` and `check`.
fn docstring() -> String {
    let all = CheckOptions::described();
    let mut doc = String::from(
        "Options (keyword arguments: the command line's long flags with ``_`` for ``-``; a\n\
         repeatable flag takes a str or a list of str; None leaves an option at its default):\n\n",
    );
    for d in &all {
        doc.push_str(&format!(
            "{}: {} = {}\n",
            python_name(&d.flag),
            doc_type(d),
            doc_default(d)
        ));
        // clap drops the first paragraph's final full stop.
        let help = format!("{}.", pythonic(&d.help, &all).trim_end_matches('.'));
        doc.push_str(&wrapped(&help, "    ", 92));
    }
    doc
}

/// The stub type of an option's keyword.
fn stub_type(d: &Described) -> String {
    let one = match d.kind {
        Kind::Switch | Kind::Bool => "bool".into(),
        Kind::Count => "int".into(),
        Kind::Size => "Union[int, str]".into(),
        Kind::Number | Kind::Duration => "Union[float, str]".into(),
        Kind::Path => "Union[str, \"os.PathLike[str]\"]".into(),
        Kind::Shard => "Union[str, Tuple[int, int]]".into(),
        _ if d.repeats => "_Strings".into(),
        _ if !d.choices.is_empty() => {
            let choices: Vec<String> = d.choices.iter().map(|c| format!("\"{c}\"")).collect();
            format!("Literal[{}]", choices.join(", "))
        }
        _ => "str".into(),
    };
    if d.default.is_none() && d.kind != Kind::Switch && !d.repeats {
        format!("Optional[{one}]")
    } else {
        one
    }
}

const STUB_BEGIN: &str = "        # Generated from linkpatrol::options::CheckOptions";
const STUB_END: &str = "        # End of the generated options.\n";

/// The stubs with `Checker.__new__`'s keywords written from the options.
fn stubs(text: &str) -> String {
    let start = text
        .find(STUB_BEGIN)
        .expect("the generated options' first line");
    let body = start + text[start..].find('\n').expect("a line") + 1;
    let stop = text[start..]
        .find(STUB_END)
        .expect("the generated options' end")
        + start;
    let mut block = String::new();
    for d in CheckOptions::described() {
        block.push_str(&format!(
            "        {}: {} = ...,\n",
            python_name(&d.flag),
            stub_type(&d)
        ));
    }
    format!("{}{block}{}", &text[..body], &text[stop..])
}

/// Compares `path` with `want`, or writes `want` there under `LINKPATROL_BLESS`.
fn check_generated(path: &Path, want: &str) {
    let have = std::fs::read_to_string(path).unwrap_or_default();
    if std::env::var_os("LINKPATROL_BLESS").is_some() {
        std::fs::write(path, want).unwrap();
        return;
    }
    assert!(
        have == want,
        "{} does not follow CheckOptions: LINKPATROL_BLESS=1 cargo test --bin linkpatrol \
         python_surface rewrites it",
        path.display()
    );
}

#[test]
fn the_python_docstring_follows_the_options() {
    let file = format!(
        "// Generated from linkpatrol::options::CheckOptions by `LINKPATROL_BLESS=1 cargo test \
         --bin linkpatrol python_surface`; do not edit.\n\n\
         /// The options part of the docstrings of `Checker` and `check`.\n\
         macro_rules! options_doc {{\n    () => {{\n        r##\"{}\"##\n    }};\n}}\n",
        docstring()
    );
    check_generated(&bindings().join("src/options_doc.rs"), &file);
}

#[test]
fn the_python_stubs_follow_the_options() {
    let path = bindings().join("python/linkpatrol/_linkpatrol.pyi");
    let text = std::fs::read_to_string(&path).unwrap();
    check_generated(&path, &stubs(&text));
}

#[test]
fn every_flag_is_a_check_option_or_the_commands_own() {
    let options: Vec<String> = CheckOptions::described()
        .into_iter()
        .map(|d| d.flag)
        .collect();
    for arg in crate::args::Args::command().get_arguments() {
        let flag = arg.get_long().unwrap_or("inputs");
        assert!(
            options.iter().any(|o| o == flag) ^ COMMAND_ONLY.contains(&flag),
            "--{flag} must be either a field of CheckOptions (a check option, also Python's) \
             or in COMMAND_ONLY (it shapes only the command's own input or output)"
        );
    }
}
