//! Where reports go: a bad `-F` fails before any file is truncated; a closed stdout (`| head`)
//! neither hides broken links from the exit status nor prints an error or a panic; nor does
//! a stderr that takes nothing (a full disk, a closed pipe); a report that cannot be written
//! whole leaves the previous one in place and names its file.

use std::io::Read;
use std::process::{Command, Stdio};

use crate::support::util::{TempDir, cli, linkpatrol, without_machine_settings};

#[test]
fn a_failing_second_file_output_truncates_nothing() {
    let dir = TempDir::new("bad-second-output");
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<a href='gone.html'>x</a>").unwrap();
    let kept = dir.join("kept.csv");
    std::fs::write(&kept, "yesterday's report\n").unwrap();
    let fresh = dir.join("fresh.csv");
    let bad = dir.join("no-such-folder/out.txt");
    let out = cli(&[
        "--no-status",
        "-F",
        &format!("csv/{}", kept.display()),
        "-F",
        &format!("csv/{}", fresh.display()),
        "-F",
        &format!("text/{}", bad.display()),
        site.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no-such-folder/out.txt"), "{stderr}");
    assert!(out.stdout.is_empty(), "the run did not start");
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap(),
        "yesterday's report\n"
    );
    assert!(
        !fresh.exists(),
        "a file created for the run is removed again"
    );

    // the same file twice is refused too, before anything is written
    let out = cli(&[
        "--no-status",
        "-F",
        &format!("csv/{}", kept.display()),
        "-F",
        &format!("text/{}", kept.display()),
        site.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap(),
        "yesterday's report\n"
    );

    // and when every output opens, the old contents are replaced
    let out = cli(&[
        "--no-status",
        "-q",
        "-F",
        &format!("csv/{}", kept.display()),
        site.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let csv = std::fs::read_to_string(&kept).unwrap();
    assert!(
        csv.starts_with("urlname;") && csv.contains("gone.html"),
        "{csv}"
    );
}

#[test]
fn a_closed_stdout_still_exits_1_for_broken_links_without_an_error() {
    // Far more than a pipe buffer (64 KiB) of CSV, so the writer meets the closed pipe.
    let dir = TempDir::new("closed-stdout");
    let links: String = (0..3000)
        .map(|i| format!("<a href='missing-{i}.html'>link number {i}</a>\n"))
        .collect();
    std::fs::write(dir.join("index.html"), links).unwrap();
    let csv = dir.join("full.csv");
    let mut child = linkpatrol()
        .args([
            "--no-status",
            "-o",
            "csv",
            "-v",
            "-F",
            &format!("csv/{}", csv.display()),
            dir.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Like `| head -c 100`: read a little, then close the pipe.
    let mut first = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(first.starts_with(b"urlname;"));
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.is_empty(), "no error, no panic: {stderr}");
    // the run went on: the -F file is complete
    let rows = std::fs::read_to_string(&csv).unwrap().lines().count();
    assert_eq!(rows, 1 + 1 + 3000, "header, start, 3000 links");
}

/// Runs a check of a page without links (a warning on stderr at the end)
/// with `stderr` as its stderr, and returns the exit status and the `-F` CSV.
fn run_with_stderr(name: &str, stderr: Stdio, close_reader: bool) -> (Option<i32>, String) {
    let dir = TempDir::new(name);
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<p>no links here</p>").unwrap();
    let csv = dir.join("rows.csv");
    let mut child = linkpatrol()
        .args([
            "--no-status",
            "-q",
            "-v",
            "-F",
            &format!("csv/{}", csv.display()),
            site.join("index.html").to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    if close_reader {
        drop(child.stderr.take());
    }
    let status = child.wait().unwrap();
    (status.code(), std::fs::read_to_string(&csv).unwrap())
}

#[test]
fn a_stderr_that_takes_nothing_drops_its_lines_and_the_reports_are_whole() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    for (name, stderr, close) in [
        ("stderr-full", Stdio::from(full), false),
        ("stderr-closed", Stdio::piped(), true),
    ] {
        let (code, csv) = run_with_stderr(name, stderr, close);
        assert_eq!(code, Some(0), "{name}: no panic");
        assert_eq!(
            csv.lines().count(),
            2,
            "{name}: header and the start page: {csv}"
        );
    }
}

#[test]
fn a_full_disk_keeps_the_previous_report_and_the_error_names_the_file() {
    let dir = TempDir::new("full-disk");
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    let links: String = (0..3000)
        .map(|i| format!("<a href='missing-{i}.html'>link number {i}</a>\n"))
        .collect();
    std::fs::write(site.join("index.html"), links).unwrap();
    let csv = dir.join("report.csv");
    std::fs::write(&csv, "yesterday's report\n").unwrap();
    // A file size limit is a full disk that stops root too: writes past 64 blocks (32 or
    // 64 KB, by the shell) fail with EFBIG once SIGXFSZ is ignored.
    let mut cmd = Command::new("sh");
    without_machine_settings(&mut cmd, &dir.join("home"));
    let out = cmd
        .args(["-c", "trap '' XFSZ; ulimit -f 64; exec \"$@\"", "sh"])
        .arg(env!("CARGO_BIN_EXE_linkpatrol"))
        .args(["--no-config", "--no-status", "-q", "-v", "-F"])
        .arg(format!("csv/{}", csv.display()))
        .arg(&site)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write {}", csv.display())),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "yesterday's report\n"
    );
    let left: Vec<_> = std::fs::read_dir(&*dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        left.iter().all(|n| !n.ends_with(".tmp")),
        "no temporary file is left: {left:?}"
    );

    let out = cli(&[
        "--no-status",
        "-q",
        "-v",
        "-F",
        "csv//dev/full",
        site.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write /dev/full"), "{stderr}");
}

/// A checkout that ships `linkpatrol-out.compact.txt -> ../victim/bashrc` would have the
/// report's lines, whose text its pages chose, written into the victim. The link itself is
/// replaced by the report, in a whole run, under `--stream` and for `--export-external`; the
/// file it pointed at keeps its contents.
#[test]
#[cfg(unix)]
fn a_symbolic_link_at_a_report_path_is_replaced_never_followed() {
    use std::os::unix::fs::symlink;
    let dir = TempDir::new("report-link");
    let checkout = dir.join("checkout");
    let victim = dir.join("victim");
    std::fs::create_dir_all(&checkout).unwrap();
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(
        checkout.join("index.md"),
        "[x](<gone.md;touch${IFS}PWNED;#>)\n",
    )
    .unwrap();
    for (case, extra) in [
        ("whole", &[][..]),
        ("stream", &["--stream"][..]),
        (
            "export",
            &["--shard", "0/1", "--export-external", "export.ndjson"][..],
        ),
    ] {
        for threads in ["1", "8"] {
            let bashrc = victim.join(format!("bashrc-{case}-{threads}"));
            std::fs::write(&bashrc, "export PATH=/usr/bin\n").unwrap();
            let names = ["linkpatrol-out.compact.txt", "export.ndjson"];
            for name in names {
                let _ = std::fs::remove_file(checkout.join(name));
                symlink(&bashrc, checkout.join(name)).unwrap();
            }
            let mut cmd = linkpatrol();
            let out = cmd
                .current_dir(&checkout)
                .args(["--no-status", "-q", "-t", threads, "-F", "compact"])
                .args(extra)
                .arg("index.md")
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{case} -t {threads}: {stderr}");
            assert_eq!(
                std::fs::read_to_string(&bashrc).unwrap(),
                "export PATH=/usr/bin\n",
                "{case} -t {threads}: the link's target is untouched"
            );
            let report = checkout.join("linkpatrol-out.compact.txt");
            let meta = std::fs::symlink_metadata(&report).unwrap();
            assert!(meta.is_file(), "{case} -t {threads}: the link is replaced");
            let text = std::fs::read_to_string(&report).unwrap();
            assert!(text.contains("gone.md"), "{case} -t {threads}: {text}");
            if case == "export" {
                let meta = std::fs::symlink_metadata(checkout.join("export.ndjson")).unwrap();
                assert!(meta.is_file(), "-t {threads}: the export replaces its link");
            }
        }
    }
}
