//! The machine-readable reports (json, ndjson, junit, sarif, sitemap, failures, dot, gml): every
//! format from one run of the binary, read back with real parsers, compared with golden files,
//! the same with 1 and 16 threads; verbosity; and complete files after a Ctrl-C.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use linkpatrol::Checker;
use linkpatrol::report::{Fanout, Format, ReportOptions, Reporter, Verbosity, reporter_for};
use regex::Regex;
use serde_json::Value;

use crate::support::report_check::{
    assert_golden, assert_valid_sarif, is_valid_sarif, normalize_json, parse_dot, parse_gml,
    placeholders, sort_entries,
};
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli, config, linkpatrol, signal};

/// The formats this module covers, with the file each is written to.
const FORMATS: [(&str, &str); 8] = [
    ("json", "out.json"),
    ("ndjson", "out.ndjson"),
    ("junit", "out.junit.xml"),
    ("sarif", "out.sarif"),
    ("sitemap", "out.sitemap.xml"),
    ("failures", "failures.txt"),
    ("dot", "out.dot"),
    ("gml", "out.gml"),
];

/// The external host (127.0.0.2): one page, checked but not crawled.
fn external() -> TestServer {
    TestServer::start_on("127.0.0.2", Routes::new().page("/ext", "external"))
}

/// A small fixed site. Every URL is found at one depth only (a page's links are all claimed
/// before the next level can reach them), so levels and verdicts do not depend on timing.
fn site(ext: &TestServer) -> TestServer {
    let home = format!(
        "<!doctype html><title>Home</title>\n\
         <a href=\"/missing\">gone</a>\n\
         <a href=\"/old\">moved</a>\n\
         <a href=\"mailto:someone@example.org\">mail</a>\n\
         <a href=\"javascript:void(0)\">script</a>\n\
         <a href=\"{}\">elsewhere</a>\n\
         <a href=\"/a.html\">A &amp; \"B\" &lt;café&gt;</a>\n",
        ext.url("/ext")
    );
    TestServer::start(
        Routes::new()
            .page("/", &home)
            .reply("/old", Reply::redirect(301, "/new.html"))
            .page("/new.html", "<a href=\"/\">home</a>")
            .reply(
                "/a.html",
                Reply::html(
                    "<a href=\"/\">home</a>\n<a href=\"/missing\">gone again</a>\n\
                     <a href=\"b.html#sec\">B</a>\n",
                )
                .header("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"),
            )
            .page(
                "/b.html",
                "<h2 id=\"sec\">Section</h2>\n<a href=\"/a.html\">back</a>\n\
                 <a href='/search?q=a&amp;b=\"c\"'>search \"this\"</a>\n",
            ),
    )
}

/// Runs the binary with every format as `-F` into `dir`, plus `extra` flags; returns the exit
/// code and stderr.
fn run_all_formats(dir: &Path, extra: &[&str], url: &str) -> (Option<i32>, String) {
    let mut args: Vec<String> = ["--max-requests-per-second", "0", "-q"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
    for (format, file) in FORMATS {
        args.push("-F".into());
        args.push(format!("{format}/{}", dir.join(file).display()));
    }
    args.push(url.into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = cli(&args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Pretty JSON with a trailing newline, for golden files.
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

fn attr_u(node: roxmltree::Node<'_, '_>, name: &str) -> usize {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> has no {name}", node.tag_name().name()))
        .parse()
        .unwrap()
}

/// Checks the JUnit document's counts against its elements; returns (tests, failures, skipped).
fn check_junit(text: &str) -> (usize, usize, usize) {
    let doc = roxmltree::Document::parse(text).expect("JUnit is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let mut totals = (0, 0, 0);
    for suite in root.children().filter(|n| n.is_element()) {
        assert_eq!(suite.tag_name().name(), "testsuite");
        assert!(suite.attribute("name").is_some_and(|n| !n.is_empty()));
        let cases: Vec<_> = suite.children().filter(|n| n.is_element()).collect();
        let has =
            |c: &roxmltree::Node<'_, '_>, tag: &str| c.children().any(|n| n.has_tag_name(tag));
        let failures = cases.iter().filter(|c| has(c, "failure")).count();
        let skipped = cases.iter().filter(|c| has(c, "skipped")).count();
        assert!(cases.iter().all(|c| c.has_tag_name("testcase")
            && c.attribute("classname") == suite.attribute("name")
            && c.attribute("time").is_some()));
        assert_eq!(attr_u(suite, "tests"), cases.len());
        assert_eq!(attr_u(suite, "failures"), failures);
        assert_eq!(attr_u(suite, "skipped"), skipped);
        assert_eq!(attr_u(suite, "errors"), 0);
        totals.0 += cases.len();
        totals.1 += failures;
        totals.2 += skipped;
    }
    assert_eq!(
        (
            attr_u(root, "tests"),
            attr_u(root, "failures"),
            attr_u(root, "skipped")
        ),
        totals
    );
    totals
}

/// The `<loc>` (and `<lastmod>`) of every sitemap URL, checking the namespace and structure.
fn sitemap_urls(text: &str) -> Vec<(String, Option<String>)> {
    const NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
    let doc = roxmltree::Document::parse(text).expect("the sitemap is well-formed XML");
    let root = doc.root_element();
    assert!(root.has_tag_name((NS, "urlset")), "{text}");
    root.children()
        .filter(|n| n.is_element())
        .map(|url| {
            assert!(url.has_tag_name((NS, "url")));
            let child = |name| url.children().find(|n| n.has_tag_name((NS, name)));
            let loc = child("loc")
                .and_then(|n| n.text())
                .expect("<loc>")
                .to_owned();
            (
                loc,
                child("lastmod").and_then(|n| n.text()).map(str::to_owned),
            )
        })
        .collect()
}

/// One finished run of the binary on the fixed site, with every format written to `dir`.
struct GoldenRun {
    site: TestServer,
    /// The servers' `IP:PORT` and the placeholder each becomes in golden files.
    hosts: Vec<(String, &'static str)>,
    dir: TempDir,
    /// Kept so the external server lives as long as the run is inspected.
    _ext: TestServer,
}

impl GoldenRun {
    fn start(threads: &str) -> GoldenRun {
        let ext = external();
        let site = site(&ext);
        let hosts = vec![
            (site.addr().to_string(), "SITE"),
            (ext.addr().to_string(), "EXT"),
        ];
        let dir = TempDir::new(&format!("reports-golden-{threads}"));
        let (code, stderr) = run_all_formats(&dir, &["-v", "-t", threads], &site.url("/"));
        assert_eq!(code, Some(1), "broken links found: {stderr}");
        GoldenRun {
            site,
            hosts,
            dir,
            _ext: ext,
        }
    }

    fn url(&self, path: &str) -> String {
        self.site.url(path)
    }

    fn raw(&self, file: &str) -> String {
        read(&self.dir, file)
    }

    /// The file with the servers' addresses replaced by placeholders.
    fn stable(&self, file: &str) -> String {
        let hosts: Vec<(&str, &str)> = self.hosts.iter().map(|(a, b)| (a.as_str(), *b)).collect();
        placeholders(&self.raw(file), &hosts)
    }

    /// json: one document with every entry (-v) and the summary.
    fn check_json(&self) {
        let json: Value = serde_json::from_str(&self.raw("out.json")).expect("JSON");
        let summary = &json["summary"];
        assert_eq!(json["entries"].as_array().unwrap().len(), 13);
        assert_eq!(
            (&summary["links"], &summary["errors"], &summary["warnings"]),
            (&13.into(), &3.into(), &1.into())
        );
        assert_eq!(summary["interrupted"], false);
        let entries = json["entries"].as_array().unwrap();
        let find = |path: &str| {
            let url = self.url(path);
            entries.iter().find(|e| e["url"] == url.as_str()).unwrap()
        };
        let missing = find("/missing");
        let want: [Value; 4] = [
            404.into(),
            "http-error".into(),
            "broken".into(),
            false.into(),
        ];
        let got = ["status", "failure", "state", "valid"].map(|k| missing[k].clone());
        assert_eq!(got, want);
        let old = find("/old");
        assert_eq!(old["real_url"], self.url("/new.html").as_str());
        assert_eq!(old["redirects"][0]["status"], 301);
        assert_eq!(old["warnings"][0]["tag"], "http-redirected");
        let b = find("/b.html");
        assert_eq!(
            (&b["fragment"], &b["urlname"]),
            (&"sec".into(), &"b.html#sec".into())
        );
        let mut golden: Value = serde_json::from_str(&self.stable("out.json")).unwrap();
        normalize_json(&mut golden);
        sort_entries(golden["entries"].as_array_mut().unwrap());
        assert_golden("golden.json", &pretty(&golden));
    }

    /// ndjson: every line an object, the entries then one summary line.
    fn check_ndjson(&self) {
        let mut lines: Vec<Value> = self
            .stable("out.ndjson")
            .lines()
            .map(|l| serde_json::from_str(l).expect("each NDJSON line is JSON"))
            .collect();
        let (last, entries) = lines.split_last().unwrap();
        assert_eq!(
            (&last["type"], &last["links"]),
            (&"summary".into(), &13.into())
        );
        assert_eq!(entries.len(), 13);
        assert!(entries.iter().all(|l| l["type"] == "entry"));
        lines.iter_mut().for_each(normalize_json);
        sort_entries(&mut lines[..13]);
        let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
        assert_golden("golden.ndjson", &text);
    }

    /// junit: counts agree with the elements; 3 broken occurrences, 1 skipped (javascript:).
    fn check_junit(&self) {
        assert_eq!(check_junit(&self.raw("out.junit.xml")), (13, 3, 1));
        let times = Regex::new(r#" time="[0-9.]+""#).unwrap();
        let text = self.stable("out.junit.xml");
        assert_golden(
            "golden.junit.xml",
            &times.replace_all(&text, r#" time="T""#),
        );
    }

    /// sarif: valid against the official schema; 3 errors and 1 warning where they occur.
    fn check_sarif(&self) {
        let sarif: Value = serde_json::from_str(&self.raw("out.sarif")).unwrap();
        assert_valid_sarif(&sarif);
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        let count = |level: &str| results.iter().filter(|r| r["level"] == level).count();
        assert_eq!((count("error"), count("warning")), (3, 1));
        let search = results
            .iter()
            .find(|r| r["properties"]["urlname"] == "/search?q=a&b=\"c\"")
            .expect("the search link");
        let loc = &search["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], self.url("/b.html").as_str());
        assert_eq!(
            (&loc["region"]["startLine"], &loc["region"]["startColumn"]),
            (&3.into(), &1.into())
        );
        let mut golden: Value = serde_json::from_str(&self.stable("out.sarif")).unwrap();
        normalize_json(&mut golden);
        assert_golden("golden.sarif", &pretty(&golden));
    }

    /// sitemap: the good internal HTML pages, once each; /old is listed as /new.html.
    fn check_sitemap(&self) {
        let urls = sitemap_urls(&self.raw("out.sitemap.xml"));
        let locs: Vec<String> = urls.iter().map(|(u, _)| u.clone()).collect();
        let want: Vec<String> = ["/", "/a.html", "/b.html", "/new.html"]
            .iter()
            .map(|p| self.url(p))
            .collect();
        assert_eq!(locs, want);
        assert_eq!(urls[1].1.as_deref(), Some("1994-11-06T08:49:37+00:00"));
        assert_golden("golden.sitemap.xml", &self.stable("out.sitemap.xml"));
    }

    /// failures: each broken URL once.
    fn check_failures(&self) {
        let text = self.raw("failures.txt");
        let failures: BTreeSet<&str> = text.lines().collect();
        let want = [self.url("/missing"), self.url("/search?q=a&b=%22c%22")];
        assert_eq!(failures, want.iter().map(String::as_str).collect());
        assert_eq!(text.lines().count(), 2);
    }

    /// dot and gml: the same graph, a node per URL, an edge per page -> link or redirect.
    fn check_graphs(&self) {
        let dot = parse_dot(&self.raw("out.dot"));
        let gml = parse_gml(&self.raw("out.gml"));
        assert_eq!(dot.labels(), gml.labels());
        assert_eq!(dot.labelled_edges(), gml.labelled_edges());
        assert_eq!(dot.labels().len(), 10);
        let edges = dot.labelled_edges();
        assert!(edges.contains(&(self.url("/b.html"), self.url("/search?q=a&b=%22c%22"))));
        assert!(edges.contains(&(self.url("/old"), self.url("/new.html"))));
        assert_golden("golden.dot", &self.stable("out.dot"));
        assert_golden("golden.gml", &self.stable("out.gml"));
    }
}

#[test]
fn every_format_from_one_run_matches_its_golden_file() {
    for threads in ["1", "16"] {
        let run = GoldenRun::start(threads);
        run.check_json();
        run.check_ndjson();
        run.check_junit();
        run.check_sarif();
        run.check_sitemap();
        run.check_failures();
        run.check_graphs();
    }
}

#[test]
fn default_verbosity_limits_json_to_problems_but_not_junit() {
    let ext = external();
    let server = site(&ext);
    let dir = TempDir::new("reports-problems");
    let junit = dir.join("out.junit.xml");
    let out = cli(&[
        "--max-requests-per-second",
        "0",
        "-o",
        "json",
        "-F",
        &format!("junit/{}", junit.display()),
        &server.url("/"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let entries = json["entries"].as_array().unwrap();
    // the three broken occurrences and the redirect warning
    assert_eq!(entries.len(), 4, "{json:#}");
    assert!(
        entries
            .iter()
            .all(|e| e["valid"] == false || !e["warnings"].as_array().unwrap().is_empty())
    );
    assert_eq!(
        json["summary"]["links"], 13,
        "the summary counts every link"
    );
    let text = std::fs::read_to_string(junit).unwrap();
    assert_eq!(check_junit(&text).0, 13, "junit lists every link");
}

#[test]
fn the_library_writes_every_format_through_reporter_for() {
    let ext = external();
    let server = site(&ext);
    let checker = Checker::new(config(&server.url("/"), 4)).unwrap();
    let options = ReportOptions {
        verbosity: Verbosity::All,
        ..ReportOptions::default()
    };
    let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); Format::ALL.len()];
    let report = {
        let mut fanout = Fanout::new();
        for (format, buf) in Format::ALL.iter().zip(buffers.iter_mut()) {
            fanout.push(reporter_for(*format, Box::new(buf), &options));
        }
        let report = checker.run_with(|e| fanout.entry(e).unwrap()).unwrap();
        fanout.finish(&report).unwrap();
        report
    };
    let text = |f: Format| {
        let i = Format::ALL.iter().position(|x| *x == f).unwrap();
        String::from_utf8(buffers[i].clone()).unwrap()
    };
    let json: Value = serde_json::from_str(&text(Format::Json)).unwrap();
    assert_eq!(
        json["entries"].as_array().unwrap().len(),
        report.entries.len()
    );
    let sarif: Value = serde_json::from_str(&text(Format::Sarif)).unwrap();
    assert_valid_sarif(&sarif);
    assert_eq!(check_junit(&text(Format::Junit)).0, report.entries.len());
    assert_eq!(sitemap_urls(&text(Format::Sitemap)).len(), 4);
    assert_eq!(text(Format::Failures).lines().count(), 2);
    assert_eq!(parse_dot(&text(Format::Dot)).nodes.len(), 10);
    assert_eq!(parse_gml(&text(Format::Gml)).nodes.len(), 10);
    assert_eq!(
        text(Format::Ndjson).lines().count(),
        report.entries.len() + 1
    );
    for f in Format::ALL {
        assert!(!text(*f).is_empty(), "{} wrote nothing", f.name());
    }
}

#[test]
fn the_sarif_schema_check_rejects_a_broken_log() {
    let bad = serde_json::json!({
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "x"}},
                  "results": [{"message": {"text": "m"}, "level": "fatal"}]}]
    });
    assert!(
        !is_valid_sarif(&bad),
        "an unknown level must fail validation"
    );
    let no_runs = serde_json::json!({"version": "2.1.0"});
    assert!(!is_valid_sarif(&no_runs));
}

/// An endless site of pages answering after a delay, for interrupting.
fn slow_site() -> TestServer {
    TestServer::start(Routes::new().dynamic(|req| {
        let i: usize = req.path_only().trim_start_matches('/').parse().unwrap_or(0);
        let html = format!(
            "<a href='/{}'>n</a><a href='/{}'>m</a><a href='/gone-{i}'>x</a>",
            i * 2 + 1,
            i * 2 + 2
        );
        let reply = if req.path_only().starts_with("/gone") {
            Reply::not_found()
        } else {
            Reply::html(html)
        };
        Some(reply.delayed(Duration::from_millis(20)))
    }))
}

#[test]
fn ctrl_c_leaves_every_file_complete_and_well_formed() {
    for threads in ["1", "16"] {
        interrupt_and_check(threads);
    }
}

/// Interrupts a run on the endless slow site with SIGINT, then reads back every `-F` file.
fn interrupt_and_check(threads: &str) {
    let server = slow_site();
    let dir = TempDir::new(&format!("reports-interrupted-{threads}"));
    let mut cmd = linkpatrol();
    cmd.args(["--max-requests-per-second", "0", "-t", threads, "-q", "-v"])
        .args(["--abort-timeout", "2"]);
    let paths: Vec<PathBuf> = FORMATS.iter().map(|(_, f)| dir.join(f)).collect();
    for ((format, _), path) in FORMATS.iter().zip(&paths) {
        cmd.arg("-F").arg(format!("{format}/{}", path.display()));
    }
    let child = cmd
        .arg(server.url("/"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        server.wait_for_requests(12, Duration::from_secs(10)),
        "the crawl is under way"
    );
    signal(&child, "-INT");
    let out = child.wait_with_output().unwrap();
    assert_exit(&out, 130);

    let json: Value = serde_json::from_str(&read(&dir, "out.json")).expect("complete JSON");
    assert_eq!(json["summary"]["interrupted"], true);
    let links = json["summary"]["links"].as_u64().unwrap() as usize;
    assert_eq!(json["entries"].as_array().unwrap().len(), links);

    let ndjson = read(&dir, "out.ndjson");
    let lines: Vec<Value> = ndjson
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(
        (&last["type"], &last["interrupted"]),
        (&"summary".into(), &true.into())
    );
    assert_eq!(lines.len(), links + 1);

    assert_eq!(check_junit(&read(&dir, "out.junit.xml")).0, links);

    let sarif: Value = serde_json::from_str(&read(&dir, "out.sarif")).expect("complete SARIF");
    assert_valid_sarif(&sarif);
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );

    let pages = sitemap_urls(&read(&dir, "out.sitemap.xml"));
    let failures = read(&dir, "failures.txt");
    assert!(
        failures
            .lines()
            .all(|l| l.starts_with(&server.url("/gone-"))),
        "{failures}"
    );
    let urls: BTreeSet<&str> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["url"].as_str().unwrap())
        .collect();
    assert!(pages.iter().all(|(u, _)| urls.contains(u.as_str())));
    let dot = parse_dot(&read(&dir, "out.dot"));
    let gml = parse_gml(&read(&dir, "out.gml"));
    assert_eq!(dot.labels(), gml.labels());
    assert!(urls.iter().all(|u| dot.labels().contains(*u)));
}
