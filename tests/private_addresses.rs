//! A check of public sites does not request loopback, private or link-local addresses, in
//! whatever spelling a page gives them, unless `--allow-private`; `--exclude-loopback` (and
//! its siblings) leave them out whatever the start sites, also at the end of a redirect. The
//! "public" start site here is a document given in memory with a TEST-NET base URL
//! (192.0.2.1), which is never contacted; no name is looked up but `localhost`.

use linkpatrol::{Config, Outcome, Report};

use crate::support::proxy::TestProxy;
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, config, csv_run_in, run};

/// The spellings of the loopback server's address a page may use, each with its own path.
fn spellings(port: u16) -> Vec<String> {
    [
        "127.0.0.1",
        "0x7f.1",
        "2130706433",
        "0177.0.0.1",
        "127.1",
        "[::ffff:127.0.0.1]",
        "localhost",
        "0.0.0.0",
    ]
    .iter()
    .enumerate()
    .map(|(i, host)| format!("http://{host}:{port}/p{i}"))
    .collect()
}

/// A public page (never fetched: given in memory) linking the server in every spelling.
fn public_page(server: &TestServer, threads: usize) -> Config {
    let links: String = spellings(server.addr().port())
        .iter()
        .map(|u| format!("<a href='{u}'>x</a>\n"))
        .collect();
    Config::new()
        .input_html(links, "http://192.0.2.1/index.html")
        .proxy_from_env(false)
        .threads(threads)
        .max_requests_per_second(0.0)
        .max_retries(0)
}

fn loopback_server() -> TestServer {
    TestServer::start(Routes::new().dynamic(|_| Some(Reply::html("<p>inside</p>"))))
}

fn ignored(report: &Report) -> Vec<String> {
    report
        .entries
        .iter()
        .filter_map(|e| match &e.result.outcome {
            Outcome::Ignored { reason } => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_public_site_links_to_local_addresses_are_not_requested() {
    for threads in [1, 8] {
        let server = loopback_server();
        let report = run(public_page(&server, threads));
        assert!(server.requests().is_empty(), "{:?}", server.requests());
        let reasons = ignored(&report);
        assert_eq!(reasons.len(), spellings(0).len(), "{reasons:?}");
        assert!(
            reasons.iter().all(|r| r.contains("a loopback address")),
            "{reasons:?}"
        );
        assert_eq!(report.failing, 0, "not checked is not broken");
        // Asked for, they are requested.
        let report = run(public_page(&server, threads).allow_private(true));
        assert!(ignored(&report).is_empty(), "{:?}", ignored(&report));
        assert!(server.count("/p0") == 1 && server.count("/p6") == 1);
    }
}

#[test]
fn remap_rules_send_a_public_sites_links_to_a_local_server() {
    let server = loopback_server();
    let page = "<a href='http://192.0.2.1/staged'>s</a>";
    let rule =
        linkpatrol::Remap::parse(&format!(r"^http://192\.0\.2\.1/ {}", server.url("/"))).unwrap();
    let report = run(Config::new()
        .input_html(page, "http://192.0.2.1/index.html")
        .proxy_from_env(false)
        .max_requests_per_second(0.0)
        .remap(rule));
    assert!(ignored(&report).is_empty(), "{:?}", ignored(&report));
    assert_eq!(server.count("/staged"), 1);
}

#[test]
fn a_local_start_site_may_link_to_local_addresses() {
    let other = loopback_server();
    let start =
        TestServer::start(Routes::new().page("/", &format!("<a href='{}'>o</a>", other.url("/x"))));
    let report = run(config(&start.url("/"), 2));
    assert!(ignored(&report).is_empty());
    assert_eq!(other.count("/x"), 1);
}

#[test]
fn exclude_loopback_leaves_out_links_and_redirects_but_not_the_start_site() {
    let other = loopback_server();
    let start = TestServer::start(
        Routes::new()
            .page(
                "/",
                &format!(
                    "<a href='/r'>r</a> <a href='{}'>direct</a> <a href='/own'>own</a>",
                    other.url("/y")
                ),
            )
            .page("/own", "own")
            .reply("/r", Reply::redirect(302, &other.url("/x"))),
    );
    let dir = TempDir::new("exclude-loopback");
    for flag in ["--exclude-loopback", "--exclude-private"] {
        let out = csv_run_in(&dir, &[flag, &start.url("/")]);
        assert_exit(&out, 0);
    }
    // --exclude-private alone is not about loopback: the other server was asked then.
    let asked = other.requests().len();
    assert!(asked >= 1);
    let out = csv_run_in(&dir, &["--exclude-loopback", &start.url("/")]);
    assert_exit(&out, 0);
    assert_eq!(
        other.requests().len(),
        asked,
        "nothing more asked of the other host"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("a loopback address, not requested"), "{text}");
    // The start site's own pages and its redirect were requested.
    assert_eq!(start.count("/own"), 3);
    assert_eq!(start.count("/r"), 3);
}

/// A proxy (`HTTP_PROXY` on a corporate CI runner) would connect wherever it is asked, the
/// metadata service included: a link to a refused address, as a literal or as a name that
/// resolves to one, is refused before the proxy is asked, exactly as without a proxy. The
/// proxy here refuses every request and connects nowhere; only the public link reaches it.
#[test]
fn a_proxy_is_never_asked_for_a_refused_address() {
    let refused = [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://100.100.100.200/latest/meta-data/",
        "http://10.0.0.1/admin",
        "http://localhost:9/x",
        "http://127.1:9/y",
    ];
    for threads in [1, 8] {
        let proxy = TestProxy::refusing();
        let links: String = refused
            .iter()
            .chain(&["http://192.0.2.2/public"])
            .map(|u| format!("<a href='{u}'>x</a>\n"))
            .collect();
        let report = run(Config::new()
            .input_html(links, "http://192.0.2.1/index.html")
            .proxy(proxy.url())
            .threads(threads)
            .max_requests_per_second(0.0)
            .max_retries(0));
        let targets = proxy.targets();
        assert!(
            !targets.is_empty() && targets.iter().all(|t| t == "192.0.2.2:80"),
            "{threads} threads: the proxy is asked for the public link only: {targets:?}"
        );
        let reasons = ignored(&report);
        assert_eq!(
            reasons.len(),
            refused.len(),
            "{threads} threads: {reasons:?}"
        );
        for class in [
            "a link-local address",
            "a cloud metadata address",
            "a private address",
            "a loopback address",
        ] {
            assert!(
                reasons.iter().any(|r| r.contains(class)),
                "{threads} threads: {class}: {reasons:?}"
            );
        }
    }
}
