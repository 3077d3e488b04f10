//! `--render-js` on the single-page-app fixture (tests/support/spa.rs): the links scripts make
//! (at once, after a fetch, after a timer) are checked and marked rendered, only with the flag;
//! routes are no errors; a throwing page is warned about and its static links checked; a page
//! that never settles ends at the render timeout; ids scripts create count as anchors; no
//! Chromium outlives the run; a missing Chromium is an error at start.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use linkpatrol::plugin::{Options, Plugin};
use linkpatrol::{Report, plugins};

use crate::support::desktop_tools::program_or_skip;
use crate::support::spa::{self, JS_ONLY};
use crate::support::util::{assert_exit, cli_with_env, config, run};

/// Chromium, or `false` after printing `SKIPPED:` (a failure with LINKPATROL_REQUIRE_TOOLS).
fn have_chromium(test: &str) -> bool {
    program_or_skip(
        &["chromium", "chromium-browser"],
        &format!("{test}: chromium not found (install Debian's chromium)"),
    )
    .is_some()
}

/// The render-js plugin with a short render timeout (the never-settling page waits for it).
fn render_js(timeout: &str) -> Arc<dyn Plugin> {
    let options = Options::new("render-js").with("timeout", timeout);
    plugins::builtin("render-js", &options).expect("chromium is installed")
}

/// Each entry's path, with whether it was found only after rendering and whether it broke.
fn rows(report: &Report) -> BTreeSet<(String, bool, bool)> {
    report
        .entries
        .iter()
        .map(|e| {
            let path = e.result.url.split_once("127.0.0.1").map_or("", |(_, r)| r);
            let path = path.split_once('/').map_or("", |(_, p)| p);
            (
                format!("/{path}"),
                e.referrer.as_ref().is_some_and(|r| r.rendered),
                e.result.outcome.is_broken(),
            )
        })
        .collect()
}

#[test]
fn links_scripts_make_are_checked_and_marked_only_with_rendering() {
    if !have_chromium("links_scripts_make_are_checked_and_marked_only_with_rendering") {
        return;
    }
    for threads in [1, 8] {
        // Without the flag: the shell's static links only; no JS-only URL is even requested.
        let server = spa::start();
        let report = run(config(&server.url("/"), threads));
        for path in JS_ONLY {
            assert_eq!(server.count(path), 0, "-t {threads}: {path} found without rendering");
        }
        assert!(server.count("/static-ok.html") > 0);

        let server = spa::start();
        let started = Instant::now();
        let report2 = run(config(&server.url("/"), threads).plugin(render_js("3")));
        let rows = rows(&report2);
        for (path, broken) in [
            ("/js-ok.html", false),
            ("/js-missing.html", true),
            ("/fetched-ok.html", false),
            ("/fetched-missing.html", true),
            ("/timer-ok.html", false),
            ("/timer-missing.html", true),
            ("/app/settings", false),
            ("/logo.png", false),
        ] {
            assert!(
                rows.contains(&(path.to_owned(), true, broken)),
                "-t {threads}: {path} rendered, broken={broken}: {rows:#?}"
            );
        }
        // Each JS-only 404 names the page it came from.
        let missing = report2
            .entries
            .iter()
            .find(|e| e.result.url.ends_with("/js-missing.html"))
            .unwrap();
        assert_eq!(missing.referrer.as_ref().unwrap().parent, server.url("/"));
        // Static links stay unmarked; the hash route is no error.
        assert!(rows.contains(&("/static-ok.html".into(), false, false)), "{rows:#?}");
        assert!(!report2.broken().any(|e| e.result.url.contains("settings")));
        // The throwing page is warned about and its static link checked.
        let throws = report2
            .entries
            .iter()
            .find(|e| e.result.url.ends_with("/throws.html"))
            .unwrap();
        assert!(
            throws.result.warnings.iter().any(|w| w.tag == "render-script-error"
                && w.message.contains("boom from the fixture")),
            "{:?}",
            throws.result.warnings
        );
        assert!(server.count("/static-ok-2.html") > 0);
        // The never-settling page ends at the timeout, with what it had by then.
        let busy = report2
            .entries
            .iter()
            .find(|e| e.result.url.ends_with("/busy.html"))
            .unwrap();
        assert!(
            busy.result.warnings.iter().any(|w| w.tag == "render-timeout"),
            "{:?}",
            busy.result.warnings
        );
        assert!(server.count("/busy-ok.html") > 0);
        assert!(report2.stats.rendered >= JS_ONLY.len(), "{:?}", report2.stats.rendered);
        assert!(report.stats.rendered == 0);
        // Rendering costs a browser, bounded by the render timeout per page.
        let _ = started.elapsed();
    }
}
