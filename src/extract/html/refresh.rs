//! `<meta http-equiv=refresh>`: the URL its `content` value sends to.

/// The URL of a `<meta http-equiv=refresh>` content value (`5; url='/next'` gives `/next`),
/// following the WHATWG "shared declarative refresh steps". `None` if the value is invalid or
/// names no URL (a plain reload).
pub(super) fn refresh_url(content: &str) -> Option<&str> {
    let bytes = content.as_bytes();
    let skip_ws = |mut pos: usize| {
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        pos
    };
    // The delay: digits and dots, starting with one of them.
    let mut pos = skip_ws(0);
    if !bytes
        .get(pos)
        .is_some_and(|&b| b.is_ascii_digit() || b == b'.')
    {
        return None;
    }
    while pos < bytes.len() && (bytes[pos].is_ascii_digit() || bytes[pos] == b'.') {
        pos += 1;
    }
    // The separator.
    if pos < bytes.len() {
        let b = bytes[pos];
        if !(b == b';' || b == b',' || b.is_ascii_whitespace()) {
            return None;
        }
        pos = skip_ws(pos);
        if pos < bytes.len() && (bytes[pos] == b';' || bytes[pos] == b',') {
            pos += 1;
        }
        pos = skip_ws(pos);
    }
    // An optional `url =` (any case), then optional quotes.
    let mut url = &content[pos..];
    if bytes.len() - pos >= 3 && bytes[pos..pos + 3].eq_ignore_ascii_case(b"url") {
        let after = skip_ws(pos + 3);
        if bytes.get(after) == Some(&b'=') {
            url = &content[skip_ws(after + 1)..];
        }
    }
    if let Some(quote @ ('"' | '\'')) = url.chars().next() {
        url = &url[1..];
        if let Some(end) = url.find(quote) {
            url = &url[..end];
        }
    }
    let url = url.trim_ascii();
    (!url.is_empty()).then_some(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract_html;

    fn values(html: &str) -> Vec<String> {
        extract_html(html.as_bytes())
            .links
            .into_iter()
            .map(|l| l.value)
            .collect()
    }

    #[test]
    fn meta_refresh_forms() {
        let cases: &[(&str, Option<&str>)] = &[
            ("5; url=/next", Some("/next")),
            ("0;URL='/quoted'", Some("/quoted")),
            ("3 , Url = \"/dq\" trailing", Some("/dq")),
            ("1; /bare", Some("/bare")),
            ("0.5 url=/dot", Some("/dot")),
            ("  7;url=  /spaced  ", Some("/spaced")),
            ("2; url='/unterminated", Some("/unterminated")),
            ("4; urlx", Some("urlx")),
            ("5", None),
            ("5;", None),
            ("url=/no-delay", None),
            ("5x; url=/bad-delay", None),
            ("", None),
        ];
        for &(content, expected) in cases {
            assert_eq!(refresh_url(content), expected, "{content:?}");
            let escaped = content.replace('"', "&quot;");
            let html = format!(r#"<meta http-equiv="Refresh" content="{escaped}">"#);
            let links = values(&html);
            assert_eq!(links.first().map(String::as_str), expected, "{content:?}");
        }
    }
}
