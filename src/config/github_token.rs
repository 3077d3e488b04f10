//! [`GithubToken`]: the access token sent to GitHub (`Config::github_token`). It is a secret:
//! `Debug` masks it, no error message quotes it, and it is never written to a report, the
//! state file or `--print-config`.

use std::fmt;

/// A GitHub access token, checked to be one header value (visible ASCII, no spaces).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct GithubToken(String);

impl fmt::Debug for GithubToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GithubToken(***)")
    }
}

impl GithubToken {
    /// The token in `text` (spaces around it trimmed). The error never quotes the text.
    pub(crate) fn parse(text: &str) -> Result<GithubToken, &'static str> {
        let token = text.trim();
        if token.is_empty() {
            return Err("the GitHub token is empty");
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("the GitHub token has a character that is not visible ASCII");
        }
        Ok(GithubToken(token.to_owned()))
    }

    /// The `Authorization` header value (`Bearer`, which GitHub takes for every kind of
    /// token).
    pub(crate) fn header_value(&self) -> String {
        format!("Bearer {}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_never_shows_and_must_be_one_header_value() {
        let t = GithubToken::parse(" ghp_s3cret\n").unwrap();
        assert_eq!(t.header_value(), "Bearer ghp_s3cret");
        assert!(!format!("{t:?}").contains("s3cret"));
        for bad in ["", "  ", "ghp s3cret", "ghp\r\ns3cret", "ghp_é"] {
            let e = GithubToken::parse(bad).unwrap_err();
            assert!(!e.contains("s3cret"), "{e}");
        }
    }
}
