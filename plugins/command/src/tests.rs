use std::time::{Duration, Instant};

use linkpatrol_plugin_api::testing::FakeServices;
use linkpatrol_plugin_api::{ContentView, Options, Plugin, Remark, Url};

use super::*;

fn sh(script: &str, timeout: &str) -> Command {
    let o = Options::new(NAME)
        .with("program", "sh")
        .with("arg", "-c")
        .with("arg", script)
        .with("timeout", timeout);
    Command::from_options(&o).unwrap()
}

fn page(plugin: &Command, body: &[u8]) -> Vec<Remark> {
    page_at(plugin, "http://h.test/page.html", body)
}

fn page_at(plugin: &Command, url: &str, body: &[u8]) -> Vec<Remark> {
    let url = Url::parse(url).unwrap();
    let view = ContentView {
        url: &url,
        final_url: &url,
        content_type: Some("text/html"),
        body,
        links: &[],
        anchors: &[],
        internal: true,
    };
    plugin.check_content(&view, &FakeServices::new())
}

#[test]
fn stdout_lines_become_warnings_with_url_and_content() {
    let p = sh(
        r#"echo "on $LINKPATROL_URL"; grep -c TODO; echo; echo "  last  ""#,
        "10",
    );
    let r = page(&p, b"a TODO\nb\nTODO again\n");
    assert_eq!(
        r,
        [
            Remark::warning(TAG, "on http://h.test/page.html"),
            Remark::warning(TAG, "2"),
            Remark::warning(TAG, "last"),
        ]
    );
    assert!(page(&sh("cat > /dev/null", "10"), b"x").is_empty());
}

/// The numbers after `label ` in the warnings (a script prints its process ids that way).
#[cfg(unix)]
fn pids(remarks: &[Remark], label: &str) -> Vec<i32> {
    remarks
        .iter()
        .filter_map(|r| match r {
            Remark::Warning { tag: TAG, message } => {
                message.strip_prefix(label)?.trim().parse().ok()
            }
            _ => None,
        })
        .collect()
}

/// Whether process `pid` still runs: it exists and is not a zombie (a zombie runs no more
/// code; it waits for its parent, here init, to reap it).
#[cfg(unix)]
fn running(pid: i32) -> bool {
    if nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err() {
        return false;
    }
    // On Linux the state follows the command name in /proc/PID/stat; elsewhere it exists.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(')')
            .is_none_or(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

/// Asserts that each of `pids` is gone. `SIGKILL` is delivered asynchronously: a killed
/// process may take a moment to finish dying after the run returned, so each gets up to 5 s.
#[cfg(unix)]
fn assert_gone(pids: &[i32]) {
    let until = Instant::now() + Duration::from_secs(5);
    for &pid in pids {
        while running(pid) {
            assert!(Instant::now() < until, "process {pid} outlived the run");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[test]
fn the_program_never_sees_the_user_name_or_password() {
    let p = sh(r#"echo "$LINKPATROL_URL""#, "10");
    for (url, told) in [
        (
            "http://u:s3cret@h.test:8080/p?q=1",
            "http://h.test:8080/p?q=1",
        ),
        ("https://token@h.test/", "https://h.test/"),
        ("http://:s3cret@h.test/", "http://h.test/"),
    ] {
        assert_eq!(page_at(&p, url, b""), [Remark::warning(TAG, told)], "{url}");
    }
}

#[cfg(unix)]
#[test]
fn a_hung_program_is_killed_with_every_process_it_started_and_its_output_is_kept() {
    // The shell waits on two sleeps: killing the shell alone would leave both running, holding
    // its stdout open, and lose the lines above.
    let p = sh(
        "echo \"leader $$\"; sleep 300 & echo \"child $!\"; sleep 300 & echo \"child $!\"; wait",
        "1",
    );
    let t = Instant::now();
    let r = page(&p, b"");
    // Not killed before its time, and not left running long after it.
    assert!(
        (Duration::from_secs(1)..Duration::from_secs(6)).contains(&t.elapsed()),
        "took {:?}",
        t.elapsed()
    );
    assert_eq!(r.len(), 4, "{r:?}");
    assert!(
        matches!(&r[3], Remark::Warning { tag: TAG_FAILED, message } if message.contains("was killed")),
        "{r:?}"
    );
    let (leader, children) = (pids(&r, "leader "), pids(&r, "child "));
    assert_eq!((leader.len(), children.len()), (1, 2), "{r:?}");
    assert_gone(&[leader, children].concat());
}

#[cfg(unix)]
#[test]
fn a_program_that_leaves_a_child_holding_its_output_is_not_waited_for() {
    // The script exits at once; its background sleep keeps stdout open for 300 s.
    let p = sh(
        "echo \"leader $$\"; sleep 300 & echo \"child $!\"; exit 0",
        "30",
    );
    let t = Instant::now();
    let r = page(&p, b"");
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
    assert_eq!(r.len(), 2, "exited with 0, not killed: {r:?}");
    let (leader, children) = (pids(&r, "leader "), pids(&r, "child "));
    assert_eq!((leader.len(), children.len()), (1, 1), "{r:?}");
    assert_gone(&children);
}

#[test]
fn programs_waited_on_from_many_threads_each_get_their_own_exit_status_at_once() {
    // Each run is woken when its own child exits, not at the 30 s timeout, and no thread
    // reaps another's child.
    let t = Instant::now();
    let runs: Vec<_> = (1..=6)
        .map(|code| {
            std::thread::spawn(move || {
                let script = format!("sleep 0.{code}; exit {code}");
                run_with_timeout(
                    "sh",
                    &["-c".into(), script],
                    &[],
                    b"",
                    Duration::from_secs(30),
                )
            })
        })
        .collect();
    for (code, run) in (1..=6).zip(runs) {
        let finished = run.join().unwrap().unwrap();
        assert_eq!(finished.status, Some(code));
        assert!(!finished.timed_out);
    }
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn failures_and_programs_that_ignore_stdin() {
    // Exits without reading a large input: no deadlock, the exit status is reported.
    let r = page(&sh("echo oops >&2; exit 3", "10"), &vec![b'x'; 1 << 20]);
    assert!(
        matches!(&r[..], [Remark::Warning { tag: TAG_FAILED, message }] if message.contains("status 3: oops")),
        "{r:?}"
    );
    let missing = Options::new(NAME).with("program", "/nonexistent/linkpatrol-test-program");
    let r = page(&Command::from_options(&missing).unwrap(), b"");
    assert!(
        matches!(&r[..], [Remark::Warning { tag: TAG_FAILED, message }] if message.starts_with("cannot run")),
        "{r:?}"
    );
}

#[test]
fn settings_are_validated() {
    assert!(Command::from_options(&Options::new(NAME)).is_err());
    let zero = Options::new(NAME).with("program", "x").with("timeout", "0");
    assert!(Command::from_options(&zero).is_err());
    let typo = Options::new(NAME).with("program", "x").with("args", "y");
    assert!(Command::from_options(&typo).is_err());
}
