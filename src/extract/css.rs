//! CSS: the URL of every `url(…)` and `@import "…"`, with its 1-based line and column.
//! Comments are skipped; quoted and unquoted `url()` values are read as written (a backslash
//! escape keeps the next character). Pure.

use super::RawLink;
use super::line_col::{Convention, LineCounter};

/// The links of a style sheet, in document order.
pub fn extract_css(body: &[u8]) -> Vec<RawLink> {
    let mut links = Vec::new();
    let mut lines = LineCounter::new(body, Convention::Plain);
    scan_css(body, |at, value, attr| {
        links.push(RawLink::plain(value, "css", attr, lines.locate(at)));
    });
    links
}

/// Calls `found(offset, value, form)` for each link of the CSS text `b`, in order: `offset` is
/// the byte index of its `url(` or `@import`, `value` the URL (escapes resolved, trimmed, never
/// empty) and `form` either `"url"` or `"import"`. Any bytes are accepted (invalid UTF-8 in a
/// value becomes U+FFFD); an unterminated string, `url(` or comment ends at the end of `b`.
pub(super) fn scan_css(b: &[u8], mut found: impl FnMut(usize, String, &'static str)) {
    let mut push = |at: usize, value: String, form: &'static str| {
        let trimmed = value.trim();
        if trimmed.len() == value.len() {
            if !value.is_empty() {
                found(at, value, form);
            }
        } else if !trimmed.is_empty() {
            found(at, trimmed.to_owned(), form);
        }
    };
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            i = find(b, i + 2, b"*/").map_or(b.len(), |end| end + 2);
        } else if b[i] == b'"' || b[i] == b'\'' {
            // A string outside url() and @import (e.g. `content: "url(x)"`) is no link.
            i = read_string(b, i).1;
        } else if starts_with_ci(&b[i..], b"url(") && !is_ident_byte(b, i) {
            let (value, end) = read_url_args(b, i + 4);
            push(i, value, "url");
            i = end;
        } else if starts_with_ci(&b[i..], b"@import") {
            let mut j = skip_ws(b, i + 7);
            if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
                let (value, end) = read_string(b, j);
                push(i, value, "import");
                j = end;
            }
            // `@import url(…)` is found by the url( branch on the next turns.
            i = j.max(i + 7);
        } else {
            i += 1;
        }
    }
}

/// `true` when the byte before `i` continues an identifier (`myurl(` is not `url(`).
fn is_ident_byte(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-' || b[i - 1] == b'_')
}

fn starts_with_ci(b: &[u8], word: &[u8]) -> bool {
    b.len() >= word.len() && b[..word.len()].eq_ignore_ascii_case(word)
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// A quoted string starting at the quote `b[i]`: its text and the index after it. An
/// unterminated string ends at the line end (as in CSS).
fn read_string(b: &[u8], i: usize) -> (String, usize) {
    let quote = b[i];
    let mut out = Vec::new();
    let mut j = i + 1;
    while j < b.len() && b[j] != quote && b[j] != b'\n' {
        if b[j] == b'\\' && j + 1 < b.len() {
            j += 1;
        }
        out.push(b[j]);
        j += 1;
    }
    (
        String::from_utf8_lossy(&out).into_owned(),
        (j + 1).min(b.len()),
    )
}

/// The argument of `url(` (from just after the parenthesis): quoted or not, up to `)`.
fn read_url_args(b: &[u8], i: usize) -> (String, usize) {
    let j = skip_ws(b, i);
    if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
        let (value, after) = read_string(b, j);
        let close = find(b, after, b")").map_or(b.len(), |c| c + 1);
        return (value, close);
    }
    let mut out = Vec::new();
    let mut k = j;
    while k < b.len() && b[k] != b')' {
        if b[k] == b'\\' && k + 1 < b.len() {
            k += 1;
        }
        out.push(b[k]);
        k += 1;
    }
    (
        String::from_utf8_lossy(&out).into_owned(),
        (k + 1).min(b.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn got(css: &str) -> Vec<(String, usize, usize, &'static str)> {
        extract_css(css.as_bytes())
            .into_iter()
            .map(|l| (l.value, l.line, l.column, l.attr))
            .collect()
    }

    #[test]
    fn url_and_import_forms() {
        let css = "@import \"base.css\";\n@import url(print.css) print;\n\
                   body { background: URL( 'img/bg.png' ) }\n\
                   .a { src: url(font.woff2) format(\"woff2\"), url(\"x\\\"y.svg\"); }\n";
        assert_eq!(
            got(css),
            [
                ("base.css".into(), 1, 1, "import"),
                ("print.css".into(), 2, 9, "url"),
                ("img/bg.png".into(), 3, 20, "url"),
                ("font.woff2".into(), 4, 11, "url"),
                ("x\"y.svg".into(), 4, 44, "url"),
            ]
        );
    }

    #[test]
    fn comments_strings_and_lookalikes_are_skipped() {
        let css = "/* url(commented.png) */ .a { content: \"url(in-string.png)\"; }\n\
                   .b { background: myurl(no.png); mask: url(); }\n.c{background:url(yes.png)}";
        let values: Vec<String> = got(css).into_iter().map(|l| l.0).collect();
        assert_eq!(values, ["yes.png"]);
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for css in [
            "url(",
            "url('abc",
            "@import",
            "@import '",
            "/* open",
            "url(\\",
        ] {
            let _ = extract_css(css.as_bytes());
        }
    }
}
