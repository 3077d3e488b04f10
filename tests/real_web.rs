//! Servers on loopback that behave like well-known real sites: no false alarm where a browser
//! sees the page, no waiting on a host that is down.

use std::time::Duration;

use linkpatrol::report::Format;
use linkpatrol::{FailKind, Outcome};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, cli_in, config, entry, linkpatrol, run};

const THREADS: [usize; 2] = [1, 8];

/// A server that answers HEAD 404 but GET 200 (a CDN that routes only GET) is fine: a failing
/// HEAD is confirmed with a GET. A link whose HEAD succeeds costs one request, a broken one two.
#[test]
fn a_failing_head_is_confirmed_with_a_get() {
    for threads in THREADS {
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new()
                .dynamic(|req| match (req.method.as_str(), req.path.as_str()) {
                    ("HEAD", "/cdn") => Some(Reply::not_found()),
                    (_, "/cdn") => Some(Reply::html("<title>ok</title>")),
                    _ => None,
                })
                .reply("/ok", Reply::html("ok"))
                .reply("/gone", Reply::not_found())
                .reply("/error", Reply::status(500)),
        );
        let links: String = ["/cdn", "/ok", "/gone", "/error"]
            .iter()
            .map(|p| format!("<a href='{}'>x</a>", external.url(p)))
            .collect();
        let server = TestServer::start(Routes::new().page("/", &links));
        let report = run(config(&server.url("/"), threads).max_retries(0));
        let outcome = |p: &str| entry(&report, &external.url(p)).result.outcome.clone();
        assert_eq!(outcome("/cdn"), Outcome::Ok { status: Some(200) });
        assert_eq!(outcome("/ok"), Outcome::Ok { status: Some(200) });
        assert_eq!(outcome("/gone"), Outcome::Broken { status: 404 });
        assert_eq!(outcome("/error"), Outcome::Broken { status: 500 });
        assert_eq!(external.count_method("HEAD", "/ok"), 1);
        assert_eq!(
            external.count_method("GET", "/ok"),
            0,
            "a working link costs one request"
        );
        for p in ["/cdn", "/gone", "/error"] {
            assert_eq!(external.count_method("HEAD", p), 1, "{p}");
            assert_eq!(
                external.count_method("GET", p),
                1,
                "{p}: one GET to confirm"
            );
        }
    }
}

/// A consent wall: the server sets a cookie and redirects to the same URL, expecting it back.
/// Cookies set during the run are sent on later hops and requests to their host, and never to
/// another one (not even when the server names it in `Domain`).
#[test]
fn cookies_set_during_the_run_are_sent_back_to_their_host_only() {
    for threads in THREADS {
        let other = TestServer::start_on(
            "127.0.0.3",
            Routes::new().reply("/check", Reply::html("ok")),
        );
        let to_other = other.url("/check");
        let external = TestServer::start_on(
            "127.0.0.2",
            Routes::new().dynamic(move |req| {
                let has = |c: &str| {
                    req.header("cookie")
                        .is_some_and(|v| v.split("; ").any(|p| p == c))
                };
                match req.path.as_str() {
                    "/consent" if has("consent=yes") => Some(Reply::html("<title>news</title>")),
                    "/consent" => Some(
                        Reply::redirect(302, "/consent")
                            .header("Set-Cookie", "consent=yes; Path=/; Max-Age=3600"),
                    ),
                    "/login" => Some(
                        Reply::redirect(302, "/members/")
                            .header("Set-Cookie", "sid=42; Path=/members; HttpOnly"),
                    ),
                    "/members/" if has("sid=42") => Some(Reply::html("members")),
                    "/members/" => Some(Reply::status(403)),
                    "/leak" => Some(
                        Reply::redirect(302, &to_other)
                            .header("Set-Cookie", "a=1")
                            .header("Set-Cookie", "b=2; Domain=127.0.0.3"),
                    ),
                    _ => None,
                }
            }),
        );
        let page = format!(
            "<a href='/private'>p</a><a href='{}'>c</a><a href='{}'>l</a><a href='{}'>x</a>",
            external.url("/consent"),
            external.url("/login"),
            external.url("/leak")
        );
        let server = TestServer::start(Routes::new().dynamic(move |req| {
            match req.path.as_str() {
                // The start page sets a cookie that its own links need.
                "/" => Some(Reply::html(page.clone()).header("Set-Cookie", "page=1")),
                "/private" if req.header("cookie") == Some("page=1") => {
                    Some(Reply::html("private"))
                }
                "/private" => Some(Reply::status(403)),
                _ => None,
            }
        }));
        let report = run(config(&server.url("/"), threads).max_retries(0));
        let outcome = |u: &str| entry(&report, u).result.outcome.clone();
        assert_eq!(
            outcome(&server.url("/private")),
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(
            outcome(&external.url("/consent")),
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(
            outcome(&external.url("/login")),
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(
            outcome(&external.url("/leak")),
            Outcome::Ok { status: Some(200) }
        );
        assert_eq!(other.count("/check"), 1);
        for req in other.requests() {
            assert_eq!(req.header("cookie"), None, "{}", req.path);
        }
        for req in external.requests() {
            assert_eq!(req.header("cookie").filter(|c| c.contains("page=")), None);
        }
    }
}

/// A site behind bot walls: Cloudflare's challenge (403 or 503 with `cf-mitigated:
/// challenge`), LinkedIn's 999, and a plain 403 for comparison.
fn walled_site() -> TestServer {
    TestServer::start_on(
        "127.0.0.2",
        Routes::new()
            .reply(
                "/cf",
                Reply::status(403)
                    .header("cf-mitigated", "challenge")
                    .content_type("text/html")
                    .body("<title>Just a moment...</title>"),
            )
            .reply(
                "/cf503",
                Reply::status(503).header("Cf-Mitigated", "challenge"),
            )
            .reply("/in/someone", Reply::status(999))
            .reply("/forbidden", Reply::status(403)),
    )
}

/// One denial per vendor, each with its marker, and the same markers on answers that are the
/// site's own (a 404 through Imperva, a page through Vercel, a plain 403 from an origin).
fn vendor_walls() -> TestServer {
    let denied = |name: &str, value: &str| Reply::status(403).header(name, value);
    TestServer::start_on(
        "127.0.0.2",
        Routes::new()
            .reply(
                "/akamai",
                denied("Server", "AkamaiGHost").body("Access Denied. Reference #18.1"),
            )
            .reply("/imperva", denied("X-Iinfo", "4-123-0 NNNN CT(1 2 0)"))
            .reply("/datadome", denied("X-DataDome", "protected"))
            .reply("/px", denied("Set-Cookie", "_pxhd=abc; path=/"))
            .reply(
                "/aws",
                Reply::status(202).header("x-amzn-waf-action", "challenge"),
            )
            .reply(
                "/vercel",
                Reply::status(429).header("x-vercel-mitigated", "challenge"),
            )
            .reply("/sucuri", denied("X-Sucuri-ID", "11005"))
            .reply(
                "/imperva-404",
                Reply::not_found().header("X-Iinfo", "1-2-3"),
            )
            .reply(
                "/vercel-page",
                Reply::html("ok").header("x-vercel-mitigated", "challenge"),
            )
            .reply("/origin-403", denied("Server", "nginx")),
    )
}

#[test]
fn bot_walls_name_their_vendor() {
    let vendors = [
        ("/akamai", 403, "Akamai access denial"),
        ("/imperva", 403, "Imperva (Incapsula) bot protection"),
        ("/datadome", 403, "DataDome bot protection"),
        ("/px", 403, "PerimeterX (HUMAN) bot protection"),
        ("/aws", 202, "AWS WAF bot control"),
        ("/vercel", 429, "Vercel firewall challenge"),
        ("/sucuri", 403, "Sucuri website firewall"),
    ];
    for threads in THREADS {
        let site = vendor_walls();
        let mut paths: Vec<&str> = vendors.iter().map(|v| v.0).collect();
        paths.extend(["/imperva-404", "/vercel-page", "/origin-403"]);
        let start = links_to(&site, &paths);
        let report = run(config(&start.url("/"), threads).max_retries(1));
        let outcome = |p: &str| entry(&report, &site.url(p)).result.outcome.clone();
        for (path, status, reason) in vendors {
            assert_eq!(
                outcome(path),
                Outcome::Blocked {
                    status,
                    reason: reason.into()
                },
                "{path} with {threads} threads"
            );
        }
        assert_eq!(outcome("/imperva-404"), Outcome::Broken { status: 404 });
        assert_eq!(outcome("/vercel-page"), Outcome::Ok { status: Some(200) });
        assert_eq!(outcome("/origin-403"), Outcome::Broken { status: 403 });
        assert_eq!(report.stats.blocked, vendors.len());
    }
}

fn links_to(site: &TestServer, paths: &[&str]) -> TestServer {
    let page: String = paths
        .iter()
        .map(|p| format!("<a href='{}'>x</a>", site.url(p)))
        .collect();
    TestServer::start(Routes::new().page("/", &page))
}

/// Bot walls are a class of their own: not valid, not broken, counted and named, and they fail
/// the run only when asked to.
#[test]
fn bot_walls_are_blocked_not_broken() {
    for threads in THREADS {
        let site = walled_site();
        let start = links_to(&site, &["/cf", "/cf503", "/in/someone", "/forbidden"]);
        let report = run(config(&start.url("/"), threads).max_retries(2));
        let outcome = |p: &str| entry(&report, &site.url(p)).result.outcome.clone();
        let blocked = |status: u16, reason: &str| Outcome::Blocked {
            status,
            reason: reason.into(),
        };
        assert_eq!(outcome("/cf"), blocked(403, "Cloudflare bot challenge"));
        assert_eq!(outcome("/cf503"), blocked(503, "Cloudflare bot challenge"));
        assert_eq!(
            outcome("/in/someone"),
            blocked(999, "non-standard status 999, LinkedIn's bot denial")
        );
        assert_eq!(outcome("/forbidden"), Outcome::Broken { status: 403 });
        let e = entry(&report, &site.url("/cf"));
        assert!(!e.result.outcome.is_broken());
        assert!(
            e.warnings().any(|w| w.tag == "blocked"),
            "{:?}",
            e.result.warnings
        );
        assert_eq!(
            site.count("/cf503"),
            2,
            "a challenge is not an overload: HEAD and one GET, no retries"
        );
        assert_eq!(report.errors(), 1);
        assert_eq!(report.failing, 1);
        assert_eq!(report.stats.blocked, 3);
        assert_eq!(report.stats.blocked_hosts, ["127.0.0.2"]);
        let strict = run(config(&start.url("/"), threads).fail_on_blocked(true));
        assert_eq!(strict.failing, 4);
        assert_eq!(strict.errors(), 1);
    }
}

/// Every format shows a blocked link; the exit status stays 0 unless --fail-on-blocked (or
/// the config key) asks otherwise.
#[test]
fn every_format_shows_blocked_links_and_only_the_option_fails_on_them() {
    let site = walled_site();
    let start = links_to(&site, &["/cf", "/in/someone"]);
    let url = start.url("/");
    let run_with = |args: &[&str]| {
        let out = linkpatrol()
            .args(["--no-status", "--max-requests-per-second", "0", &url])
            .args(args)
            .output()
            .expect("the binary runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    for format in Format::ALL
        .iter()
        .filter(|f| f.shows_reasons())
        .map(|f| f.name())
    {
        let (code, out) = run_with(&["-o", format]);
        assert_eq!(code, Some(0), "{format}: {out}");
        assert!(out.contains("Cloudflare bot challenge"), "{format}: {out}");
        assert!(out.contains("LinkedIn"), "{format}: {out}");
        if matches!(format, "text" | "compact" | "github" | "markdown" | "html") {
            assert!(
                out.contains(
                    "links could not be verified: blocked by bot protection on host 127.0.0.2"
                ),
                "{format}: {out}"
            );
        }
    }
    let (_, json) = run_with(&["-o", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let cf = doc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["url"] == site.url("/cf"))
        .unwrap();
    assert_eq!(cf["state"], "blocked");
    assert_eq!(cf["blocked"], "Cloudflare bot challenge");
    assert_eq!(cf["status"], 403);
    assert_eq!(doc["summary"]["blocked"], 2);
    assert_eq!(doc["summary"]["blocked_hosts"][0], "127.0.0.2");
    let (_, junit) = run_with(&["-o", "junit"]);
    assert!(
        junit.contains("<skipped message=\"blocked: 403 Forbidden (Cloudflare bot challenge)\""),
        "{junit}"
    );
    assert_eq!(run_with(&["--fail-on-blocked"]).0, Some(1));
    let dir = TempDir::new("fail-on-blocked");
    let config = dir.join("linkpatrol.toml");
    std::fs::write(&config, "fail-on-blocked = true\n").unwrap();
    // No --no-config here: the file is the user's choice.
    let out = cli_in(
        &dir,
        &[],
        &["--no-status", "--config", config.to_str().unwrap(), &url],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

/// A redirect that ends on a login page gets a `login-redirect` warning (a private page, not a
/// moved one); a plain move and a link straight to the login page do not.
#[test]
fn a_redirect_to_a_login_page_is_told_apart_from_a_move() {
    for threads in THREADS {
        let site = TestServer::start_on(
            "127.0.0.2",
            Routes::new()
                .reply("/private", Reply::redirect(302, "/login?next=/private"))
                .reply("/moved", Reply::redirect(301, "/new"))
                .reply("/new", Reply::html("new"))
                .reply("/login", Reply::html("<form>password</form>")),
        );
        let start = links_to(&site, &["/private", "/moved", "/login?next=/x"]);
        let report = run(config(&start.url("/"), threads));
        let tags = |p: &str| -> Vec<&str> {
            entry(&report, &site.url(p))
                .warnings()
                .map(|w| w.tag)
                .collect()
        };
        assert_eq!(tags("/private"), ["http-redirected", "login-redirect"]);
        assert_eq!(tags("/moved"), ["http-redirected"]);
        assert!(tags("/login?next=/x").is_empty());
        let e = entry(&report, &site.url("/private"));
        assert_eq!(e.result.outcome, Outcome::Ok { status: Some(200) });
        let w = e.warnings().find(|w| w.tag == "login-redirect").unwrap();
        assert!(w.message.contains("needs a login"), "{}", w.message);
    }
    let site = TestServer::start_on(
        "127.0.0.2",
        Routes::new()
            .reply("/private", Reply::redirect(302, "/users/sign_in"))
            .reply("/users/sign_in", Reply::html("login")),
    );
    let start = links_to(&site, &["/private"]);
    for format in ["compact", "json", "sarif", "csv", "markdown"] {
        let out = linkpatrol()
            .args([
                "--no-status",
                "--max-requests-per-second",
                "0",
                "-o",
                format,
            ])
            .arg(start.url("/"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("login-redirect"), "{format}: {text}");
        assert_eq!(out.status.code(), Some(0), "{format}");
    }
}

/// A port on 127.0.0.1 where nothing listens: a connection to it is refused at once.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// 200 links to three hosts that refuse connections: each host is tried once (its robots.txt;
/// or once per worker racing for it), and its other URLs fail at once with the same error, saying so. The
/// summary names the hosts.
#[test]
fn a_host_that_refuses_connections_is_tried_once() {
    for threads in THREADS {
        let ports = [closed_port(), closed_port(), closed_port()];
        let links: String = (0..200)
            .map(|i| format!("<a href='http://127.0.0.1:{}/p{i}'>x</a>", ports[i % 3]))
            .collect();
        let start = TestServer::start(Routes::new().page("/", &links));
        let report = run(config(&start.url("/"), threads).max_retries(2));
        let dead: Vec<_> = report
            .entries
            .iter()
            .filter(|e| e.referrer.is_some())
            .collect();
        assert_eq!(dead.len(), 200);
        let mut not_requested = 0;
        for e in &dead {
            let Outcome::Failed { kind, message } = &e.result.outcome else {
                panic!("{:?}", e.result.outcome)
            };
            assert_eq!(*kind, FailKind::Connect, "{message}");
            if message.contains("(not requested: host 127.0.0.1:") {
                assert!(
                    message.contains(" unreachable, as for URL http://127.0.0.1:"),
                    "{message}"
                );
                not_requested += 1;
            }
        }
        for port in ports {
            let key = format!("127.0.0.1:{port}");
            let host = report
                .hosts
                .iter()
                .find(|h| h.host == key)
                .unwrap_or_else(|| panic!("{key}: {:?}", report.hosts));
            assert!(
                (1..=threads as u64).contains(&host.requests),
                "{key}: {} requests with {threads} threads",
                host.requests
            );
            assert!(
                host.unreachable
                    .as_deref()
                    .is_some_and(|u| u.starts_with("connect: "))
            );
        }
        let tried: u64 = report
            .hosts
            .iter()
            .filter(|h| h.unreachable.is_some())
            .map(|h| h.requests)
            .sum();
        // Each host's robots.txt is its first request (a failed one allows every URL).
        assert_eq!(not_requested as u64, 200 - (tried - 3));
    }
    let ports = [closed_port(), closed_port()];
    let links: String = ports
        .iter()
        .map(|p| {
            format!("<a href='http://127.0.0.1:{p}/a'>a</a><a href='http://127.0.0.1:{p}/b'>b</a>")
        })
        .collect();
    let start = TestServer::start(Routes::new().page("/", &links));
    let out = linkpatrol()
        .args([
            "--no-status",
            "--max-requests-per-second",
            "0",
            "-t",
            "1",
            &start.url("/"),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("2 hosts unreachable, their other URLs not requested: 127.0.0.1:"),
        "{text}"
    );
    for p in ports {
        assert!(
            text.contains(&format!("127.0.0.1:{p} (connect: ")),
            "{text}"
        );
    }
}

/// A host that accepts connections and never answers gets a couple of probes, each timing out
/// (after its retries; a HEAD then confirmed by a GET), before it is given up: its other URLs
/// are not requested.
#[test]
fn a_host_that_never_answers_gets_a_couple_of_probes() {
    for threads in [1, 4] {
        let hanging = TestServer::start_on("127.0.0.2", Routes::new().fallback(Reply::hang()));
        let links: String = (0..20)
            .map(|i| format!("<a href='{}'>x</a>", hanging.url(&format!("/p{i}"))))
            .collect();
        let start = TestServer::start(Routes::new().page("/", &links));
        let report = run(config(&start.url("/"), threads)
            .timeout(Duration::from_millis(300))
            .max_retries(0));
        let requests = hanging.requests();
        // The host's robots.txt was its first request.
        let probed: std::collections::BTreeSet<&str> = requests
            .iter()
            .map(|r| r.path_only())
            .filter(|p| *p != "/robots.txt")
            .collect();
        if threads == 1 {
            let methods: Vec<&str> = requests.iter().map(|r| r.method.as_str()).collect();
            assert_eq!(
                methods,
                ["GET", "HEAD", "GET"],
                "two probes, then the host is given up"
            );
        } else {
            assert!((1..=2 * threads).contains(&probed.len()), "{requests:#?}");
        }
        let not_requested = report
            .entries
            .iter()
            .filter(|e| match &e.result.outcome {
                Outcome::Failed {
                    kind: FailKind::Timeout,
                    message,
                } => message.contains("(not requested: host 127.0.0.2:"),
                _ => false,
            })
            .count();
        assert_eq!(not_requested, 20 - probed.len());
    }
}

/// A fake of the Wayback Machine's availability API: a snapshot for URLs ending in `/gone`,
/// none for others.
fn fake_archive() -> TestServer {
    TestServer::start_on(
        "127.0.0.3",
        Routes::new().dynamic(|req| {
            if req.path_only() != "/wayback/available" {
                return None;
            }
            let asked = req
                .query()
                .and_then(|q| q.strip_prefix("url="))
                .map(|u| u.replace("%3A", ":").replace("%2F", "/"))
                .unwrap_or_default();
            let body = if asked.ends_with("/gone") {
                format!(
                    r#"{{"url": "{asked}", "archived_snapshots": {{"closest": {{"status": "200",
                    "available": true, "url": "http://web.archive.test/web/20200101000000/{asked}",
                    "timestamp": "20200101000000"}}}}}}"#
                )
            } else {
                format!(r#"{{"url": "{asked}", "archived_snapshots": {{}}}}"#)
            };
            Some(
                Reply::status(200)
                    .content_type("application/json")
                    .body(body),
            )
        }),
    )
}

/// `--suggest` asks the archive once per broken http(s) URL, and only then, and shows the
/// closest snapshot; without it nothing is looked up.
#[test]
fn suggest_asks_the_archive_for_each_broken_link_only() {
    for threads in THREADS {
        let archive = fake_archive();
        let site = TestServer::start_on(
            "127.0.0.2",
            Routes::new()
                .reply("/ok", Reply::html("ok"))
                .reply("/gone", Reply::not_found())
                .reply("/missing", Reply::not_found()),
        );
        let start = links_to(&site, &["/ok", "/gone", "/missing"]);
        let endpoint = archive.url("/wayback/available");
        let plain = run(config(&start.url("/"), threads));
        assert_eq!(entry(&plain, &site.url("/gone")).result.suggestion, None);
        assert!(
            archive.requests().is_empty(),
            "nothing is looked up without --suggest"
        );
        let cfg = config(&start.url("/"), threads)
            .suggest(true)
            .archive_url(&endpoint)
            .unwrap();
        let report = run(cfg);
        let suggestion = |p: &str| entry(&report, &site.url(p)).result.suggestion.clone();
        assert_eq!(
            suggestion("/gone"),
            Some(format!(
                "http://web.archive.test/web/20200101000000/{}",
                site.url("/gone")
            ))
        );
        assert_eq!(suggestion("/missing"), None);
        assert_eq!(suggestion("/ok"), None);
        let mut asked: Vec<String> = archive.requests().iter().map(|r| r.path.clone()).collect();
        asked.sort();
        let query = |p: &str| {
            format!(
                "/wayback/available?url={}",
                site.url(p).replace(':', "%3A").replace('/', "%2F")
            )
        };
        assert_eq!(
            asked,
            [query("/gone"), query("/missing")],
            "one lookup per broken URL"
        );
    }
}

/// The suggestion shows in every format that lists broken links, and CSV gets a last column.
#[test]
fn every_format_shows_the_archived_copy() {
    let archive = fake_archive();
    let site = TestServer::start_on(
        "127.0.0.2",
        Routes::new().reply("/gone", Reply::not_found()),
    );
    let start = links_to(&site, &["/gone"]);
    let endpoint = archive.url("/wayback/available");
    let snapshot = format!(
        "http://web.archive.test/web/20200101000000/{}",
        site.url("/gone")
    );
    for format in [
        "text", "compact", "github", "markdown", "csv", "json", "ndjson", "html",
    ] {
        let out = linkpatrol()
            .args([
                "--no-status",
                "--max-requests-per-second",
                "0",
                "-o",
                format,
            ])
            .args(["--suggest", "--archive-url", &endpoint, &start.url("/")])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{format}: {text}");
        assert!(text.contains(&snapshot), "{format}: {text}");
        if format == "csv" {
            let header = text.lines().next().unwrap();
            assert!(
                header.ends_with(";modified;from_state;suggestion"),
                "{header}"
            );
            let row = text.lines().nth(1).unwrap();
            assert!(row.ends_with(&format!(";{snapshot}")), "{row}");
        }
    }
    let out = linkpatrol()
        .args(["--no-status", "-o", "csv", &start.url("/")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .ends_with(";modified;from_state"),
        "{text}"
    );
}
