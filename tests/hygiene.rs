//! Rules the sources keep, proved by reading them as text:
//! - no wall-clock upper bound in `tests/`: a test asserts counts, orders of events or the
//!   report's own fields, never that something took less than so long (a loaded machine makes
//!   such limits flaky). Lower bounds, which prove that a politeness wait happened, are fine;
//! - no issue numbers in `src/`, `tests/`, `benches/` or `plugins/`, in code or comments: the
//!   reason for a line is written out where it stands.
//!
//! std alone, no feature: runs in milliseconds.

use std::fs;
use std::path::{Path, PathBuf};

/// How an upper bound on elapsed time is spelled (`t.elapsed() < …`, `took < …`,
/// `… < Duration::from_secs(3)`, `m.ratio() <= 1.3`, `… < start + Duration::from_millis(900)`).
const UPPER_BOUNDS: [&str; 8] = [
    "elapsed() <",
    "elapsed < ",
    "took <",
    "wall <",
    "< Duration::from",
    "<= Duration::from",
    "ratio() <",
    "+ Duration::from",
];

#[test]
fn no_test_asserts_a_wall_clock_upper_bound() {
    let mut found = Vec::new();
    for file in files(&["tests"], &["rs"]) {
        if file.ends_with("tests/hygiene.rs") {
            continue; // this file spells the patterns out
        }
        for (n, line) in lines(&file) {
            let code = line.trim_start();
            let plus_is_bound = |at: usize| code[..at].contains('<');
            let hit = UPPER_BOUNDS.iter().any(|p| match code.find(p) {
                // `x + Duration::…` bounds only on the right of a comparison.
                Some(at) if p.starts_with('+') => plus_is_bound(at),
                Some(_) => true,
                None => false,
            });
            if hit {
                found.push(format!("  {}:{n}: {code}", shown(&file)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "wall-clock upper bounds in tests/ (assert request counts, the order of the server's \
         events or the report's fields instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_issue_numbers_in_the_sources() {
    let mut found = Vec::new();
    let dirs = ["src", "tests", "benches", "plugins"];
    for file in files(&dirs, &["rs", "toml", "sh", "py"]) {
        if file.ends_with("tests/hygiene.rs") {
            continue; // the rule's own description
        }
        for (n, line) in lines(&file) {
            if names_an_issue(&line) {
                found.push(format!("  {}:{n}: {}", shown(&file), line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "issue numbers in the sources (say what the line is for instead):\n{}",
        found.join("\n")
    );
}

/// `issue 12`, `Issue #12`, `issues 3` (any case): the word, blanks or `#`, digits.
fn names_an_issue(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices("issue").any(|(at, _)| {
        let word_start = !lower[..at].ends_with(|c: char| c.is_ascii_alphanumeric());
        let after = &lower[at + "issue".len()..];
        let after = after.strip_prefix('s').unwrap_or(after);
        let number = after.trim_start_matches([' ', '\t', '#']);
        word_start && number.len() < after.len() && number.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn the_issue_pattern_matches_what_it_should() {
    for yes in [
        "// issue 36",
        "Issue #7: x",
        "see issues 20 and 21",
        "(ISSUE 3)",
    ] {
        assert!(names_an_issue(yes), "{yes}");
    }
    for no in [
        "issue36x",
        "the issue is",
        "tissue 3",
        "issue: none",
        "issue-free",
    ] {
        assert!(!names_an_issue(no), "{no}");
    }
}

/// Every file under `dirs` (from the package root) whose extension is one of `exts`; build
/// output, test data and fuzz corpora are left out.
fn files(dirs: &[&str], exts: &[&str]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in dirs {
        walk(&root.join(dir), exts, &mut out);
    }
    out.sort();
    out
}

fn walk(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !matches!(name, "target" | "data" | "node_modules") && !name.starts_with('.') {
                walk(&path, exts, out);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e))
        {
            out.push(path);
        }
    }
}

/// The lines of `file`, numbered from 1.
fn lines(file: &Path) -> Vec<(usize, String)> {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.to_owned()))
        .collect()
}

/// `file` relative to the package root.
fn shown(file: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}
