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

#[test]
fn a_host_without_scheme_gets_the_url_meant() {
    let dir = TempDir::new("no-scheme");
    let out = cli_in(&dir, &[], &["--no-config", "example.org"]);
    assert_one_line_error(
        &out,
        &[
            "cannot read `example.org'",
            "did you mean https://example.org/?",
        ],
    );
    // A missing file name gets no such hint.
    let out = cli_in(&dir, &[], &["--no-config", "README.md"]);
    assert_one_line_error(&out, &["cannot read `README.md'"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("did you mean"));
}

#[test]
fn durations_take_units_on_the_command_line_and_in_the_config_file() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/ok'>x</a>")
            .page("/ok", "ok"),
    );
    let out = cli(&[
        "--no-status",
        "--max-requests-per-second",
        "0",
        "--timeout",
        "5s",
        "--max-retry-wait",
        "1m",
        "--abort-timeout",
        "2.5",
        &server.url("/"),
    ]);
    assert_exit(&out, 0);
    let dir = TempDir::new("duration-config");
    std::fs::write(
        dir.join("linkpatrol.toml"),
        "timeout = \"2m\"\nmax-retry-wait = 30\n",
    )
    .unwrap();
    let out = cli_in(&dir, &[], &["--print-config"]);
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\ntimeout = 120.0\n"), "{text}");
    assert!(text.contains("\nmax-retry-wait = 30.0\n"), "{text}");
    let out = cli(&["--timeout", "soon", "http://127.0.0.1:1/"]);
    assert_one_line_error(&out, &["--timeout", "`soon'", "5s"]);
}

#[test]
fn a_config_value_of_the_wrong_type_names_the_key_and_the_type() {
    let dir = TempDir::new("config-type");
    for (text, needles) in [
        (
            "threads = \"many\"\n",
            ["threads", "expected a whole number"],
        ),
        (
            "check-anchors = 1\n",
            ["check-anchors", "expected true or false"],
        ),
        ("exclude = \"x\"\n", ["exclude", "expected a list"]),
    ] {
        std::fs::write(dir.join("linkpatrol.toml"), text).unwrap();
        let out = cli_in(&dir, &[], &["http://127.0.0.1:1/"]);
        let mut all = vec!["linkpatrol.toml", "line 1"];
        all.extend(needles);
        assert_one_line_error(&out, &all);
    }
}

#[test]
fn a_bad_regex_in_the_config_file_names_the_file_and_key() {
    let dir = TempDir::new("config-regex");
    for (key, text) in [
        ("exclude", "exclude = [\"a(b\"]\n"),
        ("no-follow", "no-follow = [\"[\"]\n"),
        ("host-rate", "host-rate = [\"a(b=2\"]\n"),
    ] {
        std::fs::write(dir.join("linkpatrol.toml"), text).unwrap();
        let out = cli_in(&dir, &[], &["http://127.0.0.1:1/"]);
        assert_one_line_error(
            &out,
            &[
                "config file `./linkpatrol.toml'",
                &format!("{key}: `"),
                "not a valid regex",
            ],
        );
        assert!(!String::from_utf8_lossy(&out.stderr).contains(&format!("--{key}")));
    }
    // On the command line the flag is named.
    let out = cli(&["--exclude", "a(b", "http://127.0.0.1:1/"]);
    assert_one_line_error(&out, &["--exclude `a(b'"]);
}

#[test]
fn an_unreachable_start_url_is_named_in_the_summary() {
    // Port 1 on loopback: nothing listens, the connection is refused.
    for format in ["text", "compact"] {
        let out = cli(&["--no-status", "-o", format, "http://127.0.0.1:1/"]);
        assert_exit(&out, 1);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(
                "The start URL http://127.0.0.1:1/ could not be reached: connect: Connection refused"
            ),
            "{format}: {text}"
        );
    }
    let out = cli(&["--no-status", "-o", "html", "http://127.0.0.1:1/"]);
    assert_exit(&out, 1);
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        page.contains("The start URL http://127.0.0.1:1/ could not be reached: connect:"),
        "{page}"
    );
    // A start site that answers says nothing of the kind, even with a link that fails.
    let server = TestServer::start(Routes::new().page("/", "<a href='http://127.0.0.1:1/x'>x</a>"));
    let out = cli(&[
        "--no-status",
        "--max-requests-per-second",
        "0",
        &server.url("/"),
    ]);
    assert_exit(&out, 1);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("could not be reached"));
}
