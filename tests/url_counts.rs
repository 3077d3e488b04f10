//! One "URLs checked" (the distinct URLs the rows name): a single run, a run interrupted by
//! Ctrl-C and resumed from its state file, and two shards merged count the same on the same
//! site, redirect hops no link names included.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Output, Stdio};

use linkpatrol::Shard;
use serde_json::Value;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli, eventually, hermetic, linkpatrol, signal};

/// A start site on `start_ip` and an external host on another address: duplicate links, a
/// fragment, internal and external redirects to URLs no link names, a redirect to a URL also
/// linked, broken links. With `hold`, `/slow.html` hangs the first time (until the server
/// stops), so that a run can be interrupted while it waits.
fn site(start_ip: &str, ext_ip: &str, hold: bool) -> (TestServer, TestServer) {
    let ext = TestServer::start_on(
        ext_ip,
        Routes::new()
            .page("/ok.html", "<p>ok</p>")
            .page("/elsewhere.html", "<p>elsewhere</p>")
            .reply("/moved", Reply::redirect(301, "/elsewhere.html"))
            .reply("/to-ok", Reply::redirect(302, "/ok.html")),
    );
    let slow = Reply::html("<a href='/a.html'>a</a> <a href='/b.html'>b</a>");
    let slow_replies = if hold {
        vec![Reply::hang(), slow]
    } else {
        vec![slow]
    };
    let home = format!(
        "<a href='/a.html'>a</a> <a href='/a.html#top'>a top</a> <a href='/dir'>dir</a> \
         <a href='/r'>r</a> <a href='/slow.html'>slow</a> <a href='{}'>moved</a> \
         <a href='{}'>to ok</a> <a href='{}'>gone</a>",
        ext.url("/moved"),
        ext.url("/to-ok"),
        ext.url("/gone"),
    );
    let start = TestServer::start_on(
        start_ip,
        Routes::new()
            .page("/", &home)
            .page(
                "/a.html",
                &format!("<p id='top'>a</p><a href='{}'>ok</a>", ext.url("/ok.html")),
            )
            .reply("/dir", Reply::redirect(301, "/dir/"))
            .page("/dir/", "<a href='/a.html'>a</a> <a href='/missing'>m</a>")
            .reply("/r", Reply::redirect(302, "/target.html"))
            .page("/target.html", "<a href='/a.html'>a</a>")
            .page("/b.html", "<a href='/target.html'>a hop, linked</a>")
            .sequence("/slow.html", slow_replies),
    );
    (start, ext)
}

/// Two addresses from `from` on whose hosts two shards own one each.
fn two_owners(from: u8) -> (String, String) {
    let ip = |i: u8| format!("127.0.0.{i}");
    let owner = |i: u8| Shard::owner_of_host(&ip(i), 2);
    let other = (from + 1..from + 40)
        .find(|&i| owner(i) != owner(from))
        .expect("an address owned by the other shard");
    (ip(from), ip(other))
}

/// The `urls` of a JSON report's summary, and the distinct URLs of its entries.
fn counts(out: &Output) -> (u64, usize) {
    let json: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let urls: BTreeSet<&str> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["url"].as_str().unwrap())
        .collect();
    (json["summary"]["urls"].as_u64().unwrap(), urls.len())
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

const FAST: [&str; 4] = ["--no-status", "--max-requests-per-second", "0", "-v"];

#[test]
fn a_single_run_a_resumed_run_and_merged_shards_count_the_same_urls() {
    for threads in ["1", "4"] {
        let dir = TempDir::new(&format!("url-counts-{threads}"));
        let (start_ip, ext_ip) = two_owners(50);
        let (start, _ext) = site(&start_ip, &ext_ip, false);
        let home = start.url("/");
        let base = |extra: &[&str]| {
            let mut args: Vec<String> = FAST.iter().map(|s| s.to_string()).collect();
            args.extend(["-t", threads].map(String::from));
            args.extend(extra.iter().map(|s| s.to_string()));
            args
        };
        let run = |args: Vec<String>| cli(&args.iter().map(String::as_str).collect::<Vec<_>>());

        let single = run(base(&["-o", "json", &home]));
        assert_exit(&single, 1);
        let (single_urls, single_rows) = counts(&single);
        // /, a.html, dir, r, slow.html, missing, b.html, target.html (a hop of /r, and linked
        // from b.html) and four external URLs (moved, to-ok, gone, ok.html): the redirect
        // targets /dir/ and the external elsewhere.html are hops of their rows, not URLs of
        // their own.
        assert_eq!((single_urls, single_rows), (12, 12), "{threads} threads");
        // Without -v only problems are rows; the count is the same (every URL's first row is
        // counted, shown or not; also target.html's, first finished as a hop without a row).
        let mut quiet: Vec<String> = base(&["-o", "json", &home]);
        quiet.retain(|a| a != "-v");
        let quiet = run(quiet);
        let json: Value = serde_json::from_slice(&quiet.stdout).unwrap();
        assert_eq!(json["summary"]["urls"], single_urls, "without -v");

        // Two shards in two phases, merged.
        let file = |name: &str| path(&dir.join(name));
        for i in 0..2 {
            let shard = format!("{i}/2");
            let p1 = format!("ndjson/{}", file(&format!("phase1-{i}.ndjson")));
            let out = run(base(&[
                "--shard",
                &shard,
                "-q",
                "--export-external",
                &file(&format!("export-{i}.ndjson")),
                "-F",
                &p1,
                &home,
            ]));
            assert!(out.status.code().unwrap() <= 1, "{out:?}");
        }
        for i in 0..2 {
            let shard = format!("{i}/2");
            let p2 = format!("ndjson/{}", file(&format!("phase2-{i}.ndjson")));
            let out = run(base(&[
                "--shard",
                &shard,
                "-q",
                "--external-from",
                &file("export-0.ndjson"),
                "--external-from",
                &file("export-1.ndjson"),
                "--reuse-results",
                &file(&format!("phase1-{i}.ndjson")),
                "-F",
                &p2,
            ]));
            assert!(out.status.code().unwrap() <= 1, "{out:?}");
        }
        let merged = hermetic(&dir.join("home"))
            .args([
                "merge",
                "-o",
                "json",
                "-v",
                &file("phase1-0.ndjson"),
                &file("phase1-1.ndjson"),
                &file("phase2-0.ndjson"),
                &file("phase2-1.ndjson"),
            ])
            .output()
            .unwrap();
        assert_exit(&merged, 1);
        assert_eq!(counts(&merged), (single_urls, single_rows), "merged shards");

        // Interrupted by Ctrl-C while /slow.html hangs, then resumed from the state file.
        let (start_ip, ext_ip) = two_owners(100);
        let (held, _held_ext) = site(&start_ip, &ext_ip, true);
        let state = file("state.sqlite");
        let mut args = base(&["-q", "--abort-timeout", "0.2", "--cache-file", &state]);
        args.push(held.url("/"));
        let child = linkpatrol()
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        eventually("the request that hangs", || held.count("/slow.html") == 1);
        signal(&child, "-INT");
        assert_eq!(child.wait_with_output().unwrap().status.code(), Some(130));
        let resumed = run(base(&[
            "-o",
            "json",
            "--cache-file",
            &state,
            "--resume",
            &held.url("/"),
        ]));
        assert_exit(&resumed, 1);
        assert_eq!(counts(&resumed), (single_urls, single_rows), "resumed run");
    }
}
