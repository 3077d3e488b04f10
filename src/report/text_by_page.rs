//! The text report's problems grouped by page: each page (a local one as a path relative to
//! the base folder, a web page as its URL), then its links by line and column, each with its
//! verdict, warnings and remarks. Pages are sorted by what is shown, start URLs (no page) come
//! first under `Start URLs`, so the report reads the same whatever order links finished in.
//!
//! ```text
//! Page docs/index.html
//!   3:5 `/gone'
//!       Error: 404 Not Found
//!   7:1 `old.html'
//!       Warning [http-redirected] Redirected to …
//!       Valid: 200 OK
//! ```

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::page_path::PagePaths;
use super::problems::{place, written};
use super::style::{Painter, Tone};
use super::terminal::escape_controls as esc;
use crate::model::outcome::Entry;

/// Writes `entries` grouped by page, then a blank line after each page.
pub(crate) fn write_pages<W: Write>(
    out: &mut W,
    entries: Vec<Entry>,
    paths: &PagePaths,
    painter: Painter,
) -> io::Result<()> {
    // None (start URLs) sorts before every page.
    let mut pages: BTreeMap<Option<String>, Vec<Entry>> = BTreeMap::new();
    for e in entries {
        let page = e
            .referrer
            .as_ref()
            .map(|r| paths.show(&r.parent).into_owned());
        pages.entry(page).or_default().push(e);
    }
    for (page, mut entries) in pages {
        entries.sort_by(|a, b| {
            let (_, la, ca) = place(a);
            let (_, lb, cb) = place(b);
            (la, ca, written(a)).cmp(&(lb, cb, written(b)))
        });
        match &page {
            Some(p) => writeln!(out, "Page {}", esc(p))?,
            None => writeln!(out, "Start URLs")?,
        }
        for e in &entries {
            write_link(out, e, painter)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// One link of a page: its place and the link as written, then what was found.
fn write_link<W: Write>(out: &mut W, e: &Entry, p: Painter) -> io::Result<()> {
    let (_, line, column) = place(e);
    let at = match (line, column) {
        (Some(l), Some(c)) => format!("{l}:{c} "),
        (Some(l), None) => format!("{l} "),
        _ => String::new(),
    };
    writeln!(out, "  {at}`{}'", esc(written(e)))?;
    let r = &e.result;
    if let Some(real) = &r.real_url {
        writeln!(out, "      Real URL {}", esc(real.as_str()))?;
    }
    for w in e.warnings() {
        let text = format!("Warning [{}] {}", esc(w.tag), esc(&w.message));
        writeln!(out, "      {}", p.paint(Tone::Warning, text))?;
    }
    if let Some(from) = e.referrer.as_ref().and_then(|x| x.remapped_from.as_deref()) {
        writeln!(out, "      Info {} remapped to {}", esc(from), esc(&r.url))?;
    }
    if super::problems::is_rendered(e) {
        writeln!(
            out,
            "      Info found after rendering the page (--render-js)"
        )?;
    }
    for i in &r.infos {
        writeln!(out, "      Info {}", esc(i))?;
    }
    if let Some(s) = &r.suggestion {
        writeln!(out, "      Suggestion {}", esc(s))?;
    }
    let outcome = esc(&r.outcome.to_string()).into_owned();
    if r.outcome.is_broken() {
        writeln!(
            out,
            "      {}",
            p.paint(Tone::Error, format!("Error: {outcome}"))
        )
    } else if r.outcome.is_blocked() {
        // `blocked: 403 Forbidden (…)`: not verified, so not "Valid".
        writeln!(out, "      {}", p.paint(Tone::Warning, outcome))
    } else {
        writeln!(out, "      Valid: {outcome}")
    }
}
