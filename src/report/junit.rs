//! JUnit XML, the test-report format CI servers (Jenkins, GitLab, GitHub Actions reporters)
//! load: a link check as a test run.
//!
//! `<testsuites>` holds one `<testsuite>` per page, named after the page URL, and a first suite
//! named `(start URLs)` for the start URLs. Each suite has one `<testcase>` per URL the page
//! links to (`name` = the URL, `classname` = the page; a URL linked twice from a page is one
//! case listing both places). A broken link gets a `<failure>` whose `message` is the result
//! text and `type` the failure class (`http-error`, `timeout`, …); an ignored link, and one
//! bot protection answered for (not verified: `blocked: 403 Forbidden (…)`), gets
//! `<skipped>`; warnings go to `<system-out>`. `tests`, `failures`, `errors` (always 0: a
//! broken link is a failed test, not a crashed one), `skipped` and `time` (seconds) are set on
//! every suite and on the root. Every link is listed whatever the verbosity, since CI tools
//! count the passes too. Suites and cases are sorted by URL and written by `finish`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

use super::{Reporter, xml};
use crate::model::failure_class::FailureClass;
use crate::model::outcome::{CheckResult, Entry, Outcome, Referrer};
use crate::model::run_report::Report;

/// The suite name of start URLs (no page links to them).
const START_SUITE: &str = "(start URLs)";

/// One test case: a URL on one page, with every place the page links to it.
#[derive(Debug)]
struct Case {
    result: Arc<CheckResult>,
    places: Vec<Referrer>,
}

/// Collects entries per page and writes the JUnit document at the end.
#[derive(Debug)]
pub struct JunitReporter<W: Write> {
    out: W,
    /// Page (`None` for start URLs, which sorts first) → URL → case.
    suites: BTreeMap<Option<String>, BTreeMap<String, Case>>,
}

impl<W: Write> JunitReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W) -> Self {
        JunitReporter {
            out,
            suites: BTreeMap::new(),
        }
    }
}

/// Counts of one suite or of the whole run.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    tests: usize,
    failures: usize,
    skipped: usize,
}

impl Counts {
    fn add(&mut self, outcome: &Outcome) {
        self.tests += 1;
        if outcome.is_broken() {
            self.failures += 1;
        } else if outcome.is_ignored() || outcome.is_blocked() {
            self.skipped += 1;
        }
    }

    fn attrs(self, time: Duration) -> String {
        format!(
            r#"tests="{}" failures="{}" errors="0" skipped="{}" time="{}""#,
            self.tests,
            self.failures,
            self.skipped,
            seconds(time)
        )
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// The text of a failure: result, URL, redirects, and where the page links to it.
fn failure_text(case: &Case) -> String {
    let r = &case.result;
    let mut t = format!("{}\nURL: {}\n", r.outcome, r.url);
    for hop in &r.redirects {
        let _ = writeln!(t, "Redirect: {} {}", hop.status, hop.url);
    }
    for p in &case.places {
        match (p.line, p.column) {
            (Some(l), Some(c)) => {
                let _ = write!(t, "Line {l}, column {c}: ");
            }
            _ => t.push_str("Link: "),
        }
        let _ = write!(t, "`{}'", p.raw);
        if !p.name.is_empty() {
            let _ = write!(t, " ({})", p.name);
        }
        t.push('\n');
    }
    t
}

/// Warnings and infos, one per line, for `<system-out>`.
fn notes(r: &CheckResult, places: &[Referrer]) -> String {
    let mut t = String::new();
    for w in r
        .warnings
        .iter()
        .chain(places.iter().flat_map(|p| p.warnings.iter()))
    {
        let _ = writeln!(t, "Warning [{}] {}", w.tag, w.message);
    }
    for i in &r.infos {
        let _ = writeln!(t, "Info {i}");
    }
    for p in places.iter().filter(|p| p.rendered) {
        let _ = writeln!(
            t,
            "Info `{}' on {} found after rendering (--render-js)",
            p.raw, p.parent
        );
    }
    t
}

impl<W: Write> Reporter for JunitReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        let page = entry.referrer.as_ref().map(|r| r.parent.clone());
        let case = self
            .suites
            .entry(page)
            .or_default()
            .entry(entry.result.url.clone())
            .or_insert_with(|| Case {
                result: entry.result.clone(),
                places: Vec::new(),
            });
        if let Some(r) = &entry.referrer {
            case.places.push(r.clone());
        }
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        let mut total = Counts::default();
        let mut body = String::new();
        for (page, cases) in &mut self.suites {
            let suite = page.as_deref().unwrap_or(START_SUITE);
            let mut counts = Counts::default();
            let mut time = Duration::ZERO;
            let mut xml_cases = String::new();
            for (url, case) in cases.iter_mut() {
                case.places.sort_by_key(|p| (p.line, p.column));
                let r = &case.result;
                counts.add(&r.outcome);
                time += r.check_time;
                let _ = write!(
                    xml_cases,
                    r#"    <testcase name="{}" classname="{}" time="{}""#,
                    xml::attr(url),
                    xml::attr(suite),
                    seconds(r.check_time)
                );
                let notes = notes(r, &case.places);
                let skipped = r.outcome.is_ignored() || r.outcome.is_blocked();
                if !r.outcome.is_broken() && !skipped && notes.is_empty() {
                    xml_cases.push_str("/>\n");
                    continue;
                }
                xml_cases.push_str(">\n");
                if r.outcome.is_broken() {
                    let _ = writeln!(
                        xml_cases,
                        r#"      <failure message="{}" type="{}">{}</failure>"#,
                        xml::attr(&r.outcome.to_string()),
                        FailureClass::of(&r.outcome).map_or("", FailureClass::name),
                        xml::text(&failure_text(case))
                    );
                } else if skipped {
                    let _ = writeln!(
                        xml_cases,
                        r#"      <skipped message="{}"/>"#,
                        xml::attr(&r.outcome.to_string())
                    );
                }
                if !notes.is_empty() {
                    let _ = writeln!(
                        xml_cases,
                        "      <system-out>{}</system-out>",
                        xml::text(&notes)
                    );
                }
                xml_cases.push_str("    </testcase>\n");
            }
            total.tests += counts.tests;
            total.failures += counts.failures;
            total.skipped += counts.skipped;
            let _ = writeln!(
                body,
                r#"  <testsuite name="{}" {}>"#,
                xml::attr(suite),
                counts.attrs(time)
            );
            body.push_str(&xml_cases);
            body.push_str("  </testsuite>\n");
        }
        let o = &mut self.out;
        writeln!(o, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            o,
            r#"<testsuites name="linkpatrol" {}>"#,
            total.attrs(report.duration)
        )?;
        o.write_all(body.as_bytes())?;
        writeln!(o, "</testsuites>")?;
        o.flush()
    }
}
