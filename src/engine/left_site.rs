//! Links that climb out of a site's folder (`site_roots.rs`): never a missing file. With the
//! site's public URL such a link is checked there (an external link, as the deployed page
//! resolves it), without it is not checked offline (`Skipped::offline`, and an ignored row
//! `-v` shows).
//!
//! Only a relative link is judged here (`../x`, also spelt `%2e%2e/x`): a root-relative one
//! (`/x`) goes to the local site root as before.

use url::Url;

use super::admit::Via;
use super::run::Run;
use super::site_roots::{SiteRoot, may_climb};
use crate::model::link_site::LinkSite;
use crate::model::outcome::Outcome;
use crate::model::stats::SkipReason;

/// One link of a page that may leave its site (see [`Run::left_site`]).
pub(super) struct Leaving<'a> {
    /// The page's URL.
    pub(super) page: &'a Url,
    /// The link as written.
    pub(super) value: &'a str,
    /// The link resolved on the local page.
    pub(super) local: &'a Url,
}

impl Run {
    /// The site the page of `link` is in, when `link` climbs out of its folder: the innermost
    /// such site.
    pub(super) fn site_left(&self, link: &Leaving<'_>) -> Option<&SiteRoot> {
        if self.sites.is_empty()
            || link.page.scheme() != "file"
            || link.local.scheme() != "file"
            || !may_climb(link.value)
        {
            return None;
        }
        let page = link.page.as_str();
        self.sites
            .iter()
            .filter(|s| page.starts_with(&s.folder))
            .max_by_key(|s| s.folder.len())
            .filter(|s| !link.local.as_str().starts_with(&s.folder))
    }

    /// Considers a link that climbs out of `site`: checked at its deployed URL when the site's
    /// public URL is known, else finished as not checked offline.
    pub(super) fn left_site(
        &self,
        site: &SiteRoot,
        link: &Leaving<'_>,
        occurrence: LinkSite,
        via: Via<'_>,
    ) {
        let deployed = site
            .public_page(link.page.as_str())
            .and_then(|p| p.join(link.value.trim()).ok());
        if let Some(url) = deployed {
            self.consider(Ok(url), Some(occurrence), String::new(), via, None);
            return;
        }
        let mut local = link.local.clone();
        local.set_fragment(None);
        let what = if site.book {
            "mdBook's sources"
        } else {
            "site's folder"
        };
        let reason = format!(
            "not checked offline: it leaves the {what} for another part of the deployed site \
             (give the site's URL, `site-url` in book.toml or --base-url, to check it there)"
        );
        self.finish_unresolved(
            format!("offline:{local}"),
            Some(occurrence),
            local.to_string(),
            Outcome::Ignored { reason },
            via,
            Some(SkipReason::Offline),
        );
    }
}
