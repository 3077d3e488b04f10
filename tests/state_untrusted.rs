//! The state file is untrusted input (a checkout can ship one, a CI cache can restore one):
//! a symbolic link is never written through, a file that is not ours (another program's
//! database at one of our versions, views, triggers, extra objects, a file of another owner
//! or with other names) is moved aside unchanged, a result "checked" in the future is not
//! fresh, `--resume` never skips the comparison of options, and a state file turned on only
//! by an untrusted local config gives no result that is reused.

use std::fs;
use std::path::{Path, PathBuf};

use linkpatrol::{Config, Report};

use crate::state::{assert_one_state_warning, files_named};
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, assert_exit, broken, cli_in, config, run};

/// A site whose page links an image that is missing (404) and one that is there.
fn site() -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/", r#"<img src="/gone.png"> <img src="/p.png">"#)
            .reply(
                "/p.png",
                Reply::status(200).content_type("image/png").body("png"),
            ),
    )
}

fn with_state(s: &TestServer, threads: usize, file: &Path) -> Config {
    config(&s.url("/"), threads).state_file(file)
}

/// A state file made by one normal run of `s`.
fn good_state(s: &TestServer, dir: &Path) -> PathBuf {
    let file = dir.join("state.sqlite");
    let r = run(with_state(s, 2, &file));
    assert!(r.state_warnings.is_empty(), "{:?}", r.state_warnings);
    file
}

/// Runs `sql` on the state file, as a forger would.
fn forge(file: &Path, sql: &str) {
    rusqlite::Connection::open(file)
        .unwrap()
        .execute_batch(sql)
        .unwrap();
}

/// Makes the stored result of `/gone.png` a pass.
const FORGED_PASS: &str = "UPDATE results SET outcome = 'ok', status = 200, fail_kind = NULL,
         message = NULL, content_type = 'image/png', broken_runs = 0, broken_since = NULL, checked_at = strftime('%s')
     WHERE url LIKE '%/gone.png';";

/// Runs `s` with `file` as state: one warning with `needle`, the report of a run without
/// state, and `/gone.png` requested and broken.
fn checked_despite(s: &TestServer, file: &Path, needle: &str) -> Report {
    let before = s.count("/gone.png");
    let report = run(with_state(s, 4, file));
    assert_one_state_warning(&report, needle);
    assert_eq!(broken(&report), [s.url("/gone.png")].into());
    assert_eq!(s.count("/gone.png"), before + 1);
    report
}

#[cfg(unix)]
#[test]
fn a_state_file_that_is_a_symbolic_link_is_moved_aside_and_never_written_through() {
    let s = site();
    let dir = TempDir::new("state-symlink");
    let elsewhere = TempDir::new("state-symlink-target");
    let missing = elsewhere.join("created.sqlite");
    let empty = elsewhere.join("empty.sqlite");
    fs::write(&empty, "").unwrap();
    for target in [&missing, &empty] {
        let file = dir.join("state.sqlite");
        std::os::unix::fs::symlink(target, &file).unwrap();
        checked_despite(&s, &file, "symbolic link");
        // Nothing was created or written at the link's target.
        assert!(!missing.exists(), "{target:?}");
        assert_eq!(fs::read(&empty).unwrap(), b"");
        // The link itself was moved aside, and a fresh file of ours took its place.
        let aside = files_named(&dir, "state.sqlite.bad-");
        assert_eq!(aside.len(), 1, "{aside:?}");
        assert_eq!(&fs::read_link(&aside[0]).unwrap(), target);
        assert!(fs::symlink_metadata(&file).unwrap().is_file());
        let next = run(with_state(&s, 2, &file));
        assert!(next.state_warnings.is_empty(), "{:?}", next.state_warnings);
        fs::remove_file(&aside[0]).unwrap();
        fs::remove_file(&file).unwrap();
    }
    // A symbolic link in place of the WAL file is not followed either.
    let file = good_state(&s, &dir);
    let wal_target = elsewhere.join("wal");
    std::os::unix::fs::symlink(&wal_target, dir.join("state.sqlite-wal")).unwrap();
    checked_despite(&s, &file, "-wal file is a symbolic link");
    assert!(!wal_target.exists());
}

#[cfg(unix)]
#[test]
fn a_state_file_with_other_names_or_another_owner_is_moved_aside() {
    let s = site();
    let dir = TempDir::new("state-hardlink");
    let file = good_state(&s, &dir);
    forge(&file, FORGED_PASS);
    let other = dir.join("other-name");
    fs::hard_link(&file, &other).unwrap();
    let before = fs::read(&other).unwrap();
    checked_despite(&s, &file, "hard link");
    assert!(fs::read(&other).unwrap() == before, "left as it was");
    // Another user's file (only a superuser can give a file away).
    let dir = TempDir::new("state-owner");
    let file = good_state(&s, &dir);
    forge(&file, FORGED_PASS);
    if std::os::unix::fs::chown(&file, Some(65534), Some(65534)).is_ok() {
        checked_despite(&s, &file, "owned by another user");
        assert_eq!(files_named(&dir, "state.sqlite.bad-").len(), 1);
    }
}

#[test]
fn another_programs_database_at_one_of_our_versions_is_moved_aside_unchanged() {
    let s = site();
    for version in 1..=5 {
        let dir = TempDir::new(&format!("state-foreign-{version}"));
        let file = dir.join("state.sqlite");
        forge(
            &file,
            &format!(
                "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');
                 PRAGMA user_version = {version};"
            ),
        );
        let before = fs::read(&file).unwrap();
        checked_despite(&s, &file, "another program");
        let aside = files_named(&dir, "state.sqlite.bad-");
        assert_eq!(aside.len(), 1, "{aside:?}");
        assert!(fs::read(&aside[0]).unwrap() == before, "version {version}");
        // Not switched to WAL, nor given a table: no companion file either.
        assert!(!dir.join("state.sqlite.bad-wal").exists());
    }
}

#[test]
fn views_triggers_and_other_objects_in_a_state_file_are_refused() {
    let s = site();
    let cases: [(&str, &str, &str); 5] = [
        // An endless recursive query where the results table should be: it used to keep a
        // thread busy for ever.
        (
            "view",
            "DROP TABLE results;
             CREATE VIEW results AS
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
                SELECT i AS id, 'k' || i AS key, 'http://x/' || i AS url, 1 AS run_id,
                    strftime('%s') AS checked_at, 'ok' AS outcome, 200 AS status,
                    NULL AS fail_kind, NULL AS message, NULL AS real_url, NULL AS redirects,
                    NULL AS warnings, NULL AS content_type, NULL AS size, NULL AS modified,
                    0 AS internal, NULL AS broken_since, 0 AS broken_runs, 0 AS reused,
                    NULL AS infos, 0 AS retries
                FROM n;",
            "view `results`",
        ),
        // Rewrites every stored result to a pass as it is written.
        (
            "trigger",
            "CREATE TRIGGER pass AFTER INSERT ON results BEGIN
                 UPDATE results SET outcome = 'ok', status = 200, broken_runs = 0
                 WHERE id = new.id;
             END;",
            "trigger `pass`",
        ),
        (
            "index",
            "CREATE INDEX slow ON results (length(url));",
            "index `slow`",
        ),
        ("table", "CREATE TABLE extra (x);", "table `extra`"),
        (
            "column",
            "ALTER TABLE results ADD COLUMN extra DEFAULT 1;",
            "table `results`",
        ),
    ];
    for (name, sql, needle) in cases {
        let dir = TempDir::new(&format!("state-schema-{name}"));
        let file = good_state(&s, &dir);
        forge(&file, FORGED_PASS);
        forge(&file, sql);
        let before = fs::read(&file).unwrap();
        let report = checked_despite(&s, &file, needle);
        assert!(report.state_warnings[0].contains("moved aside"), "{name}");
        let aside = files_named(&dir, "state.sqlite.bad-");
        assert_eq!(aside.len(), 1, "{name}: {aside:?}");
        assert!(fs::read(&aside[0]).unwrap() == before, "{name}: unchanged");
    }
}

#[test]
fn a_result_checked_in_the_future_is_not_fresh() {
    for threads in [1, 8] {
        let s = site();
        let dir = TempDir::new(&format!("state-future-{threads}"));
        let file = good_state(&s, &dir);
        // "Checked" on 2100-01-01, a pass: it used to be reused for ever.
        forge(&file, &FORGED_PASS.replace("strftime('%s')", "4102444800"));
        let report = run(with_state(&s, threads, &file));
        assert!(
            report.state_warnings.is_empty(),
            "{:?}",
            report.state_warnings
        );
        assert_eq!(broken(&report), [s.url("/gone.png")].into());
        assert_eq!(s.count("/gone.png"), 2, "{threads} threads");
        // A result of the right age is still reused.
        assert_eq!(s.count("/p.png"), 1);
    }
}

#[test]
fn resume_never_continues_a_run_whose_options_are_not_on_record() {
    for options in ["{}", "", "{\"checked\": {}}", "not json"] {
        let s = site();
        let dir = TempDir::new("state-resume-options");
        let file = good_state(&s, &dir);
        // The last run "was interrupted", recorded no options, and passed the missing image
        // long ago: only a resume of that run would reuse the pass.
        forge(
            &file,
            &format!(
                "UPDATE runs SET finished = NULL, options = '{options}';
                 {}",
                FORGED_PASS.replace("strftime('%s')", "1000")
            ),
        );
        let report = run(with_state(&s, 2, &file).resume(true));
        assert_eq!(
            report.state_warnings.len(),
            1,
            "{:?}",
            report.state_warnings
        );
        assert!(
            report.state_warnings[0].contains("no record of the options"),
            "{:?}",
            report.state_warnings
        );
        assert_eq!(broken(&report), [s.url("/gone.png")].into(), "{options:?}");
        assert_eq!(s.count("/gone.png"), 2);
    }
}

/// Runs the binary in `dir` on `s` with `args` before the URL.
fn cli(dir: &Path, s: &TestServer, args: &[&str]) -> std::process::Output {
    let mut all = vec!["--no-status", "--max-requests-per-second", "0", "-o", "csv"];
    all.extend_from_slice(args);
    let url = s.url("/");
    all.push(&url);
    cli_in(dir, &[], &all)
}

#[test]
fn a_state_file_turned_on_by_an_untrusted_local_config_is_not_reused() {
    let s = site();
    let dir = TempDir::new("state-local-config");
    fs::write(dir.join("linkpatrol.toml"), "cache = true\n").unwrap();
    // The checkout ships a state file that passes the missing image.
    let file = dir.join(linkpatrol::DEFAULT_STATE_FILE);
    run(with_state(&s, 2, &file));
    forge(&file, FORGED_PASS);
    assert_eq!(s.count("/gone.png"), 1);
    let out = cli(&dir, &s, &[]);
    assert_exit(&out, 1);
    assert_eq!(
        s.count("/gone.png"),
        2,
        "requested, not taken from the file"
    );
    // The run recorded its own results: the file is still in use, as a record.
    let rows: i64 = rusqlite::Connection::open(&file)
        .unwrap()
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 2);
    // Nor does the local config's `resume` continue a run of that file.
    forge(
        &file,
        &format!("UPDATE runs SET finished = NULL; {FORGED_PASS}"),
    );
    fs::write(dir.join("linkpatrol.toml"), "resume = true\n").unwrap();
    let out = cli(&dir, &s, &[]);
    assert_exit(&out, 1);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("may have been written by someone else"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.count("/gone.png"), 3);
    // A state file the user turns on is the user's own cache: its results are reused.
    forge(&file, FORGED_PASS);
    assert_exit(&cli(&dir, &s, &["--cache"]), 0);
    assert_eq!(s.count("/gone.png"), 3);
}
