//! Credentials in URLs (`user:password@`) never reach a report: every format, for every kind
//! of row that can carry one (ignored schemes, filtered and mail URLs, redirects to a URL with
//! credentials, failing redirects, link texts and warnings); nor an error message, nor the
//! command plugin's program. `[[auth]]` credentials never go to a host that a URL's userinfo
//! merely spells.

use linkpatrol::plugin::Options;
use linkpatrol::{BasicAuth, Checker, Config, plugins};
use regex::Regex;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli, cli_in, config, run};

const USER: &str = "alice";
const SECRET: &str = "s3cr3tpw";

#[test]
fn no_report_format_shows_a_password() {
    // Pages name their own host:port, read from the Host header of each request.
    let server = TestServer::start(Routes::new().dynamic(|req| {
        let host = req.header("host")?.to_owned();
        let creds = |host: &str, path: &str| format!("http://{USER}:{SECRET}@{host}{path}");
        let own = |path: &str| creds(&host, path);
        Some(match req.path_only() {
            "/" => Reply::html(format!(
                "<a href='ftp://{USER}:{SECRET}@127.0.0.1/file'>ignored scheme</a>\n\
                 <a href='mailto:bob@x.test?body=see%20{mail}'>mail</a>\n\
                 <a href='{excluded}'>filtered out</a>\n\
                 <a href='/r'>redirect to credentials</a>\n\
                 <a href='/bad'>failing redirect</a>\n\
                 <a href='/loop'>redirect loop</a>\n\
                 <a href=' {padded} '>{text}</a>\n",
                mail = creds("h.test", "/"),
                excluded = creds("127.0.0.2:9", "/x"),
                padded = own("/target"),
                text = own("/in-the-link-text"),
            )),
            "/r" => Reply::redirect(302, &own("/target")),
            "/bad" => Reply::redirect(302, &creds("127.0.0.1:1", "/")),
            "/loop" => Reply::redirect(302, &own("/loop")),
            "/target" => Reply::html("<a href='other'>relative to a URL with credentials</a>"),
            _ => return None,
        })
    }));
    let dir = TempDir::new("credentials");
    let mut args: Vec<String> = [
        "--no-status",
        "--max-requests-per-second",
        "0",
        "--max-retries",
        "0",
        "--exclude",
        "127\\.0\\.0\\.2",
        "-v",
    ]
    .map(String::from)
    .to_vec();
    let formats = linkpatrol::report::Format::ALL.iter().map(|f| f.name());
    for f in formats.clone() {
        args.push("-F".into());
        args.push(format!("{f}/{}", dir.join(format!("out.{f}")).display()));
    }
    args.push(server.url("/"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = cli(&args);
    assert_exit(&out, 1);
    let mut outputs = vec![
        ("stdout".to_owned(), String::from_utf8(out.stdout).unwrap()),
        ("stderr".to_owned(), String::from_utf8(out.stderr).unwrap()),
    ];
    for f in formats {
        let text = std::fs::read_to_string(dir.join(format!("out.{f}"))).unwrap();
        assert!(!text.is_empty(), "{f} written");
        outputs.push((f.to_owned(), text));
    }
    for (name, text) in &outputs {
        for secret in [SECRET, USER] {
            assert!(!text.contains(secret), "{name} shows `{secret}':\n{text}");
        }
    }
    // The credentialed URLs were really reported, masked.
    let csv = &outputs.iter().find(|(n, _)| n == "csv").unwrap().1;
    for masked in [
        "ftp://***@127.0.0.1/file",
        "http://***@127.0.0.2:9/x",
        "mailto:bob@x.test?body=see%20http://***@h.test/",
        "http://***@127.0.0.1:1/",
        "/target",
        "/other",
        "[http-redirected]",
        "[url-whitespace]",
        "redirect loop",
        "/in-the-link-text",
    ] {
        assert!(csv.contains(masked), "{masked} missing:\n{csv}");
    }
    assert!(server.count("/target") >= 1 && server.count("/other") == 1);
}

/// `Authorization` for `user` / `pass` (what `[[auth]]` below sends).
const USER_PASS: &str = "Basic dXNlcjpwYXNz";

/// Two loopback sites, A and B. A's start page links to B behind a userinfo that spells A's
/// origin, `http://127.0.0.1:PORT_A@127.0.0.1:PORT_B/steal`, and to `/hop`, a 302 to the same
/// kind of URL; `/secure` on A wants the password. B answers everything. Returns (A, B, the
/// `[[auth]]` pattern for A's origin as a user would write it).
fn site_and_thief() -> (TestServer, TestServer, String) {
    let thief = TestServer::start(Routes::new().fallback(Reply::html("thanks")));
    let b = thief.addr();
    let site = TestServer::start(Routes::new().dynamic(move |req| {
        let a = req.header("host")?.to_owned();
        Some(match req.path_only() {
            "/" => Reply::html(format!(
                "<a href='http://{a}@{b}/steal'>b</a><a href='/hop'>hop</a>\
                 <a href='/secure'>s</a>"
            )),
            "/hop" => Reply::redirect(302, &format!("http://{a}@{b}/steal-via-redirect")),
            "/secure" if req.header("authorization") == Some(USER_PASS) => Reply::html("in"),
            "/secure" => Reply::status(401),
            _ => return None,
        })
    }));
    let pattern = format!("^{}", regex::escape(&site.base()));
    (site, thief, pattern)
}

/// A got the password on every request; B was asked for both URLs and never got it.
#[track_caller]
fn only_the_site_got_the_password(site: &TestServer, thief: &TestServer) {
    let asked = site.requests();
    assert!(
        asked.iter().any(|r| r.path_only() == "/secure"),
        "{asked:?}"
    );
    for r in &asked {
        assert_eq!(r.header("authorization"), Some(USER_PASS), "{r:?}");
    }
    assert!(thief.count("/steal") >= 1 && thief.count("/steal-via-redirect") >= 1);
    for r in thief.requests() {
        // What a URL's own userinfo sends (`127.0.0.1:PORT` as user and password), if anything.
        assert_ne!(r.header("authorization"), Some(USER_PASS), "{r:?}");
    }
}

#[test]
fn basic_auth_never_goes_to_a_host_spelled_as_userinfo() {
    let (site, thief, pattern) = site_and_thief();
    let auth = BasicAuth::new(Regex::new(&pattern).unwrap(), "user", "pass");
    let report = run(config(&site.url("/"), 2).basic_auth(auth));
    assert_eq!(report.errors(), 0, "{:#?}", report.entries);
    only_the_site_got_the_password(&site, &thief);
}

#[test]
fn basic_auth_from_the_config_file_never_goes_to_a_host_spelled_as_userinfo() {
    let (site, thief, pattern) = site_and_thief();
    let dir = TempDir::new("credentials-auth");
    std::fs::write(
        dir.join("auth.toml"),
        format!("[[auth]]\npattern = '{pattern}'\nusername = \"user\"\npassword = \"pass\"\n"),
    )
    .unwrap();
    let args = [
        "-c",
        "auth.toml",
        "--no-status",
        "--max-requests-per-second",
        "0",
    ];
    let out = cli_in(&dir, &[], &[&args[..], &[&site.url("/")]].concat());
    assert_exit(&out, 0);
    only_the_site_got_the_password(&site, &thief);
}

#[test]
fn error_messages_mask_the_password_of_an_invalid_url() {
    let bad = "http://u:s3cret@127.0.0.1:99999/";
    let dir = TempDir::new("credentials-errors");
    std::fs::write(dir.join("urls.txt"), format!("# start\n{bad}\n")).unwrap();
    for args in [
        vec!["--no-config", bad],
        vec!["--no-config", "--input-file", "urls.txt"],
    ] {
        let out = cli_in(&dir, &[], &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_exit(&out, 2);
        assert!(
            err.contains("`http://***@127.0.0.1:99999/' is not a valid URL"),
            "{err}"
        );
        assert!(!err.contains("s3cret"), "{err}");
        if args.contains(&"urls.txt") {
            assert!(err.contains("urls.txt, line 2: "), "{err}");
        }
    }
    // The library's own errors, for an embedder.
    for input in [bad, "ftp://u:s3cret@127.0.0.1/"] {
        let e = Checker::new(Config::new().input_url(input)).unwrap_err();
        let shown = e.to_string();
        assert!(shown.contains("://***@127.0.0.1"), "{shown}");
        assert!(!shown.contains("s3cret"), "{shown}");
    }
}

#[test]
fn the_command_plugin_program_never_sees_the_password() {
    let server = TestServer::start(Routes::new().page("/", "<p>one page</p>"));
    let dir = TempDir::new("credentials-command");
    let told = dir.join("url.txt");
    let mut options = Options::new("command");
    options.push("program", "/bin/sh");
    options.push("arg", "-c");
    options.push("arg", r#"printf %s "$LINKPATROL_URL" > "$0""#);
    options.push("arg", told.to_str().unwrap());
    let command = plugins::builtin("command", &options).unwrap();
    let with_user = server
        .url("/")
        .replace("http://", &format!("http://{USER}:{SECRET}@"));
    let report = run(config(&with_user, 1).plugin(command));
    assert_eq!(
        report.errors() + report.warnings(),
        0,
        "{:#?}",
        report.entries
    );
    // The request itself carried the credentials; the program got the URL without them.
    let asked = server.requests();
    assert!(
        asked.iter().all(|r| r.header("authorization").is_some()),
        "{asked:?}"
    );
    assert_eq!(std::fs::read_to_string(&told).unwrap(), server.url("/"));
}
