//! Which config files are read: several `-c` files merged in order, the tables of
//! `pyproject.toml` and `Cargo.toml` (named, or found in the current folder, untrusted), and
//! the errors of a named file without its table.

use std::process::Output;

use crate::support::util::{TempDir, assert_exit, assert_one_line_error, cli_in};

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The value line of `key` in `--print-config` output.
fn key_line(out: &Output, key: &str) -> String {
    assert_exit(out, 0);
    let toml = stdout(out);
    toml.lines()
        .find(|l| l.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no `{key}' in\n{toml}"))
        .to_owned()
}

#[test]
fn several_files_merge_in_order_and_the_later_key_wins() {
    let dir = TempDir::new("cfgs-merge");
    std::fs::write(
        dir.join("a.toml"),
        "threads = 3\ntimeout = 7\nexclude = [\"a\", \"b\"]\n",
    )
    .unwrap();
    std::fs::write(dir.join("b.toml"), "threads = 5\nexclude = [\"c\"]\n").unwrap();
    let both = ["-c", "a.toml", "-c", "b.toml", "--print-config"];
    let out = cli_in(&dir, &[], &both);
    assert_eq!(key_line(&out, "threads"), "threads = 5");
    assert_eq!(key_line(&out, "timeout"), "timeout = 7.0", "only in a.toml");
    assert_eq!(key_line(&out, "exclude"), "exclude = [\"c\"]", "a list too");
    let out = cli_in(
        &dir,
        &[],
        &["-c", "b.toml", "-c", "a.toml", "--print-config"],
    );
    assert_eq!(key_line(&out, "threads"), "threads = 3");
    // The flags still win over every file.
    let out = cli_in(
        &dir,
        &[],
        &["-t", "9", "-c", "a.toml", "-c", "b.toml", "--print-config"],
    );
    assert_eq!(key_line(&out, "threads"), "threads = 9");
    // A bad value is named with its own file and line.
    std::fs::write(dir.join("bad.toml"), "\n\nmax-redirects = -4\n").unwrap();
    let out = cli_in(&dir, &[], &["-c", "bad.toml", "-c", "a.toml", "."]);
    assert_one_line_error(&out, &["bad.toml", "line 3", "max-redirects"]);
}

const PYPROJECT: &str = "[project]\nname = \"demo\"\n\n[tool.linkpatrol]\nthreads = 4\n\
    exclude = [\"^https://x\\\\.test/\"]\n\n[tool.black]\nline-length = 88\n";

const CARGO: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n\n\
    [package.metadata.linkpatrol]\nthreads = 6\n";

#[test]
fn pyproject_and_cargo_tables_are_read_when_named() {
    let dir = TempDir::new("cfgs-named");
    std::fs::write(dir.join("pyproject.toml"), PYPROJECT).unwrap();
    std::fs::write(dir.join("Cargo.toml"), CARGO).unwrap();
    let out = cli_in(&dir, &[], &["-c", "pyproject.toml", "--print-config"]);
    assert_eq!(key_line(&out, "threads"), "threads = 4");
    assert!(!stdout(&out).contains("line-length"));
    let out = cli_in(&dir, &[], &["-c", "Cargo.toml", "--print-config"]);
    assert_eq!(key_line(&out, "threads"), "threads = 6");
    // Named: trusted, as any file named with -c.
    std::fs::write(
        dir.join("pyproject.toml"),
        "[tool.linkpatrol]\nproxy = \"http://127.0.0.1:9\"\n",
    )
    .unwrap();
    let out = cli_in(&dir, &[], &["-c", "pyproject.toml", "--print-config"]);
    assert_eq!(key_line(&out, "proxy"), "proxy = \"http://127.0.0.1:9\"");
}

#[test]
fn a_named_project_file_without_the_table_is_an_error() {
    let dir = TempDir::new("cfgs-no-table");
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"demo\"\n").unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"demo\"\n").unwrap();
    let out = cli_in(&dir, &[], &["-c", "pyproject.toml", "."]);
    assert_one_line_error(&out, &["pyproject.toml", "no [tool.linkpatrol] table"]);
    let out = cli_in(&dir, &[], &["-c", "Cargo.toml", "."]);
    assert_one_line_error(
        &out,
        &["Cargo.toml", "no [package.metadata.linkpatrol] table"],
    );
    // An unknown key in the table is named with the file's own line.
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"demo\"\n\n[tool.linkpatrol]\nthredas = 2\n",
    )
    .unwrap();
    let out = cli_in(&dir, &[], &["-c", "pyproject.toml", "."]);
    assert_one_line_error(&out, &["pyproject.toml", "line 5", "thredas"]);
}

#[test]
fn a_project_file_in_the_current_folder_is_a_local_config() {
    let dir = TempDir::new("cfgs-found");
    // Without the table: passed over, as the other tools' files are.
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"demo\"\n").unwrap();
    std::fs::write(dir.join("Cargo.toml"), CARGO).unwrap();
    let out = cli_in(&dir, &[], &["--print-config"]);
    assert_eq!(
        key_line(&out, "threads"),
        "threads = 6",
        "Cargo.toml's table"
    );
    std::fs::write(dir.join("pyproject.toml"), PYPROJECT).unwrap();
    let out = cli_in(&dir, &[], &["--print-config"]);
    assert_eq!(
        key_line(&out, "threads"),
        "threads = 4",
        "pyproject.toml first"
    );
    std::fs::write(dir.join("linkpatrol.toml"), "threads = 2\n").unwrap();
    let out = cli_in(&dir, &[], &["--print-config"]);
    assert_eq!(
        key_line(&out, "threads"),
        "threads = 2",
        "linkpatrol.toml first"
    );
    std::fs::remove_file(dir.join("linkpatrol.toml")).unwrap();
    // Found, not named: untrusted, so it may not set what runs, writes or reroutes.
    std::fs::write(
        dir.join("pyproject.toml"),
        "[tool.linkpatrol]\npreprocess = \"/bin/touch\"\n",
    )
    .unwrap();
    let out = cli_in(&dir, &[], &["."]);
    assert_one_line_error(
        &out,
        &["./pyproject.toml sets `preprocess`", "--trust-config"],
    );
    let out = cli_in(&dir, &[], &["--trust-config", "--print-config"]);
    assert_eq!(key_line(&out, "preprocess"), "preprocess = \"/bin/touch\"");
}
