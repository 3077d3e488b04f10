//! Parsing a URL near another one: a URL of the same web scheme and authority as one already
//! parsed is parsed as a path against it, so its host is not parsed (and run through IDNA)
//! again, which is most of the cost of a parse. Used for the keys the text join builds
//! (`engine/page_links.rs`) and for the results the state file stores (`engine/state_sink.rs`).

use url::{Position, Url};

/// `whole` parsed, exactly as `Url::parse(whole)`. When `whole` starts with the scheme and
/// authority of `near` (an http or https URL) and goes on with a path that names no other
/// host, only that rest is parsed, against `near`. Anything else is parsed whole.
pub(crate) fn parse_near(near: &Url, whole: &str) -> Result<Url, url::ParseError> {
    let url = match whole.strip_prefix(&near[..Position::BeforePath]) {
        Some(rest) if matches!(near.scheme(), "http" | "https") && path_only(rest) => {
            near.join(rest)
        }
        _ => Url::parse(whole),
    };
    #[cfg(debug_assertions)]
    if let Ok(u) = &url {
        assert_eq!(
            Ok(u),
            Url::parse(whole).as_ref(),
            "parse_near({near}, {whole})"
        );
    }
    url
}

/// `true` for a rest that a parse reads as a path on its own and a join as a path-absolute
/// reference: it starts with `/`, not with `//` or `/\` (the authority of another host, for
/// a join), and has no tab or line break (which the parser removes, so that `/\t/` would
/// become `//`).
fn path_only(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    bytes.first() == Some(&b'/')
        && !matches!(bytes.get(1), Some(b'/' | b'\\'))
        && !bytes.iter().any(|b| matches!(b, b'\t' | b'\n' | b'\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_parses_near_another_as_it_parses_alone() {
        let cases = [
            (
                "http://a.test/dir/page.html",
                "http://a.test/dir/other.html#top",
            ),
            (
                "https://user:pw@a.test:8443/p",
                "https://user:pw@a.test:8443/x/y/",
            ),
            ("http://[::1]:8080/a/", "http://[::1]:8080/a/b.html"),
            ("http://a.test/", "http://a.test/x?q=1#f"),
            // Another host, or a rest that a join would read as one: parsed whole.
            ("http://a.test/", "http://b.test/x"),
            ("http://a.test//x/y.html", "http://a.test//x/z.html"),
            ("http://a.test/", "http://a.test/\\evil.test/x"),
            ("http://a.test/", "http://a.test/\t/evil.test/x"),
            ("http://a.test/", "http://a.test/\n\\evil.test/x"),
            ("http://a.test/", "http://a.test"),
            ("http://a.test/", "http://a.test:80/x"),
            ("http://a.test/", "not a url"),
            ("file:///tmp/site/index.html", "file:///tmp/site/a.html"),
        ];
        for (near, whole) in cases {
            let near = Url::parse(near).unwrap();
            assert_eq!(
                parse_near(&near, whole),
                Url::parse(whole),
                "{near} {whole}"
            );
        }
    }
}
