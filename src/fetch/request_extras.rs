//! What the user added to every HTTP request beyond plain headers: cookies from a cookies.txt,
//! basic auth per URL pattern, the method of links that are only checked, and which statuses
//! count as valid. Bundled so the fetcher needs one field and one call for each.

use std::sync::Arc;
use std::time::SystemTime;

use url::Url;

use crate::config::accept::AcceptStatus;
use crate::config::basic_auth::BasicAuth;
use crate::config::cookies::CookieJar;
use crate::fetch::github_auth::GithubAuth;

/// Per-request additions, set once per run and only read afterwards.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequestExtras {
    /// Use GET even for links that are only checked (`--method get`); a host rule
    /// (`HostRule::always_get`) decides for its hosts.
    pub(crate) always_get: bool,
    /// Cookies sent to the URLs they match.
    pub(crate) cookies: CookieJar,
    /// Basic-auth credentials; the first whose pattern matches the URL is sent.
    pub(crate) auth: Vec<BasicAuth>,
    /// Statuses that count as valid.
    pub(crate) accept: AcceptStatus,
    /// The GitHub token and the URLs it goes to (shared with the engine, which notes the
    /// remapped ones).
    pub(crate) github: Option<Arc<GithubAuth>>,
}

impl RequestExtras {
    /// The `Cookie` and `Authorization` headers for a request to `url` (each hop of a redirect
    /// chain asks again, so credentials never follow a redirect to a URL they are not for).
    /// Basic auth that matches wins over the GitHub token.
    /// Cookies match the URL's host, basic auth the URL's text without userinfo (see
    /// [`BasicAuth`]): a `user:password@` part that spells another host changes neither.
    pub(crate) fn headers_for(&self, url: &Url) -> Vec<(&'static str, String)> {
        let mut headers = Vec::new();
        if let Some(c) = self.cookies.header_for(url, SystemTime::now()) {
            headers.push(("Cookie", c));
        }
        if let Some(a) = self.auth.iter().find(|a| a.matches(url)) {
            headers.push(("Authorization", a.header_value()));
        } else if let Some(token) = self.github.as_ref().and_then(|g| g.header_for(url)) {
            headers.push(("Authorization", token));
        }
        headers
    }
}

#[cfg(test)]
mod tests {
    use regex::Regex;

    use super::*;

    #[test]
    fn userinfo_spelling_a_host_gets_none_of_its_credentials() {
        let extras = RequestExtras {
            cookies: CookieJar::parse_netscape("127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tc1\n").unwrap(),
            auth: vec![BasicAuth::new(
                Regex::new("^http://127\\.0\\.0\\.1:18005").unwrap(),
                "u",
                "p",
            )],
            ..RequestExtras::default()
        };
        let names = |url: &str| -> Vec<&str> {
            let url = Url::parse(url).unwrap();
            extras
                .headers_for(&url)
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        assert_eq!(
            names("http://127.0.0.1:18005/page"),
            ["Cookie", "Authorization"]
        );
        assert!(names("http://127.0.0.1:18005@127.0.0.2:18006/steal").is_empty());
        // Its own host with its own credentials: the cookie, not the configured password.
        assert_eq!(names("http://me:pw@127.0.0.1:18005/page"), ["Cookie"]);
    }
}
