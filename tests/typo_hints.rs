//! Typos get a hint: a misspelt flag names the flag, `--format` works as `-o`, an
//! underscore config key names its dashed form, a negative timeout says it must be positive.

use crate::support::server::{Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, assert_one_line_error, cli, cli_in};

#[test]
fn a_misspelt_flag_names_the_flag_meant() {
    let out = cli(&["--thredas", "4", "http://127.0.0.1:1/"]);
    assert_one_line_error(
        &out,
        &[
            "unexpected argument '--thredas'",
            "similar argument exists: '--threads'",
        ],
    );
}

#[test]
fn format_is_another_name_for_o() {
    let server = TestServer::start(Routes::new().page("/", "<a href='/gone'>x</a>"));
    let out = cli(&[
        "--no-status",
        "--max-requests-per-second",
        "0",
        "--format",
        "json",
        &server.url("/"),
    ]);
    assert_exit(&out, 1);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["errors"], 1, "{doc}");
}

#[test]
fn an_underscore_config_key_names_its_dashed_form() {
    let dir = TempDir::new("typo-config");
    std::fs::write(dir.join("linkpatrol.toml"), "internal_only = true\n").unwrap();
    let out = cli_in(&dir, &[], &["http://127.0.0.1:1/"]);
    assert_one_line_error(
        &out,
        &[
            "line 1",
            "unknown field `internal_only`",
            "did you mean `internal-only'",
        ],
    );
    std::fs::write(dir.join("linkpatrol.toml"), "threds = 4\n").unwrap();
    let out = cli_in(&dir, &[], &["http://127.0.0.1:1/"]);
    assert_one_line_error(&out, &["unknown field `threds`", "did you mean `threads'"]);
}

#[test]
fn negative_numbers_are_refused_with_the_rule() {
    for (flag, needle) in [
        ("--timeout", "must be a positive number of seconds"),
        ("--max-requests-per-second", "is not a number >= 0"),
        ("--threads", "is not a thread count from 1 to 1024"),
    ] {
        let out = cli(&[flag, "-1", "http://127.0.0.1:1/"]);
        assert_one_line_error(&out, &[flag, "'-1'", needle]);
    }
}
