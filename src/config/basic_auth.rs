//! [`BasicAuth`]: HTTP basic credentials for the URLs matching a pattern. They are sent only to
//! matching URLs (checked again on every redirect hop), and never shown: `Debug` masks the
//! password, and reports mask credentials in URLs.

use std::fmt;

use regex::Regex;
use url::Url;

/// Credentials for the URLs whose text matches `pattern`.
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
    /// `^https://host/` to be strict).
    pub fn new(pattern: Regex, username: impl Into<String>, password: impl Into<String>) -> Self {
        BasicAuth {
            pattern,
            username: username.into(),
            password: password.into(),
        }
    }

    /// `true` when these credentials are for `url`.
    pub(crate) fn matches(&self, url: &Url) -> bool {
        self.pattern.is_match(url.as_str())
    }

    /// The `Authorization` header value.
    pub(crate) fn header_value(&self) -> String {
        let pair = format!("{}:{}", self.username, self.password);
        format!("Basic {}", base64(pair.as_bytes()))
    }
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
}
