//! JSON: one document, `{"tool": {…}, "entries": [ … ], "summary": {…}}`.
//!
//! The entries array is streamed: each entry the verbosity shows is written (one per line) and
//! flushed as it arrives, and `finish` closes the array and writes the summary, so even a
//! cancelled run leaves a complete document. [`entry_json`] and [`summary_json`] build the two
//! objects; NDJSON uses them too.
//!
//! An entry: `url` (as checked, no fragment), `urlname` (as written in the page), `real_url`
//! (after redirects), `result` (text such as `404 Not Found`), `valid`, `state` (`ok`,
//! `broken`, `failed`, `blocked`, `ignored`), `status` (HTTP status or null), `failure` (failure class or
//! null: `http-error`, `timeout`, …), `warnings` (`[{tag, message}]`), `infos`, `parent`,
//! `line`, `column`, `name`, `base`, `fragment`, `content_type`, `size`, `download_time` and
//! `check_time` (seconds), `level`, `internal`, `cached` (LinkChecker's meaning: not the
//! URL's first row in this run), `from_state` (the result was reused from the state file,
//! not requested; when it was checked is in `infos`), `modified` and `redirects`
//! (`[{url, status}]`). Absent values are `null`. A link a remap rule rewrote
//! ([`Config::remap`](crate::Config::remap)) also has `remapped_from`: its URL before the rule
//! (`url` is the URL checked). A link found only once its page was rendered (`--render-js`)
//! has `rendered: true`, and the summary then counts them in `rendered`. A link bot protection answered for has `state` `blocked`,
//! `valid` true (it is no error) and `blocked`: which protection (`Cloudflare bot challenge`).
//! With `--suggest`, a broken link the web archive has a copy of has `suggestion`: the
//! snapshot's URL.
//!
//! The summary: `links` (entries of the run, shown or not), `urls`, `errors`, `warnings`,
//! `unchecked`, `over_limit` (links not checked because of `--max-urls`), `interrupted`
//! (`true` also when the time limit stopped the run, which then adds `time_limit_reached`: the
//! limit in seconds), `session_lost` (where the login session was lost, else `null`), `duration` (seconds), `broken_urls`, `bytes`, `content_types`
//! (`{class: count}`), `url_lengths` (`{min, max, avg}`), `insecure`, `mdbooks` (`[{src,
//! chapters}]`: the source folders read as mdBooks, with the number of pages their
//! SUMMARY.md lists or its chapters include, `null` when no SUMMARY.md was read) and `hosts` (`[{host,
//! requests, waited, retries, overloaded, broken, interval, effective_rate}]`, times in
//! seconds, and `unreachable`, the failure, for a host given up) and `skipped` (URLs not
//! checked: `{robots, outside_scope, excluded, not_included, url_limit, scheme, comment,
//! ignore_file, excluded_starts, offline}`; `comment` counts links, the others URLs); when bot protection answered for
//! some links, `blocked` (their entries) and `blocked_hosts` (host names). A shard's run
//! (`--shard I/N`) also has `shard`: `{index, count, phase, exported}` (`phase` 1 or 2;
//! `exported`: the links exported to each shard, by index), which `merge` reads to warn of a
//! missing phase-2 report. When the state file served results or pages, `reused` (distinct
//! URLs whose result was reused from it) and `not_modified` (pages answered 304 whose links
//! came from it). When broken links did not fail the run (`--fail-after-runs` with
//! a state file), `tolerated`: `{errors, fail_after_runs, longest}` (`longest`: the longest
//! streak of consecutive broken runs among them). "URLs checked" (`urls`) is the distinct URLs of the rows
//! ([`Report::urls`]).

use std::io::{self, Write};

use serde_json::{Value, json};

use super::terminal::escape_json_controls;
use super::{FlushPacer, Reporter, Verbosity};
use crate::model::failure_class::FailureClass;
use crate::model::outcome::{Entry, Outcome};
use crate::model::run_report::Report;

/// Writes the JSON document.
#[derive(Debug)]
pub struct JsonReporter<W: Write> {
    out: W,
    verbosity: Verbosity,
    /// `true` once the document head and `"entries":[` are written.
    opened: bool,
    /// Entries written so far (a comma goes before every one after the first).
    written: usize,
    pacer: FlushPacer,
}

impl<W: Write> JsonReporter<W> {
    /// A reporter writing to `out`, showing the entries `verbosity` selects.
    pub fn new(out: W, verbosity: Verbosity) -> Self {
        JsonReporter {
            out,
            verbosity,
            opened: false,
            written: 0,
            pacer: FlushPacer::default(),
        }
    }

    fn open(&mut self) -> io::Result<()> {
        if !self.opened {
            self.opened = true;
            write!(self.out, "{{\"tool\":")?;
            write_json(&mut self.out, &tool_json(), false)?;
            write!(self.out, ",\"entries\":[")?;
        }
        Ok(())
    }
}

impl<W: Write> Reporter for JsonReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        if !self.verbosity.shows(entry) {
            return Ok(());
        }
        self.open()?;
        let sep = if self.written == 0 { "\n" } else { ",\n" };
        self.out.write_all(sep.as_bytes())?;
        write_json(&mut self.out, &entry_json(entry), false)?;
        self.written += 1;
        // Streamed: entries reach the file within FLUSH_INTERVAL.
        if self.pacer.due() {
            self.out.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        self.open()?;
        write!(self.out, "\n],\n\"summary\":")?;
        write_json(&mut self.out, &summary_json(report), false)?;
        writeln!(self.out, "}}")?;
        self.out.flush()
    }
}

/// Writes `value` as JSON, compact or `pretty`, with every control character escaped: serde_json
/// leaves DEL, the C1 controls and the Unicode line separators raw, and a terminal showing the
/// report would act on them ([`escape_json_controls`]). JSON, NDJSON and SARIF write through
/// here.
pub(crate) fn write_json(out: &mut impl Write, value: &Value, pretty: bool) -> io::Result<()> {
    let json = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    }?;
    out.write_all(escape_json_controls(&json).as_bytes())
}

/// `{"name": "linkpatrol", "version": …}`.
pub(crate) fn tool_json() -> Value {
    json!({"name": "linkpatrol", "version": env!("CARGO_PKG_VERSION")})
}

/// One entry as a JSON object (fields in the module docs).
pub fn entry_json(e: &Entry) -> Value {
    let r = &e.result;
    let rf = e.referrer.as_ref();
    let mut entry = json!({
        "url": r.url,
        "urlname": rf.map_or(r.url.as_str(), |x| x.raw.as_str()),
        "real_url": r.real_url.as_ref().map_or(r.url.as_str(), |u| u.as_str()),
        "result": r.outcome.to_string(),
        "valid": !r.outcome.is_broken(),
        "state": r.outcome.state_name(),
        "status": r.outcome.status(),
        "failure": FailureClass::of(&r.outcome).map(FailureClass::name),
        "warnings": e.warnings()
            .map(|w| json!({"tag": w.tag, "message": w.message}))
            .collect::<Vec<_>>(),
        "infos": r.infos,
        "parent": rf.map(|x| x.parent.as_str()),
        "line": rf.and_then(|x| x.line),
        "column": rf.and_then(|x| x.column),
        "name": rf.map(|x| x.name.as_str()),
        "base": rf.and_then(|x| x.base.as_deref()),
        "fragment": e.fragment,
        "content_type": r.content_type,
        "size": r.size,
        "download_time": r.download_time.map(|d| d.as_secs_f64()),
        "check_time": r.check_time.as_secs_f64(),
        "level": r.level,
        "internal": r.internal,
        "cached": e.cached,
        "from_state": r.cached_from.is_some(),
        "modified": r.modified,
        "redirects": r.redirects.iter()
            .map(|h| json!({"url": h.url.as_str(), "status": h.status}))
            .collect::<Vec<_>>(),
    });
    if let Some(from) = rf.and_then(|x| x.remapped_from.as_deref()) {
        entry["remapped_from"] = from.into();
    }
    if rf.is_some_and(|x| x.rendered) {
        // Only on a link found after rendering: other rows keep their shape.
        entry["rendered"] = true.into();
    }
    if let Outcome::Blocked { reason, .. } = &r.outcome {
        entry["blocked"] = reason.as_str().into();
    }
    if let Some(s) = &r.suggestion {
        entry["suggestion"] = s.as_str().into();
    }
    entry
}

/// The summary of a run as a JSON object (fields in the module docs).
pub fn summary_json(report: &Report) -> Value {
    let stats = super::statistics(report);
    let mut summary = json!({
        "links": report.links(),
        "urls": report.urls,
        "errors": report.errors(),
        "warnings": report.warnings(),
        "unchecked": report.unchecked,
        "over_limit": report.over_limit,
        "interrupted": report.interrupted,
        "session_lost": report.session_lost,
        "duration": report.duration.as_secs_f64(),
        "broken_urls": stats.broken_urls,
        "bytes": stats.bytes,
        "content_types": stats.content_types,
        "url_lengths": stats.url_lengths.map(|(min, max, avg)| json!({"min": min, "max": max, "avg": avg})),
        "insecure": report.insecure,
        "mdbooks": report.mdbooks.iter()
            .map(|(src, chapters)| json!({"src": src, "chapters": chapters}))
            .collect::<Vec<_>>(),
        "skipped": {
            "robots": stats.skipped.robots,
            "outside_scope": stats.skipped.outside_scope,
            "excluded": stats.skipped.excluded,
            "not_included": stats.skipped.not_included,
            "comment": stats.skipped.comment,
            "ignore_file": stats.skipped.ignore_file,
            "excluded_starts": stats.skipped.excluded_starts,
            "offline": stats.skipped.offline,
            "url_limit": stats.skipped.url_limit,
            "scheme": stats.skipped.scheme,
        },
        "hosts": stats.hosts.iter()
            .map(|(h, broken)| (h, json!({
                "host": h.host,
                "requests": h.requests,
                "waited": h.waited.as_secs_f64(),
                "retries": h.retries,
                "overloaded": h.overloaded,
                "broken": broken,
                "interval": h.interval.as_secs_f64(),
                "effective_rate": h.effective_rate,
            })))
            .map(|(h, mut v)| {
                // Only for a host given up: reports of other runs keep their shape.
                if let Some(why) = &h.unreachable {
                    v["unreachable"] = why.as_str().into();
                }
                v
            })
            .collect::<Vec<_>>(),
    });
    if stats.reused > 0 || stats.not_modified > 0 {
        // Only with a state file that served something: other reports keep their shape.
        summary["reused"] = json!(stats.reused);
        summary["not_modified"] = json!(stats.not_modified);
    }
    if stats.rendered > 0 {
        // Only when rendering found links: other reports keep their shape.
        summary["rendered"] = json!(stats.rendered);
    }
    if let Some(limit) = report.time_limit_reached {
        // Only when the time limit stopped the run: other reports keep their shape.
        summary["time_limit_reached"] = json!(limit.as_secs_f64());
    }
    if let Some(t) = &report.tolerated {
        // Only when broken links did not fail the run (`--fail-after-runs`).
        summary["tolerated"] = json!({
            "errors": t.errors,
            "fail_after_runs": t.fail_after_runs,
            "longest": t.longest,
        });
    }
    if let Some(shard) = &report.shard {
        // Only for a shard: reports of other runs keep their shape.
        summary["shard"] = json!({
            "index": shard.index,
            "count": shard.count,
            "phase": shard.phase,
            "exported": shard.exported,
        });
    }
    if stats.blocked > 0 {
        // Only when there are some: reports of runs without any keep their shape.
        summary["blocked"] = json!(stats.blocked);
        summary["blocked_hosts"] = json!(stats.blocked_hosts);
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_entries_is_still_one_document() {
        let mut out = Vec::new();
        let mut r = JsonReporter::new(&mut out, Verbosity::All);
        r.finish(&Report::default()).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["entries"], json!([]));
        assert_eq!(v["summary"]["links"], 0);
        assert_eq!(v["tool"]["name"], "linkpatrol");
    }
}
