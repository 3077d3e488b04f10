//! Every report format's content, from the real binary on a loopback site or a local folder.
//!
//! The machine-readable reports (json, ndjson, junit, sarif, sitemap, failures, dot, gml): every
//! format of `Format::ALL` from one run of the binary, these read back with real parsers and
//! compared with golden files, the same with 1 and 16 threads; verbosity; and every format a
//! whole document after a Ctrl-C.
//!
//! The formats for terminals and CI: compact lines, GitHub Actions commands, the Markdown
//! summary (also as `-F` files), the text report by page and by URL, colour (`--color`,
//! NO_COLOR, a pipe, a terminal), and SARIF locations relative to the working folder (or the
//! checked folder outside it).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use linkpatrol::Checker;
use linkpatrol::report::{Fanout, Format, ReportOptions, Reporter, Verbosity, reporter_for};
use regex::Regex;
use serde_json::Value;

use crate::support::report_check::{
    assert_golden, assert_valid_sarif, assert_well_formed, is_valid_sarif, normalize_json,
    parse_dot, parse_gml, placeholders, sort_entries,
};
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli, config, linkpatrol, signal};

/// The file of `format` in a run's folder: `out.` and the format's name.
fn out_file(format: Format) -> String {
    format!("out.{}", format.name())
}

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
    for format in Format::ALL {
        args.push("-F".into());
        let file = dir.join(out_file(*format));
        args.push(format!("{}/{}", format.name(), file.display()));
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
        assert_eq!(check_junit(&self.raw("out.junit")), (13, 3, 1));
        let times = Regex::new(r#" time="[0-9.]+""#).unwrap();
        let text = self.stable("out.junit");
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
        let urls = sitemap_urls(&self.raw("out.sitemap"));
        let locs: Vec<String> = urls.iter().map(|(u, _)| u.clone()).collect();
        let want: Vec<String> = ["/", "/a.html", "/b.html", "/new.html"]
            .iter()
            .map(|p| self.url(p))
            .collect();
        assert_eq!(locs, want);
        assert_eq!(urls[1].1.as_deref(), Some("1994-11-06T08:49:37+00:00"));
        assert_golden("golden.sitemap.xml", &self.stable("out.sitemap"));
    }

    /// failures: each broken URL once.
    fn check_failures(&self) {
        let text = self.raw("out.failures");
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
    let junit = dir.join("out.junit");
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
    for format in Format::ALL {
        let path = dir.join(out_file(*format));
        cmd.arg("-F")
            .arg(format!("{}/{}", format.name(), path.display()));
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
    for format in Format::ALL {
        assert_well_formed(*format, read(&dir, &out_file(*format)).as_bytes());
    }

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

    assert_eq!(check_junit(&read(&dir, "out.junit")).0, links);

    let sarif: Value = serde_json::from_str(&read(&dir, "out.sarif")).expect("complete SARIF");
    assert_valid_sarif(&sarif);
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );

    let pages = sitemap_urls(&read(&dir, "out.sitemap"));
    let failures = read(&dir, "out.failures");
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

// The formats for terminals and CI.

/// A folder `site` inside a fresh working folder: two broken links on two pages (one in a
/// sub-folder), a link with a warning, and a page whose file name and link carry the
/// characters GitHub's commands and Markdown act on.
fn work_folder(name: &str) -> TempDir {
    let work = TempDir::new(name);
    let site = work.join("site");
    std::fs::create_dir_all(site.join("docs")).unwrap();
    std::fs::write(
        site.join("index.html"),
        "<!doctype html>\n<a href=\"missing.html\">gone</a>\n\
         <p><a href=\"docs/guide.html\">guide</a> <a href=\"a,b:c.html\">odd</a>\n\
         <a href=\"index.html \">padded</a>\n",
    )
    .unwrap();
    std::fs::write(
        site.join("docs/guide.html"),
        "<p>\n  <a href=\"../nope.html\">nope</a>\n",
    )
    .unwrap();
    std::fs::write(
        site.join("a,b:c.html"),
        "<a href=\"x|y`<b>%0A::error::z.html\">evil</a>\n",
    )
    .unwrap();
    work
}

/// Runs the binary in `dir` with `args` (no politeness delay, no status line).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    linkpatrol()
        .current_dir(dir)
        .args(["--no-status", "--max-requests-per-second", "0"])
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The lines of `text` but the last, sorted (problem lines stream in finishing order).
fn sorted_problems(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.pop();
    lines.sort();
    lines
}

#[test]
fn compact_is_one_line_per_problem_with_relative_paths() {
    let work = work_folder("compact");
    let out = run_in(&work, &["-o", "compact", "site"]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    let lines = sorted_problems(&text);
    let abs = work.canonicalize().unwrap();
    let expected = [
        "site/a,b:c.html:1:1: x|y`<b>%0A::error::z.html: file-not-found: ".to_owned(),
        "site/docs/guide.html:2:3: ../nope.html: file-not-found: ".to_owned(),
        "site/index.html:2:1: missing.html: file-not-found: ".to_owned(),
        "site/index.html:4:1: index.html: URL `index.html' has whitespace at the beginning or \
         end. [url-whitespace]"
            .to_owned(),
    ];
    assert_eq!(lines.len(), expected.len(), "{text}");
    for (line, start) in lines.iter().zip(&expected) {
        assert!(
            line.starts_with(start.as_str()),
            "{line:?} does not start with {start:?}"
        );
    }
    assert!(lines[2].contains(&abs.join("site/missing.html").display().to_string()));
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("That's it. "), "{last}");
    assert!(last.contains("3 errors found"), "{last}");

    // The same lines in a -F file; a page outside the working folder keeps its absolute path.
    let elsewhere = TempDir::new("compact-elsewhere");
    let file = elsewhere.join("out.txt");
    let site = abs.join("site");
    let spec = format!("compact/{}", file.display());
    let out = run_in(&elsewhere, &["-q", "-F", &spec, site.to_str().unwrap()]);
    assert_exit(&out, 1);
    let written = std::fs::read_to_string(&file).unwrap();
    let first = sorted_problems(&written).remove(0);
    assert!(
        first.starts_with(&format!("{}:1:1: ", site.join("a,b:c.html").display())),
        "{first}"
    );
}

/// The properties of a workflow command line (`::error file=…,line=…::message`).
fn properties(line: &str) -> Vec<(String, String)> {
    let rest = line.strip_prefix("::").unwrap();
    let (head, _message) = rest.split_once("::").unwrap();
    let (_, props) = head.split_once(' ').unwrap();
    props
        .split(',')
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

#[test]
fn github_commands_annotate_files_and_cannot_be_forged() {
    let work = work_folder("github");
    let out = run_in(&work, &["-o", "github", "site"]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    let lines = sorted_problems(&text);
    assert_eq!(lines.len(), 4, "{text}");
    for line in &lines {
        assert!(
            line.starts_with("::error ") || line.starts_with("::warning "),
            "{line}"
        );
        let keys: Vec<String> = properties(line).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["file", "line", "col", "title"], "{line}");
    }
    let nope = work.canonicalize().unwrap().join("site/nope.html");
    let expected = format!(
        "::error file=site/docs/guide.html,line=2,col=3,title=broken link::../nope.html: \
         file-not-found: {}: No such file or directory (os error 2)",
        nope.display()
    );
    assert!(lines.contains(&expected), "{text}");
    // A file name with `,` and `:` stays one property; `%` in a link stays a percent sign.
    let odd = lines.iter().find(|l| l.contains("a%2Cb%3Ac.html")).unwrap();
    assert_eq!(properties(odd)[0].1, "site/a%2Cb%3Ac.html");
    assert!(
        odd.contains("::x|y`<b>%250A::error::z.html: file-not-found"),
        "{odd}"
    );
    let warning = lines.iter().find(|l| l.starts_with("::warning")).unwrap();
    assert!(
        warning.starts_with("::warning file=site/index.html,line=4,col=1,title=link warning::")
    );
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("::notice title=linkpatrol::That's it. "),
        "{last}"
    );
}

#[test]
fn github_commands_for_web_pages_name_the_page_in_the_message() {
    let server = TestServer::start(Routes::new().page("/", "<p>\n<a href=\"/gone\">x</a>"));
    let dir = TempDir::new("github-web");
    let out = run_in(&dir, &["-o", "github", &server.url("/")]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    let expected = format!(
        "::error title=broken link::/gone: 404 Not Found (on {}, line 2)",
        server.url("/")
    );
    assert_eq!(text.lines().next(), Some(expected.as_str()), "{text}");
}

#[test]
fn markdown_summary_is_written_beside_github_commands() {
    let work = work_folder("markdown");
    let out = run_in(
        &work,
        &["-o", "github", "-F", "markdown/summary.md", "site"],
    );
    assert_exit(&out, 1);
    assert!(stdout(&out).starts_with("::"));
    let md = std::fs::read_to_string(work.join("summary.md")).unwrap();
    assert!(
        md.starts_with("## Link check: 3 broken links, 1 warning\n"),
        "{md}"
    );
    assert!(md.contains("| Links | URLs | Errors | Broken URLs | Warnings | Time |"));
    // Pages in order, each with its table; untrusted text cannot open a cell, a tag or a span.
    let pages: Vec<&str> = md.lines().filter(|l| l.starts_with("### ")).collect();
    assert_eq!(
        pages,
        [
            "### site/a,b:c.html",
            "### site/docs/guide.html",
            "### site/index.html"
        ]
    );
    assert!(
        md.contains("| 1:1 | x\\|y\\`\\<b\\>%0A::error::z.html | **error**: file-not-found: "),
        "{md}"
    );
    assert!(
        md.contains(
            "| 4:1 | index.html | warning: URL \\`index.html' has whitespace at the beginning or \
             end. \\[url-whitespace\\] |"
        ),
        "{md}"
    );
    for row in md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Line"))
    {
        let unescaped_pipes = row
            .match_indices('|')
            .filter(|(i, _)| !row[..*i].ends_with('\\'))
            .count();
        let expected = if row.starts_with("| Links") || row.contains(" seconds |") {
            7
        } else {
            4
        };
        assert_eq!(unescaped_pipes, expected, "{row}");
    }
}

#[test]
fn text_is_grouped_by_page_unless_by_url_is_asked() {
    let work = work_folder("text-groups");
    let out = run_in(&work, &["site"]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    let pages: Vec<&str> = text.lines().filter(|l| l.starts_with("Page ")).collect();
    assert_eq!(
        pages,
        [
            "Page site/a,b:c.html",
            "Page site/docs/guide.html",
            "Page site/index.html"
        ],
        "{text}"
    );
    assert!(
        text.contains("Page site/index.html\n  2:1 `missing.html'\n      Error: file-not-found: "),
        "{text}"
    );
    // The link, then (after its real URL, when the check gave one) its warning.
    let link = text.find("  4:1 `index.html'\n").expect(&text);
    let warning = text[link..]
        .find("      Warning [url-whitespace] ")
        .expect(&text);
    assert!(!text[link..link + warning].contains("Valid"), "{text}");

    // -v lists the good links of each page too.
    let out = run_in(&work, &["-v", "site"]);
    let verbose = stdout(&out);
    assert!(
        verbose.contains("  3:4 `docs/guide.html'\n      Valid: "),
        "{verbose}"
    );

    let out = run_in(&work, &["--group-by", "url", "site"]);
    let by_url = stdout(&out);
    assert!(
        by_url.contains("URL        `missing.html'\nName       `gone'\nParent URL file://"),
        "{by_url}"
    );
    assert!(!by_url.contains("Page site/"), "{by_url}");
}

/// Runs the binary in `dir` with `args` and `env` inside a pseudo-terminal (`script`), and
/// returns what it wrote there; `None` when `script` is not installed.
fn on_terminal(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Option<String> {
    let found = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: `script` (util-linux) is not installed: no terminal to test on");
        return None;
    }
    let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let mut command = vec![
        quote(env!("CARGO_BIN_EXE_linkpatrol")),
        "--no-config".into(),
    ];
    command.extend(args.iter().map(|a| quote(a)));
    // `script` runs the command on a terminal of its own, with the environment the tests give
    // the binary (`linkpatrol()`'s), plus a colour terminal and `env`.
    let hermetic = linkpatrol();
    let mut script = std::process::Command::new("script");
    for (k, v) in hermetic.get_envs() {
        match v {
            Some(v) => script.env(k, v),
            None => script.env_remove(k),
        };
    }
    script
        .current_dir(dir)
        .env("TERM", "xterm-256color")
        .envs(env.iter().copied())
        .args(["-q", "-e", "-c", &command.join(" "), "/dev/null"]);
    let out = script.output().expect("script runs");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn colour_on_a_terminal_only() {
    let work = work_folder("colour");
    let red = "\x1b[31m";
    let bold = "\x1b[1m";
    for format in ["text", "compact"] {
        let always = stdout(&run_in(&work, &["--color", "always", "-o", format, "site"]));
        assert!(always.contains(red) && always.contains(bold), "{always}");
        assert!(always.contains("\x1b[33m"), "warnings are yellow: {always}");
        for args in [&["--color", "never"][..], &[][..], &["--color", "auto"][..]] {
            let mut all = args.to_vec();
            all.extend(["-o", format, "site"]);
            let piped = stdout(&run_in(&work, &all));
            assert!(
                !piped.contains('\x1b'),
                "{args:?}: colour in a pipe: {piped}"
            );
        }
    }
    // -F files never get colour codes.
    let out = run_in(&work, &["--color", "always", "-F", "text/out.txt", "site"]);
    assert!(stdout(&out).contains(red));
    assert!(
        !std::fs::read_to_string(work.join("out.txt"))
            .unwrap()
            .contains('\x1b')
    );

    let flags = ["--no-status", "--max-requests-per-second", "0", "site"];
    let Some(tty) = on_terminal(&work, &[], &flags) else {
        return;
    };
    assert!(
        tty.contains(red) && tty.contains(bold),
        "no colour on a terminal: {tty:?}"
    );
    let no_color = on_terminal(&work, &[("NO_COLOR", "1")], &flags).unwrap();
    assert!(no_color.contains("That's it."), "{no_color:?}");
    assert!(!no_color.contains(red), "NO_COLOR is set: {no_color:?}");
    let mut never = flags.to_vec();
    never.extend(["--color", "never"]);
    let never = on_terminal(&work, &[], &never).unwrap();
    assert!(!never.contains(red), "{never:?}");
}

#[test]
fn sarif_locations_are_relative_to_the_repository_or_the_checked_folder() {
    let work = work_folder("sarif");
    let site = work.canonicalize().unwrap().join("site");
    // Run in the working folder (a repository in CI): relative to it, `site/…`; run from
    // elsewhere: relative to the checked folder.
    let elsewhere = TempDir::new("sarif-elsewhere");
    let cases = [
        (&work, site.parent().unwrap(), "site/"),
        (&elsewhere, site.as_path(), ""),
    ];
    for (dir, root, prefix) in cases {
        let out = run_in(
            dir,
            &["-q", "-F", "sarif/out.sarif", site.to_str().unwrap()],
        );
        assert_exit(&out, 1);
        let text = std::fs::read_to_string(dir.join("out.sarif")).unwrap();
        let sarif: Value = serde_json::from_str(&text).unwrap();
        assert_valid_sarif(&sarif);
        let run = &sarif["runs"][0];
        let root_uri = url::Url::from_directory_path(root).unwrap();
        assert_eq!(
            run["originalUriBaseIds"]["SRCROOT"]["uri"],
            root_uri.as_str()
        );
        let mut uris: Vec<String> = run["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let loc = &r["locations"][0]["physicalLocation"]["artifactLocation"];
                assert_eq!(loc["uriBaseId"], "SRCROOT", "{loc}");
                loc["uri"].as_str().unwrap().to_owned()
            })
            .collect();
        uris.dedup();
        // `a,b:c.html` alone would read as a URI with the scheme `a,b`: it gets `./`.
        let first = if prefix.is_empty() { "./" } else { prefix };
        let expected = [
            format!("{first}a,b:c.html"),
            format!("{prefix}docs/guide.html"),
            format!("{prefix}index.html"),
        ];
        assert_eq!(uris, expected);
    }

    // A web page keeps its absolute URI and the run names no base.
    let server = TestServer::start(Routes::new().page("/", "<a href=\"/gone\">x</a>"));
    let out = run_in(&work, &["-q", "-F", "sarif/web.sarif", &server.url("/")]);
    assert_exit(&out, 1);
    let web: Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("web.sarif")).unwrap()).unwrap();
    assert_valid_sarif(&web);
    let loc = &web["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uri"], server.url("/"));
    assert!(loc.get("uriBaseId").is_none(), "{loc}");
    assert!(web["runs"][0].get("originalUriBaseIds").is_none());
}

/// The text, compact and GitHub outputs of one folder check, whole, against their golden files
/// (`LINKPATROL_BLESS=1` rewrites them). One thread, so rows come in one order; the working
/// folder is `<work>`, and the run's duration and URL lengths (which count that folder) are
/// placeholders.
#[test]
fn text_compact_and_github_outputs_match_their_golden_files() {
    let work = work_folder("golden-terminal");
    let real = work.canonicalize().unwrap();
    // The URLs' lengths count the working folder's path, which differs from run to run.
    let lengths = Regex::new(r"(?m)^URL lengths: .*$").unwrap();
    let duration = Regex::new(r"(?m)^Stopped checking after .*$").unwrap();
    for (format, golden) in [
        ("text", "golden.txt"),
        ("compact", "golden.compact.txt"),
        ("github", "golden.github.txt"),
    ] {
        let out = run_in(&work, &["-t", "1", "-o", format, "site"]);
        assert_exit(&out, 1);
        let mut text = stdout(&out);
        for dir in [&real, &work.to_path_buf()] {
            text = text.replace(&dir.display().to_string(), "<work>");
        }
        let text = lengths.replace_all(&text, "URL lengths: <of the working folder>.");
        let text = duration.replace_all(&text, "Stopped checking after <duration>.");
        assert!(!text.contains("linkpatrol-test-"), "{text}");
        assert_golden(golden, &text);
    }
}

#[test]
fn an_interrupted_run_says_so_in_text_and_compact_and_never_that_it_is_done() {
    for threads in ["1", "4"] {
        let server = TestServer::start(
            Routes::new()
                .page("/", "<a href='/ok'>ok</a> <a href='/hang'>h</a>")
                .page("/ok", "ok")
                .reply("/hang", Reply::hang()),
        );
        let dir = TempDir::new(&format!("interrupted-summary-{threads}"));
        let text_file = dir.join("report.txt");
        let child = linkpatrol()
            .args([
                "--no-status",
                "--max-requests-per-second",
                "0",
                "-t",
                threads,
            ])
            .args([
                "--timeout",
                "86400",
                "--abort-timeout",
                "0.2",
                "-o",
                "compact",
            ])
            .arg("-F")
            .arg(format!("text/{}", text_file.display()))
            .arg(server.url("/"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Every other URL is done once /hang is requested and /ok answered.
        crate::support::util::eventually("the hanging request", || {
            server.count("/hang") == 1 && server.count("/ok") == 1
        });
        signal(&child, "-INT");
        let out = child.wait_with_output().unwrap();
        assert_exit(&out, 130);
        let compact = stdout(&out);
        let last = compact.lines().last().unwrap();
        assert!(
            last.starts_with(
                "Interrupted, results not complete: 2 links in 2 URLs checked, 1 URL not checked."
            ),
            "{threads} threads: {compact}"
        );
        let text = std::fs::read_to_string(&text_file).unwrap();
        assert!(
            text.contains(
                "The check has been interrupted; results are not complete (1 URL not checked)."
            ) && text.contains("Interrupted, results not complete: 2 links in 2 URLs checked")
                && !text.contains("That's it."),
            "{threads} threads: {text}"
        );
    }
}

// The lists of formats outside the code follow the formats' table.

/// `text` with the lines from `begin` to `end` (both kept) replaced by `block`.
fn replace_block(text: &str, begin: &str, end: &str, block: &str) -> String {
    let start = text.find(begin).unwrap_or_else(|| panic!("no `{begin}`"));
    let stop = start
        + text[start..]
            .find(end)
            .unwrap_or_else(|| panic!("no `{end}`"));
    let after_begin = start + text[start..].find('\n').unwrap() + 1;
    let after_begin = after_begin + text[after_begin..].find('\n').unwrap() + 1;
    format!("{}{block}{}", &text[..after_begin], &text[stop..])
}

/// The Python stub's `_Format` is generated from `Format::ALL`.
#[test]
fn the_python_stub_lists_every_format() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("bindings/python/python/linkpatrol/_linkpatrol.pyi");
    let stub = std::fs::read_to_string(&path).unwrap();
    let mut block = String::from("_Format = Literal[\n");
    let mut line = String::from("   ");
    for format in Format::ALL {
        let item = format!(" \"{}\",", format.name());
        if line.len() + item.len() > 99 {
            block.push_str(&line);
            block.push('\n');
            line = String::from("   ");
        }
        line.push_str(&item);
    }
    block.push_str(&line);
    block.push_str("\n]\n");
    let want = replace_block(
        &stub,
        "# Generated from the formats' table",
        "# End of the generated formats.",
        &block,
    );
    if std::env::var_os("LINKPATROL_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    assert!(
        stub == want,
        "{} lists other formats than Format::ALL: \
         LINKPATROL_BLESS=1 cargo test --test integration report_formats rewrites it",
        path.display()
    );
}

/// The user guide's table of formats has a row per format, with its default file and scope.
#[test]
fn the_user_guide_lists_every_format() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/report-formats.md"),
    )
    .unwrap();
    let rows: Vec<Vec<&str>> = page
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0].trim_matches('`')).collect();
    let want: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names, want, "the table's rows, in --help's order");
    for (row, format) in rows.iter().zip(Format::ALL) {
        assert_eq!(
            row[2],
            format!("`{}`", format.default_file_name()),
            "{row:?}"
        );
        assert_eq!(row[3], format.scope().described(), "{row:?}");
    }
}

/// The user guide's "Errors" names every failure class the reports write.
#[test]
fn the_user_guide_names_every_failure_class() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/usage.md"))
            .unwrap();
    let start = page.find("\n## Errors\n").expect("an Errors section");
    let section = &page[start + 1..];
    let section = &section[..section[1..].find("\n## ").map_or(section.len(), |i| i + 1)];
    for class in linkpatrol::FailureClass::all() {
        assert!(
            section.contains(&format!("`{class}`")),
            "docs/src/usage.md's Errors does not name `{class}`"
        );
    }
}
