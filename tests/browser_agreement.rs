//! Where a browser and linkpatrol could disagree: a page sent without a usable Content-Type is
//! sniffed as a browser sniffs it (an explicit type is kept), and a host whose HEAD says 200
//! where GET says 404 is asked with GET under a per-host rule, other hosts still with HEAD.

use std::collections::BTreeSet;

use linkpatrol::{HostRule, Outcome};
use regex::Regex;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, broken, cli_in, config, entry, run};

const THREADS: [usize; 2] = [1, 8];

/// A page whose body says `<a href='/gone-NAME'>`.
fn page_linking(name: &str) -> Vec<u8> {
    format!("\n  <!DOCTYPE html>\n<title>{name}</title><a href='/gone-{name}'>x</a>\n").into_bytes()
}

#[test]
fn html_without_a_content_type_is_read_for_links_and_an_explicit_type_is_kept() {
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='/untyped'>u</a><a href='/unknown'>k</a><a href='/bare-tag'>b</a>\
                 <a href='/plain'>p</a><a href='/download'>d</a><a href='/nosniff'>n</a>\
                 <a href='/words'>w</a>",
            )
            // No Content-Type at all, and the standard's "unknown" ones: sniffed.
            .reply("/untyped", Reply::status(200).body(page_linking("untyped")))
            .reply(
                "/unknown",
                Reply::status(200)
                    .content_type("unknown/unknown")
                    .body(page_linking("unknown")),
            )
            .reply(
                "/bare-tag",
                Reply::status(200).body("<a href='/gone-bare-tag'>first thing</a>"),
            )
            // Explicit types: text is shown as text, octet-stream is a download.
            .reply(
                "/plain",
                Reply::status(200)
                    .content_type("text/plain")
                    .body(page_linking("plain")),
            )
            .reply(
                "/download",
                Reply::status(200)
                    .content_type("application/octet-stream")
                    .body(page_linking("download")),
            )
            // The server forbids sniffing; and text that is no HTML.
            .reply(
                "/nosniff",
                Reply::status(200)
                    .header("X-Content-Type-Options", "nosniff")
                    .body(page_linking("nosniff")),
            )
            .reply(
                "/words",
                Reply::status(200).body("see <a href='/gone-words'>here</a>"),
            ),
    );
    for threads in THREADS {
        server.clear_requests();
        let report = run(config(&server.url("/"), threads));
        let want: BTreeSet<String> = ["untyped", "unknown", "bare-tag"]
            .iter()
            .map(|n| server.url(&format!("/gone-{n}")))
            .collect();
        assert_eq!(broken(&report), want, "-t {threads}");
        for n in ["plain", "download", "nosniff", "words"] {
            assert_eq!(
                server.count(&format!("/gone-{n}")),
                0,
                "{n} is not read, -t {threads}"
            );
            assert_eq!(server.count(&format!("/{n}")), 1, "{n}, -t {threads}");
        }
        let untyped = &entry(&report, &server.url("/untyped")).result;
        assert_eq!(untyped.content_type.as_deref(), Some("text/html"));
        assert!(
            untyped
                .infos
                .iter()
                .any(|i| i.contains("Content-Type") && i.contains("sniff")),
            "{:?}",
            untyped.infos
        );
        let plain = &entry(&report, &server.url("/plain")).result;
        assert_eq!(plain.outcome, Outcome::Ok { status: Some(200) });
        assert!(plain.infos.iter().all(|i| !i.contains("sniff")));
    }
}

/// A host that answers HEAD 200 and GET 404 for its dead pages, with the same paths on an
/// honest host beside it.
fn lying_and_honest() -> (TestServer, TestServer) {
    let routes = || {
        Routes::new().dynamic(|req| match (req.method.as_str(), req.path.as_str()) {
            ("HEAD", "/stale") => Some(Reply::html("a stale copy")),
            (_, "/stale") => Some(Reply::not_found()),
            (_, "/ok") => Some(Reply::html("ok")),
            _ => None,
        })
    };
    (
        TestServer::start_on("127.0.0.2", routes()),
        TestServer::start_on("127.0.0.3", routes()),
    )
}

#[test]
fn a_host_whose_head_lies_is_asked_with_get_under_its_rule_and_no_other_host_is() {
    let (liar, honest) = lying_and_honest();
    let links: String = [&liar, &honest]
        .iter()
        .flat_map(|s| [s.url("/stale"), s.url("/ok")])
        .map(|u| format!("<a href='{u}'>x</a>"))
        .collect();
    let site = TestServer::start(Routes::new().page("/", &links));
    let rule = HostRule::new(Regex::new("^127\\.0\\.0\\.2:").unwrap()).always_get(true);
    for threads in THREADS {
        for server in [&liar, &honest] {
            server.clear_requests();
        }
        // Without the rule: HEAD's 200 passes the dead page.
        let report = run(config(&site.url("/"), threads));
        assert!(broken(&report).is_empty(), "-t {threads}");
        // With it: GET on the liar only.
        for server in [&liar, &honest] {
            server.clear_requests();
        }
        let report = run(config(&site.url("/"), threads).host_rule(rule.clone()));
        assert_eq!(
            broken(&report).into_iter().collect::<Vec<_>>(),
            [liar.url("/stale")],
            "-t {threads}"
        );
        for p in ["/stale", "/ok"] {
            assert_eq!(liar.count_method("HEAD", p), 0, "{p} -t {threads}");
            assert_eq!(liar.count_method("GET", p), 1, "{p} -t {threads}");
            assert_eq!(honest.count_method("HEAD", p), 1, "{p} -t {threads}");
            assert_eq!(honest.count_method("GET", p), 0, "{p} -t {threads}");
        }
    }
}

/// The rule through the command line's front doors: `[[hosts]] method` in the config file and
/// `--host-method`, both printed back by `--print-config`; a bad method is one line, exit 2.
#[test]
fn the_per_host_method_is_a_hosts_key_and_a_flag() {
    let (liar, honest) = lying_and_honest();
    let links: String = [&liar, &honest]
        .iter()
        .map(|s| format!("<a href='{}'>x</a>", s.url("/stale")))
        .collect();
    let site = TestServer::start(Routes::new().page("/", &links));
    let dir = TempDir::new("host-method");
    let config = dir.join("linkpatrol.toml");
    std::fs::write(
        &config,
        "[[hosts]]\npattern = '^127\\.0\\.0\\.2:'\nmethod = 'get'\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let from_file = ["-c", config];
    let from_flag = ["--host-method", r"^127\.0\.0\.2:=get"];
    for (how, args) in [("file", &from_file), ("flag", &from_flag)] {
        for threads in ["1", "8"] {
            let mut all = vec!["-o", "csv", "-t", threads];
            all.extend(args.iter());
            let url = site.url("/");
            all.push(&url);
            let out = cli_in(&dir, &[], &all);
            let csv = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(1), "{how} -t {threads}: {csv}");
            assert!(csv.contains(&liar.url("/stale")), "{how}: {csv}");
            assert!(!csv.contains(&honest.url("/stale")), "{how}: {csv}");
        }
    }
    let printed = |args: &[&str]| {
        let mut all = args.to_vec();
        all.push("--print-config");
        String::from_utf8_lossy(&cli_in(&dir, &[], &all).stdout).into_owned()
    };
    assert!(printed(&from_file).contains("[[hosts]]\nmethod = \"get\"\n"));
    assert!(printed(&from_flag).contains(r"host-method = ['^127\.0\.0\.2:=get']"));
    std::fs::write(
        dir.join("bad.toml"),
        "[[hosts]]\npattern = 'x'\nmethod = 'post'\n",
    )
    .unwrap();
    let out = cli_in(&dir, &[], &["-c", "bad.toml", "http://127.0.0.1:9/"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("method") && err.contains("post") && err.lines().count() == 1,
        "{err}"
    );
}
