//! URL normalisation for the result cache: two spellings of one resource get one key.
//!
//! `url::Url` already lower-cases scheme and host, drops the default port, resolves dot
//! segments and percent-encodes what must be. On top of that the key removes the fragment,
//! drops an empty query (`p?`), strips a trailing dot from the host, decodes `%XX` when it
//! stands for an unreserved character (`%7E` → `~`) and upper-cases every other escape
//! (`%2f` → `%2F`). Deliberately kept distinct: trailing slashes, query order, path case, `+`
//! vs `%20`, http vs https — each may name a different resource.

use url::Url;

/// The cache key of `url`: its normalised form without fragment.
pub fn cache_key(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    if u.query() == Some("") {
        u.set_query(None);
    }
    if let Some(host) = u.host_str()
        && host.len() > 1
        && host.ends_with('.')
    {
        let trimmed = host.trim_end_matches('.').to_owned();
        // Cannot fail for a host that parsed once; keep the original otherwise.
        let _ = u.set_host(Some(&trimmed));
    }
    normalize_escapes(u.as_str())
}

/// Decodes escapes of unreserved characters and upper-cases the hex of all others.
fn normalize_escapes(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            let c = h * 16 + l;
            if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
                out.push(c as char);
            } else {
                out.push('%');
                out.push(b[i + 1].to_ascii_uppercase() as char);
                out.push(b[i + 2].to_ascii_uppercase() as char);
            }
            i += 3;
            continue;
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
    fn file_urls() {
        assert_eq!(key("file:///tmp/a%2e.html#x"), "file:///tmp/a..html");
    }
}

/// `s` with the user name and password of a URL replaced by `***`, so credentials never reach a
/// report. Works on any string that may hold a URL (relative links are returned unchanged).
pub fn redact(s: &str) -> std::borrow::Cow<'_, str> {
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

#[cfg(test)]
mod redact_tests {
    use super::redact;

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
