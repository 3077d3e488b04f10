//! SARIF 2.1.0 (Static Analysis Results Interchange Format), the format code-scanning services
//! (GitHub code scanning, Azure DevOps, SonarQube imports) load.
//!
//! One run. `tool.driver` is linkpatrol with its version and a rule per failure class
//! (`broken/http-error`, `broken/timeout`, … — every class, so rule indexes stay stable from
//! run to run) and per warning tag (`warning/http-redirected`, …, plus any other tag met).
//! There is one result per broken link occurrence (level `error`) and one per warning on each
//! occurrence (level `warning`), located at the page that contains the link
//! (`physicalLocation.artifactLocation.uri`) and its line and column (`region.startLine`,
//! `startColumn`, in Unicode code points); a start URL is located at itself. A local page
//! inside the source root ([`SarifReporter::with_source_root`]: the repository, or the checked
//! folder) is a relative URI (`docs/a%20b.html`) with `uriBaseId: "SRCROOT"`, which the run's
//! `originalUriBaseIds` gives as the folder's `file:` URI, as code-scanning uploads require; a
//! web page, or a file outside the folder, keeps its absolute URI. Results are
//! sorted by page, line and column. `invocations[0].executionSuccessful` is false for an
//! interrupted run, and `properties.summary` holds the summary of the JSON report. Written by
//! `finish`, so the file is one valid document even after a cancelled run.

use std::io::{self, Write};

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use url::Url;

use super::Reporter;
use super::json::{summary_json, tool_json, write_json};
use crate::model::failure_class::FailureClass;
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// The name of the checked folder in `uriBaseId` and `originalUriBaseIds`.
const SRCROOT: &str = "SRCROOT";

/// The schema URI written in `$schema`.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Warning tags known in advance, with what their rules say.
const WARNING_TAGS: [(&str, &str); 2] = [
    (
        "http-redirected",
        "The link redirects; linking to the final URL saves a request.",
    ),
    (
        "content-too-large",
        "The page is larger than the body limit; only its start was searched for links.",
    ),
];

/// A rule: its id, level and description.
#[derive(Debug)]
struct Rule {
    id: String,
    level: &'static str,
    text: String,
}

/// One result before sorting: where, which rule, what.
#[derive(Debug)]
struct Finding {
    uri: String,
    /// `uri` is relative to the checked folder.
    relative: bool,
    line: Option<usize>,
    column: Option<usize>,
    rule: usize,
    url: String,
    message: String,
    urlname: String,
    /// Found only on the rendered page (`--render-js`).
    rendered: bool,
}

/// Collects broken links and warnings and writes the SARIF log at the end.
#[derive(Debug)]
pub struct SarifReporter<W: Write> {
    out: W,
    /// Entries with a broken URL or warnings.
    findings: Vec<Entry>,
    /// The checked folder, as a `file:` URL ending in `/`.
    root: Option<Url>,
}

impl<W: Write> SarifReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W) -> Self {
        SarifReporter {
            out,
            findings: Vec::new(),
            root: None,
        }
    }

    /// Locates local pages inside `root` relative to it (`uriBaseId` `SRCROOT`). Without a
    /// root (the default) every location is an absolute URI. `root` must be absolute.
    pub fn with_source_root(mut self, root: Option<&Path>) -> Self {
        self.root = root.and_then(|r| Url::from_directory_path(PathBuf::from(r)).ok());
        self
    }

    /// `page` relative to the root (`true`), or as it is (`false`).
    fn locate(&self, page: &str) -> (String, bool) {
        let rel = self.root.as_ref().and_then(|root| {
            let url = Url::parse(page).ok().filter(|u| u.scheme() == "file")?;
            let rel = url.as_str().strip_prefix(root.as_str())?;
            // A colon in the first segment would read as a scheme (`c:x.html`): RFC 3986
            // asks for `./` before such a relative reference, and for the folder itself.
            let first = rel.split('/').next().unwrap_or("");
            Some(if rel.is_empty() || first.contains(':') {
                format!("./{rel}")
            } else {
                rel.to_owned()
            })
        });
        match rel {
            Some(r) => (r, true),
            None => (page.to_owned(), false),
        }
    }
}

/// The fixed rules, then a rule for each other warning tag in `entries`, sorted.
fn rules(entries: &[Entry]) -> Vec<Rule> {
    let mut rules: Vec<Rule> = FailureClass::all()
        .map(|class| Rule {
            id: format!("broken/{class}"),
            level: "error",
            text: class.description().into(),
        })
        .collect();
    rules.extend(WARNING_TAGS.iter().map(|(tag, text)| Rule {
        id: format!("warning/{tag}"),
        level: "warning",
        text: (*text).into(),
    }));
    let mut others: Vec<&str> = entries
        .iter()
        .flat_map(|e| e.warnings().map(|w| w.tag))
        .filter(|t| !WARNING_TAGS.iter().any(|(known, _)| known == t))
        .collect();
    others.sort_unstable();
    others.dedup();
    rules.extend(others.into_iter().map(|tag| Rule {
        id: format!("warning/{tag}"),
        level: "warning",
        text: format!("Warning `{tag}'."),
    }));
    rules
}

fn rule_json(r: &Rule) -> Value {
    json!({
        "id": r.id,
        "shortDescription": {"text": r.text},
        "defaultConfiguration": {"level": r.level},
    })
}

fn result_json(f: &Finding, rules: &[Rule]) -> Value {
    let mut physical = Map::new();
    let location = if f.relative {
        json!({"uri": f.uri, "uriBaseId": SRCROOT})
    } else {
        json!({"uri": f.uri})
    };
    physical.insert("artifactLocation".into(), location);
    if let Some(line) = f.line {
        let mut region = Map::new();
        region.insert("startLine".into(), line.into());
        if let Some(column) = f.column {
            region.insert("startColumn".into(), column.into());
        }
        physical.insert("region".into(), region.into());
    }
    let rule = &rules[f.rule];
    let mut finding = json!({
        "ruleId": rule.id,
        "ruleIndex": f.rule,
        "level": rule.level,
        "message": {"text": f.message},
        "locations": [{"physicalLocation": physical}],
        "properties": {"url": f.url, "urlname": f.urlname},
    });
    if f.rendered {
        // Only on a link found after rendering (--render-js): other findings keep their shape.
        finding["properties"]["rendered"] = true.into();
    }
    finding
}

impl<W: Write> Reporter for SarifReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        let r = &entry.result;
        if r.outcome.is_broken() || entry.warnings().next().is_some() {
            self.findings.push(entry.clone());
        }
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        let rules = rules(&self.findings);
        let index = |id: &str| rules.iter().position(|r| r.id == id);
        let mut findings = Vec::new();
        for e in &self.findings {
            let r = &e.result;
            let rf = e.referrer.as_ref();
            let page = rf.map_or(r.url.as_str(), |x| x.parent.as_str());
            let (uri, relative) = self.locate(page);
            let at = |rule: usize, message: String| Finding {
                uri: uri.clone(),
                relative,
                line: rf.and_then(|x| x.line),
                column: rf.and_then(|x| x.column),
                rule,
                url: r.url.clone(),
                message,
                urlname: rf.map_or_else(|| r.url.clone(), |x| x.raw.clone()),
                rendered: rf.is_some_and(|x| x.rendered),
            };
            // Every class has a rule (`rules` lists them all), so no broken link is dropped.
            if let Some(class) = FailureClass::of(&r.outcome)
                && let Some(rule) = index(&format!("broken/{class}"))
            {
                findings.push(at(rule, format!("Broken link {}: {}", r.url, r.outcome)));
            }
            for w in e.warnings() {
                if let Some(rule) = index(&format!("warning/{}", w.tag)) {
                    findings.push(at(rule, format!("{}: {}", r.url, w.message)));
                }
            }
        }
        findings.sort_by(|a, b| {
            (&a.uri, a.line, a.column, a.rule, &a.url)
                .cmp(&(&b.uri, b.line, b.column, b.rule, &b.url))
        });
        let mut driver = tool_json();
        driver["semanticVersion"] = driver["version"].clone();
        driver["rules"] = rules.iter().map(rule_json).collect();
        let mut run = json!({
            "tool": {"driver": driver},
            "invocations": [{"executionSuccessful": !report.interrupted}],
            "columnKind": "unicodeCodePoints",
            "results": findings.iter().map(|f| result_json(f, &rules)).collect::<Vec<_>>(),
            "properties": {"summary": summary_json(report)},
        });
        if let Some(root) = &self.root {
            run["originalUriBaseIds"] = json!({SRCROOT: {"uri": root.as_str()}});
        }
        let log = json!({
            "$schema": SCHEMA,
            "version": "2.1.0",
            "runs": [run],
        });
        write_json(&mut self.out, &log, true)?;
        writeln!(self.out)?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::outcome::{CheckResult, Outcome};

    /// A start URL broken with `class`.
    fn broken(class: FailureClass) -> Entry {
        let outcome = match class {
            FailureClass::HttpError => Outcome::Broken { status: 404 },
            FailureClass::Failed(kind) => Outcome::Failed {
                kind,
                message: "why".to_owned(),
            },
        };
        let url = format!("http://h.test/{class}");
        Entry {
            result: Arc::new(CheckResult::immediate(url, outcome, 0)),
            referrer: None,
            fragment: None,
            cached: false,
        }
    }

    /// No failure class vanishes from the log: each has its rule, with the class's own text,
    /// and a broken link of each class is a result under it.
    #[test]
    fn every_failure_class_has_a_rule_and_its_results() {
        let mut out = Vec::new();
        let mut sarif = SarifReporter::new(&mut out);
        for class in FailureClass::all() {
            sarif.entry(&broken(class)).unwrap();
        }
        sarif.finish(&Report::default()).unwrap();
        let log: Value = serde_json::from_slice(&out).unwrap();
        let run = &log["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), FailureClass::all().count());
        for class in FailureClass::all() {
            let id = format!("broken/{class}");
            let index = rules
                .iter()
                .position(|r| r["id"] == id.as_str())
                .expect(&id);
            assert_eq!(
                rules[index]["shortDescription"]["text"],
                class.description()
            );
            assert!(
                results
                    .iter()
                    .any(|r| r["ruleId"] == id.as_str() && r["ruleIndex"] == index),
                "{id}"
            );
        }
    }
}
