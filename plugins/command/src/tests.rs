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

#[test]
fn a_hung_program_is_killed_at_the_timeout() {
    // 2 s: long enough for `sh` to start and echo on a loaded machine, short for a test.
    let p = sh("echo started; exec sleep 30", "2");
    let t = Instant::now();
    let r = page(&p, b"");
    // Not killed before its time, and not left running long after it.
    assert!(
        (Duration::from_secs(2)..Duration::from_secs(10)).contains(&t.elapsed()),
        "took {:?}",
        t.elapsed()
    );
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!(r[0], Remark::warning(TAG, "started"));
    assert!(
        matches!(&r[1], Remark::Warning { tag: TAG_FAILED, message } if message.contains("was killed")),
        "{r:?}"
    );
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
