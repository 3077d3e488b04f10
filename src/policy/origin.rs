//! A URL's origin as text (`http://host:port`, the port only when it is not the scheme's
//! default), borrowed from the URL where it can be: the crawl asks for it several times per
//! link and per request (scope, robots.txt, credentials), where building it with
//! `url.origin().ascii_serialization()` cost an allocation and a formatted write each time.

use std::borrow::Cow;

use url::{Position, Url};

/// `url.origin().ascii_serialization()`, without building it when the URL's own text starts
/// with it: an http(s) URL without user name or password. (`url` leaves a scheme's default
/// port out of its text, as the origin's serialization does.)
pub(crate) fn origin_text(url: &Url) -> Cow<'_, str> {
    let plain = matches!(url.scheme(), "http" | "https")
        && url.username().is_empty()
        && url.password().is_none()
        && url.has_host();
    if plain {
        Cow::Borrowed(&url[..Position::AfterPort])
    } else {
        Cow::Owned(url.origin().ascii_serialization())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_the_origins_serialization() {
        for u in [
            "http://example.test/a/b?q#f",
            "https://example.test:443/",
            "https://example.test:8443/x",
            "http://example.test:80",
            "http://user:pw@example.test:81/p",
            "http://user@example.test/p",
            "http://[::1]:8080/",
            "http://127.0.0.1:18580/index.html",
            "http://BÜCHER.test/",
            "file:///tmp/site/index.html",
            "mailto:a@example.test",
            "ftp://example.test:21/f",
            "blob:https://example.test/uuid",
            "data:text/plain,hi",
        ] {
            let url = Url::parse(u).unwrap();
            assert_eq!(origin_text(&url), url.origin().ascii_serialization(), "{u}");
        }
        let plain = Url::parse("http://example.test:8080/x").unwrap();
        assert!(matches!(origin_text(&plain), Cow::Borrowed(_)));
    }
}
