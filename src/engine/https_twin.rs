//! `--require-https`: an `http:` link that works is tried again over `https:` (the same host,
//! port, path and query); when that works too, the link gets the `http-has-https` warning.
//! A warning, not an error, as a redirect is one: the link works, and could be better. The
//! twin keeps an explicit port, as lychee's does; the http site's robots.txt speaks for it.

use url::Url;

use super::run::Run;
use crate::fetch::Chain;
use crate::model::outcome::{CheckResult, Outcome, Warning, mask_url};

/// The tag of an `http:` link whose `https:` twin works.
pub(crate) const HTTP_HAS_HTTPS: &str = "http-has-https";

/// The `https:` twin of an `http:` URL, `None` for any other.
fn https_twin(url: &Url) -> Option<Url> {
    if url.scheme() != "http" {
        return None;
    }
    let mut twin = url.clone();
    twin.set_scheme("https").ok()?;
    Some(twin)
}

/// `true` for a success: a 2xx or 3xx status (or none, as a file has), not an accepted error.
fn works(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Ok { status } if status.is_none_or(|s| s < 400))
}

impl Run {
    /// Warns on `result` (of `url`, whose redirects ended at `final_url`) when `url` is an
    /// `http:` link that works and its `https:` twin works too. A chain that ended on the
    /// twin itself says so without another request.
    pub(super) fn note_https_twin(&self, url: &Url, final_url: &Url, result: &mut CheckResult) {
        if !works(&result.outcome) {
            return;
        }
        let Some(mut twin) = https_twin(url) else {
            return;
        };
        twin.set_fragment(None);
        let upgraded = final_url.scheme() == "https"
            && final_url.host_str() == twin.host_str()
            && final_url.port_or_known_default() == twin.port_or_known_default()
            && final_url.path() == twin.path();
        // The http site's robots.txt, which allowed `url`, speaks for its twin: no second
        // robots.txt is fetched, and a twin that fails gives no host up (`Chain::PROBE`).
        if !upgraded && !works(&self.fetch.fetch(&twin, false, Chain::PROBE).outcome) {
            return;
        }
        let mut shown = twin;
        mask_url(&mut shown);
        let warning = Warning {
            tag: HTTP_HAS_HTTPS,
            message: format!("The link works over https too: use {shown}"),
        };
        if self.keeps(&warning) {
            result.warnings.push(warning);
        }
    }
}
