//! A Markdown summary for `$GITHUB_STEP_SUMMARY` and pull-request comments: a heading with
//! the verdict, a table of totals, then the problems grouped by page, a table per page
//! (line:column, the link as written, the problem). Local pages are paths relative to the
//! working folder, web pages their URLs; pages are sorted, links by line and column. Written
//! by `finish` (also after a cancelled run, which the heading says).
//!
//! # Untrusted text
//! Links, reasons and file names are chosen by others, and GitHub renders this file. Each cell
//! passes [`escape_controls`] (so it stays on its row), then every character Markdown or HTML
//! would act on — `\`, `` ` ``, `*`, `_`, `[`, `]`, `<`, `>`, `|`, `&`, `~` — gets a backslash,
//! which CommonMark renders as the character itself: no HTML tag, no link, no code span, no
//! new table cell.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::page_path::PagePaths;
use super::problems::{Severity, place, problems, written};
use super::terminal::escape_controls;
use super::text::{not_checked_lines, plural};
use super::{Reporter, human_duration};
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Writes the Markdown summary.
#[derive(Debug)]
pub struct MarkdownReporter<W: Write> {
    out: W,
    paths: PagePaths,
    /// Entries with a problem.
    entries: Vec<Entry>,
}

impl<W: Write> MarkdownReporter<W> {
    /// A reporter writing to `out`, with local pages relative to `base` (absolute without
    /// one).
    pub fn new(out: W, base: Option<&std::path::Path>) -> Self {
        MarkdownReporter {
            out,
            paths: PagePaths::new(base),
            entries: Vec::new(),
        }
    }
}

/// `s` safe in a Markdown table cell or heading (see the module doc).
pub(crate) fn md(s: &str) -> String {
    let s = escape_controls(s);
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '&' | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl<W: Write> Reporter for MarkdownReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        if entry.result.outcome.is_broken() || entry.warnings().next().is_some() {
            self.entries.push(entry.clone());
        }
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        let o = &mut self.out;
        let (e, w) = (report.errors(), report.warnings());
        let verdict = if e > 0 {
            format!("{e} broken link{}", plural(e))
        } else {
            "no broken links".to_owned()
        };
        let warned = if w > 0 {
            format!(", {w} warning{}", plural(w))
        } else {
            String::new()
        };
        writeln!(o, "## Link check: {verdict}{warned}")?;
        writeln!(o)?;
        if let Some(line) = super::text::time_limit_line(report) {
            writeln!(o, "**Time limit**: {line}")?;
            writeln!(o)?;
        } else if report.interrupted {
            writeln!(
                o,
                "**Interrupted**: results are not complete ({} URLs not checked).",
                report.unchecked
            )?;
            writeln!(o)?;
        }
        writeln!(
            o,
            "| Links | URLs | Errors | Broken URLs | Warnings | Time |"
        )?;
        writeln!(o, "|---:|---:|---:|---:|---:|---:|")?;
        writeln!(
            o,
            "| {} | {} | {e} | {} | {w} | {} |",
            report.links(),
            report.urls,
            report.stats.broken_urls,
            human_duration(report.duration)
        )?;
        if let Some(line) = super::text::rendered_count(report) {
            writeln!(o)?;
            writeln!(o, "**Rendered** (--render-js): {line}")?;
        }
        let not_checked = not_checked_lines(report);
        if !not_checked.is_empty() {
            writeln!(o)?;
            for line in not_checked {
                writeln!(o, "{}  ", md(&line))?;
            }
        }
        let mut pages: BTreeMap<Option<String>, Vec<&Entry>> = BTreeMap::new();
        for entry in &self.entries {
            let page = entry
                .referrer
                .as_ref()
                .map(|r| self.paths.show(&r.parent).into_owned());
            pages.entry(page).or_default().push(entry);
        }
        for (page, mut entries) in pages {
            entries.sort_by(|a, b| {
                let (_, la, ca) = place(a);
                let (_, lb, cb) = place(b);
                (la, ca, written(a)).cmp(&(lb, cb, written(b)))
            });
            writeln!(o)?;
            match &page {
                Some(p) => writeln!(o, "### {}", md(p))?,
                None => writeln!(o, "### Start URLs")?,
            }
            writeln!(o)?;
            writeln!(o, "| Line | Link | Problem |")?;
            writeln!(o, "|---:|---|---|")?;
            for entry in entries {
                let (_, line, column) = place(entry);
                let at = match (line, column) {
                    (Some(l), Some(c)) => format!("{l}:{c}"),
                    (Some(l), None) => l.to_string(),
                    _ => String::new(),
                };
                for p in problems(entry) {
                    let label = match p.severity {
                        Severity::Error => "**error**",
                        Severity::Warning => "warning",
                    };
                    writeln!(
                        o,
                        "| {at} | {} | {label}: {} |",
                        md(written(entry)),
                        md(&p.reason)
                    )?;
                }
            }
        }
        o.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::md;

    #[test]
    fn markup_in_untrusted_text_is_shown_as_text() {
        assert_eq!(md("a|b"), r"a\|b");
        assert_eq!(md("<img src=x>"), r"\<img src=x\>");
        assert_eq!(md("`x` [y](z) *w*"), r"\`x\` \[y\](z) \*w\*");
        assert_eq!(md("a\nb"), r"a\\nb");
        assert_eq!(md("&amp;"), r"\&amp;");
    }
}
