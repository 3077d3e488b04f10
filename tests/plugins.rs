//! Plugins end to end on loopback sites: anchors over http and file (each page fetched once,
//! however many fragments point into it), regex hits and misses, the command plugin's timeout
//! (its process group killed, its output kept), cert-expiry against a local TLS server (one
//! deadline for the read, through the run's proxy), and plugin warnings in every report format.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use linkpatrol::plugin::{Options, Plugin};
use linkpatrol::report::Format;
use linkpatrol::{Config, Report, plugins};

use crate::support::proxy::TestProxy;
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::tls_server;
use crate::support::util::{TempDir, assert_exit, cli, cli_in, config, entry, run};

/// A built-in plugin with these settings.
fn plugin(name: &str, settings: &[(&str, &str)]) -> Arc<dyn Plugin> {
    let mut options = Options::new(name);
    for (k, v) in settings {
        options.push(*k, *v);
    }
    plugins::builtin(name, &options).expect("a valid plugin")
}

/// Every (tag, link as written, page it is on) of the warnings with `tag`, occurrence warnings
/// included.
fn warned(report: &Report, tag: &str) -> BTreeSet<(String, String)> {
    report
        .entries
        .iter()
        .flat_map(|e| {
            e.warnings().filter(|w| w.tag == tag).map(move |_| {
                let r = e.referrer.as_ref();
                (
                    r.map_or_else(|| e.result.url.clone(), |r| r.raw.clone()),
                    r.map(|r| r.parent.rsplit('/').next().unwrap_or("").to_owned())
                        .unwrap_or_default(),
                )
            })
        })
        .collect()
}

/// The warnings of the entry of `url`, each as "tag message".
fn tagged_warnings(report: &Report, url: &str) -> Vec<String> {
    entry(report, url)
        .result
        .warnings
        .iter()
        .map(|w| format!("{} {}", w.tag, w.message))
        .collect()
}

fn pair(link: &str, page: &str) -> (String, String) {
    (link.to_owned(), page.to_owned())
}

/// `/` and `/more` link into `/doc` eight ways and into a page on a second (external) host;
/// `/doc` has `id=intro`, `<a name=usage>` and `id="café"`.
fn anchor_site(external: &TestServer) -> TestServer {
    let ext = external.url("/ext");
    TestServer::start(
        Routes::new()
            .page(
                "/",
                &format!(
                    "<a href='/doc#intro'>1</a> <a href='/doc#usage'>2</a>\n\
                     <a href='/doc#missing'>3</a> <a href='/doc#caf%C3%A9'>4</a>\n\
                     <a href='/doc#café'>5</a> <a href='/doc#top'>6</a> <a href='/doc#'>7</a>\n\
                     <a href='{ext}#there'>8</a> <a href='{ext}#nowhere'>9</a>\n\
                     <a href='/more'>more</a> <a href='#self'>10</a> <p id=self></p>"
                ),
            )
            .page(
                "/more",
                &format!(
                    "<a href='/doc#intro'>a</a> <a href='/doc#Intro'>b</a>\n\
                     <a href='/doc#caf%C3%A8'>c</a> <a href='{ext}#there'>d</a>"
                ),
            )
            .page(
                "/doc",
                "<h1 id=intro>Intro</h1><a name=usage></a><h2 id='café'>Café</h2>",
            ),
    )
}

#[test]
fn anchors_over_http_fetch_each_page_once_with_one_thread_and_many() {
    for threads in [1, 8] {
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new().page("/ext", "<div id=there></div>"),
        );
        let site = anchor_site(&external);
        let report =
            run(config(&site.url("/"), threads)
                .plugin(plugin("anchors", &[("severity", "warning")])));
        assert_eq!(
            warned(&report, "anchor-not-found"),
            BTreeSet::from([
                pair("/doc#missing", ""),
                pair("/doc#Intro", "more"),
                pair("/doc#caf%C3%A8", "more"),
                pair(&format!("{}#nowhere", external.url("/ext")), ""),
            ]),
            "threads={threads}"
        );
        // The server logs prove it: /doc was requested once, by the crawl (a GET, it is
        // parsed); the external page once by the crawl (HEAD) and once for its anchors (GET),
        // for three fragment links.
        assert_eq!(site.count("/doc"), 1, "threads={threads}");
        assert_eq!(site.count_method("GET", "/doc"), 1);
        assert_eq!(external.count_method("GET", "/ext"), 1, "threads={threads}");
        assert_eq!(
            external.count_method("HEAD", "/ext"),
            1,
            "threads={threads}"
        );
        let message = report
            .entries
            .iter()
            .flat_map(|e| e.warnings())
            .find(|w| w.message.contains("`missing'"))
            .map(|w| w.message.clone())
            .unwrap();
        assert_eq!(
            message,
            format!(
                "anchors: Anchor `missing' not found on {}. None of its 3 anchors is close.",
                site.url("/doc")
            )
        );
    }
}

#[test]
fn anchors_in_local_files_and_folders() {
    let dir = TempDir::new("plugin-anchors-files");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<a href='doc.html#a'>1</a> <a href='doc.html#nope'>2</a>\n\
         <a href='doc.html#%C3%BCber'>3</a> <a href='doc.html#über'>4</a>\n\
         <a href='sub/#inner'>5</a> <a href='sub/index.html#outer'>6</a>\n\
         <a href='doc.html#TOP'>7</a> <a href='doc.html#a%20b'>8</a>",
    )
    .unwrap();
    std::fs::write(
        dir.join("doc.html"),
        "<p id=a>a</p><p id='über'></p><p id='a b'></p>",
    )
    .unwrap();
    std::fs::write(dir.join("sub/index.html"), "<p id=inner></p>").unwrap();
    for threads in [1, 4] {
        let config = Config::new()
            .input_path(&dir)
            .threads(threads)
            .plugin(plugin("anchors", &[("severity", "warning")]));
        let report = run(config);
        assert_eq!(
            warned(&report, "anchor-not-found"),
            BTreeSet::from([
                pair("doc.html#nope", "index.html"),
                pair("sub/index.html#outer", "index.html"),
            ]),
            "threads={threads}"
        );
    }
}

#[test]
fn anchors_off_or_its_tag_ignored_means_no_anchor_warnings() {
    let external = TestServer::start_on("127.0.0.2", Routes::new().page("/ext", "x"));
    let site = anchor_site(&external);
    let report = run(config(&site.url("/"), 4));
    assert!(warned(&report, "anchor-not-found").is_empty());
    assert_eq!(external.count_method("GET", "/ext"), 0);
    // On, but its tag ignored: nothing shows.
    let ignoring = config(&site.url("/"), 4)
        .plugin(plugin("anchors", &[("severity", "warning")]))
        .ignore_warning("anchor-not-found");
    assert!(warned(&run(ignoring), "anchor-not-found").is_empty());
}

#[test]
fn regex_warns_on_pages_that_match_and_not_on_others() {
    let site = TestServer::start(
        Routes::new()
            .page("/", "<a href='/todo'>t</a> <a href='/clean'>c</a>")
            .page(
                "/todo",
                "<p>intro</p>\n<p>TODO: write this</p>\n<p>lorem ipsum</p>",
            )
            .page("/clean", "<p>all written</p>"),
    );
    let regex = plugin(
        "regex",
        &[("pattern", "TODO"), ("pattern", "(?i)Lorem Ipsum")],
    );
    let report = run(config(&site.url("/"), 2).plugin(regex));
    let on = |path: &str| tagged_warnings(&report, &site.url(path));
    assert_eq!(
        on("/todo"),
        [
            "regex-match regex: Found `TODO' at line 2 (pattern `TODO').",
            "regex-match regex: Found `lorem ipsum' at line 3 (pattern `(?i)Lorem Ipsum')."
        ]
    );
    assert!(on("/clean").is_empty());
    assert!(on("/").is_empty());
}

/// The processes of group `pgid` that still run (zombies excluded: they run no more code and
/// wait for init to reap them), read from /proc.
#[cfg(target_os = "linux")]
fn running_in_group(pgid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // "PID (COMMAND) STATE PPID PGRP ...": the command may hold spaces and parentheses.
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
            fields.first().is_some_and(|state| *state != "Z")
                && fields.get(2).and_then(|g| g.parse().ok()) == Some(pgid)
        })
        .collect()
}

#[test]
fn a_hung_command_is_killed_with_its_process_group_at_its_timeout_and_the_crawl_goes_on() {
    let site = TestServer::start(
        Routes::new()
            .page("/", "<a href='/a'>a</a> <a href='/b'>b</a>")
            .page("/a", "slow")
            .page("/b", "fast"),
    );
    // Prints two lines and leaves a sleep in the background (holding stdout open) on every
    // page; on pages that say "slow" it also waits on a sleep in the foreground. The shell is
    // its process group's leader: `$$` is the group's id. A sleep that ran to its end, not
    // killed, leaves a file behind.
    let dir = TempDir::new("plugin-command-hung");
    let ended = dir.join("a-sleep-ended");
    let script = format!(
        "echo \"seen $LINKPATROL_URL\"; echo \"group $$\"; (sleep 300; touch '{0}') & \
         if grep -q slow; then sleep 300; touch '{0}'; fi",
        ended.display()
    );
    let command = plugin(
        "command",
        &[
            ("program", "sh"),
            ("arg", "-c"),
            ("arg", &script),
            // Long enough for `sh` and `grep` to finish on a loaded machine.
            ("timeout", "3"),
        ],
    );
    let report = run(config(&site.url("/"), 2).plugin(command));
    // Every sleep was killed, none waited for: /a's at its timeout, the others' at once.
    assert!(!ended.exists(), "a sleep ran its 300 s");
    let on = |path: &str| tagged_warnings(&report, &site.url(path));
    let (a, b) = (on("/a"), on("/b"));
    assert_eq!(a.len(), 3, "{a:?}");
    assert_eq!(
        a[0],
        format!("command-warning command: seen {}", site.url("/a"))
    );
    assert!(a[1].starts_with("command-warning command: group "), "{a:?}");
    assert!(
        a[2].starts_with("command-failed command: `sh' ran longer than"),
        "{a:?}"
    );
    assert_eq!(
        b.len(),
        2,
        "the output is kept, the exit status is 0: {b:?}"
    );
    assert_eq!(
        b[0],
        format!("command-warning command: seen {}", site.url("/b"))
    );
    assert_eq!(report.errors(), 0, "a plugin warning is not a broken link");
    let groups: Vec<u32> = ["/", "/a", "/b"]
        .iter()
        .flat_map(|p| on(p))
        .filter_map(|w| {
            w.strip_prefix("command-warning command: group ")?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(groups.len(), 3, "{groups:?}");
    // Every process of the three groups was killed. SIGKILL is delivered asynchronously: a
    // killed process may take a moment to finish dying, so each group gets up to 5 s.
    #[cfg(target_os = "linux")]
    {
        let until = Instant::now() + Duration::from_secs(5);
        for g in groups {
            while !running_in_group(g).is_empty() {
                assert!(
                    Instant::now() < until,
                    "group {g} outlived the run: {:?}",
                    running_in_group(g)
                );
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

#[test]
fn http_headers_are_recorded_as_infos() {
    let site = TestServer::start(
        Routes::new().reply(
            "/",
            Reply::html("hi")
                .header("Server", "test-server/1")
                .header("X-Build", "42"),
        ),
    );
    let report = run(config(&site.url("/"), 1).plugin(plugin("http-headers", &[])));
    let infos = &report.entries[0].result.infos;
    assert!(
        infos
            .iter()
            .any(|i| i.starts_with("http-headers: HTTP headers ")
                && i.contains("server=test-server/1")
                && i.contains("x-build=42")),
        "{infos:?}"
    );
}

#[test]
fn cert_expiry_reads_the_certificate_of_a_local_tls_server() {
    let server = tls_server::TlsServer::start("<a href='/page'>p</a>");
    // The test certificate is valid for about ten years: 5000 days of warning catch it.
    let config = config(&server.url("/"), 2)
        .insecure(true)
        .plugin(plugin("cert-expiry", &[("days", "5000")]));
    let report = run(config);
    let warnings: Vec<String> = report
        .entries
        .iter()
        .flat_map(|e| e.result.warnings.iter())
        .filter(|w| w.tag == "cert-expiring")
        .map(|w| w.message.clone())
        .collect();
    assert_eq!(warnings.len(), 1, "once per host: {warnings:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "cert-expiry: The certificate of 127.0.0.1:{} expires on 2036-11-28",
            server.port()
        )),
        "{warnings:?}"
    );
    let quiet = config_days(&server, "30");
    assert!(
        quiet.entries.iter().any(|e| e
            .result
            .infos
            .iter()
            .any(|i| i.contains("valid until 2036-11-28"))),
        "under 30 days of warning the certificate is only noted"
    );
}

fn config_days(server: &tls_server::TlsServer, days: &str) -> Report {
    run(config(&server.url("/"), 1)
        .insecure(true)
        .plugin(plugin("cert-expiry", &[("days", days)])))
}

#[test]
fn cert_expiry_gives_up_on_a_server_that_drips_its_handshake_at_the_runs_timeout() {
    // The check of `/` rides the first connection; the certificate read opens a second one,
    // which gets a byte every 1.5 s: a timeout per read (2 s) alone would never end it.
    let server = tls_server::TlsServer::start_dripping_after_first("no links");
    let timeout = Duration::from_secs(2);
    assert!(tls_server::DRIP_EVERY < timeout);
    // The drip would take hours to deliver its 16 KiB record: the run's return (with the
    // "whole connection" timeout below) is the deadline's doing.
    let report = run(config(&server.url("/"), 1)
        .timeout(timeout)
        .robots(false)
        .insecure(true)
        .plugin(plugin("cert-expiry", &[])));
    let home = entry(&report, &server.url("/"));
    assert!(!home.result.outcome.is_broken(), "{}", home.result.outcome);
    let target = format!("127.0.0.1:{}", server.port());
    assert_eq!(
        home.result.infos,
        [format!(
            "cert-expiry: cannot get the certificate of {target}: TLS handshake with {target}: \
             timed out (2s for the whole connection)"
        )]
    );
    assert_eq!(
        server.connections(),
        2,
        "the check's and the certificate read's"
    );
}

#[test]
fn cert_expiry_reads_the_certificate_through_the_runs_proxy() {
    let server = tls_server::TlsServer::start("no links");
    let proxy = TestProxy::start();
    let report = run(config(&server.url("/"), 1)
        .proxy(proxy.url())
        .user_agent("linkpatrol-proxy-test")
        .insecure(true)
        .plugin(plugin("cert-expiry", &[("days", "5000")])));
    let warnings = tagged_warnings(&report, &server.url("/"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("cert-expiring cert-expiry: The certificate of"),
        "{warnings:?}"
    );
    // Every connection the server accepted came through the proxy: the check's (robots.txt
    // and `/` on one) and the certificate read's.
    let connects = proxy.requests();
    assert_eq!(connects.len(), server.connections(), "{connects:?}");
    assert_eq!(connects.len(), 2, "{connects:?}");
    for r in connects {
        assert_eq!(r.method, "CONNECT");
        assert_eq!(r.target, format!("127.0.0.1:{}", server.port()));
        assert_eq!(r.header("user-agent"), Some("linkpatrol-proxy-test"));
    }
}

#[test]
fn cli_lists_plugins_and_shows_plugin_warnings_in_every_report_format() {
    let out = cli(&["--list-plugins"]);
    assert!(out.status.success());
    let listed = String::from_utf8_lossy(&out.stdout);
    for name in [
        "anchors",
        "regex",
        "cert-expiry",
        "http-headers",
        "command",
        "render-js",
    ] {
        assert!(listed.lines().any(|l| l.starts_with(name)), "{listed}");
    }

    let site = TestServer::start(
        Routes::new()
            .page("/", "<a href='/doc#gone'>x</a>")
            .page("/doc", "<p id=here></p>"),
    );
    let dir = TempDir::new("plugin-formats");
    let mut args: Vec<String> = [
        "--no-status",
        "-q",
        "--max-requests-per-second",
        "0",
        "--plugin",
        "anchors:severity=warning",
    ]
    .map(String::from)
    .to_vec();
    let formats = Format::ALL
        .iter()
        .filter(|f| f.shows_reasons())
        .map(|f| f.name());
    for f in formats.clone() {
        args.push("-F".into());
        args.push(format!("{f}/{}", dir.join(f).display()));
    }
    args.push(site.url("/"));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = cli(&argv);
    assert_exit(&out, 0);
    for f in formats {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(text.contains("anchor-not-found"), "{f}: {text}");
        assert!(text.contains("anchors: Anchor"), "{f}: {text}");
    }

    let bad = cli(&["--plugin", "regex:patern=x", "http://127.0.0.1:9/"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown setting `patern'"));
}

/// A user's plugin, written against the API alone: fails pages without a `<title>` and reports
/// what a services fetch of a page outside the crawl saw.
struct NeedsTitle {
    probe: String,
}

impl Plugin for NeedsTitle {
    fn name(&self) -> &'static str {
        "needs-title"
    }

    fn wants_links(&self) -> bool {
        true
    }

    fn check_content(
        &self,
        content: &linkpatrol::plugin::ContentView<'_>,
        services: &dyn linkpatrol::plugin::Services,
    ) -> Vec<linkpatrol::plugin::Remark> {
        use linkpatrol::plugin::{Remark, Url};
        let mut remarks = vec![Remark::Info(format!("{} links", content.links.len()))];
        if !String::from_utf8_lossy(content.body).contains("<title>") {
            remarks.push(Remark::Broken("no <title>".into()));
        }
        let probe = services.fetch(&Url::parse(&self.probe).unwrap());
        remarks.push(Remark::Info(format!(
            "probe {:?} anchors {:?}",
            probe.status, probe.anchors
        )));
        remarks
    }
}

#[test]
fn a_users_plugin_gives_verdicts_reads_links_and_fetches_through_the_engine_once() {
    let site = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<title>home</title><a href='/bare'>b</a> <a href='/x'>x</a>",
            )
            .page("/bare", "no title here")
            .page("/x", "<title>x</title>")
            .page("/probe", "<p id=p1></p>"),
    );
    let user = NeedsTitle {
        probe: site.url("/probe"),
    };
    let report = run(config(&site.url("/"), 4).plugin(Arc::new(user)));
    let bare = entry(&report, &site.url("/bare"));
    assert_eq!(
        bare.result.outcome.to_string(),
        "plugin: needs-title: no <title>"
    );
    assert_eq!(report.errors(), 1);
    let home = entry(&report, &site.url("/"));
    assert_eq!(
        home.result.infos,
        [
            "needs-title: 2 links",
            "needs-title: probe Some(200) anchors [\"p1\"]"
        ]
    );
    // Three pages asked for the probe; the engine fetched it once.
    assert_eq!(site.count("/probe"), 1);
}

#[test]
fn plugins_from_a_config_file_section_and_key() {
    let site = TestServer::start(
        Routes::new()
            .page("/", "<a href='/doc#gone'>x</a>")
            .page("/doc", "<p>TODO later</p>"),
    );
    let dir = TempDir::new("plugin-config");
    let file = dir.join("linkpatrol.toml");
    std::fs::write(
        &file,
        "plugin = ['regex:pattern=TODO']\n\n[plugins.anchors]\nseverity = 'warning'\n",
    )
    .unwrap();
    let csv = dir.join("out.csv");
    let out = cli_in(
        &dir,
        &[],
        &[
            "-c",
            file.to_str().unwrap(),
            "--no-status",
            "-q",
            "--max-requests-per-second",
            "0",
            "-F",
            &format!("csv/{}", csv.display()),
            &site.url("/"),
        ],
    );
    assert_exit(&out, 0);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(
        text.contains("[anchor-not-found] anchors: Anchor `gone'"),
        "{text}"
    );
    assert!(text.contains("[regex-match] regex: Found `TODO'"), "{text}");

    std::fs::write(&file, "[plugins.regex]\npatern = 'x'\n").unwrap();
    let bad = cli_in(&dir, &[], &["-c", file.to_str().unwrap(), &site.url("/")]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown setting `patern'"));
}
