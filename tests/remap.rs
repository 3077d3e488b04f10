//! `--remap 'REGEX REPLACEMENT'` (and the config key, and `Config::remap`): links to the
//! production site are checked on a loopback server instead; the report keeps the link as
//! written and says what it was remapped to.

use std::path::Path;

use linkpatrol::{Config, Remap};
use regex::Regex;
use serde_json::Value;

use crate::support::server::{Routes, TestServer};
use crate::support::util::{
    TempDir, assert_exit, assert_one_line_error, cli, csv_run_in, row_named, rows, run,
};

/// The production URL the pages link to. `.test` is reserved: it never resolves, and no test
/// should ever try.
const PRODUCTION: &str = "https://production.test";

/// A staging server with one page, and a folder whose page links to that page and a missing
/// one on the production site.
fn setup(name: &str) -> (TestServer, TempDir) {
    let server = TestServer::start(Routes::new().page("/page.html", "<p>staged</p>"));
    let dir = TempDir::new(name);
    std::fs::write(
        dir.join("index.html"),
        format!(
            "<a href=\"{PRODUCTION}/page.html#top\">page</a>\n\
             <a href=\"{PRODUCTION}/gone\">gone</a>\n"
        ),
    )
    .unwrap();
    (server, dir)
}

fn rule(server: &TestServer) -> String {
    format!(r"^https://production\.test/ {}", server.url("/"))
}

/// Only the staging server was asked, for the two remapped links (robots.txt aside).
fn assert_only_staging_asked(server: &TestServer) {
    let mut paths: Vec<String> = server
        .requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| p != "/robots.txt")
        .collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths, ["/gone", "/page.html"]);
}

#[test]
fn remapped_links_are_checked_on_the_staging_server() {
    for threads in ["1", "8"] {
        let (server, dir) = setup(&format!("remap-csv-{threads}"));
        let rule = rule(&server);
        let out = csv_run_in(
            &dir,
            &["--threads", threads, "--remap", &rule, "index.html"],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        let page = row_named(&rows, &format!("{PRODUCTION}/page.html#top"));
        assert_eq!(
            &page[7],
            format!("{PRODUCTION}/page.html#top"),
            "url: as written"
        );
        assert_eq!(&page[3], "200 OK");
        assert_eq!(
            &page[5],
            format!("remapped to {}#top", server.url("/page.html"))
        );
        let gone = row_named(&rows, &format!("{PRODUCTION}/gone"));
        assert_eq!(&gone[3], "Error: 404 Not Found");
        assert_eq!(&gone[5], format!("remapped to {}", server.url("/gone")));
        assert_only_staging_asked(&server);
    }
}

#[test]
fn json_and_text_show_both_urls() {
    let (server, dir) = setup("remap-json");
    let rule = rule(&server);
    let index = dir.join("index.html");
    let index = index.to_str().unwrap();
    let out = cli(&["--no-status", "-o", "json", "--remap", &rule, index]);
    assert_exit(&out, 1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let gone = doc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["urlname"] == format!("{PRODUCTION}/gone"))
        .unwrap();
    assert_eq!(gone["url"], server.url("/gone"));
    assert_eq!(gone["remapped_from"], format!("{PRODUCTION}/gone"));

    let out = cli(&["--no-status", "--remap", &rule, index]);
    let text = String::from_utf8(out.stdout).unwrap();
    let shown = format!(
        "  2:1 `{PRODUCTION}/gone'\n      Info {PRODUCTION}/gone remapped to {}\n      Error: 404 Not Found\n",
        server.url("/gone")
    );
    assert!(text.contains(&shown), "{text}");
}

#[test]
fn the_config_file_key_and_bad_rules() {
    let (server, dir) = setup("remap-config");
    let config = dir.join("remap.toml");
    std::fs::write(&config, format!("remap = [{:?}]\n", rule(&server))).unwrap();
    let out = crate::support::util::hermetic(&dir)
        .current_dir(&dir)
        .args(["--no-status", "-c", config.to_str().unwrap(), "index.html"])
        .output()
        .unwrap();
    assert_exit(&out, 1);
    assert_only_staging_asked(&server);

    let out = cli(&["--remap", "no-space-here", "x.html"]);
    assert_one_line_error(&out, &["--remap", "REGEX REPLACEMENT"]);
    let out = cli(&["--remap", "( http://127.0.0.1:1/", "x.html"]);
    assert_one_line_error(&out, &["--remap", "not a valid regex"]);
}

#[test]
fn embedders_remap_with_config() {
    let (server, dir) = setup("remap-library");
    let rule = Remap::new(
        Regex::new(r"^https://production\.test/(.*)$").unwrap(),
        server.url("/$1"),
    );
    let index = Path::new(&dir).join("index.html");
    let report = run(Config::new()
        .input_path(&index)
        .threads(4)
        .proxy_from_env(false)
        .remap(rule));
    let gone = report
        .entries
        .iter()
        .find(|e| e.result.url == server.url("/gone"))
        .unwrap();
    let from = gone.referrer.as_ref().unwrap().remapped_from.as_deref();
    assert_eq!(from, Some("https://production.test/gone"));
    assert!(gone.result.outcome.is_broken());
    assert_only_staging_asked(&server);
}
