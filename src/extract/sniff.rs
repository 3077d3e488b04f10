//! The media type a browser gives a body sent without a usable `Content-Type`: the WHATWG MIME
//! Sniffing standard's rules for identifying an unknown MIME type, for the types we read.

/// Bytes of a body the rules look at (the standard's resource header).
pub(crate) const SNIFF_LEN: usize = 1445;

/// `true` when a response's media type (lower-case, without parameters) is one a browser
/// sniffs: none, one that does not parse as `type/subtype`, or one of the standard's three
/// "unknown" types. An explicit type (`text/plain`, `application/octet-stream`) is kept.
pub(crate) fn is_unknown(media_type: Option<&str>) -> bool {
    let Some(t) = media_type else {
        return true;
    };
    let parses = t
        .split_once('/')
        .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty() && !b.contains('/'));
    !parses || matches!(t, "unknown/unknown" | "application/unknown" | "*/*")
}

/// HTML tags that make a body HTML when one opens it, each followed by a space or `>`.
const HTML_TAGS: [&[u8]; 17] = [
    b"<!DOCTYPE HTML",
    b"<HTML",
    b"<HEAD",
    b"<SCRIPT",
    b"<IFRAME",
    b"<H1",
    b"<DIV",
    b"<FONT",
    b"<TABLE",
    b"<A",
    b"<STYLE",
    b"<TITLE",
    b"<B",
    b"<BODY",
    b"<BR",
    b"<P",
    b"<!--",
];

/// The media type of `head` (the first bytes of a body, see [`SNIFF_LEN`]) among those we
/// read: `text/html`, `text/xml` or `application/pdf`, else `None` (text, images, archives:
/// nothing with links for us). `scriptable`: false when the server sent
/// `X-Content-Type-Options: nosniff`, which the standard lets sniff none of these.
pub(crate) fn sniff(head: &[u8], scriptable: bool) -> Option<&'static str> {
    if !scriptable {
        return None;
    }
    let head = &head[..head.len().min(SNIFF_LEN)];
    // Leading whitespace (HT, LF, FF, CR, space) is skipped by every pattern we use.
    let start = head
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .unwrap_or(head.len());
    let rest = &head[start..];
    let html = HTML_TAGS.iter().any(|tag| {
        rest.len() > tag.len()
            && rest[..tag.len()].eq_ignore_ascii_case(tag)
            && matches!(rest[tag.len()], b' ' | b'>')
    });
    if html {
        Some("text/html")
    } else if rest.starts_with(b"<?xml") {
        Some("text/xml")
    } else if head.starts_with(b"%PDF-") {
        // Not after whitespace: the standard's PDF pattern is at the very start.
        Some("application/pdf")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_a_tag_then_a_space_or_a_bracket_after_whitespace() {
        for html in [
            "<!DOCTYPE html>\n<title>x</title>",
            "<!doctype HTML >",
            " \r\n\t<html>",
            "<HEAD>",
            "<a href='/x'>x</a>",
            "<p>text",
            "<!-- comment -->",
            "<body>",
            "<br>",
        ] {
            assert_eq!(sniff(html.as_bytes(), true), Some("text/html"), "{html}");
        }
        for not in [
            "",
            "plain words <html>",
            "<html\n>",
            "<htmlx>",
            "<br/>",
            "<abbr>",
            "<a",
            "\u{feff}<html>",
            "{\"a\": 1}",
        ] {
            assert_eq!(sniff(not.as_bytes(), true), None, "{not:?}");
        }
        assert_eq!(sniff(b"<html>", false), None, "nosniff");
        // Past the resource header nothing counts.
        let late = format!("{}<html>", " ".repeat(SNIFF_LEN));
        assert_eq!(sniff(late.as_bytes(), true), None);
    }

    #[test]
    fn xml_and_pdf_are_known_by_their_first_bytes() {
        assert_eq!(sniff(b"  <?xml version='1.0'?>", true), Some("text/xml"));
        assert_eq!(sniff(b"<?XML", true), None, "case-sensitive");
        assert_eq!(sniff(b"%PDF-1.7\n", true), Some("application/pdf"));
        assert_eq!(sniff(b" %PDF-1.7\n", true), None);
    }

    #[test]
    fn only_a_missing_or_unknown_type_is_sniffed() {
        for unknown in [
            None,
            Some(""),
            Some("html"),
            Some("text/"),
            Some("unknown/unknown"),
            Some("application/unknown"),
            Some("*/*"),
        ] {
            assert!(is_unknown(unknown), "{unknown:?}");
        }
        for known in [
            "text/plain",
            "application/octet-stream",
            "text/html",
            "image/png",
        ] {
            assert!(!is_unknown(Some(known)), "{known}");
        }
    }
}
