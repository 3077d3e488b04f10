//! [`LinkSite`]: where a link was found, as the crawl stores it until the link's result is
//! known — the compact, internal twin of the public [`Referrer`].
//!
//! A page with 500 links yields 500 sites; they share one `Arc<str>` of the page's URL (and of
//! its `<base href>`) instead of 500 copies. A site becomes a [`Referrer`] only when its entry
//! is built, and with [`Config::only_problems`](crate::Config::only_problems) that happens for
//! problem entries only.

use std::sync::Arc;

use crate::model::outcome::{Referrer, Warning};

/// One place a link was found. See [`Referrer`] for the meaning of each field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkSite {
    /// The linking page, shared by every link of that page.
    pub(crate) parent: Arc<str>,
    /// The link as written (credentials masked).
    pub(crate) raw: String,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
    pub(crate) name: String,
    /// The page's `<base href>`, shared by every link of that page.
    pub(crate) base: Option<Arc<str>>,
    /// Warnings about this occurrence only.
    pub(crate) warnings: Vec<Warning>,
    /// The link's URL before a `--remap` rule rewrote it (credentials masked); `None` when no
    /// rule applied.
    pub(crate) remapped_from: Option<Box<str>>,
    /// Found only once the page was rendered (`--render-js`), not in its source.
    pub(crate) rendered: bool,
}

impl LinkSite {
    /// The public form, consuming the site.
    pub(crate) fn into_referrer(self) -> Referrer {
        Referrer {
            parent: self.parent.to_string(),
            raw: self.raw,
            line: self.line,
            column: self.column,
            name: self.name,
            base: self.base.as_deref().map(str::to_owned),
            warnings: self.warnings,
            remapped_from: self.remapped_from.map(String::from),
            rendered: self.rendered,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_of_one_page_share_its_url_and_convert_field_by_field() {
        let page: Arc<str> = Arc::from("https://example.org/a.html");
        let site = |raw: &str| LinkSite {
            parent: page.clone(),
            raw: raw.into(),
            line: Some(3),
            column: Some(7),
            name: "text".into(),
            base: Some(Arc::from("/docs/")),
            warnings: Vec::new(),
            remapped_from: None,
            rendered: false,
        };
        let (x, y) = (site("x.html"), site("y.html"));
        assert!(
            Arc::ptr_eq(&x.parent, &y.parent),
            "one copy of the page URL"
        );
        let r = x.into_referrer();
        assert_eq!(r.parent, "https://example.org/a.html");
        assert_eq!(r.raw, "x.html");
        assert_eq!((r.line, r.column), (Some(3), Some(7)));
        assert_eq!(r.base.as_deref(), Some("/docs/"));
    }
}
