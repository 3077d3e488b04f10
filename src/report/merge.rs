//! Merging NDJSON reports back into one [`Report`] (`linkpatrol merge`): the shards of a check
//! split by host each write `-o ndjson -v`; their entry lines, read back, are the rows of one
//! run over everything, and the statistics are counted again over them.
//!
//! An entry line gives back every field a report shows: the fields of [`entry_json`] (the
//! warnings of the URL and of the occurrence come back together, on the result; every report
//! shows them together). Lines of `"type": "export"` (a shard's exported links) and unknown
//! types are skipped. The summary lines give the per-host request numbers (summed; the
//! interval and rate are the largest), the URLs skipped by reason and `unchecked` (summed),
//! `interrupted` and `insecure` (any), `time_limit_reached` and the duration (the longest). `urls` is the number of
//! distinct URLs of the rows ("URLs checked", as a run counts it), and each URL's level its
//! shortest link distance over the rows of every shard (`merged_levels.rs`). A file that is not a whole
//! `-v` report is refused, named with the reason: an empty file, one whose first line is not
//! JSON (a CSV report) or JSON without `"type"`, an export file (only `"type": "export"`
//! lines), a file without a summary line (cut short); and a file whose summary counts more
//! links than it has rows, written without `-v` (merging it would lose rows). When the
//! phase-1 summaries (their `shard` object) exported links to a shard with no phase-2 report
//! among the files, [`Report::warnings`] says so: those links have no row. Every value read is
//! checked; a bad line is an error naming the file and line, never a panic.
//!
//! [`entry_json`]: super::entry_json

use std::collections::{BTreeMap, HashSet};
use std::io::BufRead;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::Value;
use url::Url;

use crate::model::error::{Error, ErrorKind};
use crate::model::host_stats::HostStats;
use crate::model::outcome::{CheckResult, Entry, FailKind, Hop, Outcome, Referrer, Warning};
use crate::model::run_report::Report;
use crate::model::stats::{Skipped, Tally};

/// The longest NDJSON line read back, in bytes: a report's entry line is a few KB (16 MiB
/// holds one with thousands of redirects and warnings); one 300 MB line took 580 MB.
pub const MAX_NDJSON_LINE: usize = 16 * 1024 * 1024;

/// The next line of an NDJSON stream `r`, without its line end, read up to
/// [`MAX_NDJSON_LINE`] bytes: `Ok(None)` at the end, `Ok(Some(Err))` with the message of a
/// line that is longer or not UTF-8 (the reader is untrusted: one huge line must not take
/// unbounded memory).
///
/// # Errors
/// The reader's own errors.
pub fn read_ndjson_line<R: BufRead>(r: &mut R) -> std::io::Result<Option<Result<String, String>>> {
    let max = MAX_NDJSON_LINE;
    use std::io::Read;
    let mut buf = Vec::new();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    if r.by_ref().take(limit).read_until(b'\n', &mut buf)? == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    } else if buf.len() > max {
        return Ok(Some(Err(format!(
            "the line is longer than {max} bytes, more than a line of linkpatrol's NDJSON can be"
        ))));
    }
    Ok(Some(
        String::from_utf8(buf).map_err(|_| "the line is not UTF-8".to_owned()),
    ))
}

/// Reads every NDJSON report of `files` (a name for messages and a reader each) into one
/// report.
///
/// # Errors
/// [`ErrorKind::InvalidInput`] for a line that is not a report line, and for a file written
/// without `-v`; [`ErrorKind::Io`] when reading fails.
pub fn merge_ndjson<R: BufRead>(
    files: impl IntoIterator<Item = (String, R)>,
) -> Result<Report, Error> {
    let mut report = Report::default();
    let mut hosts: BTreeMap<String, HostStats> = BTreeMap::new();
    let mut skipped = Skipped::default();
    let mut shards = Vec::new();
    for (name, mut reader) in files {
        let mut file = FileKind::default();
        for i in 0usize.. {
            let at = |m: String| {
                Error::new(
                    ErrorKind::InvalidInput,
                    format!("{name}, line {}: {m}", i + 1),
                )
            };
            let line = read_ndjson_line(&mut reader)
                .map_err(|e| Error::new(ErrorKind::Io, format!("{name}: {e}")).with_source(e))?;
            let Some(line) = line else { break };
            let line = line.map_err(at)?;
            if line.trim().is_empty() {
                continue;
            }
            file.lines += 1;
            let v: Value = serde_json::from_str(&line).map_err(|e| {
                if file.lines == 1 {
                    not_a_report(&name, &format!("line {} is not JSON ({e})", i + 1))
                } else {
                    at(e.to_string())
                }
            })?;
            match v.get("type").and_then(Value::as_str) {
                Some("entry") => {
                    report.entries.push(entry_from_json(&v).map_err(at)?);
                    file.rows += 1;
                }
                Some("summary") => {
                    file.counted = usize::try_from(number(&v, "links").unwrap_or(0))
                        .ok()
                        .and_then(|n| file.counted.checked_add(n))
                        .ok_or_else(|| {
                            at("its summaries count more links than can be counted".into())
                        })?;
                    file.summaries += 1;
                    add_summary(&mut report, &mut hosts, &v);
                    add_skipped(&mut skipped, &v);
                    if let Some(s) = shard_of(&v) {
                        shards.push(s);
                    }
                }
                Some("export") => file.exports += 1,
                Some(_) => {}
                None if file.lines == 1 => {
                    return Err(not_a_report(
                        &name,
                        &format!("line {} is JSON without a \"type\"", i + 1),
                    ));
                }
                None => return Err(at("no \"type\"".into())),
            }
        }
        file.check(&name)?;
    }
    report.warnings = missing_phase2(&shards);
    // Each shard settled levels over its own pages only: settle them again over every row.
    report.levels = super::merged_levels::shortest_levels(&report.entries);
    crate::model::run_report::settle_levels(&report.levels, &mut report.entries);
    let mut tally = Tally::default();
    let mut urls = HashSet::new();
    for e in &report.entries {
        tally.add(e);
        urls.insert(e.result.url.clone());
    }
    report.urls = urls.len();
    report.hosts = hosts.into_values().collect();
    report.stats = tally.finish(&report.hosts);
    report.stats.skipped = skipped;
    Ok(report)
}

/// What one file held, to tell a shard's `-v` report from anything else.
#[derive(Default)]
struct FileKind {
    /// Lines that are not blank.
    lines: usize,
    rows: usize,
    summaries: usize,
    exports: usize,
    /// Links its summaries count.
    counted: usize,
}

impl FileKind {
    /// Refuses a file that is not a whole NDJSON report written with `-v`.
    fn check(&self, name: &str) -> Result<(), Error> {
        if self.lines == 0 {
            return Err(not_a_report(name, "it is empty"));
        }
        if self.summaries == 0 && self.rows == 0 && self.exports > 0 {
            return Err(not_a_report(
                name,
                "it is an export file (--export-external), which lists links for phase 2 to \
                 check",
            ));
        }
        if self.summaries == 0 {
            return Err(not_a_report(
                name,
                "it has no summary line (the run that wrote it did not finish, or the file \
                 was cut short)",
            ));
        }
        if self.counted > self.rows {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "{name}: its summary counts {} links but it has {} rows: it lists \
                     problems only; write the shards' NDJSON with -v",
                    self.counted, self.rows
                ),
            ));
        }
        Ok(())
    }
}

/// The error for a file that is not a shard's NDJSON report, and why.
fn not_a_report(name: &str, why: &str) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!(
            "{name} is not a shard's NDJSON report: {why}; merge takes the reports of phase 1 \
             and phase 2 of every shard, written with -F ndjson/FILE -v (or -o ndjson -v)"
        ),
    )
}

/// A summary's `shard`: (index, count, phase, links exported to each shard).
fn shard_of(v: &Value) -> Option<(u64, u64, u64, Vec<u64>)> {
    let s = v.get("shard")?;
    let exported = s
        .get("exported")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|n| n.as_u64().unwrap_or(0)).collect())
        .unwrap_or_default();
    Some((
        number(s, "index")?,
        number(s, "count")?,
        number(s, "phase")?,
        exported,
    ))
}

/// One warning per shard that phase-1 reports exported links to while no phase-2 report of
/// that shard is among the files: those links have no row, so the report is partial.
fn missing_phase2(shards: &[(u64, u64, u64, Vec<u64>)]) -> Vec<String> {
    let mut exported: BTreeMap<(u64, u64), u64> = BTreeMap::new();
    for (_, count, phase, to) in shards {
        if *phase == 1 {
            for (owner, n) in (0u64..).zip(to) {
                if *n > 0 && owner < *count {
                    let total = exported.entry((owner, *count)).or_default();
                    *total = total.saturating_add(*n);
                }
            }
        }
    }
    exported
        .into_iter()
        .filter(|((owner, count), _)| {
            !shards
                .iter()
                .any(|(i, c, phase, _)| (i, c, *phase) == (owner, count, 2))
        })
        .map(|((owner, count), n)| {
            format!(
                "phase 1 exported {n} link{} to shard {owner}/{count}, and no phase-2 report of \
                 shard {owner}/{count} is given: {} not checked, this report is partial \
                 (merge the phase-1 and phase-2 reports of every shard)",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it is" } else { "they are" },
            )
        })
        .collect()
}

/// Adds a summary's URLs skipped by reason (summed: a URL two shards skipped counts twice).
fn add_skipped(skipped: &mut Skipped, v: &Value) {
    let Some(s) = v.get("skipped") else { return };
    // Summed without wrapping: the numbers are the file's.
    let n = |key: &str| usize::try_from(number(s, key).unwrap_or(0)).unwrap_or(usize::MAX);
    for (total, key) in [
        (&mut skipped.robots, "robots"),
        (&mut skipped.outside_scope, "outside_scope"),
        (&mut skipped.excluded, "excluded"),
        (&mut skipped.not_included, "not_included"),
        (&mut skipped.comment, "comment"),
        (&mut skipped.ignore_file, "ignore_file"),
        (&mut skipped.excluded_starts, "excluded_starts"),
        (&mut skipped.offline, "offline"),
        (&mut skipped.url_limit, "url_limit"),
        (&mut skipped.scheme, "scheme"),
    ] {
        *total = total.saturating_add(n(key));
    }
}

fn number(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

fn secs(v: &Value, key: &str) -> Option<Duration> {
    v.get(key)
        .and_then(Value::as_f64)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// Adds one summary line's run-wide and per-host numbers.
fn add_summary(report: &mut Report, hosts: &mut BTreeMap<String, HostStats>, v: &Value) {
    report.unchecked = report
        .unchecked
        .saturating_add(usize::try_from(number(v, "unchecked").unwrap_or(0)).unwrap_or(usize::MAX));
    report.interrupted |= flag(v, "interrupted");
    if let Some(limit) = secs(v, "time_limit_reached") {
        report.time_limit_reached = Some(limit.max(report.time_limit_reached.unwrap_or_default()));
    }
    report.insecure |= flag(v, "insecure");
    report.duration = report.duration.max(secs(v, "duration").unwrap_or_default());
    for h in v
        .get("hosts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(host) = text(h, "host") else {
            continue;
        };
        let s = hosts.entry(host.clone()).or_insert_with(|| HostStats {
            host,
            requests: 0,
            waited: Duration::ZERO,
            retries: 0,
            overloaded: 0,
            interval: Duration::ZERO,
            effective_rate: 0.0,
            unreachable: None,
        });
        if s.unreachable.is_none() {
            s.unreachable = text(h, "unreachable");
        }
        s.requests = s
            .requests
            .saturating_add(number(h, "requests").unwrap_or(0));
        s.waited = s
            .waited
            .saturating_add(secs(h, "waited").unwrap_or_default());
        s.retries = s.retries.saturating_add(number(h, "retries").unwrap_or(0));
        s.overloaded = s
            .overloaded
            .saturating_add(number(h, "overloaded").unwrap_or(0));
        s.interval = s.interval.max(secs(h, "interval").unwrap_or_default());
        let rate = h
            .get("effective_rate")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        if rate.is_finite() {
            s.effective_rate = s.effective_rate.max(rate);
        }
    }
}

/// One entry line (the fields of `entry_json`) as an entry.
pub fn entry_from_json(v: &Value) -> Result<Entry, String> {
    let url = text(v, "url").ok_or("no \"url\"")?;
    let outcome = outcome_of(v)?;
    let real_url = text(v, "real_url")
        .filter(|r| *r != url)
        .and_then(|r| Url::parse(&r).ok());
    let mut redirects = Vec::new();
    for h in v
        .get("redirects")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let hop = text(h, "url").and_then(|u| Url::parse(&u).ok());
        let status = number(h, "status").and_then(|s| u16::try_from(s).ok());
        if let (Some(url), Some(status)) = (hop, status) {
            redirects.push(Hop { url, status });
        }
    }
    let warnings = v
        .get("warnings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|w| {
            Some(Warning {
                tag: interned(w.get("tag")?.as_str()?),
                message: text(w, "message").unwrap_or_default(),
            })
        })
        .collect();
    let infos = v
        .get("infos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| i.as_str().map(str::to_owned))
        .collect();
    let result = CheckResult {
        url: url.clone(),
        real_url,
        redirects,
        outcome,
        warnings,
        infos,
        content_type: text(v, "content_type"),
        size: number(v, "size"),
        download_time: secs(v, "download_time"),
        check_time: secs(v, "check_time").unwrap_or_default(),
        level: number(v, "level").unwrap_or(0) as usize,
        internal: flag(v, "internal"),
        links_found: 0,
        modified: text(v, "modified"),
        retries: 0,
        exported_to: None,
        // The state file's figures reach an NDJSON row only as its infos (read above) and
        // `from_state`; when it was checked is in the infos, not needed here.
        cached_from: flag(v, "from_state").then_some(std::time::SystemTime::UNIX_EPOCH),
        broken_since: None,
        broken_runs: 0,
        suggestion: text(v, "suggestion"),
    };
    let line = |key: &str| number(v, key).map(|n| n as usize);
    let referrer = text(v, "parent").map(|parent| Referrer {
        parent,
        raw: text(v, "urlname").unwrap_or_else(|| url.clone()),
        line: line("line"),
        column: line("column"),
        name: text(v, "name").unwrap_or_default(),
        base: text(v, "base"),
        warnings: Vec::new(),
        remapped_from: text(v, "remapped_from"),
        rendered: flag(v, "rendered"),
    });
    Ok(Entry {
        result: Arc::new(result),
        referrer,
        fragment: text(v, "fragment"),
        cached: flag(v, "cached"),
    })
}

/// The outcome from `state`, `status`, `failure` and `result` (`kind: message`, `ignored:
/// reason`).
fn outcome_of(v: &Value) -> Result<Outcome, String> {
    let status = number(v, "status").and_then(|s| u16::try_from(s).ok());
    let result = text(v, "result").unwrap_or_default();
    Ok(match v.get("state").and_then(Value::as_str) {
        Some("ok") => Outcome::Ok { status },
        Some("broken") => Outcome::Broken {
            status: status.ok_or("a broken entry without \"status\"")?,
        },
        Some("failed") => {
            let name = text(v, "failure").ok_or("a failed entry without \"failure\"")?;
            let kind =
                FailKind::from_name(&name).ok_or_else(|| format!("unknown failure `{name}'"))?;
            let message = result
                .strip_prefix(&format!("{name}: "))
                .unwrap_or(&result)
                .to_owned();
            Outcome::Failed { kind, message }
        }
        Some("blocked") => Outcome::Blocked {
            status: status.ok_or("a blocked entry without \"status\"")?,
            reason: text(v, "blocked").unwrap_or_default(),
        },
        Some("ignored") => Outcome::Ignored {
            reason: result
                .strip_prefix("ignored: ")
                .unwrap_or(&result)
                .to_owned(),
        },
        other => return Err(format!("unknown state {other:?}")),
    })
}

/// A warning tag as the `&'static str` a `Warning` holds: each distinct tag is stored once for
/// the life of the process (tags are a short, fixed vocabulary; a file full of made-up tags
/// costs at most its own size, once).
fn interned(tag: &str) -> &'static str {
    static TAGS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut tags = TAGS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(t) = tags.get(tag) {
        return t;
    }
    let leaked: &'static str = Box::leak(tag.to_owned().into_boxed_str());
    tags.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::entry_json;

    fn entry(outcome: Outcome, parent: Option<&str>) -> Entry {
        let mut r = CheckResult::immediate("https://example.org/x".into(), outcome, 2);
        r.warnings.push(Warning {
            tag: "http-redirected",
            message: "moved".into(),
        });
        r.size = Some(12);
        Entry {
            result: Arc::new(r),
            referrer: parent.map(|p| Referrer {
                parent: p.into(),
                raw: "x#top".into(),
                line: Some(3),
                column: Some(9),
                name: "the x".into(),
                base: None,
                warnings: Vec::new(),
                remapped_from: None,
                rendered: false,
            }),
            fragment: Some("top".into()),
            cached: true,
        }
    }

    #[test]
    fn entries_read_back_as_they_were_written() {
        for (outcome, parent) in [
            (
                Outcome::Ok { status: Some(200) },
                Some("https://example.org/"),
            ),
            (
                Outcome::Broken { status: 404 },
                Some("https://example.org/"),
            ),
            (
                Outcome::Failed {
                    kind: FailKind::Timeout,
                    message: "timed out: after 5 s".into(),
                },
                None,
            ),
            (
                Outcome::Ignored {
                    reason: "matches an --exclude pattern".into(),
                },
                Some("file:///site/index.html"),
            ),
        ]
        .into_iter()
        // Every failure kind reads back (a missing fragment once made a shard's file unmergeable).
        .chain(FailKind::ALL.into_iter().map(|kind| {
            let message = format!("{} happened", kind.as_str());
            (
                Outcome::Failed { kind, message },
                Some("https://example.org/"),
            )
        })) {
            let written = entry_json(&entry(outcome, parent));
            let back = entry_from_json(&written).unwrap();
            assert_eq!(entry_json(&back), written);
        }
    }

    #[test]
    fn bad_lines_are_errors_naming_the_line_and_unverbose_files_are_refused() {
        let bad = "{\"type\":\"entry\",\"url\":\"https://e.org/\",\"state\":\"failed\",\"failure\":\"nope\"}\n";
        let e = merge_ndjson([("a.ndjson".to_owned(), bad.as_bytes())]).unwrap_err();
        assert!(
            e.to_string().contains("a.ndjson, line 1: unknown failure"),
            "{e}"
        );
        let e = merge_ndjson([("b".to_owned(), "not json\n".as_bytes())]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("b is not a shard's NDJSON report: line 1 is not JSON"),
            "{e}"
        );
        let two = "{\"type\":\"entry\",\"url\":\"https://e.org/\",\"state\":\"ok\"}\nnot json\n";
        let e = merge_ndjson([("d".to_owned(), two.as_bytes())]).unwrap_err();
        assert!(e.to_string().starts_with("d, line 2:"), "{e}");
        let summary = "{\"type\":\"summary\",\"links\":3,\"hosts\":[]}\n";
        let e = merge_ndjson([("c".to_owned(), summary.as_bytes())]).unwrap_err();
        assert!(e.to_string().contains("-v"), "{e}");
    }
}
