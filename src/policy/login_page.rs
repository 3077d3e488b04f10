//! Whether a URL is a login page: where a redirect chain ends when its target needs a login
//! (`/login?next=…`, `/users/sign_in`, `/sso`, an `accounts.` host), so the report can tell a
//! private page from a moved one. A guess from the URL alone, kept narrow: a path segment (its
//! extension aside) that names a login, or a host whose first label is one that serves logins.

use url::Url;

/// Path segments that name a login page, compared without case and extension
/// (`wp-login.php`, `signin.html`).
const LOGIN_SEGMENTS: &[&str] = &[
    "login", "log-in", "log_in", "logon", "signin", "sign-in", "sign_in", "sso", "wp-login",
];

/// First labels of hosts that serve logins (`accounts.google.com`, `login.microsoftonline.com`).
const LOGIN_HOSTS: &[&str] = &["accounts", "login", "signin", "sso", "auth", "id"];

/// `true` when `url` looks like a login page.
pub(crate) fn is_login_page(url: &Url) -> bool {
    let host = url.host_str().unwrap_or("");
    let first = host.split('.').next().unwrap_or("");
    // A first label only counts on a name with at least three labels (`accounts.example.com`).
    if host.split('.').count() >= 3
        && host.parse::<std::net::IpAddr>().is_err()
        && LOGIN_HOSTS.iter().any(|h| first.eq_ignore_ascii_case(h))
    {
        return true;
    }
    url.path_segments().is_some_and(|mut segments| {
        segments.any(|s| {
            let stem = s.split_once('.').map_or(s, |(stem, _)| stem);
            LOGIN_SEGMENTS.iter().any(|l| stem.eq_ignore_ascii_case(l))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn login(s: &str) -> bool {
        is_login_page(&Url::parse(s).unwrap())
    }

    #[test]
    fn login_pages_are_known_by_path_or_host() {
        for yes in [
            "https://example.com/login?next=/private",
            "https://example.com/users/sign_in",
            "https://example.com/SignIn",
            "https://example.com/wp-login.php?redirect_to=x",
            "https://example.com/sso/start",
            "https://accounts.google.com/ServiceLogin?continue=x",
            "https://login.microsoftonline.com/common/oauth2",
            "http://127.0.0.1:8080/auth/login",
        ] {
            assert!(login(yes), "{yes}");
        }
        for no in [
            "https://example.com/",
            "https://example.com/blog/login-tips",
            "https://example.com/loginx",
            "https://accounts.com/",
            "https://example.com/docs?page=login",
            "http://127.0.0.1/",
        ] {
            assert!(!login(no), "{no}");
        }
    }
}
