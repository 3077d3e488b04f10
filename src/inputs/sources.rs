//! A built site checked for its sources (`--sources SRC`): the HTML mdBook built in `book/` is
//! what readers get, after every preprocessor, so it is what is checked; each problem found on
//! a built page is then reported where it was written, at the Markdown source and line, so CI
//! can run `mdbook build && linkpatrol --sources src book`.
//!
//! A built page `book/a/b.html` comes from `src/a/b.md` (`index.html` from the folder's
//! `README.md` or `index.md`; the root `index.html` is the first chapter `SUMMARY.md` lists).
//! The link is looked for in the source as written on the built page, then with `.html` turned
//! back into `.md` (mdBook's rewrite of relative links); its first line there is the line
//! reported. A page with no such source (`404.html`) or a link not found in its source (one a
//! preprocessor wrote) keeps its place on the built page. Some built pages are checked but not
//! read ([`SourceMap::pages_not_read`]), so each problem is reported once: `print.html` (it
//! repeats every chapter), the root `index.html` when the first chapter is not a `README.md`
//! (a copy of it), and `404.html` (its links resolve against the deployed site's root).
//!
//! The sources are the checkout's: each is read through `checkout_file`, a regular file inside
//! `SRC`, at most 4 MiB, once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use url::Url;

use super::{Result, invalid};
use crate::model::outcome::Entry;

/// The most bytes of one source read.
const MAX_SOURCE: u64 = 4 << 20;

/// Maps problems on the pages of a built site back to the Markdown sources that wrote them.
#[derive(Debug)]
pub struct SourceMap {
    /// The sources' folder, canonical.
    src: PathBuf,
    /// The built folder's `file:` URL, ending in `/`.
    built: String,
    /// The first chapter `SUMMARY.md` lists: the root `index.html` is built from it.
    first: Option<PathBuf>,
    /// Each source's lines, read once (`None`: not readable).
    lines: Mutex<HashMap<PathBuf, Option<Arc<Vec<String>>>>>,
}

impl SourceMap {
    /// The sources in `src` of the site built in `built`.
    ///
    /// # Errors
    /// When either is not a folder.
    pub fn new(src: impl AsRef<Path>, built: impl AsRef<Path>) -> Result<SourceMap> {
        let folder = |p: &Path, what: &str| {
            std::fs::canonicalize(p)
                .ok()
                .filter(|p| p.is_dir())
                .ok_or_else(|| invalid(format!("--sources: {what} `{}' is no folder", p.display())))
        };
        let src = folder(src.as_ref(), "the sources")?;
        let built = folder(built.as_ref(), "the built site")?;
        let built = Url::from_directory_path(&built)
            .map_err(|()| invalid(format!("`{}' is not a usable path", built.display())))?;
        Ok(SourceMap {
            first: first_chapter(&src),
            src,
            built: built.into(),
            lines: Mutex::new(HashMap::new()),
        })
    }

    /// Moves `entry`'s place from a built page to its source and line, when both are found.
    pub fn map(&self, entry: &mut Entry) {
        let Some(r) = entry.referrer.as_mut() else {
            return;
        };
        let Some(page) = r.parent.strip_prefix(&self.built) else {
            return;
        };
        let page = page.split(['?', '#']).next().unwrap_or("");
        let mut sources = sources_of(page);
        if page == "index.html" {
            sources.extend(self.first.clone());
        }
        for source in sources {
            let path = self.src.join(&source);
            let Some(lines) = self.lines_of(&path) else {
                continue;
            };
            let Some((line, column)) = find(&lines, &r.raw) else {
                continue;
            };
            let Ok(url) = Url::from_file_path(&path) else {
                return;
            };
            r.parent = url.into();
            r.line = Some(line);
            r.column = Some(column);
            return;
        }
    }

    /// The built pages (relative to the built folder) of a book whose sources are in `src`
    /// that are to be checked but not read: `print.html` and `404.html`, and `index.html` when
    /// the first chapter is not the book's `README.md` (or `index.md`), as it is a copy of it.
    pub fn pages_not_read(src: impl AsRef<Path>) -> Vec<&'static str> {
        let mut pages = vec!["print.html", "404.html"];
        let first = first_chapter(src.as_ref());
        if first.is_some_and(|f| f != Path::new("README.md") && f != Path::new("index.md")) {
            pages.push("index.html");
        }
        pages
    }

    fn lines_of(&self, path: &Path) -> Option<Arc<Vec<String>>> {
        if let Some(known) = self.lines.lock().get(path) {
            return known.clone();
        }
        // Read outside the lock; two threads may read one source once each, at worst.
        let read = super::checkout_file::read_prefix(path, Some(&self.src), MAX_SOURCE)
            .ok()
            .map(|(bytes, _)| {
                Arc::new(
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .map(str::to_owned)
                        .collect(),
                )
            });
        self.lines.lock().insert(path.to_path_buf(), read.clone());
        read
    }
}

/// The first chapter `src/SUMMARY.md` lists (the destination of its first `.md` link).
fn first_chapter(src: &Path) -> Option<PathBuf> {
    let (bytes, _) =
        super::checkout_file::read_prefix(&src.join("SUMMARY.md"), Some(src), MAX_SOURCE).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    text.split("](").skip(1).find_map(|rest| {
        let dest = rest.split([')', '#', ' ']).next()?.trim();
        (dest.ends_with(".md") && !dest.contains("://")).then(|| {
            let dest = dest.strip_prefix("./").unwrap_or(dest);
            PathBuf::from(percent_decode(dest))
        })
    })
}

/// The sources a built page (relative to the built folder, `%`-escaped) may come from.
fn sources_of(page: &str) -> Vec<PathBuf> {
    let Some(stem) = page.strip_suffix(".html") else {
        return Vec::new();
    };
    let decoded = percent_decode(stem);
    let (dir, name) = decoded.rsplit_once('/').unwrap_or(("", &decoded));
    let path = |file: &str| Path::new(dir).join(file);
    match name {
        "print" | "toc" | "404" if dir.is_empty() => Vec::new(),
        "index" => vec![path("README.md"), path("index.md")],
        _ => vec![path(&format!("{name}.md"))],
    }
}

/// `text` with its `%XX` escapes decoded (invalid UTF-8 replaced).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The first line (1-based) and column (in characters) where `raw` is written in `lines`, as
/// it is or with `.html` turned back into `.md`.
fn find(lines: &[String], raw: &str) -> Option<(usize, usize)> {
    let raw = raw.trim();
    if raw.is_empty() {
        return None;
    }
    let mut needles = vec![raw.to_owned()];
    let split = raw.find(['#', '?']).unwrap_or(raw.len());
    if let Some(stem) = raw[..split].strip_suffix(".html") {
        needles.push(format!("{stem}.md{}", &raw[split..]));
    }
    needles.iter().find_map(|needle| {
        lines.iter().enumerate().find_map(|(i, line)| {
            let at = line.find(needle.as_str())?;
            Some((i + 1, line[..at].chars().count() + 1))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_page_comes_from_its_markdown_source() {
        assert_eq!(sources_of("ch01.html"), [PathBuf::from("ch01.md")]);
        assert_eq!(
            sources_of("part/index.html"),
            [
                PathBuf::from("part/README.md"),
                PathBuf::from("part/index.md")
            ]
        );
        assert_eq!(sources_of("a%20b.html"), [PathBuf::from("a b.md")]);
        assert!(sources_of("print.html").is_empty());
        assert!(sources_of("style.css").is_empty());
    }

    #[test]
    fn a_link_is_found_as_written_or_as_its_markdown_name() {
        let lines: Vec<String> = ["# T", "", "See [the end](ch02.md#end) and [x](gone.html)."]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(find(&lines, "ch02.html#end"), Some((3, 15)));
        assert_eq!(find(&lines, "gone.html"), Some((3, 36)));
        assert_eq!(find(&lines, "elsewhere.html"), None);
    }
}
