//! The text report: the problems grouped by page (the default, [`GroupBy::Page`]: each page,
//! then its problems by line and column, as people fix links page by page), or LinkChecker's
//! layout ([`GroupBy::Url`]: one block per broken link, or link with warnings, listing every
//! page that contains it); then the statistics and the `That's it.` summary line.
//!
//! Both groupings need every referrer, so they are written by `finish`; `finish` also runs
//! after a cancelled run.
//!
//! Every string that comes from a page, a server or a file name (URLs, link text, results,
//! warnings, content types) passes through [`escape_controls`] as it is written, so a report
//! on a terminal has no escape sequence and no line break the data chose: each field stays on
//! its own line. With colour on ([`TextReporter::with_color`]) the only escape codes are ours
//! (`style.rs`): errors red, warnings yellow, the summary line bold.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;

use super::page_path::PagePaths;
use super::style::{Painter, Tone};
use super::terminal::escape_controls as esc;
use super::text_by_page::write_pages;
use super::{GroupBy, Reporter, Verbosity, human_bytes, human_duration, statistics};
use crate::model::outcome::{CheckResult, Entry};
use crate::model::run_report::Report;

/// Writes the text report.
#[derive(Debug)]
pub struct TextReporter<W: Write> {
    out: W,
    verbosity: Verbosity,
    /// URL → index in `groups`, to keep the first-seen order.
    index: HashMap<String, usize>,
    /// Shown entries grouped by URL.
    groups: Vec<(Arc<CheckResult>, Vec<Entry>)>,
    /// By page (the default) or by URL.
    group_by: GroupBy,
    /// Colours, or none.
    painter: Painter,
    /// Local pages as paths relative to a folder (grouping by page).
    paths: PagePaths,
}

impl<W: Write> TextReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W, verbosity: Verbosity) -> Self {
        TextReporter {
            out,
            verbosity,
            index: HashMap::new(),
            groups: Vec::new(),
            group_by: GroupBy::Page,
            painter: Painter::new(false),
            paths: PagePaths::default(),
        }
    }

    /// Groups the problems by page (the default) or by URL.
    pub fn with_group_by(mut self, group_by: GroupBy) -> Self {
        self.group_by = group_by;
        self
    }

    /// Colours errors red, warnings yellow and the summary line bold when `color` is true.
    /// Defaults to off.
    pub fn with_color(mut self, color: bool) -> Self {
        self.painter = Painter::new(color);
        self
    }

    /// Shows local pages as paths relative to `base` when grouping by page (absolute paths
    /// without one, the default).
    pub fn with_base(mut self, base: Option<&std::path::Path>) -> Self {
        self.paths = PagePaths::new(base);
        self
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
                if let Some(from) = &r.remapped_from {
                    write!(o, " (remapped from {})", esc(from))?;
                }
                if r.rendered {
                    o.write_all(super::problems::RENDERED_NOTE.as_bytes())?;
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
        let p = self.painter;
        for w in &result.warnings {
            let text = format!("[{}] {}", esc(w.tag), esc(&w.message));
            writeln!(o, "Warning    {}", p.paint(Tone::Warning, text))?;
        }
        for e in entries {
            for w in e.referrer.iter().flat_map(|r| r.warnings.iter()) {
                let page = e.referrer.as_ref().map_or("", |r| r.parent.as_str());
                let text = format!("[{}] {} (on {})", esc(w.tag), esc(&w.message), esc(page));
                writeln!(o, "Warning    {}", p.paint(Tone::Warning, text))?;
            }
        }
        if result.retries > 0 {
            writeln!(o, "Tries      {}", result.retries + 1)?;
        }
        if let Some(s) = &result.suggestion {
            writeln!(o, "Suggestion {}", esc(s))?;
        }
        let outcome = esc(&result.outcome.to_string()).into_owned();
        if result.outcome.is_broken() {
            let text = format!("Error: {outcome}");
            writeln!(o, "Result     {}", p.paint(Tone::Error, text))?;
        } else if result.outcome.is_blocked() {
            writeln!(o, "Result     {}", p.paint(Tone::Warning, outcome))?;
        } else {
            writeln!(o, "Result     Valid: {outcome}")?;
        }
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
        let groups = std::mem::take(&mut self.groups);
        match self.group_by {
            GroupBy::Url => {
                for (result, entries) in groups {
                    self.block(&result, &entries)?;
                }
            }
            GroupBy::Page => {
                let entries: Vec<Entry> = groups.into_iter().flat_map(|(_, e)| e).collect();
                write_pages(&mut self.out, entries, &self.paths, self.painter)?;
            }
        }
        let o = &mut self.out;
        if let Some(line) = time_limit_line(report) {
            writeln!(o, "{}", self.painter.paint(Tone::Error, line))?;
            writeln!(o)?;
        }
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
        if report.interrupted && report.time_limit_reached.is_none() {
            writeln!(
                o,
                "The check has been interrupted; results are not complete ({} URL{} not checked).",
                report.unchecked,
                plural(report.unchecked)
            )?;
        }
        if let Some(line) = state_line(report) {
            writeln!(o, "{line}")?;
        }
        let line = summary_line(report);
        writeln!(o, "{}", self.painter.paint(Tone::Summary, line))?;
        for line in not_checked_lines(report) {
            writeln!(o, "{line}")?;
        }
        writeln!(
            o,
            "Stopped checking after {}.",
            human_duration(report.duration)
        )?;
        o.flush()
    }
}

/// The summary line every text-like report ends with: `That's it. 5 links in 4 URLs checked.
/// 0 warnings found. 1 error found (1 broken URL).`; after a cancel `Interrupted, results
/// not complete: 5 links in 4 URLs checked, 9 URLs not checked. …` (it never says "That's
/// it." then).
pub(crate) fn summary_line(report: &Report) -> String {
    let (links, urls, w, e) = (
        report.links(),
        report.urls,
        report.warnings(),
        report.errors(),
    );
    let broken = report.stats.broken_urls;
    let checked = format!(
        "{links} link{} in {urls} URL{} checked",
        plural(links),
        plural(urls)
    );
    let head = if let Some(limit) = report.time_limit_reached {
        let n = report.unchecked;
        format!(
            "Stopped at the time limit of {} s, results not complete: {checked}, {n} URL{} not \
             checked.",
            limit.as_secs_f64(),
            plural(n)
        )
    } else if report.interrupted {
        let n = report.unchecked;
        format!(
            "Interrupted, results not complete: {checked}, {n} URL{} not checked.",
            plural(n)
        )
    } else {
        format!("That's it. {checked}.")
    };
    let mut line = format!(
        "{head} {w} warning{} found. {e} error{} found ({broken} broken URL{}).",
        plural(w),
        plural(e),
        plural(broken)
    );
    if let Some(rendered) = rendered_count(report) {
        line.push(' ');
        line.push_str(&rendered);
    }
    line
}

/// `12 links found after rendering.`, when `--render-js` found any (see `Statistics::rendered`).
pub(crate) fn rendered_count(report: &Report) -> Option<String> {
    let n = report.stats.rendered;
    (n > 0).then(|| format!("{n} link{} found after rendering.", plural(n)))
}

/// The first line of a summary when the time limit cut the run short: `The check stopped at
/// the time limit of 30 s: 12 URLs not checked (--max-run-time).`
pub(crate) fn time_limit_line(report: &Report) -> Option<String> {
    let limit = report.time_limit_reached?;
    let n = report.unchecked;
    Some(format!(
        "The check stopped at the time limit of {} s: {n} URL{} not checked (--max-run-time).",
        limit.as_secs_f64(),
        plural(n)
    ))
}

/// What the state file saved, when it served anything: `12 results reused from the state
/// file, 3 pages not modified.`
pub(crate) fn state_line(report: &Report) -> Option<String> {
    let (reused, unchanged) = (report.stats.reused, report.stats.not_modified);
    (reused > 0 || unchanged > 0).then(|| {
        format!(
            "{reused} result{} reused from the state file, {unchanged} page{} not modified.",
            plural(reused),
            plural(unchanged)
        )
    })
}

/// Why broken links did not fail the run (`--fail-after-runs`), when some did not: `3 errors
/// tolerated: --fail-after-runs 3 fails the run only for a link broken in 3 consecutive runs;
/// these have been broken in at most 2 so far (this run included).`, and `Exit status 0.`
/// when nothing failed it.
pub(crate) fn tolerated_line(report: &Report) -> Option<String> {
    let t = report.tolerated?;
    let n = t.fail_after_runs;
    let mut line = format!(
        "{} error{} tolerated: --fail-after-runs {n} fails the run only for a link broken in \
         {n} consecutive runs; {} been broken in at most {} so far (this run included).",
        t.errors,
        plural(t.errors),
        if t.errors == 1 {
            "this one has"
        } else {
            "these have"
        },
        t.longest,
    );
    if report.failing == 0 && !report.interrupted {
        line.push_str(" Exit status 0.");
    }
    Some(line)
}

/// One line for each start URL whose site could not be reached at all: the whole check
/// stopped there, which a row among the others does not say.
fn start_urls_unreached(report: &Report) -> Vec<String> {
    report
        .stats
        .unreached_starts
        .iter()
        .map(|(url, why)| {
            format!(
                "The start URL {} could not be reached: {}.",
                esc(url),
                esc(why)
            )
        })
        .collect()
}

/// What was found and not checked, and why (no silent pass): a line for each start URL that
/// could not be reached, one for URLs skipped by
/// robots.txt, scope, patterns or scheme, one naming the hosts given up as unreachable, one
/// for links bot protection answered for (not verified), one for links past `--max-urls`;
/// none when nothing was skipped (before them all, a lost login session); then one line per folder read as an mdBook, which changes
/// what a link means there; then the [`tolerated_line`], when broken links did not fail the
/// run. Every summary (text, compact, github, markdown) ends with them.
pub(crate) fn not_checked_lines(report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = report
        .session_lost
        .iter()
        .map(|lost| session_lost_line(lost))
        .collect();
    lines.extend(start_urls_unreached(report));
    let skipped = report.stats.skipped;
    if skipped.total() > 0 {
        lines.push(format!(
            "{} URL{} not checked: {}.",
            skipped.total(),
            plural(skipped.total()),
            skipped.reasons_text()
        ));
    }
    let unreachable = unreachable_hosts(report);
    if !unreachable.is_empty() {
        lines.push(format!(
            "{} host{} unreachable, {} other URLs not requested: {}.",
            unreachable.len(),
            plural(unreachable.len()),
            if unreachable.len() == 1 {
                "its"
            } else {
                "their"
            },
            unreachable.join("; ")
        ));
    }
    let blocked = report.stats.blocked;
    if blocked > 0 {
        let hosts = &report.stats.blocked_hosts;
        lines.push(format!(
            "{blocked} link{} could not be verified: blocked by bot protection on host{} {}.",
            plural(blocked),
            plural(hosts.len()),
            hosts.join(", ")
        ));
    }
    if report.over_limit > 0 {
        lines.push(format!(
            "{} link{} to further URLs not checked: {}",
            report.over_limit,
            plural(report.over_limit),
            discovery_stopped(report)
        ));
    }
    lines.extend(
        report
            .mdbooks
            .iter()
            .map(|(src, chapters)| mdbook_line(src, *chapters)),
    );
    lines.extend(tolerated_line(report));
    lines
}

/// The line naming where the login session was lost (`Report::session_lost`), and what that
/// means for the pages checked after it.
pub(crate) fn session_lost_line(lost: &str) -> String {
    let mut line = lost.to_owned();
    if let Some(first) = line.get(..1) {
        line.replace_range(..1, &first.to_uppercase());
    }
    format!(
        "{line}. The pages checked after that were checked logged out: they carry the \
         `session-lost` warning and fail the run. Keep the crawl off the link that ends the \
         session with --login-logout-pattern."
    )
}

/// Why links were left unchecked once the run stopped discovering URLs: the memory budget or
/// the URL limit, named with its number when the report knows it, and how to lift it.
pub(crate) fn discovery_stopped(report: &Report) -> String {
    if let Some(bytes) = report.memory_limit {
        return format!(
            "the memory budget of {} (--max-memory) was reached and no further URLs were \
             discovered; raise it with --max-memory SIZE (0: no budget).",
            human_bytes(bytes as u64)
        );
    }
    let limit = report
        .url_limit
        .map_or_else(String::new, |n| format!(" of {n} URLs"));
    format!(
        "the limit{limit} (--max-urls) was reached and no further URLs were discovered; \
         raise it with --max-urls N (0: no limit)."
    )
}

/// The line saying that the sources in `src` were read as an mdBook, and how.
pub(crate) fn mdbook_line(src: &str, chapters: Option<usize>) -> String {
    let pages = match chapters {
        Some(n) => format!(
            "; its pages are the {n} file{} SUMMARY.md lists or includes",
            plural(n)
        ),
        None => "; no SUMMARY.md was read".to_owned(),
    };
    format!(
        "Read as an mdBook: `{}' (a link to page.html is page.md, index.html is README.md{pages}).",
        esc(src)
    )
}

/// The hosts given up as unreachable, each with its failure (`127.0.0.1:9 (connect: Connection
/// refused)`), control characters spelled out.
pub(crate) fn unreachable_hosts(report: &Report) -> Vec<String> {
    report
        .stats
        .hosts
        .iter()
        .filter_map(|(h, _)| {
            let why = h.unreachable.as_deref()?;
            Some(format!("{} ({})", esc(&h.host), esc(why)))
        })
        .collect()
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
