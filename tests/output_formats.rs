//! The formats for terminals and CI, from the real binary on a folder and a loopback site:
//! compact lines, GitHub Actions commands, the Markdown summary (also as `-F` files), the text
//! report by page and by URL, colour (`--color`, NO_COLOR, a pipe, a terminal), and SARIF
//! locations relative to the working folder (or the checked folder outside it).

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::report_check::assert_valid_sarif;
use crate::support::server::{Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, linkpatrol};

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
