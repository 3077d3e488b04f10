//! Credential masking: the user name and password of a URL never reach a report or a message.

/// `s` with the user name and password of a URL replaced by `***`, so credentials never reach a
/// report. Works on any string that may hold a URL (relative links are returned unchanged).
pub(crate) fn redact(s: &str) -> std::borrow::Cow<'_, str> {
    // Most links are relative: one `memchr` spares them the substring search's set-up.
    if memchr::memchr(b':', s.as_bytes()).is_none() {
        return s.into();
    }
    let Some(scheme_end) = s.find("://") else {
        return s.into();
    };
    let auth_start = scheme_end + 3;
    let auth_end = s[auth_start..]
        .find(['/', '?', '#'])
        .map_or(s.len(), |i| auth_start + i);
    match s[auth_start..auth_end].rfind('@') {
        Some(at) => format!("{}***{}", &s[..auth_start], &s[auth_start + at..]).into(),
        None => s.into(),
    }
}

/// `text` with the user name and password of **every** URL in it replaced by `***`: for messages
/// and link texts that may quote URLs (`Redirected to `http://u:p@h/x'.`). An authority ends at
/// `/ ? # \`, whitespace or a quote character. Works on text, so a URL that does not parse is
/// masked too.
///
/// Reports and [`Error`](crate::Error) messages are masked already; this is for the messages an
/// embedder writes itself (the `linkpatrol` binary passes each error line through it).
///
/// ```
/// assert_eq!(
///     linkpatrol::redact_text("`http://u:s3cret@h.test:99999/' is not a valid URL"),
///     "`http://***@h.test:99999/' is not a valid URL"
/// );
/// ```
pub fn redact_text(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("://") || !text.contains('@') {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let auth_start = i + 3;
        out.push_str(&rest[..auth_start]);
        rest = &rest[auth_start..];
        let auth_end = rest
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '\\' | '`' | '\'' | '"' | '<' | '>')
                    || c.is_whitespace()
            })
            .unwrap_or(rest.len());
        if let Some(at) = rest[..auth_end].rfind('@') {
            out.push_str("***");
            rest = &rest[at..];
        }
    }
    out.push_str(rest);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::{redact, redact_text};

    #[test]
    fn every_url_in_a_text_is_masked() {
        assert_eq!(
            redact_text("Redirected to `http://u:s3cr3t@h/x' from ftp://a@b.test. Mail me@x.test"),
            "Redirected to `http://***@h/x' from ftp://***@b.test. Mail me@x.test"
        );
        assert_eq!(
            redact_text("loop through https://tok@h"),
            "loop through https://***@h"
        );
        assert_eq!(redact_text("http://h/p?u=a@b"), "http://h/p?u=a@b");
        assert_eq!(redact_text("no url at all"), "no url at all");
    }

    #[test]
    fn credentials_are_masked() {
        assert_eq!(
            redact("http://user:pa%40ss@ex.com/p?q=a@b"),
            "http://***@ex.com/p?q=a@b"
        );
        assert_eq!(redact("https://token@ex.com"), "https://***@ex.com");
        assert_eq!(redact("http://ex.com/a@b"), "http://ex.com/a@b");
        assert_eq!(redact("../x.html"), "../x.html");
        assert_eq!(redact("mailto:a@b.c"), "mailto:a@b.c");
    }
}
