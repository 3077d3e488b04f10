//! GitHub, served on loopback through `--remap`: a `github.com` file view's line anchors
//! (`#L10`, `#L10-L20`) and its rendered headings' `user-content-` ids count as anchors, on
//! pages whose link names `github.com` (a remapped mirror of the same pages gets no such
//! rules); `--github-token` goes to requests for `github.com` and `api.github.com` only, and
//! never shows in a report.

use linkpatrol::report::Format;
use std::collections::BTreeSet;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, cli, linkpatrol, rows};

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

const TOKEN: &str = "ghp_s3cretTokenForTests";

/// GitHub's two hosts on one loopback server (`/api/` for api.github.com), a redirect off
/// GitHub to `elsewhere`, and a page whose links go to both and to another remapped host.
struct TokenSites {
    github: TestServer,
    elsewhere: TestServer,
    start: TestServer,
}

fn token_sites() -> TokenSites {
    let elsewhere = TestServer::start_on(
        "127.0.0.2",
        Routes::new()
            .page("/landing", "landing")
            .page("/x", "not GitHub"),
    );
    let github = TestServer::start(
        Routes::new()
            .page("/o/r", "<title>repo</title>")
            .page("/api/repos/o/r", "{}")
            .reply(
                "/o/r/releases/download/v1/a.tgz",
                Reply::redirect(302, &elsewhere.url("/landing")),
            ),
    );
    let page = "<a href='https://github.com/o/r'>repo</a>\
        <a href='https://api.github.com/repos/o/r'>api</a>\
        <a href='https://github.com/o/r/releases/download/v1/a.tgz'>asset</a>\
        <a href='https://example.org/x'>x</a>";
    let start = TestServer::start(Routes::new().page("/", page));
    TokenSites {
        github,
        elsewhere,
        start,
    }
}

impl TokenSites {
    /// The remap rules: GitHub's hosts to the GitHub server, example.org to the other one.
    fn remaps(&self) -> Vec<String> {
        vec![
            "--remap".into(),
            remap_rule("github.com", &self.github),
            "--remap".into(),
            format!("^https://api\\.github\\.com/ {}", self.github.url("/api/")),
            "--remap".into(),
            remap_rule("example.org", &self.elsewhere),
        ]
    }

    /// Each server's requests (path, Authorization header), robots.txt left out.
    fn seen(&self, server: &TestServer) -> BTreeSet<(String, Option<String>)> {
        server
            .requests()
            .into_iter()
            .filter(|r| r.path != "/robots.txt")
            .map(|r| {
                let auth = r.header("authorization").map(str::to_owned);
                (r.path, auth)
            })
            .collect()
    }

    fn assert_token_went_to_github_only(&self, what: &str) {
        let bearer = Some(format!("Bearer {TOKEN}"));
        assert_eq!(
            self.seen(&self.github),
            BTreeSet::from([
                ("/o/r".to_owned(), bearer.clone()),
                ("/api/repos/o/r".to_owned(), bearer.clone()),
                ("/o/r/releases/download/v1/a.tgz".to_owned(), bearer),
            ]),
            "{what}"
        );
        assert_eq!(
            self.seen(&self.elsewhere),
            BTreeSet::from([("/landing".to_owned(), None), ("/x".to_owned(), None)]),
            "{what}: not after a redirect off GitHub, not to another remapped host"
        );
        for server in [&self.github, &self.elsewhere, &self.start] {
            for r in server.requests() {
                if r.path == "/robots.txt" || server.addr() == self.start.addr() {
                    assert_eq!(r.header("authorization"), None, "{what}: {}", r.path);
                }
            }
        }
    }

    fn clear(&self) {
        for server in [&self.github, &self.elsewhere, &self.start] {
            server.clear_requests();
        }
    }
}

/// The token goes to what was linked as github.com or api.github.com, on 1 and 8 threads, from
/// the flag or from GITHUB_TOKEN; never to another host, not after a redirect off GitHub, and
/// it shows in no report format (verbose), no message and no state file.
#[test]
fn the_github_token_goes_to_github_only_and_is_never_shown() {
    let sites = token_sites();
    let dir = TempDir::new("github-token");
    for threads in ["1", "8"] {
        for format in Format::ALL
            .iter()
            .filter(|f| f.shows_reasons())
            .map(|f| f.name())
        {
            sites.clear();
            // A state file of its own: each run asks the servers.
            let state = dir.join(format!("state-{threads}-{format}.sqlite"));
            let out = linkpatrol()
                .args(["--no-status", "--max-requests-per-second", "0", "-v"])
                .args(["-t", threads, "-o", format, "--github-token", TOKEN])
                .args(["--cache", "--cache-file", state.to_str().unwrap()])
                .args(sites.remaps())
                .arg(sites.start.url("/"))
                .output()
                .unwrap();
            let what = format!("-t {threads} -o {format}");
            assert_eq!(out.status.code(), Some(0), "{what}: {out:?}");
            for stream in [&out.stdout, &out.stderr] {
                let text = String::from_utf8_lossy(stream);
                assert!(!text.contains("s3cret"), "{what}: {text}");
            }
            sites.assert_token_went_to_github_only(&what);
        }
    }
    for file in std::fs::read_dir(&*dir).unwrap() {
        let path = file.unwrap().path();
        let saved = std::fs::read(&path).unwrap();
        assert!(
            !String::from_utf8_lossy(&saved).contains("s3cret"),
            "{}",
            path.display()
        );
    }
    // From GitHub's usual variable.
    sites.clear();
    let out = linkpatrol()
        .args(["--no-status", "--max-requests-per-second", "0", "-t", "4"])
        .args(sites.remaps())
        .arg(sites.start.url("/"))
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    sites.assert_token_went_to_github_only("GITHUB_TOKEN");
    // Without a token, nothing is sent.
    sites.clear();
    let out = linkpatrol()
        .args(["--no-status", "--max-requests-per-second", "0"])
        .args(sites.remaps())
        .arg(sites.start.url("/"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        sites
            .github
            .requests()
            .iter()
            .all(|r| r.header("authorization").is_none())
    );
}

/// Where a token could be echoed: `--help` with the variable set, `--print-config`, and the
/// error for a token that is not one header value.
#[test]
fn the_github_token_is_not_echoed_by_help_print_config_or_errors() {
    let help = linkpatrol()
        .arg("--help")
        .env("LINKPATROL_GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("--github-token"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
    let printed = linkpatrol()
        .args(["--print-config", "--github-token", TOKEN])
        .output()
        .unwrap();
    assert_eq!(printed.status.code(), Some(0));
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(!text.contains("s3cret"), "{text}");
    let bad = linkpatrol()
        .args([
            "--github-token",
            "ghp_s3cret with space",
            "http://127.0.0.1:9/",
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    let text = String::from_utf8_lossy(&bad.stderr);
    assert!(text.contains("--github-token"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
}
