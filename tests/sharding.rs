//! Sharding by host (`--shard I/N`): three shards, each run twice (phase 1 with
//! `--export-external`, phase 2 with every export as `--external-from`), give together the
//! rows of one run over everything, and no URL is requested twice across the six runs.

use std::collections::BTreeMap;
use std::path::Path;

use linkpatrol::Shard;

use std::sync::{Arc, OnceLock};

use crate::support::server::{Reply, Request, Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, assert_exit, cli, csv_records};

/// CSV columns that differ between two runs of the same site: dltime, checktime (timings) and
/// cached (which occurrence of a URL came first).
const UNSTABLE_COLUMNS: [usize; 3] = [11, 13, 14];

/// The level column: a shard settles it over its own hosts' pages only (a start URL linked
/// from another shard's site is not a start there); `merge` settles it again over every row.
const LEVEL: usize = 15;

/// Four start sites (127.0.0.20-23) that link to their own pages and to two other hosts
/// (127.0.0.24-25): good and missing pages, a link many sites share, a fragment.
fn sites() -> (Vec<TestServer>, Vec<TestServer>) {
    let external: Vec<TestServer> = (24..=25)
        .map(|i| {
            TestServer::start_on(
                &format!("127.0.0.{i}"),
                Routes::new()
                    .page("/ok.html", "<p>ok</p>")
                    .reply("/moved", Reply::redirect(301, "/ok.html")),
            )
        })
        .collect();
    let e = |j: usize, path: &str| external[j % 2].url(path);
    // The start sites' home URLs, known once all of them listen.
    let homes: Arc<OnceLock<Vec<String>>> = Arc::default();
    let starts: Vec<TestServer> = (20..=23)
        .enumerate()
        .map(|(i, ip)| {
            let home = format!(
                "<a href=\"/a.html\">a</a>\n<a href=\"/missing.html\">m</a>\n\
                 <a href=\"{}\">ok</a> <a href=\"{}\">gone</a>\n<a href=\"{}#top\">frag</a>\n",
                e(i, "/ok.html"),
                e(i, "/gone.html"),
                e(i + 1, "/ok.html"),
            );
            let (shared, moved) = (e(0, "/ok.html"), e(1, "/moved"));
            let homes = homes.clone();
            // a.html also links to the next start site: a link between two start sites.
            let a = move |r: &Request| {
                let next = homes.get().map_or("", |h| h[(i + 1) % h.len()].as_str());
                (r.path_only() == "/a.html").then(|| {
                    Reply::html(format!(
                        "<a href=\"/\">home</a>\n<a href=\"{shared}\">shared</a> \
                         <a href=\"{moved}\">moved</a>\n<a href=\"{next}\">next site</a>\n"
                    ))
                })
            };
            TestServer::start_on(
                &format!("127.0.0.{ip}"),
                Routes::new().page("/", &home).dynamic(a),
            )
        })
        .collect();
    homes
        .set(starts.iter().map(|s| s.url("/")).collect())
        .expect("set once");
    (starts, external)
}

/// The rows of a CSV report, without the unstable columns and the level, sorted.
fn stable_rows(csv: &[u8]) -> Vec<Vec<String>> {
    rows_without(csv, &[UNSTABLE_COLUMNS.as_slice(), &[LEVEL]].concat())
}

/// The rows of a CSV report, without the unstable columns, sorted: level included.
fn stable_rows_with_level(csv: &[u8]) -> Vec<Vec<String>> {
    rows_without(csv, &UNSTABLE_COLUMNS)
}

/// The rows of a CSV report without the columns `left_out`, sorted.
fn rows_without(csv: &[u8], left_out: &[usize]) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = csv_records(csv)
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .filter(|(i, _)| !left_out.contains(i))
                .map(|(_, c)| c.to_owned())
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

fn run(threads: &str, args: &[String]) -> std::process::Output {
    let mut all: Vec<&str> = CSV_FLAGS.to_vec();
    all.extend(["-t", threads]);
    all.extend(args.iter().map(String::as_str));
    cli(&all)
}

/// The requests each server got after the first `skip[i]`, as (server, path).
fn requests_after(servers: &[&TestServer], skip: &[usize]) -> Vec<(String, String)> {
    servers
        .iter()
        .zip(skip)
        .flat_map(|(s, &n)| {
            s.requests()
                .into_iter()
                .skip(n)
                // A broken link's HEAD is confirmed by a GET: one request per method.
                .map(|r| (s.base(), format!("{} {}", r.method, r.path)))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn three_shards_in_two_phases_give_the_rows_of_one_run_and_request_each_url_once() {
    for threads in ["1", "4"] {
        shards_equal_one_run(threads);
    }
}

fn shards_equal_one_run(threads: &str) {
    let (starts, external) = sites();
    let start_urls: Vec<String> = starts.iter().map(|s| s.url("/")).collect();
    let owners: Vec<usize> = starts
        .iter()
        .chain(&external)
        .map(|s| Shard::owner_of_host(&s.addr().ip().to_string(), 3))
        .collect();
    assert!(
        owners
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            > 1,
        "the hosts spread over more than one shard: {owners:?}"
    );

    let dir = TempDir::new(&format!("sharding-{threads}"));
    let ndjson = |name: &str| path(&dir.join(format!("{name}.ndjson")));
    let mut single_args = vec!["-F".to_owned(), format!("ndjson/{}", ndjson("single"))];
    single_args.extend(start_urls.iter().cloned());
    let single = run(threads, &single_args);
    assert_exit(&single, 1);
    let all: Vec<&TestServer> = starts.iter().chain(&external).collect();
    let before: Vec<usize> = all.iter().map(|s| s.requests().len()).collect();
    let mut served_by = Runs::new(&before);

    let export = |i: usize| dir.join(format!("export-{i}.ndjson"));
    let mut sharded = Vec::new();
    for i in 0..3 {
        let mut args = vec![
            "--shard".to_owned(),
            format!("{i}/3"),
            "--export-external".to_owned(),
            path(&export(i)),
            "-F".to_owned(),
            format!("ndjson/{}", ndjson(&format!("phase1-{i}"))),
        ];
        args.extend(start_urls.iter().cloned());
        let out = run(threads, &args);
        assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
        sharded.extend(stable_rows(&out.stdout));
        served_by.note(&all);
    }
    for i in 0..3 {
        let mut args = vec![
            "--shard".to_owned(),
            format!("{i}/3"),
            "-F".to_owned(),
            format!("ndjson/{}", ndjson(&format!("phase2-{i}"))),
            "--reuse-results".to_owned(),
            ndjson(&format!("phase1-{i}")),
        ];
        for j in 0..3 {
            args.extend(["--external-from".to_owned(), path(&export(j))]);
        }
        let out = run(threads, &args);
        assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
        sharded.extend(stable_rows(&out.stdout));
        served_by.note(&all);
    }
    let sharded_requests = requests_after(&all, &before);
    // Each host's requests came from one of the six runs only, so its interval held.
    for (host, runs) in all.iter().zip(&served_by.runs) {
        assert!(runs.len() <= 1, "{} served runs {runs:?}", host.base());
    }
    sharded.sort();
    assert_eq!(sharded, stable_rows(&single.stdout));

    // `merge` of the six NDJSON reports: the single run's rows and statistics.
    let parts: Vec<String> = (1..=2)
        .flat_map(|p| (0..3).map(move |i| format!("phase{p}-{i}")))
        .map(|n| ndjson(&n))
        .collect();
    let mut merge_args = vec!["merge", "-v", "-o", "csv"];
    merge_args.extend(parts.iter().map(String::as_str));
    let merged = cli_bare(&merge_args);
    assert_exit(&merged, 1);
    assert_eq!(
        stable_rows_with_level(&merged.stdout),
        stable_rows_with_level(&single.stdout)
    );
    merge_args[3] = "ndjson";
    let merged = cli_bare(&merge_args);
    let summary = |text: &[u8]| -> serde_json::Value {
        let text = String::from_utf8_lossy(text);
        serde_json::from_str(text.lines().last().expect("a summary line")).unwrap()
    };
    let single_summary = summary(&std::fs::read(ndjson("single")).unwrap());
    let merged_summary = summary(&merged.stdout);
    for key in [
        "links",
        "errors",
        "warnings",
        "urls",
        "broken_urls",
        "bytes",
        "content_types",
        "url_lengths",
    ] {
        assert_eq!(merged_summary[key], single_summary[key], "{key}");
    }
    // A report written without -v lists problems only: merging it is refused.
    let problems = cli(&["--no-status", "-o", "ndjson", &start_urls[0]]);
    let problems_file = dir.join("problems.ndjson");
    std::fs::write(&problems_file, problems.stdout).unwrap();
    let refused = cli_bare(&["merge", &path(&problems_file)]);
    assert_exit(&refused, 2);

    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for r in sharded_requests {
        *seen.entry(r).or_default() += 1;
    }
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:?}");
    // Every URL of the single run was requested by some shard (`gone.html` included).
    assert!(seen.keys().any(|(_, p)| p.ends_with(" /gone.html")));
}

/// Which of the runs made requests to each server.
struct Runs {
    seen: Vec<usize>,
    runs: Vec<Vec<usize>>,
    next: usize,
}

impl Runs {
    fn new(counts: &[usize]) -> Runs {
        Runs {
            seen: counts.to_vec(),
            runs: vec![Vec::new(); counts.len()],
            next: 0,
        }
    }

    /// After a run: each server whose log grew was served by it.
    fn note(&mut self, servers: &[&TestServer]) {
        for (i, s) in servers.iter().enumerate() {
            let n = s.requests().len();
            if n > self.seen[i] {
                self.runs[i].push(self.next);
                self.seen[i] = n;
            }
        }
        self.next += 1;
    }
}

/// The binary with `args` and nothing else (`merge` takes no other flag first).
fn cli_bare(args: &[&str]) -> std::process::Output {
    crate::support::util::hermetic(&TempDir::new("sharding-home"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn path(p: &Path) -> String {
    p.to_str().expect("a UTF-8 temp path").to_owned()
}

#[test]
fn merge_totals_never_wrap_and_an_overlong_line_is_refused() {
    let dir = TempDir::new("sharding-hostile");
    // Two summaries of 2^63 links each would wrap to 0 and pass the "written without -v"
    // refusal.
    let summary = "{\"type\":\"summary\",\"links\":9223372036854775808}\n";
    let twice = dir.join("twice.ndjson");
    std::fs::write(&twice, summary.repeat(2)).unwrap();
    let out = cli_bare(&["merge", &path(&twice)]);
    crate::support::util::assert_one_line_error(
        &out,
        &["twice.ndjson, line 2", "more links than can be counted"],
    );
    // One line longer than a report line can be: refused before it is held whole.
    let long = dir.join("long.ndjson");
    let mut text = b"{\"type\":\"entry\",\"url\":\"".to_vec();
    text.resize(text.len() + linkpatrol::report::MAX_NDJSON_LINE, b'a');
    text.extend_from_slice(b"\"}\n");
    std::fs::write(&long, &text).unwrap();
    let out = cli_bare(&["merge", &path(&long)]);
    crate::support::util::assert_one_line_error(&out, &["long.ndjson, line 1", "longer than"]);
    // The same for --external-from and --reuse-results.
    let site = TestServer::start(Routes::new().page("/", "<p>x</p>"));
    for flag in ["--external-from", "--reuse-results"] {
        let out = cli(&[
            "--shard",
            "1/2",
            flag,
            &path(&long),
            "--no-status",
            &site.url("/"),
        ]);
        crate::support::util::assert_one_line_error(&out, &["line 1", "longer than"]);
    }
}

#[test]
fn merge_refuses_what_is_no_shard_report_and_warns_of_a_missing_phase_2() {
    // A start site and an external host that the other shard owns.
    let ip = |i: u8| format!("127.0.0.{i}");
    let owner = |i: u8| Shard::owner_of_host(&ip(i), 2);
    let other = (71..120).find(|&i| owner(i) != owner(70)).unwrap();
    let external = TestServer::start_on(&ip(other), Routes::new().page("/ok.html", "ok"));
    let start = TestServer::start_on(
        &ip(70),
        Routes::new().page(
            "/",
            &format!(
                "<a href='{}'>ok</a> <a href='{}'>gone</a>",
                external.url("/ok.html"),
                external.url("/gone")
            ),
        ),
    );
    let dir = TempDir::new("sharding-merge-refusals");
    let file = |name: &str| path(&dir.join(name));
    for i in 0..2 {
        let out = run(
            "2",
            &[
                "--shard".into(),
                format!("{i}/2"),
                "-q".into(),
                "--export-external".into(),
                file(&format!("export-{i}.ndjson")),
                "-F".into(),
                format!("ndjson/{}", file(&format!("phase1-{i}.ndjson"))),
                start.url("/"),
            ],
        );
        assert!(out.status.code().unwrap() <= 1, "{out:?}");
    }
    let phase1 = [file("phase1-0.ndjson"), file("phase1-1.ndjson")];
    let merged = cli_bare(&["merge", "-v", &phase1[0], &phase1[1]]);
    assert_exit(&merged, 0);
    let err = String::from_utf8_lossy(&merged.stderr);
    let other_shard = format!("shard {}/2", owner(other));
    assert!(
        err.contains("linkpatrol: warning: merge: phase 1 exported 2 links to")
            && err.contains(&other_shard)
            && err.contains("partial"),
        "{err}"
    );
    // With every phase-2 report: no warning, the broken external link is in.
    for i in 0..2 {
        let out = run(
            "2",
            &[
                "--shard".into(),
                format!("{i}/2"),
                "-q".into(),
                "--external-from".into(),
                file("export-0.ndjson"),
                "--external-from".into(),
                file("export-1.ndjson"),
                "--reuse-results".into(),
                file(&format!("phase1-{i}.ndjson")),
                "-F".into(),
                format!("ndjson/{}", file(&format!("phase2-{i}.ndjson"))),
            ],
        );
        assert!(out.status.code().unwrap() <= 1, "{out:?}");
    }
    let (p2a, p2b) = (file("phase2-0.ndjson"), file("phase2-1.ndjson"));
    let whole = cli_bare(&["merge", &phase1[0], &phase1[1], &p2a, &p2b]);
    assert_exit(&whole, 1);
    assert!(
        whole.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&whole.stderr)
    );

    // Files that are no shard's report: exit 2, one line naming the file and why.
    let export = file(&format!("export-{}.ndjson", owner(70)));
    let empty = dir.join("empty.ndjson");
    std::fs::write(&empty, "").unwrap();
    let csv = dir.join("report.csv");
    std::fs::write(&csv, run("1", &[start.url("/")]).stdout).unwrap();
    let cut = dir.join("cut.ndjson");
    let text = std::fs::read_to_string(&phase1[owner(70)]).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("\"summary\""))
        .collect();
    std::fs::write(&cut, rows.join("\n")).unwrap();
    for (given, why) in [
        (export, "it is an export file (--export-external)"),
        (path(&empty), "it is empty"),
        (path(&csv), "line 1 is not JSON"),
        (path(&cut), "it has no summary line"),
    ] {
        let out = cli_bare(&["merge", &phase1[0], &given]);
        crate::support::util::assert_one_line_error(
            &out,
            &[
                &format!("{given} is not a shard's NDJSON report: {why}"),
                "-v",
            ],
        );
    }
    // No file at all: the whole message, with the usage.
    let out = cli_bare(&["merge"]);
    crate::support::util::assert_one_line_error(
        &out,
        &[
            "merge: the following required arguments were not provided: <FILE>...",
            "usage: linkpatrol merge",
        ],
    );
}
