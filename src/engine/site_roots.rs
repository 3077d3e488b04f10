//! The folders of a run that are deployed as sites, and where. An mdBook's sources are
//! deployed as a site of their own, often beside other books on the same host:
//! `../std/index.html` from a chapter is a page of the host, not a file of the checkout. So is
//! any link that leaves the folder of `--base-url`. What is done with such a link is in
//! `left_site.rs`.

use std::borrow::Cow;

use url::Url;

use crate::config::Config;

/// A folder deployed as a site.
#[derive(Debug, Clone)]
pub(crate) struct SiteRoot {
    /// The folder's `file:` URL, ending in `/`.
    pub(super) folder: String,
    /// Where the folder is deployed, ending in `/`; `None` when not known.
    public: Option<Url>,
    /// An mdBook's sources: a `.md` page is deployed as `.html`, `README.md` as `index.html`.
    pub(super) book: bool,
}

impl SiteRoot {
    /// The deployed URL of `page`, a `file:` URL inside the folder.
    pub(super) fn public_page(&self, page: &str) -> Option<Url> {
        let public = self.public.as_ref()?;
        let rest = page.strip_prefix(&self.folder)?;
        let rest: Cow<'_, str> = match rest.strip_suffix(".md") {
            Some(stem) if self.book => {
                let (dir, name) = stem.rsplit_once('/').unwrap_or(("", stem));
                let name = if name.eq_ignore_ascii_case("README") {
                    "index"
                } else {
                    name
                };
                let slash = if dir.is_empty() { "" } else { "/" };
                Cow::Owned(format!("{dir}{slash}{name}.html"))
            }
            _ => Cow::Borrowed(rest),
        };
        public.join(&rest).ok()
    }

    /// A folder's `file:` URL text, ending in `/`.
    fn folder_url(folder: &std::path::Path) -> Option<String> {
        let real = std::fs::canonicalize(folder).ok()?;
        Url::from_directory_path(real).ok().map(String::from)
    }
}

/// `url` made to end in `/`.
fn with_slash(mut url: Url) -> Url {
    if !url.path().ends_with('/') {
        url.set_path(&format!("{}/", url.path()));
    }
    url
}

/// The site roots of a run: every mdBook's sources (deployed where `Config::site_root` says),
/// the other folders `Config::site_root` names, and the site folder of `--base-url`.
pub(crate) fn site_roots(
    cfg: &Config,
    file_root: Option<&Url>,
    site_url: Option<&Url>,
) -> Vec<SiteRoot> {
    let public_of = |folder: &str| {
        cfg.site_roots
            .iter()
            .filter(|(f, _)| SiteRoot::folder_url(f).as_deref() == Some(folder))
            .find_map(|(_, public)| public.as_deref())
            .and_then(|p| Url::parse(p.trim()).ok())
            .map(with_slash)
    };
    let mut roots: Vec<SiteRoot> = Vec::new();
    let books = cfg.mdbooks.iter().map(|(src, _)| (src, true));
    let named = cfg.site_roots.iter().map(|(f, _)| (f, false));
    for (folder, book) in books.chain(named) {
        let Some(folder) = SiteRoot::folder_url(folder) else {
            continue;
        };
        if roots.iter().any(|r| r.folder == folder) {
            continue;
        }
        roots.push(SiteRoot {
            public: public_of(&folder),
            folder,
            book,
        });
    }
    if let (Some(root), Some(public)) = (file_root, site_url)
        && !roots.iter().any(|r| r.folder == root.as_str())
    {
        roots.push(SiteRoot {
            folder: root.as_str().to_owned(),
            public: Some(public.clone()),
            book: false,
        });
    }
    roots
}

/// `true` when `value`, a link as written, is relative and may climb a folder up.
pub(super) fn may_climb(value: &str) -> bool {
    let v = value.trim();
    !v.starts_with('/')
        && !v.split(['/', '?', '#']).next().unwrap_or("").contains(':')
        && (v.contains("..") || v.contains("%2e") || v.contains("%2E"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_page_is_deployed_as_html_and_readme_as_index() {
        let site = SiteRoot {
            folder: "file:///b/src/".into(),
            public: Some(Url::parse("https://doc.example/book/").unwrap()),
            book: true,
        };
        let page = |p: &str| site.public_page(p).map(String::from);
        assert_eq!(
            page("file:///b/src/ch1.md").as_deref(),
            Some("https://doc.example/book/ch1.html")
        );
        assert_eq!(
            page("file:///b/src/part/README.md").as_deref(),
            Some("https://doc.example/book/part/index.html")
        );
        assert_eq!(page("file:///other/x.md"), None);
        let joined = site
            .public_page("file:///b/src/part/ch2.md")
            .and_then(|p| p.join("../../std/index.html#x").ok());
        assert_eq!(
            joined.map(String::from).as_deref(),
            Some("https://doc.example/std/index.html#x")
        );
    }

    #[test]
    fn only_relative_links_with_dots_may_climb() {
        for yes in ["../std/", "a/../../b.md", "%2e%2e/x", " ../x "] {
            assert!(may_climb(yes), "{yes}");
        }
        for no in ["/x/../y", "https://a/../b", "ch1.md", "file:../x"] {
            assert!(!may_climb(no), "{no}");
        }
    }
}
