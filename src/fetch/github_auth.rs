//! Where the GitHub token (`Config::github_token`) goes: to requests for `https://github.com`
//! and `https://api.github.com` on port 443 only, decided per request (each redirect hop asks again, so a
//! redirect to another host never carries it), and to a URL that a `--remap` rule made of such
//! a link (a mirror or a test server standing in for GitHub). Never to a URL that carries its
//! own `user:password@`, and never over plain `http` to GitHub's names.
//!
//! Concurrency: the remapped URLs are written when a link is admitted, which is before its
//! task is queued, so a worker that fetches the URL finds its entry; the lock is held only to
//! look up or insert, never across a request.

use std::collections::HashSet;
use std::fmt;
use std::sync::RwLock;

use url::Url;

use crate::config::github_token::GithubToken;

/// GitHub's hosts that get the token.
const GITHUB_HOSTS: [&str; 2] = ["github.com", "api.github.com"];

/// The token and the URLs it goes to.
pub(crate) struct GithubAuth {
    token: GithubToken,
    /// URLs (without fragment) that a remap rule made of a GitHub URL.
    remapped: RwLock<HashSet<String>>,
}

impl fmt::Debug for GithubAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GithubAuth").finish_non_exhaustive()
    }
}

/// `url` without its fragment, as a set key.
fn key(url: &Url) -> String {
    let s = url.as_str();
    s.split_once('#').map_or(s, |(k, _)| k).to_owned()
}

/// `true` when `url` carries a user name or a password.
fn has_userinfo(url: &Url) -> bool {
    !url.username().is_empty() || url.password().is_some()
}

/// `true` for an `https` URL on one of GitHub's hosts and port 443, without credentials of
/// its own.
fn is_github(url: &Url) -> bool {
    url.scheme() == "https"
        && url.host_str().is_some_and(|h| GITHUB_HOSTS.contains(&h))
        && url.port_or_known_default() == Some(443)
        && !has_userinfo(url)
}

impl GithubAuth {
    pub(crate) fn new(token: GithubToken) -> GithubAuth {
        GithubAuth {
            token,
            remapped: RwLock::new(HashSet::new()),
        }
    }

    /// Notes that a remap rule made `checked` of the link `written`: when `written` is
    /// GitHub's, requests for `checked` get the token too.
    pub(crate) fn note_remapped(&self, written: &Url, checked: &Url) {
        if !is_github(written) || has_userinfo(checked) {
            return;
        }
        let mut set = self.remapped.write().unwrap_or_else(|p| p.into_inner());
        set.insert(key(checked));
    }

    /// The `Authorization` value for a request to `url`, when it is for GitHub.
    pub(crate) fn header_for(&self, url: &Url) -> Option<String> {
        let github = is_github(url) || {
            let set = self.remapped.read().unwrap_or_else(|p| p.into_inner());
            !set.is_empty() && set.contains(&key(url))
        };
        github.then(|| self.token.header_value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn the_token_goes_to_github_and_what_was_remapped_from_it_only() {
        let auth = GithubAuth::new(GithubToken::parse("t0k").unwrap());
        let sent = |u: &str| auth.header_for(&url(u)).is_some();
        assert!(sent("https://github.com/o/r"));
        assert!(sent("https://api.github.com/repos/o/r"));
        assert!(sent("https://GITHUB.COM/o/r#readme"));
        assert!(sent("https://github.com:443/o/r"));
        for other in [
            "http://github.com/o/r",
            "https://github.com:8443/o/r",
            "https://api.github.com:444/repos/o/r",
            "http://github.com:443/o/r",
            "https://gist.github.com/o/1",
            "https://github.com.evil.test/o/r",
            "https://evil.test/github.com/",
            "https://me:pw@github.com/o/r",
            "https://raw.githubusercontent.com/o/r/main/x",
            "http://127.0.0.1:8080/o/r",
        ] {
            assert!(!sent(other), "{other}");
        }
        auth.note_remapped(
            &url("https://github.com/o/r#x"),
            &url("http://127.0.0.1:8080/o/r#x"),
        );
        auth.note_remapped(
            &url("https://gitlab.com/o/r"),
            &url("http://127.0.0.1:8080/gl"),
        );
        assert!(sent("http://127.0.0.1:8080/o/r"));
        assert!(!sent("http://127.0.0.1:8080/gl"));
        assert!(!sent("http://127.0.0.1:8080/o/r/other"));
        assert_eq!(
            auth.header_for(&url("https://github.com/")).as_deref(),
            Some("Bearer t0k")
        );
        assert!(!format!("{auth:?}").contains("t0k"));
    }
}
