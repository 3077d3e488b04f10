//! Text that pages and files choose, in every report and message: no escape sequence or forged
//! line where a terminal shows it, nothing XML 1.0 cannot carry in the XML reports.

use std::process::Output;

use linkpatrol::report::{Format, Syntax};

use crate::support::report_check::assert_well_formed;
use crate::support::server::{Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, cli, cli_in};

/// A link text that sets the terminal's title and turns its text red.
const TITLE_AND_RED: &str = "\u{1b}]0;TITLE\u{7}\u{1b}[31mRED";
/// The same, as the reports spell it.
const TITLE_AND_RED_SHOWN: &str = r"\e]0;TITLE\u{7}\e[31mRED";
/// A summary line a page would like the reader to see instead of ours.
const FORGED: &str = "That's it. 1 link checked, 0 errors found";

/// A page whose links carry terminal sequences and line breaks in their text and hrefs: a
/// broken link named with escapes, an href with a line break before a forged summary, a padded
/// href with an ESC (its `url-whitespace` warning quotes it), an href no URL parser takes (it
/// is reported as written), and a name with a C1 control and a right-to-left override.
fn hostile_site() -> TestServer {
    TestServer::start(Routes::new().page(
        "/",
        &format!(
            "<a href=\"/missing\">{TITLE_AND_RED}</a>\n\
             <a href=\"x&#10;{FORGED}\">forged</a>\n\
             <a href=\" /pad&#27;[2J \">padded</a>\n\
             <a href=\"http://[&#27;]0;TITLE&#7;/&#10;{FORGED}\">unparsable</a>\n\
             <a href=\"/c1\">\u{9b}31m C1 \u{202e}override</a>\n"
        ),
    ))
}

/// Runs the binary on `site` with `-o format` and `extra` flags; exit status 1 (broken links).
fn report(site: &TestServer, format: &str, extra: &[&str]) -> String {
    let url = site.url("/");
    let mut args = vec![
        "--no-status",
        "--max-requests-per-second",
        "0",
        "-o",
        format,
    ];
    args.extend_from_slice(extra);
    args.push(&url);
    let out = cli(&args);
    assert_exit(&out, 1);
    assert_terminal_safe(&format!("-o {format} {extra:?} stderr"), &out.stderr);
    assert_terminal_safe(&format!("-o {format} {extra:?}"), &out.stdout);
    String::from_utf8(out.stdout).unwrap()
}

/// No byte a terminal acts on: no control character but the line feed, no C1 control, no
/// Unicode line separator or bidirectional override.
#[track_caller]
fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    assert!(
        !bytes.contains(&0x1b) && !bytes.contains(&0x07),
        "{what}: raw ESC or BEL:\n{}",
        String::from_utf8_lossy(bytes)
    );
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text
        .chars()
        .filter(|&c| c != '\n' && linkpatrol::report::is_control(c))
        .collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} in:\n{text}");
}

/// No line starts with the forged summary.
#[track_caller]
fn assert_no_forged_line(what: &str, text: &str) {
    assert!(
        !text.lines().any(|l| l.starts_with(FORGED)),
        "{what}: a forged line:\n{text}"
    );
}

#[test]
fn the_text_report_spells_out_what_pages_wrote() {
    let site = hostile_site();
    // LinkChecker's layout (by URL), where every field has its line.
    for extra in [&["--group-by", "url"][..], &["--group-by", "url", "-v"][..]] {
        let text = report(&site, "text", extra);
        assert_no_forged_line("text", &text);
        let summaries: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("That's it."))
            .collect();
        assert_eq!(summaries.len(), 1, "one summary line, ours: {text}");
        assert!(summaries[0].contains(" links in "), "{}", summaries[0]);
        // Each hostile field was printed, spelled out, on its own line.
        for shown in [
            format!("Name       `{TITLE_AND_RED_SHOWN}'"),
            format!("URL        `x\\n{FORGED}'"),
            "Warning    [url-whitespace] URL `/pad\\e[2J' has whitespace".to_owned(),
            "Name       `\\u{9b}31m C1 \\u{202e}override'".to_owned(),
            format!("URL        `http://[\\e]0;TITLE\\u{{7}}/\\n{FORGED}'"),
        ] {
            assert!(
                text.lines().any(|l| l.starts_with(&shown)),
                "{extra:?}: no line starts with {shown:?}:\n{text}"
            );
        }
    }
}

#[test]
fn the_text_report_by_page_spells_out_what_pages_wrote() {
    let site = hostile_site();
    for extra in [&[][..], &["-v"][..]] {
        let text = report(&site, "text", extra);
        assert_no_forged_line("text by page", &text);
        let summaries = text.lines().filter(|l| l.starts_with("That's it.")).count();
        assert_eq!(summaries, 1, "one summary line, ours: {text}");
        for shown in [
            format!("`x\\n{FORGED}'"),
            format!("`http://[\\e]0;TITLE\\u{{7}}/\\n{FORGED}'"),
        ] {
            assert!(
                text.lines().any(|l| l.trim_start().contains(&shown)),
                "{extra:?}: no line shows {shown:?}:\n{text}"
            );
        }
    }
}

#[test]
fn colour_codes_are_ours_only() {
    let site = hostile_site();
    for format in ["text", "compact"] {
        let url = site.url("/");
        let out = cli(&[
            "--no-status",
            "--max-requests-per-second",
            "0",
            "--color",
            "always",
            "-o",
            format,
            &url,
        ]);
        assert_exit(&out, 1);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("\x1b[31m"), "{format}: no red:\n{text}");
        // Without our own codes (red, yellow, bold, reset), nothing a terminal acts on is left:
        // every ESC a page wrote is spelled out.
        let mut plain = text.clone();
        for code in ["\x1b[31m", "\x1b[33m", "\x1b[1m", "\x1b[0m"] {
            plain = plain.replace(code, "");
        }
        assert_terminal_safe(&format!("-o {format} --color always"), plain.as_bytes());
        assert_no_forged_line(format, &plain);
    }
}

#[test]
fn the_failures_list_has_one_url_per_line() {
    let site = hostile_site();
    let text = report(&site, "failures", &[]);
    assert_no_forged_line("failures", &text);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().all(|l| l.starts_with("http://")), "{text}");
    // The link no parser takes is listed as written, with URL escapes for its controls.
    let unparsable = format!("http://[%1B]0;TITLE%07/%0A{FORGED}");
    assert!(lines.contains(&unparsable.as_str()), "{text}");
    assert!(lines.contains(&site.url("/pad%1B[2J").as_str()), "{text}");
}

#[test]
fn an_error_message_spells_out_the_input_it_quotes() {
    // A URL list from a checked-out folder: its bad line is quoted in the one-line error.
    let dir = TempDir::new("untrusted-input-list");
    std::fs::write(
        dir.join("urls.txt"),
        format!("http://[{TITLE_AND_RED}\rThat's it.\n"),
    )
    .unwrap();
    let out: Output = cli_in(&dir, &[], &["--no-config", "--input-file", "urls.txt"]);
    assert_exit(&out, 2);
    assert_terminal_safe("stderr", &out.stderr);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("`http://[{TITLE_AND_RED_SHOWN}\\rThat's it.'")),
        "{err}"
    );
}

#[test]
fn csv_cells_spell_out_what_pages_wrote() {
    let site = hostile_site();
    let text = report(&site, "csv", &["-v"]);
    assert_no_forged_line("csv", &text);
    let rows = crate::support::util::csv_records(text.as_bytes());
    let named = |name: &str| rows.iter().any(|r| &r[10] == name);
    assert!(named(TITLE_AND_RED_SHOWN), "{rows:#?}");
    assert!(
        rows.iter().any(|r| r[0] == format!("x\\n{FORGED}")),
        "{rows:#?}"
    );
    // --csv-raw writes the cells as found.
    let url = site.url("/");
    let out = cli(&[
        "--no-status",
        "--max-requests-per-second",
        "0",
        "-o",
        "csv",
        "--csv-raw",
        &url,
    ]);
    assert_exit(&out, 1);
    let rows = crate::support::util::csv_records(&out.stdout);
    assert!(rows.iter().any(|r| &r[10] == TITLE_AND_RED), "{rows:#?}");
}

/// Every format's name, each written to a file by one run.
fn formats() -> impl Iterator<Item = &'static str> {
    Format::ALL.iter().map(|f| f.name())
}

#[test]
fn no_report_format_writes_a_control_character_a_page_chose() {
    let site = hostile_site();
    let dir = TempDir::new("untrusted-every-format");
    let mut args: Vec<String> = ["--no-status", "--max-requests-per-second", "0"]
        .map(String::from)
        .to_vec();
    args.extend(["-q".into(), "-v".into()]);
    for f in formats() {
        args.push("-F".into());
        args.push(format!("{f}/{}", dir.join(format!("out.{f}")).display()));
    }
    args.push(site.url("/"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = cli(&args);
    assert_exit(&out, 1);
    let read = |f: &str| std::fs::read(dir.join(format!("out.{f}"))).unwrap();
    for format in Format::ALL {
        let f = format.name();
        let bytes = read(f);
        assert!(!bytes.is_empty(), "{f} written");
        assert_well_formed(*format, &bytes);
        assert!(
            !bytes.contains(&0x1b) && !bytes.contains(&0x07),
            "{f}: raw ESC or BEL:\n{}",
            String::from_utf8_lossy(&bytes)
        );
    }
    // The formats meant for terminals and line tools carry no control character at all.
    for format in Format::ALL {
        if matches!(
            format.syntax(),
            Syntax::Text | Syntax::Csv | Syntax::Json | Syntax::JsonLines
        ) {
            assert_terminal_safe(format.name(), &read(format.name()));
        }
    }
    // JSON escapes rather than drops: the name reads back as the page wrote it.
    let json: serde_json::Value = serde_json::from_slice(&read("json")).unwrap();
    let names: Vec<&str> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(names.contains(&TITLE_AND_RED), "{names:?}");
    assert!(
        names.contains(&"\u{9b}31m C1 \u{202e}override"),
        "{names:?}"
    );
    // The XML reports are well-formed XML 1.0: only tab, line feed and carriage return below
    // U+0020, never U+FFFE or U+FFFF; what XML cannot carry is shown as U+FFFD.
    for format in Format::ALL.iter().filter(|f| f.syntax() == Syntax::Xml) {
        let f = format.name();
        let text = String::from_utf8(read(f)).unwrap();
        let illegal: Vec<char> = text
            .chars()
            .filter(|&c| {
                (c < ' ' && !matches!(c, '\t' | '\n' | '\r'))
                    || matches!(c, '\u{fffe}' | '\u{ffff}')
            })
            .collect();
        assert!(illegal.is_empty(), "{f}: {illegal:?}");
    }
    let junit = String::from_utf8(read("junit")).unwrap();
    assert!(
        junit.contains("\u{fffd}]0;TITLE\u{fffd}\u{fffd}[31mRED"),
        "the hostile name is in the JUnit report: {junit}"
    );
}
