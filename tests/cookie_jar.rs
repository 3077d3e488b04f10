//! `--cookie-jar`: the cookies servers set in one run are saved to the jar (mode 0600, never
//! through a symbolic link) and sent in the next run, to their own host only.

use std::fs;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, assert_one_line_error, cli_in, linkpatrol};

/// The `Cookie` headers `server` received for `path`, in order (`None`: none sent).
fn cookies_sent(server: &TestServer, path: &str) -> Vec<Option<String>> {
    server
        .requests()
        .iter()
        .filter(|r| r.path_only() == path)
        .map(|r| r.header("cookie").map(str::to_owned))
        .collect()
}

#[test]
fn cookies_set_in_one_run_are_sent_in_the_next_to_their_host_only() {
    for threads in ["1", "8"] {
        // Another host (127.0.0.2), linked from the page: never gets the cookie.
        let other = TestServer::start_on("127.0.0.2", Routes::new().page("/b", "b"));
        let page = format!("<a href='/a'>a</a> <a href='{}'>b</a>", other.url("/b"));
        let site = TestServer::start(
            Routes::new()
                .reply(
                    "/",
                    Reply::html(page).header("Set-Cookie", "sid=abc; Path=/; Max-Age=3600"),
                )
                .page("/a", "a"),
        );
        let dir = TempDir::new(&format!("cookie-jar-{threads}"));
        let jar = dir.join("jar.txt");
        let run = || {
            linkpatrol()
                .args([
                    "--no-status",
                    "--max-requests-per-second",
                    "0",
                    "-t",
                    threads,
                ])
                .arg("--cookie-jar")
                .arg(&jar)
                .arg(site.url("/"))
                .output()
                .unwrap()
        };
        assert_exit(&run(), 0);
        let saved = fs::read_to_string(&jar).unwrap();
        assert!(
            saved.lines().any(|l| l.starts_with("127.0.0.1\tFALSE\t/\tFALSE\t")
                && l.ends_with("\tsid\tabc")),
            "{saved}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&jar).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "-t {threads}");
        }
        assert_eq!(
            cookies_sent(&site, "/"),
            [None],
            "-t {threads}: the first run"
        );
        assert_exit(&run(), 0);
        assert_eq!(
            cookies_sent(&site, "/"),
            [None, Some("sid=abc".to_owned())],
            "-t {threads}: the second run sends the saved cookie"
        );
        assert!(
            cookies_sent(&other, "/b").iter().all(Option::is_none),
            "-t {threads}: never to another host"
        );
    }
}

#[test]
fn a_symbolic_link_at_the_jar_is_never_followed() {
    let site = TestServer::start(Routes::new().reply(
        "/",
        Reply::html("ok").header("Set-Cookie", "sid=abc; Path=/"),
    ));
    let dir = TempDir::new("cookie-jar-link");
    let target = dir.join("precious.txt");
    fs::write(&target, "keep me\n").unwrap();
    let jar = dir.join("jar.txt");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&target, &jar).unwrap();
    let out = linkpatrol()
        .args(["--no-status", "--cookie-jar"])
        .arg(&jar)
        .arg(site.url("/"))
        .output()
        .unwrap();
    assert_one_line_error(&out, &["jar.txt", "symbolic link"]);
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me\n");
    assert!(site.requests().is_empty(), "no request");
}

#[test]
fn a_local_config_may_not_name_a_jar() {
    let dir = TempDir::new("cookie-jar-local");
    fs::write(dir.join("linkpatrol.toml"), "cookie-jar = \"jar.txt\"\n").unwrap();
    fs::write(dir.join("index.html"), "<p>x</p>").unwrap();
    let out = cli_in(&dir, &[], &["."]);
    assert_one_line_error(
        &out,
        &["./linkpatrol.toml sets `cookie-jar`", "--trust-config"],
    );
    assert!(!dir.join("jar.txt").exists());
}
