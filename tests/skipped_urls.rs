//! What a run did not check is said: a start URL robots.txt disallows is a `robots-denied`
//! warning shown without `-v`, and the summary counts the URLs not checked by reason
//! (robots.txt, scope, `--exclude`, the start pages `--exclude` left out), in the text and JSON
//! reports and in the library's report.

use regex::Regex;

use crate::support::server::{Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli, cli_in, config, run};

/// The default text report of a run over `args`, and its exit code.
fn text_run(args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["--no-status", "--max-requests-per-second", "0"];
    all.extend_from_slice(args);
    let out = cli(&all);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_start_url_robots_txt_disallows_is_a_warning_and_the_summary_says_so() {
    let site = TestServer::start(
        Routes::new()
            .page("/robots.txt", "User-agent: *\nDisallow: /\n")
            .page("/", "<a href='/broken'>x</a>"),
    );
    let (code, text) = text_run(&[&site.url("/")]);
    // A warning: the exit status stays 0 unless --fail-on-warnings (see docs/src/usage.md).
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("[robots-denied]"), "{text}");
    assert!(
        text.contains("1 URL not checked: 1 disallowed by robots.txt."),
        "{text}"
    );
    assert!(text.contains("1 warning found"), "{text}");
    assert_eq!(site.count("/"), 0, "the page itself was not requested");
    let (code, _) = text_run(&["--fail-on-warnings", &site.url("/")]);
    assert_eq!(code, Some(1));
    let (code, text) = text_run(&["--no-robots", &site.url("/")]);
    assert_eq!(code, Some(1), "checked anyway: /broken is a 404. {text}");
    assert!(!text.contains("not checked"), "{text}");
}

/// A page with links that robots.txt, the scope and an `--exclude` pattern leave unchecked.
fn skipping_site() -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/robots.txt", "User-agent: *\nDisallow: /private/\n")
            .page(
                "/",
                "<a href='/private/a'>a</a> <a href='/private/b'>b</a> \
                 <a href='/private/a'>a again</a> <a href='http://127.0.0.2:9/x'>out</a> \
                 <a href='/skip/1'>s</a> <a href='/ok'>ok</a> <a href='mailto:a@example.com'>m</a>",
            )
            .page("/ok", "fine"),
    )
}

#[test]
fn the_summary_counts_each_url_not_checked_once_by_reason() {
    let site = skipping_site();
    let (code, text) = text_run(&["--internal-only", "--exclude", "/skip/", &site.url("/")]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(
            "4 URLs not checked: 2 disallowed by robots.txt, 1 outside the scope, 1 by --exclude."
        ),
        "{text}"
    );
    // No start URL was refused: no warning.
    assert!(!text.contains("robots-denied"), "{text}");
    // The formats made for terminals and CI end with the same line.
    let said =
        "4 URLs not checked: 2 disallowed by robots.txt, 1 outside the scope, 1 by --exclude.";
    for (format, line) in [
        ("compact", said.to_owned()),
        ("github", format!("::notice title=linkpatrol::{said}")),
        ("markdown", format!("{said}  ")),
    ] {
        let (_, text) = text_run(&[
            "-o",
            format,
            "--internal-only",
            "--exclude",
            "/skip/",
            &site.url("/"),
        ]);
        assert!(text.lines().any(|l| l == line), "{format}: {text}");
    }
    let out = cli(&[
        "--no-status",
        "--max-requests-per-second",
        "0",
        "-o",
        "json",
        "--internal-only",
        "--exclude",
        "/skip/",
        &site.url("/"),
    ]);
    assert_exit(&out, 0);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["summary"]["skipped"],
        serde_json::json!({"robots": 2, "outside_scope": 1, "excluded": 1,
            "not_included": 0, "url_limit": 0, "scheme": 0, "comment": 0, "ignore_file": 0,
            "excluded_starts": 0, "offline": 0})
    );
}

#[test]
fn the_library_counts_the_same_with_one_thread_and_many() {
    let site = skipping_site();
    let skip = Regex::new("/skip/").unwrap();
    for threads in [1, 8] {
        let report = run(config(&site.url("/"), threads)
            .check_external(false)
            .exclude(skip.clone()));
        let s = report.stats.skipped;
        assert_eq!(
            (s.robots, s.outside_scope, s.excluded, s.total()),
            (2, 1, 1, 4),
            "threads={threads}"
        );
    }
}

#[test]
fn an_exclude_that_matches_pages_of_the_checked_folder_says_how_many() {
    let repo = TempDir::new("exclude-start-pages");
    std::fs::create_dir_all(repo.join("docs")).unwrap();
    std::fs::write(repo.join("README.md"), "[a](docs/a.md)\n").unwrap();
    std::fs::write(repo.join("docs/a.md"), "[gone](gone.md)\n").unwrap();
    std::fs::write(repo.join("docs/b.md"), "[gone](gone.md)\n").unwrap();
    for threads in ["1", "8"] {
        let run = |format: &str| {
            let args = ["--no-config", "--no-status", "-t", threads, "-o", format];
            cli_in(
                &repo,
                &[],
                &[&args[..], &["--exclude", "/docs/", "."]].concat(),
            )
        };
        let out = run("text");
        assert_exit(&out, 0);
        let text = String::from_utf8_lossy(&out.stdout);
        // Two pages of the folder were left out (the link to one of them is that URL again).
        assert!(
            text.contains("2 URLs not checked: 2 start pages left out by --exclude."),
            "{text}"
        );
        let json: serde_json::Value = serde_json::from_slice(&run("json").stdout).unwrap();
        assert_eq!(json["summary"]["skipped"]["excluded_starts"], 2, "{json}");
    }
}

/// Exclude patterns and `.linkpatrolignore` apply to every scheme: `^mailto:` drops mail
/// addresses (as in lychee), a bad one included. Without them the bad address is broken.
#[test]
fn exclude_patterns_and_the_ignore_file_drop_mail_addresses() {
    let dir = TempDir::new("skip-mailto");
    std::fs::write(
        dir.join("index.html"),
        "<a href='mailto:not-an-address'>m</a> <a href='mailto:team@example.com'>t</a>",
    )
    .unwrap();
    let folder = dir.to_str().unwrap();
    for threads in ["1", "8"] {
        let plain = cli(&["--no-status", "-t", threads, folder]);
        assert_exit(&plain, 1);
        let excluded = cli(&[
            "--no-status",
            "-t",
            threads,
            "--exclude",
            "^mailto:",
            folder,
        ]);
        assert_exit(&excluded, 0);
        let text = String::from_utf8_lossy(&excluded.stdout);
        assert!(
            text.contains("2 URLs not checked: 2 by --exclude"),
            "{text}"
        );
        std::fs::write(dir.join(".linkpatrolignore"), "^mailto:not-\n").unwrap();
        let ignored = cli_in(&dir, &[], &["--no-status", "-t", threads, "."]);
        assert_exit(&ignored, 0);
        // The checked folder's file, also when the folder is named from elsewhere.
        let ignored = cli(&["--no-status", "-t", threads, folder]);
        assert_exit(&ignored, 0);
        std::fs::remove_file(dir.join(".linkpatrolignore")).unwrap();
    }
}
