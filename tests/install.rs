//! What the install integrations run: `--generate`'s completion scripts loaded by real shells
//! and its man page rendered by groff with the help's groups, and the pre-commit hook's command
//! (read from `.pre-commit-hooks.yaml`) over several staged files.
//!
//! A missing shell or groff is a loud skip (`external::program_or_skip`), a failure when
//! `LINKPATROL_REQUIRE_TOOLS` is set; `.ci/run` installs them.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use crate::support::desktop_tools::{program_or_skip, run_with_deadline};
use crate::support::util::{self, TempDir, assert_exit};

/// A generous deadline for a shell or groff run (each takes well under a second).
const DEADLINE: Duration = Duration::from_secs(60);

/// `linkpatrol --generate WHAT`'s stdout, after checking it exited 0 with nothing on stderr.
fn generated(what: &str) -> String {
    let out = util::cli(&["--generate", what]);
    assert_exit(&out, 0);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Asserts a program run succeeded with nothing on stderr.
#[track_caller]
fn assert_clean(out: &Output, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.is_empty(),
        "{what}: {:?}\n{err}",
        out.status
    );
}

#[test]
fn every_generator_writes_its_script() {
    // A name each script must hold: the command and a flag of each help group.
    for what in ["bash", "zsh", "fish", "powershell", "elvish", "man"] {
        let text = generated(what);
        for needle in ["linkpatrol", "internal", "file", "generate"] {
            assert!(text.contains(needle), "{what}: no `{needle}'");
        }
    }
    let out = util::cli(&["--generate", "tcsh"]);
    util::assert_one_line_error(&out, &["tcsh"]);
}

#[test]
fn generate_reads_no_config_file() {
    // A broken ./linkpatrol.toml stops a check, but not the completions or the man page.
    let dir = TempDir::new("generate-config");
    std::fs::write(dir.join("linkpatrol.toml"), "threads = 'many'\n").unwrap();
    let check = util::cli_in(&dir, &[], &["."]);
    util::assert_one_line_error(&check, &["linkpatrol.toml"]);
    let out = util::cli_in(&dir, &[], &["--generate", "fish"]);
    assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("internal-only"));
}

#[test]
fn bash_loads_the_completion_and_completes_a_flag() {
    let Some(bash) = program_or_skip(&["bash"], "bash is not installed") else {
        return;
    };
    // `$0` is the binary: the script is sourced from the generator's own output, as the README
    // tells users to do, then asked to complete `--intern` and `--generate `.
    let script = r#"
        source <("$0" --generate bash) || exit 3
        complete -p linkpatrol || exit 4
        complete_words() {
            COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
            COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
            _linkpatrol linkpatrol "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf 'reply %s\n' "${COMPREPLY[@]}"
        }
        complete_words linkpatrol --intern
        complete_words linkpatrol --generate ''
        complete_words linkpatrol mer
        complete_words linkpatrol merge --out
        complete_words linkpatrol -o com
        complete_words linkpatrol --color ''
        complete_words linkpatrol --group-by u
        complete_words linkpatrol --method ''
        complete_words linkpatrol merge -o nd
    "#;
    let out = run_with_deadline(
        util::without_machine_settings(&mut Command::new(bash), &TempDir::new("bash-home"))
            .args(["--norc", "--noprofile", "-c", script])
            .arg(env!("CARGO_BIN_EXE_linkpatrol")),
        DEADLINE,
    );
    assert_clean(&out, "bash");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with("complete ") && l.ends_with(" linkpatrol")),
        "{text}"
    );
    assert!(text.contains("reply --internal-only\n"), "{text}");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish", "man"] {
        assert!(
            text.contains(&format!("reply {shell}\n")),
            "{shell}: {text}"
        );
    }
    // The merge command and its own flags.
    assert!(text.contains("reply merge\n"), "{text}");
    assert!(text.contains("reply --output\n"), "{text}");
    // A flag with a fixed set of values completes the values, not file names.
    for value in [
        "compact", "auto", "always", "never", "url", "head", "get", "ndjson",
    ] {
        assert!(
            text.contains(&format!("reply {value}\n")),
            "{value}: {text}"
        );
    }
    assert!(!text.contains("reply Cargo.toml"), "{text}");
}

/// The script of the GitHub Action's check step (`id: run` in action.yml), de-indented.
fn action_check_script() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    let text = std::fs::read_to_string(path).expect("action.yml");
    let mut lines = text
        .lines()
        .skip_while(|l| l.trim() != "id: run")
        .skip_while(|l| l.trim() != "run: |")
        .skip(1);
    let first = lines.next().expect("the step's script");
    let indent = first.len() - first.trim_start().len();
    let mut script = format!("{}\n", first.trim_start());
    for line in lines {
        if !line.trim().is_empty() && line.len() - line.trim_start().len() < indent {
            break;
        }
        script.push_str(line.get(indent..).unwrap_or(""));
        script.push('\n');
    }
    script
}

/// Runs the Action's check step in `dir` as the runner would (the binary on PATH, the output
/// and summary files), with the inputs `args` and `format`; its exit status, log and outputs.
fn run_action(dir: &Path, args: &str, format: &str) -> (Option<i32>, String, String) {
    let Some(bash) = program_or_skip(&["bash"], "bash is not installed") else {
        return (Some(0), String::new(), String::new());
    };
    let script = dir.join("check.sh");
    std::fs::write(&script, action_check_script()).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_linkpatrol"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = dir.join("output");
    std::fs::write(&output, "").unwrap();
    let out = run_with_deadline(
        util::without_machine_settings(&mut Command::new(bash), &dir.join("home"))
            .current_dir(dir)
            .env("PATH", path)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
            .env("LINKPATROL_ARGS", args)
            .env("LINKPATROL_FORMAT", format)
            .env("LINKPATROL_FAIL", "true")
            .arg(&script),
        DEADLINE,
    );
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code(),
        log,
        std::fs::read_to_string(&output).unwrap(),
    )
}

#[test]
fn the_action_takes_an_o_in_args_and_quoted_args() {
    let dir = TempDir::new("action-args");
    let site = dir.join("my site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<a href='gone.html'>x</a>\n").unwrap();

    // `-o compact` in args wins over the format input; a quoted folder with a space is one
    // argument.
    let (status, log, output) = run_action(
        &dir,
        "--internal-only -o compact --no-config 'my site'",
        "github",
    );
    if log.is_empty() && output.is_empty() {
        return; // bash missing: skipped loudly above
    }
    assert_eq!(status, Some(1), "{log}");
    assert_eq!(output, "exit-code=1\n", "{log}");
    assert!(log.contains("my site/index.html:1:1: gone.html"), "{log}");
    assert!(!log.contains("::error"), "{log}");
    assert!(
        std::fs::read_to_string(dir.join("summary.md"))
            .unwrap()
            .contains("gone.html")
    );

    // The old form, words split on whitespace over several lines, with the format input.
    std::fs::write(dir.join("plain.html"), "<a href='missing.html'>x</a>\n").unwrap();
    let (status, log, _) = run_action(&dir, "--internal-only\n  --no-config plain.html", "github");
    assert_eq!(status, Some(1), "{log}");
    assert!(log.contains("::error"), "{log}");
    assert!(log.contains("missing.html"), "{log}");

    // Double quotes and a backslash, as a shell reads them; an unmatched quote stops the
    // step with status 2.
    for args in [
        "--no-config \"my site/index.html\" -o text",
        "--no-config my\\ site/index.html -o text",
    ] {
        let (status, log, _) = run_action(&dir, args, "github");
        assert_eq!(status, Some(1), "{args}: {log}");
        assert!(log.contains("gone.html"), "{log}");
    }
    let (status, log, output) = run_action(&dir, "--no-config 'my site", "github");
    assert_eq!(status, Some(2), "{log}");
    assert_eq!(output, "exit-code=2\n", "{log}");
}

#[test]
fn zsh_and_fish_parse_their_completions() {
    let dir = TempDir::new("completions");
    // zsh -n and fish --no-execute read the whole script without running it.
    for (shell, check) in [("zsh", "-n"), ("fish", "--no-execute")] {
        let reason = format!("{shell} is not installed");
        let Some(program) = program_or_skip(&[shell], &reason) else {
            continue;
        };
        let file = dir.join(format!("linkpatrol.{shell}"));
        std::fs::write(&file, generated(shell)).unwrap();
        let out = run_with_deadline(Command::new(program).arg(check).arg(&file), DEADLINE);
        assert_clean(&out, shell);
    }
}

#[test]
fn the_man_page_renders_without_warnings_and_keeps_the_help_groups() {
    let Some(groff) = program_or_skip(&["groff"], "groff is not installed") else {
        return;
    };
    let dir = TempDir::new("man");
    let page = dir.join("linkpatrol.1");
    let roff = generated("man");
    assert!(roff.is_ascii(), "non-ASCII left in the man page");
    std::fs::write(&page, &roff).unwrap();
    // -ww: every warning; -Tutf8 without -k: the page must not need a UTF-8 pre-pass. Plain
    // text (-P -bcou: no bold or underline), long lines and no hyphenation, to search it.
    let out = run_with_deadline(
        Command::new(groff)
            .args([
                "-man",
                "-Tutf8",
                "-ww",
                "-P",
                "-bcou",
                "-rLL=300n",
                "-rHY=0",
            ])
            .arg(&page),
        DEADLINE,
    );
    assert_clean(&out, "groff");
    let rendered = String::from_utf8_lossy(&out.stdout);
    assert!(rendered.contains("EXIT STATUS"), "{rendered}");
    assert!(rendered.contains("LINKPATROL_MAX_URLS"), "{rendered}");
    for needle in [
        "COMMANDS",
        "linkpatrol merge FILE...",
        "EXAMPLES",
        "linkpatrol docs/",
    ] {
        assert!(rendered.contains(needle), "{needle}: {rendered}");
    }

    let help = util::cli(&["--help"]);
    assert_exit(&help, 0);
    let help_groups = help_groups(&String::from_utf8_lossy(&help.stdout));
    let man_groups = man_groups(&roff);
    assert!(help_groups.len() >= 8, "{help_groups:#?}");
    assert_eq!(man_groups, help_groups);
}

/// Each group of `--help` (a line `Heading:`), upper-cased, with the long flags under it.
fn help_groups(help: &str) -> BTreeMap<String, Vec<String>> {
    let mut groups = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in help.lines() {
        if let Some(heading) = line.strip_suffix(':').filter(|h| !h.starts_with(' ')) {
            current = Some(heading.to_ascii_uppercase());
            groups.insert(heading.to_ascii_uppercase(), Vec::new());
        } else if let (Some(h), Some(flag)) = (&current, long_flag(line.trim_start())) {
            groups.get_mut(h).unwrap().push(flag);
        }
    }
    for flags in groups.values_mut() {
        flags.sort();
    }
    groups.retain(|_, flags| !flags.is_empty());
    groups
}

/// The long flag an option line of `--help` starts with (`-o, --output <TYPE>` → `output`).
fn long_flag(line: &str) -> Option<String> {
    // A short flag first (`-o, `) is skipped.
    let line = match line.as_bytes() {
        [b'-', short, b',', b' ', ..] if *short != b'-' => &line[4..],
        _ => line,
    };
    let name: String = line
        .strip_prefix("--")?
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Each `.SH` section of the man page with the long flags of its `.TP` items, sorted.
fn man_groups(roff: &str) -> BTreeMap<String, Vec<String>> {
    let mut groups = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut lines = roff.lines();
    while let Some(line) = lines.next() {
        if let Some(title) = line.strip_prefix(".SH ") {
            current = Some(title.trim_matches('"').to_owned());
        } else if line == ".TP"
            && let (Some(h), Some(item)) = (&current, lines.next())
        {
            // `\fB\-o\fR, \fB\-\-output\fR \fI<TYPE>\fR`: the long name follows `\-\-`.
            if let Some((_, rest)) = item.split_once("\\-\\-") {
                let name: String = rest
                    .replace("\\-", "-")
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                groups.entry(h.clone()).or_insert_with(Vec::new).push(name);
            }
        }
    }
    for flags in groups.values_mut() {
        flags.sort();
    }
    groups
}

/// The hook's command line from `.pre-commit-hooks.yaml`: `entry` then `args` (a flow list).
fn hook_command() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml");
    let text = std::fs::read_to_string(&path).expect(".pre-commit-hooks.yaml");
    let value = |key: &str| {
        text.lines()
            .find_map(|l| l.trim_start().strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            .trim()
            .to_owned()
    };
    let mut command = vec![value("entry:")];
    let args = value("args:");
    let list = args
        .strip_prefix('[')
        .and_then(|a| a.strip_suffix(']'))
        .unwrap_or_else(|| panic!("args is no flow list: {args}"));
    command.extend(
        list.split(',')
            .map(|a| a.trim().trim_matches('\'').to_owned()),
    );
    command
}

#[test]
fn the_pre_commit_hook_checks_several_staged_files() {
    let command = hook_command();
    assert_eq!(command[0], "linkpatrol");
    assert!(
        command.iter().any(|a| a == "--internal-only"),
        "{command:?}"
    );
    let dir = TempDir::new("pre-commit");
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::create_dir_all(dir.join("site")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write(
        "README.md",
        "# Hi\n[guide](docs/guide.md) [gone](missing.md) [far](https://example.invalid/x)\n",
    );
    write(
        "docs/guide.md",
        "[home](../README.md#hi) [nope](../nope.html)\n",
    );
    write("site/index.html", "<a href=\"page.html\">page</a>\n");
    write("site/page.htm", "<a href=\"index.html\">home</a>\n");
    // pre-commit runs the entry in the repository's top folder with the staged files' paths
    // appended; linkpatrol reads no config there (the hook's users keep theirs in the args).
    let staged = [
        "README.md",
        "docs/guide.md",
        "site/index.html",
        "site/page.htm",
    ];
    let run = |files: &[&str]| {
        util::linkpatrol()
            .current_dir(&dir)
            .args(&command[1..])
            .args(["--no-status", "-o", "csv", "-v"])
            .args(files)
            .output()
            .expect("the binary runs")
    };
    let out = run(&staged);
    assert_exit(&out, 1);
    let rows = util::rows(&out);
    let broken: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| &r[6] == "False")
        .map(|r| (&r[0], &r[1]))
        .collect();
    let parent = |name: &str| format!("{}", url::Url::from_file_path(dir.join(name)).unwrap());
    assert_eq!(broken.len(), 3, "{rows:#?}");
    for (link, page) in [
        ("missing.md", "README.md"),
        ("../nope.html", "docs/guide.md"),
        ("page.html", "site/index.html"),
    ] {
        assert!(
            broken.contains(&(link, parent(page).as_str())),
            "{link} on {page} not broken: {rows:#?}"
        );
    }
    // Each staged file is a start input of its own (a row with no parent).
    for file in staged {
        assert!(
            rows.iter().any(|r| r[1].is_empty() && r[7] == parent(file)),
            "{file} not checked: {rows:#?}"
        );
    }
    // --internal-only: the external link is listed, never fetched.
    let far = util::row_named(&rows, "https://example.invalid/x");
    assert!(far[3].starts_with("ignored"), "{far:?}");

    // With the pages fixed, the same hook passes.
    write("README.md", "# Hi\n[guide](docs/guide.md)\n");
    write("docs/guide.md", "[home](../README.md#hi)\n");
    write("site/index.html", "<a href=\"page.htm\">page</a>\n");
    assert_exit(&run(&staged), 0);
    // A staged file that pre-commit passes alone (its own batch) is checked alone.
    assert_exit(&run(&["site/page.htm"]), 0);
}
