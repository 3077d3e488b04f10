//! Where a problem is, as the formats for editors and CI write it: a local page as a path
//! relative to a folder (the working folder for compact, github and markdown; the checked
//! folder for SARIF), a web page as its URL.
//!
//! A `file:` page inside the folder becomes `docs/guide.md` (decoded: `a b.html`, not
//! `a%20b.html`); one outside it keeps its absolute path, which an editor still opens. Any
//! other page (http, https, a URL that does not parse) is written as the URL. The caller
//! escapes the result for its format: file names are chosen by whoever wrote the folder.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use url::Url;

/// Turns page URLs into the paths a report shows.
#[derive(Debug, Clone, Default)]
pub(crate) struct PagePaths {
    /// The folder paths are relative to; `None`: local pages keep their absolute path.
    base: Option<PathBuf>,
}

impl PagePaths {
    /// Paths relative to `base`, when given.
    pub(crate) fn new(base: Option<&Path>) -> Self {
        PagePaths {
            base: base.map(Path::to_path_buf),
        }
    }

    /// The local path of `page` when it is a `file:` URL; `None` for any other page.
    pub(crate) fn local(page: &str) -> Option<PathBuf> {
        if !page.starts_with("file:") {
            return None;
        }
        Url::parse(page).ok()?.to_file_path().ok()
    }

    /// The path of a local page relative to the base folder, when it is inside it (`.` for the
    /// folder itself); `None` otherwise.
    pub(crate) fn relative(&self, page: &str) -> Option<String> {
        let path = Self::local(page)?;
        let rel = path.strip_prefix(self.base.as_ref()?).ok()?;
        let rel = rel.to_string_lossy();
        Some(if rel.is_empty() {
            ".".to_owned()
        } else {
            rel.into_owned()
        })
    }

    /// `page` as shown: relative to the base folder, else its absolute path for a local page,
    /// else the URL itself.
    pub(crate) fn show<'a>(&self, page: &'a str) -> Cow<'a, str> {
        if let Some(rel) = self.relative(page) {
            return Cow::Owned(rel);
        }
        match Self::local(page) {
            Some(abs) => Cow::Owned(abs.to_string_lossy().into_owned()),
            None => Cow::Borrowed(page),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn local_pages_inside_the_base_are_relative_and_decoded() {
        let p = PagePaths::new(Some(Path::new("/work/site")));
        assert_eq!(p.show("file:///work/site/docs/a%20b.html"), "docs/a b.html");
        assert_eq!(p.show("file:///work/site/"), ".");
        assert_eq!(
            p.relative("file:///work/site/x.md").as_deref(),
            Some("x.md")
        );
    }

    #[test]
    fn other_pages_keep_their_absolute_path_or_url() {
        let p = PagePaths::new(Some(Path::new("/work/site")));
        assert_eq!(
            p.show("file:///work/sitemap/x.html"),
            "/work/sitemap/x.html"
        );
        assert_eq!(p.show("file:///elsewhere/x.html"), "/elsewhere/x.html");
        assert_eq!(p.show("https://example.org/a"), "https://example.org/a");
        assert_eq!(p.relative("https://example.org/a"), None);
        let none = PagePaths::new(None);
        assert_eq!(none.show("file:///work/site/x.html"), "/work/site/x.html");
    }
}
