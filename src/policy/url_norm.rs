//! URL normalisation for the result cache: two spellings of one resource get one key.
//!
//! `url::Url` already lower-cases scheme and host, drops the default port, resolves dot
//! segments and percent-encodes what must be. On top of that the key removes the fragment,
//! drops an empty query (`p?`), strips a trailing dot from the host, decodes `%XX` when it
//! stands for an unreserved character (`%7E` → `~`) and upper-cases every other escape
//! (`%2f` → `%2F`). A `file:` URL also loses its query string: the file read is the same
//! (`about.html?x=1` is `about.html`). Deliberately kept distinct: trailing slashes, query
//! order, path case, `+` vs `%20`, http vs https — each may name a different resource. (That a
//! local folder and its `index.html` are one document takes the file system to know:
//! `FileScope::document_key`.)

use std::borrow::Cow;

use url::{Position, Url};

/// The cache key of `url`: its normalised form without fragment.
pub(crate) fn cache_key(url: &Url) -> String {
    cache_key_ref(url).into_owned()
}

/// [`cache_key`], borrowed from `url` in the common case where there is nothing to normalise
/// (no escape, no empty query, no trailing dot on the host): the key is then the URL up to its
/// fragment, and a claim of a link needs no copy of it.
pub(crate) fn cache_key_ref(url: &Url) -> Cow<'_, str> {
    let plain = &url[..Position::AfterQuery];
    if !plain.contains('%')
        && url.query() != Some("")
        && (url.scheme() != "file" || url.query().is_none())
        && !url.host_str().is_some_and(|h| h.ends_with('.'))
    {
        return Cow::Borrowed(plain);
    }
    Cow::Owned(normalized_key(url))
}

/// The key of a URL that has something to normalise.
fn normalized_key(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    if u.query() == Some("") || u.scheme() == "file" {
        u.set_query(None);
    }
    if let Some(host) = u.host_str() {
        // The dots of an opaque host (`foo://h%2E/`) may still be escaped: decode first, as the
        // whole key is decoded below, so that a dot it reveals is trimmed too.
        let host = normalize_escapes(host);
        let trimmed = host.trim_end_matches('.');
        if !trimmed.is_empty() && trimmed.len() < host.len() {
            let trimmed = trimmed.to_owned();
            // Cannot fail for a host that parsed once; keep the original otherwise.
            let _ = u.set_host(Some(&trimmed));
        }
    }
    normalize_escapes(u.as_str())
}

/// Decodes escapes of unreserved characters and upper-cases the hex of all others.
///
/// A `%` that starts no escape (`100%`, `%4`) is kept, and so is any escape whose decoded hex
/// digit would complete it into a new one: `%4%41` stays `%4%41`, since `%4A` would mean `J`.
fn normalize_escapes(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    // Where in `out` the last `%` that starts no escape was written.
    let mut lone_percent = None;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            let c = h * 16 + l;
            let completes_escape = c.is_ascii_hexdigit()
                && lone_percent.is_some_and(|at: usize| {
                    at + 1 == out.len()
                        || (at + 2 == out.len() && out.as_bytes()[at + 1].is_ascii_hexdigit())
                });
            if !completes_escape
                && (c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~'))
            {
                out.push(c as char);
            } else {
                out.push('%');
                out.push(b[i + 1].to_ascii_uppercase() as char);
                out.push(b[i + 2].to_ascii_uppercase() as char);
            }
            i += 3;
            continue;
        }
        if b[i] == b'%' {
            lone_percent = Some(out.len());
        }
        // Safe to push byte-wise: a serialised Url is ASCII.
        out.push(b[i] as char);
        i += 1;
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> String {
        cache_key(&Url::parse(s).unwrap())
    }

    #[test]
    fn the_key_is_borrowed_only_when_there_is_nothing_to_normalise() {
        for (s, borrowed) in [
            ("http://ex.com/p?q=1#f", true),
            ("file:///site/a/b.html", true),
            ("http://ex.com/a%7Eb", false),
            ("http://ex.com/p?", false),
            ("http://ex.com./p", false),
        ] {
            let url = Url::parse(s).unwrap();
            let key = cache_key_ref(&url);
            assert_eq!(matches!(key, Cow::Borrowed(_)), borrowed, "{s}");
            assert_eq!(key, cache_key(&url), "{s}");
        }
    }

    #[test]
    fn fragment_removed() {
        assert_eq!(key("http://ex.com/p#a"), key("http://ex.com/p#b"));
        assert_eq!(key("http://ex.com/p#a"), "http://ex.com/p");
    }

    #[test]
    fn scheme_and_host_lower_case() {
        assert_eq!(key("HTTP://EX.Com/Path"), "http://ex.com/Path");
    }

    #[test]
    fn default_port_dropped() {
        assert_eq!(key("http://ex.com:80/p"), "http://ex.com/p");
        assert_eq!(key("https://ex.com:443/p"), "https://ex.com/p");
        assert_eq!(key("http://ex.com:8080/p"), "http://ex.com:8080/p");
    }

    #[test]
    fn percent_encoding_case_unified() {
        assert_eq!(key("http://ex.com/a%2fb"), key("http://ex.com/a%2Fb"));
        assert_eq!(key("http://ex.com/a%2fb"), "http://ex.com/a%2Fb");
        assert_eq!(
            key("http://ex.com/%7euser?q=%41"),
            "http://ex.com/~user?q=A"
        );
    }

    #[test]
    fn empty_query_and_trailing_dot() {
        assert_eq!(key("HTTP://EX.COM.:80/p?"), "http://ex.com/p");
    }

    #[test]
    fn lone_percent_and_distinct_paths_kept() {
        assert_eq!(key("http://ex.com/100%"), "http://ex.com/100%");
        assert_ne!(key("http://ex.com/dir"), key("http://ex.com/dir/"));
        assert_ne!(key("http://ex.com/P"), key("http://ex.com/p"));
    }

    #[test]
    fn decoding_never_completes_a_lone_percent_into_an_escape() {
        // Found by fuzz/fuzz_targets/url_norm.rs: `%4%41` became `%4A`, whose key is `J`.
        assert_eq!(key("http://ex.com/%4%41"), "http://ex.com/%4%41");
        assert_eq!(key("http://ex.com/%%41A"), "http://ex.com/%%41A");
        assert_eq!(key("http://ex.com/%%34%41"), "http://ex.com/%%34A");
        // A non-hex letter completes nothing and is still decoded.
        assert_eq!(key("http://ex.com/%4%47"), "http://ex.com/%4G");
        assert_eq!(key("http://ex.com/%41%4"), "http://ex.com/A%4");
        for s in [
            "http://ex.com/%4%41",
            "http://ex.com/%%41A",
            "http://ex.com/%%34%41",
        ] {
            let k = key(s);
            assert_eq!(key(&k), k, "{s}");
        }
    }

    #[test]
    fn escaped_trailing_dot_of_an_opaque_host() {
        // Found by fuzz/fuzz_targets/url_norm.rs: `o://e%2e` got the key `o://e.`, whose key is
        // `o://e`.
        assert_eq!(key("o://e%2e"), "o://e");
        assert_eq!(key("foo://h%2E.%2e/x"), "foo://h/x");
        assert_eq!(key("foo://h.%7E/x"), "foo://h.~/x");
        // A host of dots alone is kept as it is.
        assert_eq!(key("foo://%2e%2e/x"), "foo://../x");
        assert_eq!(key("foo://../x"), "foo://../x");
    }

    #[test]
    fn file_urls() {
        assert_eq!(key("file:///tmp/a%2e.html#x"), "file:///tmp/a..html");
    }

    #[test]
    fn a_file_url_has_no_query_but_a_web_url_keeps_it() {
        assert_eq!(
            key("file:///site/about.html?x=1&y=2"),
            "file:///site/about.html"
        );
        assert_eq!(key("file:///site/about.html?"), "file:///site/about.html");
        assert_eq!(key("file:///site/?q=%7e#f"), "file:///site/");
        assert_eq!(key("http://ex.com/a.html?x=1"), "http://ex.com/a.html?x=1");
    }
}
