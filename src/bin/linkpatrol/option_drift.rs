//! Drift tests between the front ends: every flag of the command line is an option of the
//! Python package (or is listed there as the command's own), and the package's type stubs
//! list exactly the options it takes. The config file's keys and the environment variables
//! are checked beside their own code (`config_file.rs`, `help.rs`).

use std::collections::BTreeSet;

use clap::CommandFactory;

/// Flags with no meaning in a library call: help, version, what prints and exits, and the
/// positional inputs. Anything else the command line has, the Python package has too.
const NOT_FOR_PYTHON: &[&str] = &["inputs", "help", "version"];

/// The Python package's source, read as text (it builds apart, with PyO3).
const PYTHON_OPTIONS: &str = include_str!("../../../bindings/python/src/options.rs");
const PYTHON_STUBS: &str =
    include_str!("../../../bindings/python/python/linkpatrol/_linkpatrol.pyi");

/// The quoted names of the `const NAME: &[&str] = &[...]` list in the bindings' source.
fn python_list(name: &str) -> BTreeSet<String> {
    let start = PYTHON_OPTIONS
        .find(&format!("const {name}: &[&str] = &["))
        .unwrap_or_else(|| panic!("no list {name} in bindings/python/src/options.rs"));
    let body = &PYTHON_OPTIONS[start..];
    let body = &body[..body.find("];").expect("the list ends")];
    body.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn cli_flags() -> BTreeSet<String> {
    crate::args::Args::command()
        .get_arguments()
        .map(|a| a.get_long().unwrap_or("inputs").replace('-', "_"))
        .collect()
}

#[test]
fn every_flag_is_a_python_option_or_listed_as_the_commands_own() {
    let options = python_list("OPTIONS");
    let cli_only = python_list("CLI_ONLY");
    for flag in cli_flags() {
        if NOT_FOR_PYTHON.contains(&flag.as_str()) {
            continue;
        }
        assert!(
            options.contains(&flag) || cli_only.contains(&flag),
            "--{} has no Python option: add it to OPTIONS in bindings/python/src/options.rs \
             (or to CLI_ONLY when it only shapes the command's output)",
            flag.replace('_', "-")
        );
    }
    let flags = cli_flags();
    for name in options.iter().chain(&cli_only) {
        assert!(
            flags.contains(name),
            "the Python option `{name}' is no flag of the command line"
        );
    }
    assert!(options.is_disjoint(&cli_only));
}

#[test]
fn the_python_stubs_list_every_option() {
    let init = PYTHON_STUBS
        .find("class Checker:")
        .map(|at| &PYTHON_STUBS[at..])
        .and_then(|c| c.find("def __new__(").map(|at| &c[at..]))
        .expect("Checker.__new__ in the stubs");
    let init = &init[..init.find(") -> \"Checker\"").expect("the signature ends")];
    let stubbed: BTreeSet<String> = init
        .lines()
        .filter_map(|l| l.trim().split_once(':').map(|(k, _)| k.to_owned()))
        .filter(|k| k != "cls" && !k.starts_with('*'))
        .collect();
    assert_eq!(stubbed, python_list("OPTIONS"));
}

#[test]
fn the_python_docstring_lists_every_option_in_order() {
    let doc = PYTHON_OPTIONS
        .find("macro_rules! options_doc")
        .map(|at| &PYTHON_OPTIONS[at..])
        .expect("options_doc! in bindings/python/src/options.rs");
    let doc = &doc[..doc.find("\"\n    };").expect("the docstring ends")];
    // One `name: type = default` line per option, at the start of a line.
    let documented: Vec<&str> = doc
        .lines()
        .filter(|l| !l.starts_with(' ') && l.contains(" = "))
        .filter_map(|l| l.split_once(':').map(|(k, _)| k))
        .collect();
    let options = PYTHON_OPTIONS
        .find("const OPTIONS: &[&str] = &[")
        .map(|at| &PYTHON_OPTIONS[at..])
        .expect("OPTIONS");
    let options: Vec<&str> = options[..options.find("];").expect("the list ends")]
        .split('"')
        .skip(1)
        .step_by(2)
        .collect();
    assert_eq!(documented, options);
}
