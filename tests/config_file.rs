//! The config file through the binary: discovery, precedence (file < environment < flags),
//! `--print-config` round trip, unknown keys and bad values, and the keys a `linkpatrol.toml`
//! found in the current folder may not set unless trusted. The environment is only ever set on
//! the child process, never in this multi-threaded test process.

use std::net::UdpSocket;
use std::path::Path;
use std::process::Output;

use crate::support::proxy::TestProxy;
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, assert_one_line_error, cli_in};

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
    let dir = TempDir::new("cfg-precedence");
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
    let dir = TempDir::new("cfg-applied");
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
    let dir = TempDir::new("cfg-roundtrip");
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
    let dir = TempDir::new("cfg-discovery");
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
    let dir = TempDir::new("cfg-errors");
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

/// A folder as a checkout would have it: `index.html` holding `page`, and a `linkpatrol.toml`
/// holding `toml`.
fn checkout(name: &str, page: &str, toml: &str) -> TempDir {
    let dir = TempDir::new(name);
    std::fs::write(dir.join("index.html"), page).unwrap();
    std::fs::write(dir.join("linkpatrol.toml"), toml).unwrap();
    dir
}

/// Runs `linkpatrol` in `dir` with `env` and `args`, then the quiet, fast flags.
fn run_in(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--no-status", "--max-requests-per-second", "0"]);
    cli_in(dir, env, &all)
}

/// The refusal of the local config file: exit 2 and one line naming the file, `shown` (the key
/// as the message shows it) and every way to trust the file.
#[track_caller]
fn assert_refused(out: &Output, shown: &str) {
    assert_one_line_error(
        out,
        &[
            "./linkpatrol.toml sets ",
            shown,
            "may not set",
            "--trust-config",
            "LINKPATROL_TRUST_CONFIG=1",
            "-c ./linkpatrol.toml",
        ],
    );
}

/// Environment variables of a run, `(NAME, VALUE)`.
type Env<'a> = &'a [(&'a str, &'a str)];

/// The ways to trust a local file: the flag, the variable, naming it with `-c`.
const TRUSTED: [(Env, &[&str]); 3] = [
    (&[], &["--trust-config"]),
    (&[("LINKPATROL_TRUST_CONFIG", "1")], &[]),
    (&[], &["-c", "./linkpatrol.toml"]),
];

#[test]
fn a_local_command_plugin_runs_nothing_unless_trusted() {
    let section = "[plugins.command]\nprogram = \"/bin/sh\"\narg = [\"-c\", \"touch PWNED\"]\n";
    for (toml, shown) in [
        (
            format!("plugin = [\"command\"]\n{section}"),
            "`plugin = command`",
        ),
        (section.to_owned(), "`[plugins.command]`"),
        (
            "plugin = [\"command:program=/bin/sh,arg=-c,arg=touch PWNED\"]\n".to_owned(),
            "`plugin = command`",
        ),
    ] {
        let dir = checkout("cfg-local-command", "<a href='index.html'>me</a>", &toml);
        let pwned = dir.join("PWNED");
        for env in [&[][..], &[("LINKPATROL_TRUST_CONFIG", "0")]] {
            let out = run_in(&dir, env, &["."]);
            assert_refused(&out, shown);
            assert!(out.stdout.is_empty(), "no report");
            assert!(!pwned.exists(), "the program ran: {toml}");
        }
        for (env, flags) in TRUSTED {
            let out = run_in(&dir, env, &[flags, &["."]].concat());
            assert_exit(&out, 0);
            assert!(pwned.exists(), "trusted with {env:?} {flags:?}: {toml}");
            std::fs::remove_file(&pwned).unwrap();
        }
    }
}

/// Rendering starts a browser that runs the sites' scripts, and its `chromium=PATH` runs any
/// program: a checkout's own config can turn on neither.
#[test]
fn a_local_config_cannot_turn_rendering_on() {
    for (toml, shown) in [
        ("render-js = true\n", "`render-js`"),
        ("render-timeout = 5\n", "`render-timeout`"),
        (
            "[plugins.render-js]\nchromium = \"/bin/sh\"\n",
            "`[plugins.render-js]`",
        ),
        (
            "plugin = [\"render-js:chromium=/bin/sh\"]\n",
            "`plugin = render-js`",
        ),
    ] {
        let dir = checkout("cfg-local-render-js", "<a href='index.html'>me</a>", toml);
        let out = run_in(&dir, &[], &["."]);
        assert_refused(&out, shown);
        assert!(out.stdout.is_empty(), "no report");
    }
}

#[test]
fn a_local_file_output_writes_nothing_unless_trusted() {
    let elsewhere = TempDir::new("cfg-local-file-output-target");
    let target = elsewhere.join("precious.txt");
    std::fs::write(&target, "precious").unwrap();
    let dir = checkout(
        "cfg-local-file-output",
        "<p>no links</p>",
        &format!("file-output = [\"text/{}\"]\n", target.display()),
    );
    let out = run_in(&dir, &[], &["-q", "."]);
    assert_refused(&out, "`file-output`");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        2,
        "no file written"
    );

    let out = run_in(&dir, &[], &["-q", "--trust-config", "."]);
    assert_exit(&out, 0);
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.contains("That's it."), "trusted: {written}");
}

#[test]
fn a_local_proxy_sees_nothing_unless_trusted() {
    let site = TestServer::start(Routes::new().page("/", "ok"));
    let proxy = TestProxy::start();
    let dir = checkout(
        "cfg-local-proxy",
        "",
        &format!("proxy = \"{}\"\n", proxy.url()),
    );
    let out = run_in(
        &dir,
        &[],
        &["-H", "Authorization: Bearer mine", &site.url("/")],
    );
    assert_refused(&out, "`proxy`");
    assert!(proxy.requests().is_empty(), "{:?}", proxy.requests());
    assert!(site.requests().is_empty(), "no request at all");

    let out = run_in(&dir, &[], &["--trust-config", &site.url("/")]);
    assert_exit(&out, 0);
    let host = site.addr().to_string();
    assert!(
        proxy.targets().iter().any(|t| t.contains(&host)),
        "trusted: {:?}",
        proxy.targets()
    );
}

#[test]
fn a_local_dns_server_is_asked_nothing_unless_trusted() {
    let resolver = UdpSocket::bind("127.0.0.1:0").unwrap();
    resolver.set_nonblocking(true).unwrap();
    let dir = checkout(
        "cfg-local-dns",
        "<a href='mailto:a@mail.test'>mail</a>",
        &format!(
            "check-mx = true\ndns-server = \"{}\"\n",
            resolver.local_addr().unwrap()
        ),
    );
    // A datagram sent over loopback is in the socket's queue by the time its sender exits.
    let received = || {
        let mut buf = [0u8; 512];
        resolver.recv_from(&mut buf).is_ok()
    };
    let out = run_in(&dir, &[], &["."]);
    assert_refused(&out, "`dns-server`");
    assert!(!received(), "the resolver was asked");

    // Nobody answers: the lookup times out and the link is reported.
    let out = run_in(&dir, &[], &["--trust-config", "--timeout", "0.3", "."]);
    assert_exit(&out, 1);
    assert!(received(), "trusted: the resolver was asked");
}

#[test]
fn a_local_cookie_file_is_not_sent_unless_trusted() {
    let site = TestServer::start(Routes::new().page("/", "ok"));
    let elsewhere = TempDir::new("cfg-local-cookie-jar");
    let jar = elsewhere.join("cookies.txt");
    std::fs::write(&jar, "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc\n").unwrap();
    let dir = checkout(
        "cfg-local-cookie",
        "",
        &format!("cookie-file = \"{}\"\n", jar.display()),
    );
    let out = run_in(&dir, &[], &[&site.url("/")]);
    assert_refused(&out, "`cookie-file`");
    assert!(site.requests().is_empty(), "no request");

    let out = run_in(&dir, &[], &["-c", "./linkpatrol.toml", &site.url("/")]);
    assert_exit(&out, 0);
    let cookies: Vec<Option<String>> = site
        .requests()
        .iter()
        .map(|r| r.header("cookie").map(str::to_owned))
        .collect();
    assert!(
        cookies.contains(&Some("session=abc".to_owned())),
        "trusted: {cookies:?}"
    );
}

#[test]
fn local_basic_auth_is_not_sent_unless_trusted() {
    let site = TestServer::start(Routes::new().page("/", "ok"));
    let dir = checkout(
        "cfg-local-auth",
        "",
        "[[auth]]\npattern = '.'\nusername = \"user\"\npassword = \"pass\"\n",
    );
    let out = run_in(&dir, &[], &[&site.url("/")]);
    assert_refused(&out, "`[[auth]]`");
    assert!(site.requests().is_empty(), "no request");

    let out = run_in(&dir, &[("LINKPATROL_TRUST_CONFIG", "1")], &[&site.url("/")]);
    assert_exit(&out, 0);
    assert!(
        site.requests()
            .iter()
            .any(|r| r.header("authorization") == Some("Basic dXNlcjpwYXNz")),
        "trusted: {:?}",
        site.requests()
    );
}

#[test]
fn a_local_config_sets_no_credential_header_for_any_host() {
    let site = TestServer::start(Routes::new().page("/", "ok"));
    for (toml, shown) in [
        (
            "header = [\"Authorization: Bearer x\"]\n",
            "`header` `Authorization`",
        ),
        (
            "host-header = [\".=cookie: a=b\"]\n",
            "`host-header` `cookie`",
        ),
        (
            "[[hosts]]\npattern = '.'\nheaders = { Proxy-Authorization = \"Basic eA==\" }\n",
            "`[[hosts]]` `Proxy-Authorization`",
        ),
    ] {
        let dir = checkout("cfg-local-credential-header", "", toml);
        let out = run_in(&dir, &[], &[&site.url("/")]);
        assert_refused(&out, shown);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("Bearer x") && !err.contains("eA=="), "{err}");
        assert!(site.requests().is_empty(), "{toml}: {:?}", site.requests());
    }
    // Trusted, the same file is the user's own choice.
    let dir = checkout(
        "cfg-local-credential-header",
        "",
        "header = [\"Authorization: Bearer x\"]\n",
    );
    let out = run_in(&dir, &[("LINKPATROL_TRUST_CONFIG", "1")], &[&site.url("/")]);
    assert_exit(&out, 0);
    assert!(
        site.requests()
            .iter()
            .any(|r| r.header("authorization") == Some("Bearer x")),
        "trusted: {:?}",
        site.requests()
    );
}

#[test]
fn local_insecure_input_files_and_paths_outside_the_folder_are_refused() {
    let site = TestServer::start(Routes::new().page("/", "ok"));
    let elsewhere = TempDir::new("cfg-local-outside");
    std::fs::write(elsewhere.join("urls.txt"), site.url("/")).unwrap();
    std::fs::write(elsewhere.join("index.html"), "<p>outside</p>").unwrap();
    let outside = elsewhere.display().to_string();
    for (toml, shown) in [
        ("insecure = true\n".to_owned(), "`insecure`"),
        (
            "follow-outside-root = true\n".to_owned(),
            "`follow-outside-root`",
        ),
        ("csv-raw = true\n".to_owned(), "`csv-raw`"),
        (
            format!("input-file = [\"{outside}/urls.txt\"]\n"),
            "`input-file`",
        ),
        (
            format!("inputs = [\"{outside}\"]\n"),
            "`inputs` outside the current folder",
        ),
        (
            format!("inputs = [\"file://{outside}/index.html\"]\n"),
            "`inputs` outside the current folder",
        ),
        (
            format!("inputs = [\"{outside}/**/*.md\"]\n"),
            "`inputs` outside the current folder",
        ),
        ("follow = true\n".to_owned(), "`follow`"),
        // It runs git in the checkout, whose own git configuration can run commands.
        ("changed-since = \"HEAD\"\n".to_owned(), "`changed-since`"),
        (
            format!("root-dir = \"{outside}\"\n"),
            "`root-dir` outside the current folder",
        ),
    ] {
        let dir = checkout("cfg-local-outside-folder", "<a href='/x'>x</a>", &toml);
        // `inputs` from the file, when no input is given.
        let out = run_in(&dir, &[], &[]);
        assert_refused(&out, shown);
        assert!(out.stdout.is_empty(), "no report");
        assert!(site.requests().is_empty(), "no request: {toml}");
        let out = run_in(&dir, &[], &["--trust-config", "--print-config"]);
        assert_exit(&out, 0);
    }
    // A symbolic link out of the folder leaves it too; paths inside it are fine.
    let dir = checkout(
        "cfg-local-symlink",
        "<p>in</p>",
        "inputs = [\"out/index.html\"]\n",
    );
    std::os::unix::fs::symlink(&elsewhere, dir.join("out")).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    assert_refused(
        &run_in(&dir, &[], &[]),
        "`inputs` outside the current folder",
    );
    std::fs::write(
        dir.join("linkpatrol.toml"),
        "inputs = [\"index.html\", \"./sub/../index.html\"]\nroot-dir = \".\"\n",
    )
    .unwrap();
    assert_exit(&run_in(&dir, &[], &[]), 0);
}

#[test]
fn harmless_local_keys_still_apply() {
    let dir = checkout(
        "cfg-local-harmless",
        "<a href='private/gone.html'>p</a><a href='#nowhere'>a</a>",
        "threads = 3\ntimeout = 7\nexclude = [\"/private/\"]\ninputs = [\"index.html\"]\n\
         plugin = [\"anchors:severity=warning\"]\n",
    );
    let toml = stdout(&run_in(&dir, &[], &["--print-config"]));
    assert_eq!(key_line(&toml, "threads"), "threads = 3");
    assert_eq!(key_line(&toml, "timeout"), "timeout = 7.0");
    // The excluded link is not broken; the anchors plugin reports the missing anchor.
    let out = run_in(&dir, &[], &["--fail-on-warnings"]);
    assert_exit(&out, 1);
    let report = stdout(&out);
    assert!(!report.contains("gone.html"), "{report}");
    assert!(report.contains("nowhere"), "{report}");
    assert!(report.contains("0 errors found"), "{report}");
}

#[test]
fn the_user_config_folder_is_trusted() {
    let dir = TempDir::new("cfg-user-trusted");
    std::fs::write(dir.join("index.html"), "<p>page</p>").unwrap();
    let folder = dir.join("home/.config/linkpatrol");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("config.toml"),
        "[plugins.command]\nprogram = \"/bin/sh\"\narg = [\"-c\", \"touch RAN\"]\n",
    )
    .unwrap();
    let out = run_in(&dir, &[], &["."]);
    assert_exit(&out, 0);
    assert!(dir.join("RAN").exists(), "the user's own plugin ran");
}

#[test]
fn the_patterns_of_a_local_config_share_one_memory_budget() {
    // Each pattern is under the 10 MB one pattern may take; together they are far over what
    // a local config may use.
    let patterns: Vec<String> = (0..8).map(|i| format!("\"\\\\w{{150}}{i}\"")).collect();
    let toml = format!("exclude = [{}]\n", patterns.join(", "));
    let dir = checkout("cfg-local-patterns", "<a href='index.html'>me</a>", &toml);
    let out = run_in(&dir, &[], &["."]);
    assert_one_line_error(
        &out,
        &[
            "./linkpatrol.toml: a `exclude' pattern",
            "needs more than its share",
            "--trust-config",
        ],
    );
    assert!(out.stdout.is_empty(), "no report");
    // One such pattern is within the budget; trusted, the file may use them all.
    let dir = checkout(
        "cfg-local-pattern",
        "<a href='index.html'>me</a>",
        "exclude = [\"\\\\w{150}\"]\n",
    );
    assert_exit(&run_in(&dir, &[], &["."]), 0);
}

#[test]
fn a_local_config_prints_nothing_fetched_with_the_users_credentials() {
    let site = TestServer::start(
        Routes::new().reply(
            "/",
            crate::support::server::Reply::html("<p>private</p>")
                .header("Set-Cookie", "session=SECRET-SESSION"),
        ),
    );
    for toml in [
        "[plugins.http-headers]\nprefix = [\"Set-Cookie\"]\n",
        "plugin = [\"http-headers:prefix=Set-Cookie\"]\n",
        "verbose = true\n",
        "[plugins.regex]\npattern = [\"private\"]\n",
    ] {
        let dir = checkout("cfg-local-printing", "", toml);
        for creds in [
            &["-H", "Cookie: login=me"][..],
            &["--host-header", "127=X-Api-Key: k"],
        ] {
            let out = run_in(&dir, &[], &[creds, &[&site.url("/")]].concat());
            assert_one_line_error(
                &out,
                &["./linkpatrol.toml sets ", "credentials", "--trust-config"],
            );
            assert!(out.stdout.is_empty(), "{toml}");
        }
        // Without credentials, or trusted, the file may print what it likes.
        let out = run_in(&dir, &[], &[&site.url("/")]);
        assert_exit(&out, 0);
        let out = run_in(
            &dir,
            &[],
            &["--trust-config", "-H", "Cookie: login=me", &site.url("/")],
        );
        assert_exit(&out, 0);
    }
    // The user's own -v under credentials is the user's choice.
    let dir = checkout("cfg-local-printing-none", "", "threads = 2\n");
    let out = run_in(&dir, &[], &["-v", "-H", "Cookie: login=me", &site.url("/")]);
    assert_exit(&out, 0);
}

/// A login page with a search form (to `other`) before the login form (`/session`, which
/// takes any POST as a login).
fn login_site(other: &TestServer) -> TestServer {
    let page = format!(
        "<form action='{}'><input name=q><input name=lang></form>\
         <form method=post action=/session><input name=login>\
         <input type=password name=password></form>",
        other.url("/search")
    );
    TestServer::start(
        Routes::new()
            .page("/login", &page)
            .reply(
                "/session",
                Reply::redirect(302, "/").header("Set-Cookie", "sid=1; Path=/"),
            )
            .page("/", "home"),
    )
}

/// Runs a login as `me` at `site`'s `/login` with `threads` workers and `flags`, in `dir`.
fn log_in_from(dir: &Path, site: &TestServer, threads: &str, flags: &[&str]) -> Output {
    let (login, start) = (site.url("/login"), site.url("/"));
    let mut args = vec!["-t", threads, "--login-url", &login, "--login-user", "me"];
    args.extend_from_slice(flags);
    args.push(&start);
    run_in(dir, &[("LINKPATROL_LOGIN_PASSWORD", "pa55word")], &args)
}

/// `toml` (where `OTHER` stands for another loopback server) is refused at 1 and 8 threads,
/// naming `shown`, before any request; then the same file is run trusted, in the folder
/// returned, for the caller to look at `(site, other)`.
fn assert_login_key_refused(toml: &str, shown: &str) -> (TempDir, TestServer, TestServer) {
    let other = TestServer::start(Routes::new().page("/search", "results"));
    let site = login_site(&other);
    let name = format!("cfg-local-{}", shown.trim_matches('`'));
    let dir = checkout(&name, "", &toml.replace("OTHER", &other.base()));
    for threads in ["1", "8"] {
        let out = log_in_from(&dir, &site, threads, &[]);
        assert_refused(&out, shown);
        assert!(site.requests().is_empty(), "{:?}", site.requests());
        assert!(other.requests().is_empty(), "{:?}", other.requests());
    }
    (dir, site, other)
}

#[test]
fn a_local_login_user_field_is_refused() {
    let (dir, site, _) =
        assert_login_key_refused("login-user-field = \"login\"\n", "`login-user-field`");
    let out = log_in_from(&dir, &site, "2", &["--trust-config"]);
    assert_exit(&out, 0);
    assert_eq!(site.count_method("POST", "/session"), 1);
}

#[test]
fn a_local_login_password_field_is_refused() {
    // The fields of the search form: the password would go to the other host's query.
    let (dir, site, other) = assert_login_key_refused(
        "login-user-field = \"q\"\nlogin-password-field = \"lang\"\n",
        "`login-password-field`",
    );
    // Trusted, the search form is still no login form: it has no password input.
    let out = log_in_from(&dir, &site, "2", &["--trust-config"]);
    assert_exit(&out, 2);
    assert!(other.requests().is_empty(), "{:?}", other.requests());
}

#[test]
fn a_local_login_extra_field_is_refused() {
    let (dir, site, _) = assert_login_key_refused(
        "login-extra-field = [\"next=OTHER/steal\"]\n",
        "`login-extra-field`",
    );
    let out = log_in_from(&dir, &site, "2", &["--trust-config"]);
    assert_exit(&out, 0);
    let sent = site.requests();
    let post = sent.iter().find(|r| r.method == "POST").expect("a login");
    assert!(
        String::from_utf8_lossy(&post.body).contains("next="),
        "trusted"
    );
}

#[test]
fn a_local_config_may_not_set_a_year_of_timeout_or_endless_retries() {
    let dir = checkout(
        "cfg-local-caps",
        "<a href='index.html'>me</a>",
        "timeout = 31536000\nabort-timeout = 31536000\nmax-retry-wait = 1e9\n\
         max-retries = 4294967295\n",
    );
    let out = run_in(&dir, &[], &["--print-config"]);
    assert_exit(&out, 0);
    let printed = stdout(&out);
    for line in [
        "timeout = 300.0",
        "abort-timeout = 300.0",
        "max-retry-wait = 300.0",
        "max-retries = 10",
    ] {
        assert!(
            printed.lines().any(|l| l == line),
            "{line} not in {printed}"
        );
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 4, "{err}");
    for key in [
        "timeout 31536000",
        "abort-timeout",
        "max-retry-wait",
        "max-retries 4294967295",
    ] {
        assert!(
            err.lines().any(
                |l| l.starts_with("linkpatrol: warning: ./linkpatrol.toml: ") && l.contains(key)
            ),
            "{key}: {err}"
        );
    }
    // The command line, or a trusted file, may ask for more.
    let out = run_in(&dir, &[], &["--timeout", "600", "--print-config"]);
    assert!(stdout(&out).lines().any(|l| l == "timeout = 600.0"));
    let out = run_in(&dir, &[], &["--trust-config", "--print-config"]);
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l == "max-retries = 4294967295")
    );
    assert!(out.stderr.is_empty());
}

/// A start site's host is requested whatever its address, so a checkout's config that names
/// `http://169.254.169.254/` (or a service on the CI runner) as an input would have it read.
/// A local config's start URLs go through the address policy: link-local and metadata never,
/// loopback and private only under the user's own `--allow-private`. No test here sends
/// traffic anywhere but to its loopback server.
#[test]
fn a_local_config_start_url_into_this_machines_network_is_refused() {
    let site = TestServer::start(Routes::new().page("/", "<p>ok</p>"));
    for threads in ["1", "8"] {
        for (input, why) in [
            (site.url("/"), "a loopback address"),
            (
                format!("http://localhost:{}/", site.addr().port()),
                "a loopback address",
            ),
            ("http://10.0.0.1/".to_owned(), "a private address"),
            (
                "http://169.254.169.254/latest/meta-data/".to_owned(),
                "a link-local address",
            ),
            (
                "http://[fd00:ec2::254]/".to_owned(),
                "a cloud metadata address",
            ),
        ] {
            let toml = format!("inputs = [\"{input}\"]\n");
            let dir = checkout("cfg-local-start-url", "<p>in</p>", &toml);
            let out = run_in(&dir, &[], &["-t", threads]);
            assert_refused(&out, &format!("`inputs` `{input}' ({why})"));
            assert!(site.requests().is_empty(), "no request: {toml}");
            let allowed = run_in(
                &dir,
                &[],
                &["-t", threads, "--allow-private", "--print-config"],
            );
            if why.contains("link-local") || why.contains("metadata") {
                assert_refused(&allowed, &format!("`inputs` `{input}' ({why})"));
            } else {
                assert_exit(&allowed, 0);
            }
        }
        // Allowed by the user, the loopback start is checked.
        let dir = checkout(
            "cfg-local-start-url",
            "<p>in</p>",
            &format!("inputs = [\"{}\"]\n", site.url("/")),
        );
        assert_exit(&run_in(&dir, &[], &["-t", threads, "--allow-private"]), 0);
        assert_eq!(site.count("/"), 1, "-t {threads}");
        site.clear_requests();
    }
}

/// A local config could lift the brakes that bound a run's memory and requests: a 2 GB page
/// read whole, no URL limit on a spider trap, a thousand redirects. Each is cut to its cap
/// with a warning, as the timeouts are; the command line or a trusted file may ask for more.
#[test]
fn a_local_config_may_not_lift_the_body_url_and_redirect_limits() {
    // /r/N redirects to /r/N+1, for ever.
    let site = TestServer::start(Routes::new().dynamic(|req| {
        let n: u32 = req.path.strip_prefix("/r/")?.parse().ok()?;
        Some(Reply::redirect(302, &format!("/r/{}", n + 1)))
    }));
    let page = format!("<a href='{}'>trap</a>", site.url("/r/0"));
    let dir = checkout(
        "cfg-local-limits",
        &page,
        "max-body-size = 2000000000\nmax-urls = 0\nmax-redirects = 1000\nmax-memory = \"8G\"\n",
    );
    let out = run_in(&dir, &[], &["--print-config"]);
    assert_exit(&out, 0);
    let printed = stdout(&out);
    for line in [
        "max-body-size = 67108864",
        "max-urls = 10000000",
        "max-redirects = 20",
        "max-memory = 1073741824",
    ] {
        assert!(
            printed.lines().any(|l| l == line),
            "{line} not in {printed}"
        );
    }
    let err = String::from_utf8_lossy(&out.stderr);
    for key in [
        "max-body-size 2000000000",
        "max-urls 0 (no limit)",
        "max-redirects 1000",
        "max-memory 8589934592",
    ] {
        assert!(
            err.lines().any(
                |l| l.starts_with("linkpatrol: warning: ./linkpatrol.toml: ") && l.contains(key)
            ),
            "{key}: {err}"
        );
    }
    for threads in ["1", "8"] {
        site.clear_requests();
        let out = run_in(&dir, &[], &["-t", threads, "index.html"]);
        assert_exit(&out, 1);
        let hops = site
            .requests()
            .iter()
            .filter(|r| r.path.starts_with("/r/"))
            .count();
        assert_eq!(hops, 21, "-t {threads}: the first request and 20 hops");
    }
    let out = run_in(&dir, &[], &["--trust-config", "--print-config"]);
    assert!(stdout(&out).lines().any(|l| l == "max-urls = 0"));
}

/// Every pattern a local config sets shares the one budget: `exclude-path`, the logout
/// pattern and the regex plugin's patterns (in its section or in `plugin = […]`) too. Before,
/// heavy `exclude-path` patterns ran for tens of seconds at hundreds of MB.
#[test]
fn every_pattern_of_a_local_config_shares_the_budget() {
    let heavy: Vec<String> = (0..8).map(|i| format!("\"\\\\w{{150}}{i}\"")).collect();
    let list = heavy.join(", ");
    let specs: Vec<String> = (0..8)
        .map(|i| format!("\"regex:pattern=\\\\w{{150}}{i}\""))
        .collect();
    for (toml, key) in [
        (format!("exclude-path = [{list}]\n"), "exclude-path"),
        (
            "login-logout-pattern = \"(\\\\w{150}){8}\"\n".to_owned(),
            "login-logout-pattern",
        ),
        (
            format!("[plugins.regex]\npattern = [{list}]\n"),
            "plugins.regex",
        ),
        (
            format!("plugin = [{}]\n", specs.join(", ")),
            "plugins.regex",
        ),
    ] {
        let dir = checkout(
            "cfg-local-all-patterns",
            "<a href='index.html'>me</a>",
            &toml,
        );
        // Refused before any thread starts.
        let out = run_in(&dir, &[], &["."]);
        assert_one_line_error(
            &out,
            &[
                &format!("./linkpatrol.toml: a `{key}' pattern"),
                "needs more than its share",
                "--trust-config",
            ],
        );
        assert!(out.stdout.is_empty(), "no report: {toml}");
    }
}
