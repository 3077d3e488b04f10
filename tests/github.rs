//! GitHub, served on loopback through `--remap`: a `github.com` file view's line anchors
//! (`#L10`, `#L10-L20`) and its rendered headings' `user-content-` ids count as anchors, on
//! pages whose link names `github.com` (a remapped mirror of the same pages gets no such
//! rules); `--github-token` goes to requests for `github.com` and `api.github.com` only, and
//! never shows in a report.

use std::collections::BTreeSet;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{CSV_FLAGS, cli, rows};

/// A README as GitHub renders it: the heading's id carries `user-content-`.
const README: &str = "<html><head><title>r/README.md at main</title></head><body>\
    <article class='markdown-body'><div class='markdown-heading'><h2 class='heading-element'>\
    Install</h2><a id='user-content-install' class='anchor' href='#install'></a></div>\
    <p>text</p></article><div id='repo-content'></div></body></html>";

/// GitHub-shaped pages: a file view, a folder view, a file that is gone.
fn github_like() -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/o/r/blob/main/README.md", README)
            .page("/o/r/tree/main", "<html><body>files</body></html>")
            .reply("/o/r/blob/main/gone.rs", Reply::not_found()),
    )
}

/// The `--remap` rule that sends `https://HOST/` to `server`.
fn remap_rule(host: &str, server: &TestServer) -> String {
    format!("^https://{}/ {}", host.replace('.', r"\."), server.url("/"))
}

#[test]
fn github_line_anchors_and_user_content_headings_are_found() {
    let gh = github_like();
    let links = [
        "https://github.com/o/r/blob/main/README.md#L10",
        "https://github.com/o/r/blob/main/README.md#L10-L20",
        "https://github.com/o/r/blob/main/README.md#L3C2-L4C9",
        "https://github.com/o/r/blob/main/README.md#install",
        "https://github.com/o/r/blob/main/README.md#Install",
        "https://github.com/o/r/blob/main/README.md#repo-content",
        "https://github.com/o/r/blob/main/README.md#usage",
        "https://github.com/o/r/blob/main/README.md#L10-20",
        "https://github.com/o/r/tree/main#L10",
        "https://github.com/o/r/blob/main/gone.rs#L3",
        // The same pages under another name: plain HTML rules.
        "https://mirror.example/o/r/blob/main/README.md#L10",
        "https://mirror.example/o/r/blob/main/README.md#install",
    ];
    let page: String = links
        .iter()
        .map(|l| format!("<a href='{l}'>x</a>\n"))
        .collect();
    let start = TestServer::start(Routes::new().page("/", &page));
    for threads in ["1", "8"] {
        let out = cli(&[
            &CSV_FLAGS[..],
            &["-t", threads, "--plugin", "anchors:severity=warning"],
            &["--remap", &remap_rule("github.com", &gh)],
            &["--remap", &remap_rule("mirror.example", &gh)],
            &[&start.url("/")],
        ]
        .concat());
        let rows = rows(&out);
        let warned: BTreeSet<&str> = rows
            .iter()
            .filter(|r| r[4].contains("[anchor-not-found]"))
            .map(|r| r.get(0).unwrap())
            .collect();
        assert_eq!(
            warned,
            BTreeSet::from([
                "https://github.com/o/r/blob/main/README.md#usage",
                "https://github.com/o/r/blob/main/README.md#L10-20",
                "https://github.com/o/r/tree/main#L10",
                "https://mirror.example/o/r/blob/main/README.md#L10",
                "https://mirror.example/o/r/blob/main/README.md#install",
            ]),
            "threads={threads}: {rows:#?}"
        );
        let broken: Vec<&str> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| r.get(0).unwrap())
            .collect();
        assert_eq!(
            broken,
            ["https://github.com/o/r/blob/main/gone.rs#L3"],
            "a line of a missing file is broken with it"
        );
        assert_eq!(out.status.code(), Some(1));
    }
}
