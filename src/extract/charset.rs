//! Character encodings of fetched pages: a page that is not UTF-8 is transcoded before link
//! extraction (html5gum reads UTF-8 only), so link text and non-ASCII URLs come out right.
//!
//! The encoding is taken, in order, from a byte-order mark, the `Content-Type` charset, a
//! `<meta charset>` / `http-equiv` declaration in the first 1024 bytes, else UTF-8 — the
//! precedence the HTML standard gives, without its full prescan state machine.
//!
//! The encoding also writes the query strings of the page's links: a browser encodes `?q=ü` on
//! an ISO-8859-1 page as `?q=%FC` (the WHATWG URL parser's encoding override; the path stays
//! UTF-8), so [`decode_html`] hands it on with the text.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8};

/// `body` as UTF-8: borrowed when it already is (or claims to be) UTF-8.
pub(crate) fn html_to_utf8<'a>(body: &'a [u8], header_charset: Option<&str>) -> Cow<'a, [u8]> {
    decode_html(body, header_charset).0
}

/// `body` as UTF-8 (borrowed when it already is, or claims to be, UTF-8), and the encoding the
/// query strings of its links are written in: `None` for UTF-8, else the page's encoding as the
/// URL standard uses it (UTF-16 pages write UTF-8 queries).
pub(crate) fn decode_html<'a>(
    body: &'a [u8],
    header_charset: Option<&str>,
) -> (Cow<'a, [u8]>, Option<&'static Encoding>) {
    let encoding = Encoding::for_bom(body)
        .map(|(e, _)| e)
        .or_else(|| header_charset.and_then(|c| Encoding::for_label(c.trim().as_bytes())))
        .or_else(|| meta_charset(body))
        .unwrap_or(UTF_8);
    if encoding == UTF_8 {
        return (Cow::Borrowed(body), None);
    }
    let query = Some(encoding.output_encoding()).filter(|e| *e != UTF_8);
    let (text, _, _) = encoding.decode(body);
    (Cow::Owned(text.into_owned().into_bytes()), query)
}

/// The charset declared by a `<meta>` in the first 1024 bytes, if any.
fn meta_charset(body: &[u8]) -> Option<&'static Encoding> {
    let head = &body[..body.len().min(1024)];
    let lower: Vec<u8> = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = find(&lower[from..], b"<meta") {
        let start = from + pos;
        let end = lower[start..]
            .iter()
            .position(|&b| b == b'>')
            .map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(c) = find(tag, b"charset=") {
            let value = &tag[c + 8..];
            let value: Vec<u8> = value
                .iter()
                .copied()
                .skip_while(|b| *b == b'"' || *b == b'\'' || b.is_ascii_whitespace())
                .take_while(|b| {
                    !matches!(b, b'"' | b'\'' | b';' | b'/' | b'>') && !b.is_ascii_whitespace()
                })
                .collect();
            return Encoding::for_label(&value);
        }
        from = end.max(start + 1);
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_by_header_meta_and_bom() {
        let latin1 = b"<a href='caf\xe9.html'>Caf\xe9</a>";
        let out = html_to_utf8(latin1, Some("ISO-8859-1"));
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            "<a href='café.html'>Café</a>"
        );
        let with_meta =
            b"<html><head><meta charset=\"windows-1252\"></head><a href=x>\x93q\x94</a>";
        let out = html_to_utf8(with_meta, None);
        assert!(
            std::str::from_utf8(&out)
                .unwrap()
                .contains("\u{201c}q\u{201d}")
        );
        let http_equiv =
            b"<meta http-equiv=Content-Type content='text/html; charset=iso-8859-15'>\xa4";
        assert!(
            std::str::from_utf8(&html_to_utf8(http_equiv, None))
                .unwrap()
                .ends_with('\u{20ac}')
        );
        let utf8 = "<p>déjà</p>".as_bytes();
        assert!(matches!(
            html_to_utf8(utf8, Some("utf-8")),
            Cow::Borrowed(_)
        ));
        assert!(matches!(html_to_utf8(utf8, None), Cow::Borrowed(_)));
        let bom16 = [0xFF, 0xFE, b'<', 0, b'a', 0];
        assert_eq!(&*html_to_utf8(&bom16, Some("utf-8")), b"<a");
    }

    #[test]
    fn queries_are_written_in_the_page_encoding_except_utf8_and_utf16() {
        let name = |body: &[u8], header| decode_html(body, header).1.map(|e| e.name());
        assert_eq!(name(b"x", Some("iso-8859-1")), Some("windows-1252"));
        assert_eq!(name(b"<meta charset=koi8-r>", None), Some("KOI8-R"));
        assert_eq!(name(b"x", Some("utf-8")), None);
        assert_eq!(name(b"x", None), None);
        assert_eq!(name(&[0xFF, 0xFE, b'<', 0], None), None);
    }
}
