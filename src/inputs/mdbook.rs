//! mdBook folders: a folder with a `book.toml` is checked as the site mdBook builds from it.
//! Its sources are in `src` (or `[book] src`); `SUMMARY.md` there lists the chapters, which
//! are the book's pages: mdBook renders each listed `.md` file as a `.html` page (a
//! `README.md` as `index.html`), copies every other file of `src` except `.md` files, and
//! renders no unlisted `.md` file. So a link from a chapter to an unlisted source is broken
//! on the site (from outside the book's sources, the repository's README, it is good: GitHub
//! shows the file), and an unlisted `.md` source is not checked as a page of the book; a chapter the summary lists
//! that does not exist is a broken link of `SUMMARY.md` (mdBook, with `create-missing` on as
//! it is by default, would build an empty page in its place; with it off the build fails).
//! A `.md` file a chapter pulls in with `{{#include …}}` (mdBook's `links` preprocessor) is
//! read too, so the links it brings to the chapter are checked: it counts as a page.
//!
//! A link from a chapter that climbs out of the sources (`../std/index.html`) goes to another
//! part of the deployed site: `site-url` of `[output.html]`, when it is a whole URL, says where
//! the book is deployed, so the link can be checked there (see `Config::site_root`).
//! `[output.html.redirect]` names pages mdBook writes that send the browser elsewhere: they
//! are handed on as they are written (`Config::mdbook_redirect`, judged in
//! `fetch/book_redirects.rs`). A `book.toml` found below a checked folder, a checked book's
//! too, starts a book there, read by the same rules.
//!
//! Every file is the checkout's: `book.toml`, `SUMMARY.md` and the chapters are read through
//! [`super::checkout_file`], as regular files inside the book's folder (the sources for
//! chapters), up to 4 MiB each, and each chapter once however often it is listed or included.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag};

/// The most bytes of a `book.toml`, `SUMMARY.md` or chapter read (a real one is a few
/// kilobytes).
const MAX_SOURCE: u64 = 4 << 20;

/// An mdBook found in a checked folder.
#[derive(Debug)]
pub(super) struct Book {
    /// The folder of its `book.toml`.
    pub(super) dir: PathBuf,
    /// Its source folder.
    pub(super) src: PathBuf,
    /// Where it is deployed: `[output.html] site-url`, when that is an `http(s)` URL (mdBook
    /// also takes a path alone, `/book/`, which names no host).
    pub(super) site_url: Option<String>,
    /// The chapters its `SUMMARY.md` lists and the `.md` files they include, relative to
    /// `src`; `None` without a readable `SUMMARY.md`.
    pub(super) chapters: Option<Vec<PathBuf>>,
    /// The pages its `[output.html.redirect]` table creates and their targets, as written.
    pub(super) redirects: Vec<(String, String)>,
    /// The same, canonical, with `SUMMARY.md` and `404.md`: the `.md` files that are read.
    read: HashSet<PathBuf>,
    /// How many chapters were read for their includes: each chapter once (the tests count
    /// the work rather than time it).
    #[cfg_attr(not(test), allow(dead_code))]
    chapters_read: usize,
}

impl Book {
    /// The mdBook in `dir`, when `dir` holds a `book.toml` whose sources are inside it.
    pub(super) fn at(dir: &Path) -> Option<Book> {
        let BookToml {
            src,
            site_url,
            redirects,
        } = sources(dir)?;
        let mut chapters_read = 0;
        let chapters = summary_chapters(&src).map(|listed| {
            // Each chapter once, in the order first listed, then what they include: a
            // summary that lists one chapter n times, with n includes, is read in linear time.
            let mut seen = HashSet::new();
            let mut chapters: Vec<PathBuf> = listed
                .into_iter()
                .filter(|c| seen.insert(c.clone()))
                .collect();
            for at in 0..chapters.len() {
                chapters_read += 1;
                for i in included(&src, &chapters[at]) {
                    if seen.insert(i.clone()) {
                        chapters.push(i);
                    }
                }
            }
            chapters
        });
        let read = chapters
            .iter()
            .flatten()
            .map(PathBuf::as_path)
            .chain([Path::new("SUMMARY.md"), Path::new("404.md")])
            .filter_map(|c| std::fs::canonicalize(src.join(c)).ok())
            .collect();
        Some(Book {
            dir: dir.to_path_buf(),
            src,
            site_url,
            chapters,
            redirects,
            read,
            chapters_read,
        })
    }

    /// `true` for a `.md` source of this book that mdBook does not render (its summary was
    /// read and does not list it).
    pub(super) fn unrendered(&self, file: &Path) -> bool {
        if self.chapters.is_none() || file.extension().is_none_or(|e| e != "md") {
            return false;
        }
        let (Ok(real), Ok(src)) = (
            std::fs::canonicalize(file),
            std::fs::canonicalize(&self.src),
        ) else {
            return false;
        };
        real.starts_with(src) && !self.read.contains(&real)
    }
}

/// What is read of a `book.toml`.
struct BookToml {
    /// The source folder.
    src: PathBuf,
    /// `[output.html] site-url`, when it is a whole `http(s)` URL.
    site_url: Option<String>,
    /// `[output.html.redirect]`: the pages it creates and their targets (string values only).
    redirects: Vec<(String, String)>,
}

/// The source folder of the mdBook in `dir` (`src`, or `[book] src` of its `book.toml`), when
/// `dir` holds a `book.toml`, its `site-url` when it is a whole `http(s)` URL, and its redirect
/// table. A book.toml that cannot be read, or whose `src` leaves the folder (`..`, an absolute
/// path, a symbolic link out), is no mdBook.
fn sources(dir: &Path) -> Option<BookToml> {
    let bytes = super::checkout_file::read(&dir.join("book.toml"), Some(dir), MAX_SOURCE).ok()?;
    let table: toml::Table = std::str::from_utf8(&bytes).ok()?.parse().ok()?;
    let src = table
        .get("book")
        .and_then(|b| b.get("src"))
        .and_then(|s| s.as_str())
        .unwrap_or("src");
    let html = table.get("output").and_then(|o| o.get("html"));
    let redirects = html
        .and_then(|h| h.get("redirect"))
        .and_then(|r| r.as_table())
        .into_iter()
        .flatten()
        .filter_map(|(page, target)| Some((page.clone(), target.as_str()?.to_owned())))
        .collect();
    let site_url = html
        .and_then(|h| h.get("site-url"))
        .and_then(|s| s.as_str())
        .filter(|s| url::Url::parse(s).is_ok_and(|u| matches!(u.scheme(), "http" | "https")))
        .map(str::to_owned);
    let src = Path::new(src);
    if src.is_absolute()
        || src
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return None;
    }
    let src = dir.join(src);
    // The checkout's book.toml may not lead the check out of the folder (a symbolic link).
    let inside = match (std::fs::canonicalize(&src), std::fs::canonicalize(dir)) {
        (Ok(real), Ok(folder)) => real.is_dir() && real.starts_with(folder),
        _ => false,
    };
    inside.then_some(BookToml {
        src,
        site_url,
        redirects,
    })
}

/// The chapters `src/SUMMARY.md` lists, as mdBook reads them: the destination of each link,
/// `%20` as a space; a draft chapter (`[Title]()`), a URL and the fragment of a link are left
/// out. `None` when there is no readable `SUMMARY.md`.
fn summary_chapters(src: &Path) -> Option<Vec<PathBuf>> {
    let text = read_inside(src, Path::new("SUMMARY.md"))?;
    let mut chapters = Vec::new();
    for event in Parser::new(&text) {
        let Event::Start(Tag::Link { dest_url, .. }) = event else {
            continue;
        };
        let dest = dest_url.split('#').next().unwrap_or_default();
        if dest.is_empty() || dest.contains("://") || dest.starts_with("mailto:") {
            continue;
        }
        chapters.push(PathBuf::from(dest.replace("%20", " ")));
    }
    Some(chapters)
}

/// The `.md` files chapter `chapter` (relative to `src`) includes (`{{#include file.md}}`,
/// with or without a line range or anchor), relative to `src`.
fn included(src: &Path, chapter: &Path) -> Vec<PathBuf> {
    let Some(text) = read_inside(src, chapter) else {
        return Vec::new();
    };
    let folder = chapter.parent().unwrap_or(Path::new(""));
    text.split("{{#include")
        .skip(1)
        .filter_map(|rest| {
            let target = rest.split("}}").next()?.trim();
            let file = target.split(':').next()?.trim();
            (Path::new(file).extension().is_some_and(|e| e == "md")).then(|| folder.join(file))
        })
        .collect()
}

/// The text of `src/file` (its first `MAX_SOURCE` bytes), when it is a regular file inside
/// `src`: the checkout's SUMMARY.md may name any path, and a FIFO or a device would never end.
fn read_inside(src: &Path, file: &Path) -> Option<String> {
    let (bytes, _) =
        super::checkout_file::read_prefix(&src.join(file), Some(src), MAX_SOURCE).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_lists_chapters_as_mdbook_reads_them() {
        let dir = std::env::temp_dir().join(format!("linkpatrol-summary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SUMMARY.md"),
            "# Summary\n\n[Intro](README.md)\n\n# Part\n\n- [A](a.md)\n  - [B](sub/b%20c.md#x)\n\
             - [Draft]()\n---\n[Web](https://example.org/)\n",
        )
        .unwrap();
        let chapters = summary_chapters(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let want: Vec<PathBuf> = ["README.md", "a.md", "sub/b c.md"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(chapters, want);
        assert!(summary_chapters(Path::new("/nonexistent-linkpatrol")).is_none());
        // A chapter outside the sources is not read for its includes.
        let outside = dir.with_extension("outside.md");
        std::fs::write(&outside, "{{#include part.md}}").unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        let name = outside.file_name().unwrap();
        let up = Path::new("..").join(name);
        assert!(included(&dir, &up).is_empty());
        std::fs::write(
            dir.join("in.md"),
            "{{#include part.md:3:5}} {{#include a.rs}}",
        )
        .unwrap();
        assert_eq!(
            included(&dir, Path::new("in.md")),
            [PathBuf::from("part.md")]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_file(&outside).unwrap();
    }

    #[test]
    fn a_chapter_listed_many_times_is_read_once() {
        let dir = std::env::temp_dir().join(format!("linkpatrol-book-dup-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("book.toml"), "[book]\n").unwrap();
        let n = 300;
        std::fs::write(dir.join("src/SUMMARY.md"), "- [A](a.md)\n".repeat(n)).unwrap();
        std::fs::write(dir.join("src/a.md"), "{{#include b.md}}\n".repeat(n)).unwrap();
        std::fs::write(dir.join("src/b.md"), "b").unwrap();
        let book = Book::at(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let want: Vec<PathBuf> = ["a.md", "b.md"].iter().map(PathBuf::from).collect();
        assert_eq!(book.chapters, Some(want));
        assert_eq!(book.chapters_read, 1);
    }
}
