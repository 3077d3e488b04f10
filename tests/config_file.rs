//! The config file through the binary: discovery, precedence (file < environment < flags),
//! `--print-config` round trip, unknown keys and bad values. The environment is only ever set
//! on the child process, never in this multi-threaded test process.

use std::process::Output;

use crate::server::{Routes, TestServer};
use crate::util::{assert_exit, assert_one_line_error, cli_in, temp_dir};

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The value line of `key` in `--print-config` output.
fn key_line<'a>(toml: &'a str, key: &str) -> &'a str {
    toml.lines()
        .find(|l| l.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no `{key}' in\n{toml}"))
}

#[test]
fn precedence_is_file_then_environment_then_flags() {
    let dir = temp_dir("cfg-precedence");
    std::fs::write(
        dir.join("linkpatrol.toml"),
        "threads = 3\ntimeout = 7\nuser-agent = \"from-file\"\nheader = [\"X-A: file\"]\n",
    )
    .unwrap();
    let out = cli_in(&dir, &[], &["--print-config"]);
    let toml = stdout(&out);
    assert_eq!(key_line(&toml, "threads"), "threads = 3");
    assert_eq!(key_line(&toml, "timeout"), "timeout = 7.0");
    assert_eq!(
        key_line(&toml, "max-redirects"),
        "max-redirects = 10",
        "default"
    );

    let env = [
        ("LINKPATROL_THREADS", "5"),
        ("LINKPATROL_USER_AGENT", "from-env"),
    ];
    let toml = stdout(&cli_in(&dir, &env, &["--print-config"]));
    assert_eq!(key_line(&toml, "threads"), "threads = 5", "env beats file");
    assert_eq!(key_line(&toml, "user-agent"), "user-agent = \"from-env\"");
    assert_eq!(
        key_line(&toml, "timeout"),
        "timeout = 7.0",
        "file still applies"
    );

    let toml = stdout(&cli_in(
        &dir,
        &env,
        &["--print-config", "-t", "9", "-H", "X-A: flag"],
    ));
    assert_eq!(key_line(&toml, "threads"), "threads = 9", "flag beats env");
    assert_eq!(key_line(&toml, "header"), "header = [\"X-A: flag\"]");
    assert_eq!(key_line(&toml, "user-agent"), "user-agent = \"from-env\"");
}

#[test]
fn the_file_settings_reach_the_requests() {
    let server = TestServer::start(
        Routes::new()
            .page("/", "<a href='/ok'>ok</a>")
            .page("/ok", "ok"),
    );
    let dir = temp_dir("cfg-applied");
    let host = server.addr().to_string();
    std::fs::write(
        dir.join("custom.toml"),
        format!(
            "inputs = [\"{}\"]\nmax-requests-per-second = 0\nno-status = true\n\
             user-agent = \"cfg-agent\"\n\n[[hosts]]\npattern = '^{}$'\n\
             headers = {{ X-Host = \"per-host\" }}\n",
            server.url("/"),
            regex_escape(&host)
        ),
    )
    .unwrap();
    let out = cli_in(&dir, &[], &["-c", "custom.toml"]);
    assert_exit(&out, 0);
    let reqs = server.requests();
    assert!(reqs.len() >= 2);
    for r in &reqs {
        assert_eq!(r.header("user-agent"), Some("cfg-agent"), "{r:?}");
        assert_eq!(r.header("x-host"), Some("per-host"), "{r:?}");
    }
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_ascii_alphanumeric() || c == ':' {
                vec![c]
            } else {
                vec!['\\', c]
            }
        })
        .collect()
}

#[test]
fn every_key_round_trips_through_print_config() {
    let dir = temp_dir("cfg-roundtrip");
    let all = r#"
inputs = ["https://example.test/", "docs"]
stdin = true
input-file = ["urls.txt"]
root-dir = "public"
base-url = "https://example.test/"
sitemaps = true
recursion-level = 3
internal-only = true
include = ["^https://example\\.test/"]
exclude = ["/private/"]
no-follow = ["/archive/"]
max-urls = 1000
no-robots = true
timeout = 12.5
max-redirects = 4
max-retries = 1
max-retry-wait = 5
max-body-size = 1024
user-agent = "bot/1"
header = ["X-A: 1"]
host-header = ["example=X-B: 2"]
cookie-file = "cookies.txt"
accept = "200..=299,429"
method = "get"
insecure = true
check-mx = true
dns-server = "127.0.0.1:5353"
threads = 3
max-requests-per-second = 2
host-concurrency = 2
host-rate = ["slow=0.5"]
host-max-concurrency = ["slow=1"]
abort-timeout = 1
output = "csv"
file-output = ["json/out.json"]
quiet = true
verbose = true
no-status = true
csv-delimiter = ","
csv-bom = true
ignore-warning = ["http-redirected"]
fail-on-warnings = true

[[hosts]]
pattern = '^docs\.example\.test:443$'
rate = 1.5
max-concurrency = 2
headers = { X-Token = "t" }

[[auth]]
pattern = '^https://intra\.example\.test/'
username = "me"
password = "secret"
"#;
    std::fs::write(dir.join("all.toml"), all).unwrap();
    let first = cli_in(&dir, &[], &["-c", "all.toml", "--print-config"]);
    assert_exit(&first, 0);
    let printed = stdout(&first);
    // Every key of the file is in the printed config, with the file's value.
    let top_level = all.lines().take_while(|l| !l.starts_with('['));
    for line in top_level.filter(|l| l.contains(" = ")) {
        let key = line.split(" = ").next().unwrap();
        assert!(
            printed.lines().any(|l| l.starts_with(&format!("{key} = "))),
            "`{key}' missing from\n{printed}"
        );
    }
    assert_eq!(key_line(&printed, "threads"), "threads = 3");
    assert_eq!(key_line(&printed, "method"), "method = \"get\"");
    assert!(
        printed.contains("[[hosts]]") && printed.contains("X-Token = \"t\""),
        "{printed}"
    );
    assert!(
        printed.contains("[[auth]]") && printed.contains("username = \"me\""),
        "{printed}"
    );
    std::fs::write(dir.join("printed.toml"), &printed).unwrap();
    let second = cli_in(&dir, &[], &["-c", "printed.toml", "--print-config"]);
    assert_eq!(
        stdout(&second),
        printed,
        "printing the printed config changes nothing"
    );
}

#[test]
fn the_user_config_dir_is_read_and_the_local_file_wins() {
    let dir = temp_dir("cfg-discovery");
    std::fs::create_dir_all(dir.join("home/.config/linkpatrol")).unwrap();
    std::fs::write(
        dir.join("home/.config/linkpatrol/config.toml"),
        "threads = 2\n",
    )
    .unwrap();
    let toml = stdout(&cli_in(&dir, &[], &["--print-config"]));
    assert_eq!(key_line(&toml, "threads"), "threads = 2");
    std::fs::write(dir.join("linkpatrol.toml"), "threads = 4\n").unwrap();
    let toml = stdout(&cli_in(&dir, &[], &["--print-config"]));
    assert_eq!(key_line(&toml, "threads"), "threads = 4");
    let toml = stdout(&cli_in(&dir, &[], &["--no-config", "--print-config"]));
    assert_eq!(key_line(&toml, "threads"), "threads = 16");
}

#[test]
fn config_errors_name_the_file_the_key_and_the_line() {
    let dir = temp_dir("cfg-errors");
    std::fs::write(dir.join("typo.toml"), "threads = 2\n\nthredas = 4\n").unwrap();
    let out = cli_in(&dir, &[], &["-c", "typo.toml", "http://127.0.0.1:1/"]);
    assert_one_line_error(&out, &["typo.toml", "line 3", "thredas"]);

    std::fs::write(dir.join("syntax.toml"), "threads = [\n").unwrap();
    let out = cli_in(&dir, &[], &["-c", "syntax.toml", "http://127.0.0.1:1/"]);
    assert_one_line_error(&out, &["syntax.toml", "line 1"]);

    std::fs::write(dir.join("value.toml"), "threads = 0\n").unwrap();
    let out = cli_in(&dir, &[], &["-c", "value.toml", "http://127.0.0.1:1/"]);
    assert_one_line_error(&out, &["value.toml", "threads", "1 to 1024"]);

    let out = cli_in(&dir, &[], &["-c", "missing.toml", "http://127.0.0.1:1/"]);
    assert_one_line_error(&out, &["cannot read config file `missing.toml'"]);

    let out = cli_in(&dir, &[("LINKPATROL_THREADS", "many")], &["--print-config"]);
    assert_one_line_error(&out, &["many", "--threads"]);
}
