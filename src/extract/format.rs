//! What content is read for links, by media type: the one table that the fetchers (which
//! bodies to read) and the engine (which extractor to run) share.

use url::Url;

/// A kind of content links are extracted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// HTML or XHTML.
    Html,
    /// A style sheet.
    Css,
    /// Markdown.
    Markdown,
    /// Plain text: a list of URLs when it is a start input.
    Text,
    /// XML: read when it is a sitemap.
    Xml,
    /// gzip: read only at a `.xml.gz` URL (a gzipped sitemap).
    Gzip,
    /// An Office document (Office Open XML or OpenDocument): its hyperlinks.
    Office,
    /// A PDF file: its link annotations.
    Pdf,
}

impl Format {
    /// The format of a media type (lower-case, without parameters); `None` for content that is
    /// never read.
    pub(crate) fn of(content_type: Option<&str>) -> Option<Format> {
        Some(match content_type? {
            "text/html" | "application/xhtml+xml" => Format::Html,
            "text/css" => Format::Css,
            "text/markdown" | "text/x-markdown" => Format::Markdown,
            "text/plain" => Format::Text,
            "application/xml" | "text/xml" => Format::Xml,
            "application/gzip" | "application/x-gzip" => Format::Gzip,
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            | "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            | "application/vnd.openxmlformats-officedocument.presentationml.presentation"
            | "application/vnd.oasis.opendocument.text"
            | "application/vnd.oasis.opendocument.spreadsheet"
            | "application/vnd.oasis.opendocument.presentation" => Format::Office,
            "application/pdf" => Format::Pdf,
            _ => return None,
        })
    }
}

/// `true` for HTML media types.
pub(crate) fn is_html(content_type: Option<&str>) -> bool {
    Format::of(content_type) == Some(Format::Html)
}

/// `true` for content we extract links from: HTML, CSS, Markdown, PDF and Office documents, plain text
/// (parsed when it is a start input), XML (when it is a sitemap), and gzip only at a `.xml.gz` URL (a gzipped
/// sitemap: other archives are not read).
pub(crate) fn is_parsed(url: &Url, content_type: Option<&str>) -> bool {
    match Format::of(content_type) {
        Some(Format::Gzip) => url.path().ends_with(".xml.gz"),
        other => other.is_some(),
    }
}

/// [`is_parsed`] of a URL given as text, parsed only when the content type needs its path
/// (gzip); a URL that does not parse is not a sitemap.
pub(crate) fn is_parsed_at(url: &str, content_type: Option<&str>) -> bool {
    match Format::of(content_type) {
        Some(Format::Gzip) => Url::parse(url).is_ok_and(|u| u.path().ends_with(".xml.gz")),
        other => other.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_read_only_at_a_sitemap_url() {
        let u = |s: &str| Url::parse(s).unwrap();
        let gz = Some("application/gzip");
        assert!(is_parsed(&u("http://a.test/sitemap.xml.gz"), gz));
        assert!(!is_parsed(&u("http://a.test/release.tar.gz"), gz));
        assert!(is_parsed(&u("http://a.test/s.css"), Some("text/css")));
        assert!(is_parsed(&u("file:///d/README.md"), Some("text/markdown")));
        assert!(!is_parsed(&u("http://a.test/x.png"), Some("image/png")));
        assert!(is_parsed_at("http://a.test/sitemap.xml.gz", gz));
        assert!(!is_parsed_at("http://a.test/release.tar.gz", gz));
        assert!(!is_parsed_at("not a url", gz));
        assert!(is_parsed_at("http://a.test/", Some("text/html")));
    }
}
