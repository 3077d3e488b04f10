//! The pages an mdBook's `[output.html.redirect]` table creates (`Config::mdbook_redirect`):
//! mdBook writes, for each `"old.html" = "new.html"`, a page at `old.html` (relative to the
//! book's root; never over a page that exists) that sends the browser to `new.html`, resolved
//! from `old.html`'s folder, keeping the link's fragment. So a link to `old.html` is as good as
//! its target: a target in the book is looked up there, as a link to it would be; a URL, a
//! path from the host's root or one that climbs out of the book is not followed. The table is
//! the checkout's: its names are only compared and joined with the book's sources, never
//! read themselves.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use url::Url;

/// The redirect pages of the run's mdBooks.
#[derive(Debug, Clone, Default)]
pub(crate) struct BookRedirects {
    /// Each book's canonical source folder, with its redirect pages: the page (relative to
    /// the sources) and its target as written.
    books: Vec<(PathBuf, HashMap<PathBuf, String>)>,
}

/// Where a redirect page sends the browser.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A file of the book's sources (no fragment, no query), to look up as a link to it.
    Page(PathBuf),
    /// Somewhere outside the book, as written in book.toml: not followed.
    Away(String),
}

impl BookRedirects {
    /// The redirects of `Config::mdbook_redirect`: `(src, page, target)`. A book whose sources
    /// do not resolve, a page that names a fragment (mdBook's fragment redirects act on a page
    /// that exists) or one that climbs out of the book is left out.
    pub(crate) fn new(table: &[(PathBuf, String, String)]) -> BookRedirects {
        let mut books: Vec<(PathBuf, HashMap<PathBuf, String>)> = Vec::new();
        for (src, page, target) in table {
            let (Ok(src), Some(page)) = (std::fs::canonicalize(src), page_path(page)) else {
                continue;
            };
            let at = match books.iter().position(|(s, _)| *s == src) {
                Some(at) => at,
                None => {
                    books.push((src, HashMap::new()));
                    books.len() - 1
                }
            };
            books[at].1.entry(page).or_insert_with(|| target.clone());
        }
        BookRedirects { books }
    }

    /// Where the redirect page at `path` (a file that does not exist) sends the browser, when
    /// a book's table creates one there.
    pub(crate) fn target(&self, path: &Path) -> Option<Target> {
        if self.books.is_empty() {
            return None;
        }
        let real = real_as_far_as_it_exists(path);
        let (src, to) = self.books.iter().find_map(|(src, pages)| {
            let page = real.strip_prefix(src).ok()?;
            Some((src, pages.get(page)?))
        })?;
        let away = || Some(Target::Away(to.clone()));
        let written = to.trim();
        if written.starts_with('/') || written.starts_with('\\') || Url::parse(written).is_ok() {
            return away();
        }
        // Joined as the browser joins it, from the redirect page's URL: `..`, `%20` resolved.
        let page = Url::from_file_path(&real).ok()?;
        let Ok(mut joined) = page.join(written) else {
            return away();
        };
        joined.set_fragment(None);
        joined.set_query(None);
        match joined.to_file_path() {
            Ok(p) if p.starts_with(src) && p != *src => Some(Target::Page(p)),
            _ => away(),
        }
    }
}

/// A page of book.toml's table as a path relative to the book's root (mdBook drops a leading
/// `/`); `None` for a fragment redirect or a name that leaves the root.
fn page_path(page: &str) -> Option<PathBuf> {
    let page = page.trim().trim_start_matches('/');
    if page.is_empty() || page.contains(['#', '?', '\\']) {
        return None;
    }
    let path = Path::new(page);
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// `path` with its longest existing ancestor made canonical: a redirect page may sit in a
/// folder the sources do not have (mdBook creates it).
fn real_as_far_as_it_exists(path: &Path) -> PathBuf {
    for folder in path.ancestors().skip(1) {
        if let Ok(real) = std::fs::canonicalize(folder)
            && let Ok(rest) = path.strip_prefix(folder)
        {
            return real.join(rest);
        }
    }
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_page_leads_into_the_book_or_away() {
        let dir = std::env::temp_dir().join(format!("linkpatrol-redirects-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = std::fs::canonicalize(&dir).unwrap();
        let table: Vec<(PathBuf, String, String)> = [
            ("old.html", "new.html#x"),
            ("/inner/old.html", "../part/new%20page.html"),
            ("up.html", "../outside.html"),
            ("web.html", "https://example.org/"),
            ("root.html", "/new.html"),
            ("page.html#frag", "new.html"),
            ("../escape.html", "new.html"),
        ]
        .iter()
        .map(|(p, t)| (dir.clone(), (*p).to_owned(), (*t).to_owned()))
        .collect();
        let redirects = BookRedirects::new(&table);
        let target = |p: &str| redirects.target(&dir.join(p));
        assert_eq!(target("old.html"), Some(Target::Page(src.join("new.html"))));
        assert_eq!(
            target("inner/old.html"),
            Some(Target::Page(src.join("part/new page.html")))
        );
        for away in ["up.html", "web.html", "root.html"] {
            assert!(matches!(target(away), Some(Target::Away(_))), "{away}");
        }
        for none in ["page.html", "new.html", "../escape.html"] {
            assert_eq!(target(none), None, "{none}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
