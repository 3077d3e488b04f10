//! [`BasicAuth`]: HTTP basic credentials for the URLs matching a pattern. They are sent only to
//! matching URLs (checked again on every redirect hop), never to a URL that carries its own
//! `user:password@`, and never shown: `Debug` masks the password, and reports mask credentials
//! in URLs.

use std::fmt;

use regex::Regex;
use url::Url;

/// Credentials for the URLs whose text matches `pattern`. A URL with a user name or password of
/// its own never matches: its credentials are the ones it carries.
#[derive(Clone)]
pub struct BasicAuth {
    pattern: Regex,
    username: String,
    password: String,
}

impl fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BasicAuth")
            .field("pattern", &self.pattern.as_str())
            .field("username", &self.username)
            .field("password", &"***")
            .finish()
    }
}

impl BasicAuth {
    /// Credentials for URLs matching `pattern` (searched anywhere in the URL; anchor it with
    /// `^https://host/` to be strict). The text searched never has a `user:password@` part, so
    /// `http://host@elsewhere/` cannot pass for `http://host`.
    pub fn new(pattern: Regex, username: impl Into<String>, password: impl Into<String>) -> Self {
        BasicAuth {
            pattern,
            username: username.into(),
            password: password.into(),
        }
    }

    /// `true` when these credentials are for `url`. A URL with userinfo is refused before the
    /// pattern is tried: in `http://a.test@b.test/` the host is `b.test`, but the text starts
    /// like `a.test`'s URLs, and the user name is the page author's to choose.
    pub(crate) fn matches(&self, url: &Url) -> bool {
        !has_userinfo(url) && self.pattern.is_match(url.as_str())
    }

    /// The `Authorization` header value.
    pub(crate) fn header_value(&self) -> String {
        let pair = format!("{}:{}", self.username, self.password);
        format!("Basic {}", base64(pair.as_bytes()))
    }
}

/// `true` when `url` carries a user name or a password.
fn has_userinfo(url: &Url) -> bool {
    !url.username().is_empty() || url.password().is_some()
}

/// Standard base64 with padding (RFC 4648).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn header_and_matching() {
        let a = BasicAuth::new(
            Regex::new("^http://intra\\.test/").unwrap(),
            "Aladdin",
            "open sesame",
        );
        assert_eq!(a.header_value(), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        assert!(a.matches(&Url::parse("http://intra.test/x").unwrap()));
        assert!(!a.matches(&Url::parse("http://other.test/intra.test/").unwrap()));
        assert!(!format!("{a:?}").contains("sesame"));
    }

    #[test]
    fn userinfo_never_matches() {
        let a = BasicAuth::new(Regex::new("^http://a\\.test").unwrap(), "u", "p");
        assert!(a.matches(&Url::parse("http://a.test:8080/x").unwrap()));
        for url in [
            "http://a.test@b.test/steal",
            "http://a.test:8080@b.test/steal",
            "http://a.test:8080:pw@b.test/",
            "http://u:p@a.test/",
            "http://u@a.test/",
            "http://:p@a.test/",
        ] {
            assert!(!a.matches(&Url::parse(url).unwrap()), "{url}");
        }
    }
}
