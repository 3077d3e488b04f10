//! GitHub Actions workflow commands, one per problem, which the Actions log shows as
//! annotations on the file and line:
//! `::error file=PATH,line=L,col=C,title=broken link::URL: reason`, `::warning …` for a
//! warning. PATH is relative to the working folder (the checked-out repository); a problem on
//! a web page has no `file` property and names the page in its message instead. Lines stream
//! as entries arrive; the summary line closes the output as a `::notice`.
//!
//! # Untrusted text
//! URLs, reasons and file names are chosen by others. A workflow command is one line that starts
//! with `::`, so each field first passes [`escape_controls`] (no line break, no terminal
//! escape survives), then GitHub's own escapes: `%`, CR and LF as `%25`, `%0D`, `%0A` in the
//! message, and also `:` and `,` as `%3A`, `%2C` in property values, so a URL cannot end a
//! property early and add one (`file=x,line=1` inside a link) or end the properties (`::`).

use std::borrow::Cow;
use std::io::{self, Write};

use super::page_path::PagePaths;
use super::problems::{Severity, place, problems, written};
use super::terminal::escape_controls;
use super::text::{not_checked_lines, summary_line};
use super::{FlushPacer, Reporter};
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Writes GitHub Actions workflow commands.
#[derive(Debug)]
pub struct GithubReporter<W: Write> {
    out: W,
    paths: PagePaths,
    pacer: FlushPacer,
}

impl<W: Write> GithubReporter<W> {
    /// A reporter writing to `out`, with local pages relative to `base` (absolute without
    /// one).
    pub fn new(out: W, base: Option<&std::path::Path>) -> Self {
        GithubReporter {
            out,
            paths: PagePaths::new(base),
            pacer: FlushPacer::default(),
        }
    }
}

/// A message (the part after `::`): controls spelled out, then `%`, CR and LF encoded.
fn data(s: &str) -> String {
    let s = escape_controls(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// A property value: as [`data`], plus `:` and `,` encoded.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

impl<W: Write> Reporter for GithubReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        let found = problems(entry);
        if found.is_empty() {
            return Ok(());
        }
        let (page, line, column) = place(entry);
        let local = PagePaths::local(page).is_some();
        let mut props: Vec<String> = Vec::new();
        let mut on_page: Cow<'_, str> = Cow::Borrowed("");
        if local {
            props.push(format!("file={}", property(&self.paths.show(page))));
            if let Some(l) = line {
                props.push(format!("line={l}"));
                if let Some(c) = column {
                    props.push(format!("col={c}"));
                }
            }
        } else if entry.referrer.is_some() {
            let at = match line {
                Some(l) => format!(" (on {page}, line {l})"),
                None => format!(" (on {page})"),
            };
            on_page = Cow::Owned(at);
        }
        let url = written(entry);
        for p in found {
            let (command, title) = match p.severity {
                Severity::Error => ("error", "broken link"),
                Severity::Warning => ("warning", "link warning"),
            };
            let mut all = props.clone();
            all.push(format!("title={}", property(title)));
            writeln!(
                self.out,
                "::{command} {}::{}",
                all.join(","),
                data(&format!("{url}: {}{on_page}", p.reason))
            )?;
        }
        if self.pacer.due() {
            self.out.flush()?;
        }
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        writeln!(
            self.out,
            "::notice title=linkpatrol::{}",
            data(&summary_line(report))
        )?;
        for line in not_checked_lines(report) {
            writeln!(self.out, "::notice title=linkpatrol::{}", data(&line))?;
        }
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_cannot_add_a_property_or_a_command() {
        assert_eq!(property("x,line=1::y"), "x%2Cline=1%3A%3Ay");
        assert_eq!(data("a\n::error::forged"), "a\\n::error::forged");
        assert_eq!(data("100%\r"), "100%25\\r");
        assert_eq!(property("C:\\p%"), "C%3A\\p%25");
    }
}
