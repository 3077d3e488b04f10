//! The longest URL the run requests, and how a longer one is reported instead.
//!
//! A URL longer than [`MAX_URL_LENGTH`] is not requested, queued or fetched: it is finished
//! at once as broken, failure class `url-too-long`, for every page that links it. 8,192
//! characters because servers refuse request lines near that long: nginx's default
//! `large_client_header_buffers 4 8k` answers 414 past 8 KiB, Apache's `LimitRequestLine` is
//! 8,190 bytes; such a URL could only ever be an error, and a page of ever-longer URLs (a
//! spider trap) would otherwise grow every copy of each. What the run keeps of it is bounded
//! too: its key is a digest ([`too_long_key`]) and the reports show its first
//! [`SHOWN_CHARS`] characters and its length ([`shown`]). So does a link as written that long,
//! and one that is no URL at all.
//!
//! A `file:` URL is measured by its decoded path, the bytes the file system is asked for (a
//! path of non-ASCII names is three characters a byte as a URL): no path that long names a
//! file (Linux's `PATH_MAX` is 4,096 bytes, macOS's 1,024).

use std::hash::Hasher;

use url::{Position, Url};

use crate::model::outcome::{FailKind, Outcome};

/// The longest URL requested, in characters (bytes: a parsed URL is ASCII).
pub(crate) const MAX_URL_LENGTH: usize = 8192;

/// How many characters of a too-long URL (or of its link as written) the reports show.
pub(crate) const SHOWN_CHARS: usize = 256;

/// The length the cap applies to: the URL's text up to its fragment (which is never sent), or
/// a `file:` URL's decoded path.
pub(crate) fn measured_length(url: &Url) -> usize {
    if url.scheme() == "file" {
        let path = url.path();
        // Each `%XX` is one byte of the path asked for.
        let escapes = path.as_bytes().windows(3).filter(|w| is_escape(w)).count();
        return path.len() - 2 * escapes;
    }
    url[..Position::AfterQuery].len()
}

fn is_escape(w: &[u8]) -> bool {
    w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit()
}

/// `true` for a URL over the cap.
pub(crate) fn is_too_long(url: &Url) -> bool {
    measured_length(url) > MAX_URL_LENGTH
}

/// The verdict on a URL over the cap (see [`message`]).
pub(crate) fn too_long(url: &Url, what: &str) -> Outcome {
    Outcome::Failed {
        kind: FailKind::UrlTooLong,
        message: message(url, what),
    }
}

/// Why a URL over the cap is not requested, `what` naming it (`the URL`, `the redirect
/// target`).
pub(crate) fn message(url: &Url, what: &str) -> String {
    format!(
        "{what} is {} characters long, more than {MAX_URL_LENGTH}: not requested (servers \
         refuse request lines this long)",
        measured_length(url)
    )
}

/// The result cache's key for a URL over the cap: a fixed-size digest of its whole text, not
/// a copy of it. Two such URLs sharing a digest would share one row's text; their verdict is
/// the same anyway.
pub(crate) fn too_long_key(url: &Url) -> String {
    digest_key("too-long", &url[..Position::AfterQuery])
}

/// A fixed-size key for `text` (a URL or a link over the cap), under `prefix`.
pub(crate) fn digest_key(prefix: &str, text: &str) -> String {
    let mut h = fnv::FnvHasher::default();
    h.write(text.as_bytes());
    format!("{prefix}:{}:{:016x}", text.len(), h.finish())
}

/// `text` as the reports show a too-long URL or link: its first [`SHOWN_CHARS`] characters,
/// then `…`; shorter text as it is.
pub(crate) fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// `text` (a link as written, a message naming one) as it is, or [`shown`] when it is over the
/// cap.
pub(crate) fn capped(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() > MAX_URL_LENGTH {
        shown(text).into()
    } else {
        text.into()
    }
}

/// `url` as a result names it: shortened (see [`shown`]) when it is over the cap, so that a
/// link not checked for another reason (an excluded or `data:` URL) keeps no more of it.
pub(crate) fn result_url(url: &Url) -> String {
    if is_too_long(url) {
        shown(url.as_str())
    } else {
        url.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_and_what_is_kept_of_a_url_over_it() {
        let at_cap = Url::parse(&format!("http://h.test/{}", "a".repeat(8192 - 14))).unwrap();
        assert_eq!(at_cap.as_str().len(), MAX_URL_LENGTH);
        assert!(!is_too_long(&at_cap));
        let over = Url::parse(&format!("http://h.test/{}", "a".repeat(30_000))).unwrap();
        assert!(is_too_long(&over));
        assert!(too_long_key(&over).len() < 50);
        assert_ne!(too_long_key(&over), too_long_key(&at_cap));
        let text = shown(over.as_str());
        assert_eq!(text.chars().count(), SHOWN_CHARS + 1);
        assert!(text.starts_with("http://h.test/aaa") && text.ends_with('…'));
        assert_eq!(shown("http://h.test/"), "http://h.test/");
        let Outcome::Failed { kind, message } = too_long(&over, "the URL") else {
            panic!()
        };
        assert_eq!(kind, FailKind::UrlTooLong);
        assert!(
            message.contains("30014 characters long, more than 8192"),
            "{message}"
        );
    }

    #[test]
    fn a_file_url_is_measured_by_its_decoded_path() {
        // 3,000 two-byte characters: 12,000 characters as a URL, a 6,000-byte path.
        let path = format!("/{}", "é".repeat(3000));
        let url = Url::from_file_path(&path).unwrap();
        assert!(url.as_str().len() > MAX_URL_LENGTH);
        assert_eq!(measured_length(&url), path.len());
        assert!(!is_too_long(&url));
        let long = Url::from_file_path(format!("/{}", "a".repeat(9000))).unwrap();
        assert!(is_too_long(&long));
    }
}
