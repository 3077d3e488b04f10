//! The two sizes of help: `-h` fits a screen, `--help` (and `linkpatrol help`) is the full
//! reference with examples; the word `help` is help, not a file name.

use crate::support::util::{TempDir, assert_exit, cli, cli_in};

/// The long flags an option line of a help text starts with (`-o, --output <TYPE>` → `output`).
fn long_flags(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = if l.len() > 4 && l.starts_with('-') && &l[2..4] == ", " {
                &l[4..]
            } else {
                l
            };
            let name: String = l
                .strip_prefix("--")?
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

#[test]
fn short_help_fits_a_screen_and_says_where_to_read_more() {
    let out = cli(&["-h"]);
    assert_exit(&out, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().count() <= 45,
        "{} lines:\n{text}",
        text.lines().count()
    );
    let flags = long_flags(&text);
    for flag in ["output", "verbose", "recursion-level", "exclude", "timeout"] {
        assert!(flags.iter().any(|f| f == flag), "--{flag} missing:\n{text}");
    }
    assert!((10..=14).contains(&flags.len()), "{flags:?}");
    assert!(!text.contains("[env: "), "{text}");
    assert!(text.contains("linkpatrol --help"), "{text}");
    assert!(text.contains("linkpatrol merge"), "{text}");
}

#[test]
fn long_help_has_every_flag_its_variable_and_examples() {
    let out = cli(&["--help"]);
    assert_exit(&out, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    let shown = long_flags(&text);
    // Every flag the completions know (the hidden LinkChecker alias aside) is in --help.
    let bash = String::from_utf8(cli(&["--generate", "bash"]).stdout).unwrap();
    let opts = bash
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("opts=\"")
                .filter(|o| o.contains("--"))
        })
        .expect("an opts line");
    let known: Vec<&str> = opts
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("--"))
        .filter(|f| *f != "check-extern")
        .collect();
    assert!(known.len() > 60, "{known:?}");
    for flag in known {
        assert!(shown.iter().any(|f| f == flag), "--{flag} not in --help");
    }
    assert!(text.contains("[env: LINKPATROL_MAX_URLS="), "{text}");
    assert!(text.contains("\nExamples:\n"), "{text}");
    assert!(
        text.contains("\n  linkpatrol https://example.org/\n"),
        "{text}"
    );
    assert!(
        text.contains("\nCommands:\n  linkpatrol merge FILE..."),
        "{text}"
    );
    assert!(text.contains("Exit status: 0 no broken links"), "{text}");
}

#[test]
fn the_word_help_prints_the_help() {
    let dir = TempDir::new("help-word");
    let out = cli_in(&dir, &[], &["help"]);
    assert_exit(&out, 0);
    assert_eq!(out.stdout, cli(&["--help"]).stdout);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let merge = cli_in(&dir, &[], &["help", "merge"]);
    assert_exit(&merge, 0);
    let text = String::from_utf8(merge.stdout).unwrap();
    assert!(text.contains("Usage: linkpatrol merge"), "{text}");
}

#[test]
fn a_file_named_help_is_checked_as_dot_slash_help() {
    let dir = TempDir::new("help-file");
    std::fs::write(dir.join("help"), "<a href='missing.html'>x</a>\n").unwrap();
    // The word is still help, with a note naming the way to check the file.
    let out = cli_in(&dir, &[], &["help"]);
    assert_exit(&out, 0);
    let note = String::from_utf8(out.stderr).unwrap();
    assert!(note.contains("linkpatrol ./help"), "{note}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Examples:"));

    let file = cli_in(&dir, &[], &["--no-status", "-o", "compact", "./help"]);
    let text = String::from_utf8_lossy(&file.stdout);
    assert!(!text.contains("Examples:"), "{text}");
}

#[test]
fn a_flag_of_one_value_given_twice_takes_the_last() {
    let dir = TempDir::new("override-self");
    std::fs::write(dir.join("a.html"), "<a href='gone.html'>x</a>\n").unwrap();
    let out = cli_in(
        &dir,
        &[],
        &[
            "--no-config",
            "--no-status",
            "-o",
            "json",
            "--no-status",
            "-o",
            "compact",
            "a.html",
        ],
    );
    assert_exit(&out, 1);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("a.html:1:1: gone.html"), "{text}");
    // A value not among a flag's values is refused with the list.
    let out = cli(&["--color", "sometimes", "a.html"]);
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[possible values: auto, always, never]"),
        "{err}"
    );
}
