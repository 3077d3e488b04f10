//! The text report LinkChecker users know: one block per broken link (or link with warnings)
//! listing every page that contains it, then the statistics and the `That's it.` line.
//!
//! Blocks are grouped per URL, so they are written by `finish` once every referrer is known;
//! `finish` also runs after a cancelled run.
//!
//! Every string that comes from a page, a server or a file name (URLs, link text, results,
//! warnings, content types) passes through [`escape_controls`] as it is written, so a report
//! on a terminal has no escape sequence and no line break the data chose: each field stays on
//! its own line. The report writes no colour codes of its own.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;

use super::terminal::escape_controls as esc;
use super::{Reporter, Verbosity, human_bytes, human_duration, statistics};
use crate::model::outcome::{CheckResult, Entry};
use crate::model::report::Report;

/// Writes the text report.
#[derive(Debug)]
pub struct TextReporter<W: Write> {
    out: W,
    verbosity: Verbosity,
    /// URL → index in `groups`, to keep the first-seen order.
    index: HashMap<String, usize>,
    /// Shown entries grouped by URL.
    groups: Vec<(Arc<CheckResult>, Vec<Entry>)>,
}

impl<W: Write> TextReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W, verbosity: Verbosity) -> Self {
        TextReporter {
            out,
            verbosity,
            index: HashMap::new(),
            groups: Vec::new(),
        }
    }

    fn block(&mut self, result: &CheckResult, entries: &[Entry]) -> io::Result<()> {
        let o = &mut self.out;
        let first = &entries[0];
        let shown = first
            .referrer
            .as_ref()
            .map_or(result.url.as_str(), |r| r.raw.as_str());
        writeln!(o, "URL        `{}'", esc(shown))?;
        if let Some(r) = &first.referrer
            && !r.name.is_empty()
        {
            writeln!(o, "Name       `{}'", esc(&r.name))?;
        }
        for e in entries {
            if let Some(r) = &e.referrer {
                write!(o, "Parent URL {}", esc(&r.parent))?;
                if let (Some(l), Some(c)) = (r.line, r.column) {
                    write!(o, ", line {l}, col {c}")?;
                }
                if r.raw != shown {
                    write!(o, " (as `{}')", esc(&r.raw))?;
                }
                writeln!(o)?;
            }
        }
        let real = result
            .real_url
            .as_ref()
            .map_or(result.url.as_str(), |u| u.as_str());
        writeln!(o, "Real URL   {}", esc(real))?;
        for hop in &result.redirects {
            writeln!(o, "Redirect   {} {}", hop.status, esc(hop.url.as_str()))?;
        }
        writeln!(
            o,
            "Check time {:.3} seconds",
            result.check_time.as_secs_f64()
        )?;
        if let Some(s) = result.size {
            writeln!(o, "Size       {}", human_bytes(s))?;
        }
        for i in &result.infos {
            writeln!(o, "Info       {}", esc(i))?;
        }
        for w in &result.warnings {
            writeln!(o, "Warning    [{}] {}", esc(w.tag), esc(&w.message))?;
        }
        for e in entries {
            for w in e.referrer.iter().flat_map(|r| r.warnings.iter()) {
                let page = e.referrer.as_ref().map_or("", |r| r.parent.as_str());
                writeln!(
                    o,
                    "Warning    [{}] {} (on {})",
                    esc(w.tag),
                    esc(&w.message),
                    esc(page)
                )?;
            }
        }
        if result.retries > 0 {
            writeln!(o, "Tries      {}", result.retries + 1)?;
        }
        let verdict = if result.outcome.is_broken() {
            "Error"
        } else {
            "Valid"
        };
        writeln!(
            o,
            "Result     {verdict}: {}",
            esc(&result.outcome.to_string())
        )?;
        writeln!(o)
    }
}

impl<W: Write> Reporter for TextReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        if self.verbosity.shows(entry) {
            let key = entry.result.url.clone();
            let i = *self.index.entry(key).or_insert_with(|| {
                self.groups.push((entry.result.clone(), Vec::new()));
                self.groups.len() - 1
            });
            self.groups[i].1.push(entry.clone());
        }
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        for (result, entries) in std::mem::take(&mut self.groups) {
            self.block(&result, &entries)?;
        }
        let o = &mut self.out;
        let stats = statistics(report);
        writeln!(o, "Statistics:")?;
        writeln!(o, "Downloaded: {}.", human_bytes(stats.bytes))?;
        let types: Vec<String> = stats
            .content_types
            .iter()
            .map(|(k, n)| format!("{n} {}", esc(k)))
            .collect();
        if !types.is_empty() {
            writeln!(o, "Content types: {}.", types.join(", "))?;
        }
        if let Some((min, max, avg)) = stats.url_lengths {
            writeln!(o, "URL lengths: min={min}, max={max}, avg={avg:.0}.")?;
        }
        for (h, errors) in stats.hosts.iter().filter(|(h, _)| h.requests > 0) {
            writeln!(
                o,
                "Host {}: {} requests ({:.1}/s), {} retries, {} overload answers (429/503), {} broken, {} waiting for politeness.",
                esc(&h.host),
                h.requests,
                h.effective_rate,
                h.retries,
                h.overloaded,
                errors,
                human_duration(h.waited)
            )?;
        }
        writeln!(o)?;
        if report.insecure {
            writeln!(o, "TLS certificates were NOT verified (--insecure).")?;
        }
        if report.interrupted {
            writeln!(
                o,
                "The check has been interrupted; results are not complete ({} URLs not checked).",
                report.unchecked
            )?;
        }
        if report.over_limit > 0 {
            writeln!(
                o,
                "{} link{} to further URLs not checked: the limit of --max-urls was reached.",
                report.over_limit,
                plural(report.over_limit)
            )?;
        }
        let (links, urls, w, e) = (
            report.links(),
            report.urls,
            report.warnings(),
            report.errors(),
        );
        writeln!(
            o,
            "That's it. {links} link{} in {urls} URL{} checked. {w} warning{} found. {e} error{} found ({} broken URL{}).",
            plural(links),
            plural(urls),
            plural(w),
            plural(e),
            stats.broken_urls,
            plural(stats.broken_urls)
        )?;
        writeln!(
            o,
            "Stopped checking after {}.",
            human_duration(report.duration)
        )?;
        o.flush()
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
