//! Plain text (a URL list, a README.txt): every `http://` and `https://` URL in it, with its
//! 1-based line and column. A URL ends at whitespace, a quote or angle bracket; trailing
//! sentence punctuation is not part of it, nor is a closing parenthesis without an opening
//! one. Pure.

use super::RawLink;
use super::line_col::{Convention, LineCounter};

/// The URLs written in a text, in order.
pub fn extract_text_urls(body: &[u8]) -> Vec<RawLink> {
    let text = String::from_utf8_lossy(body);
    let mut lines = LineCounter::new(text.as_bytes(), Convention::Plain);
    let mut links = Vec::new();
    let mut line_start = 0;
    // Each line keeps its `\n` (or `\r\n`): whitespace, so it ends a URL and is never in one.
    for line in text.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let lower = line.to_ascii_lowercase();
        let mut from = 0;
        while let Some(pos) = next_scheme(&lower, from) {
            let rest = &line[pos..];
            let end = rest
                .find(|c: char| c.is_whitespace() || "<>\"'`".contains(c))
                .unwrap_or(rest.len());
            let url = trim_trailing(&rest[..end]);
            from = pos + end.max(1);
            if url.len() <= "https://".len() {
                continue;
            }
            let at = lines.locate(start + pos);
            links.push(RawLink::plain(url.to_owned(), "text", "text", at));
        }
    }
    links
}

/// Where the next `http://` or `https://` starts at or after `from` (in a lower-cased line).
fn next_scheme(lower: &str, from: usize) -> Option<usize> {
    let hay = lower.get(from..)?;
    [hay.find("http://"), hay.find("https://")]
        .into_iter()
        .flatten()
        .min()
        .map(|p| p + from)
}

/// Drops trailing punctuation that ends a sentence rather than the URL.
fn trim_trailing(mut url: &str) -> &str {
    loop {
        let Some(last) = url.chars().last() else {
            return url;
        };
        let unbalanced = |open: char, close: char| {
            last == close && url.matches(open).count() < url.matches(close).count()
        };
        if ".,;:!?".contains(last) || unbalanced('(', ')') || unbalanced('[', ']') {
            url = &url[..url.len() - last.len_utf8()];
        } else {
            return url;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_in_prose_and_lists() {
        let text = "# links\nhttps://ex.test/a\nSee http://ex.test/b, and (https://ex.test/wiki/X_(y)).\n\
                    \u{e9}t\u{e9} <HTTPS://ex.test/c> https:// nothing\n";
        let got: Vec<(String, usize, usize)> = extract_text_urls(text.as_bytes())
            .into_iter()
            .map(|l| (l.value, l.line, l.column))
            .collect();
        assert_eq!(
            got,
            [
                ("https://ex.test/a".into(), 2, 1),
                ("http://ex.test/b".into(), 3, 5),
                ("https://ex.test/wiki/X_(y)".into(), 3, 28),
                ("HTTPS://ex.test/c".into(), 4, 6),
            ]
        );
    }

    #[test]
    fn a_lone_cr_does_not_end_a_line() {
        let text = "a\r\nhttps://ex.test/1 \rhttps://ex.test/2\n";
        let got: Vec<(String, usize, usize)> = extract_text_urls(text.as_bytes())
            .into_iter()
            .map(|l| (l.value, l.line, l.column))
            .collect();
        assert_eq!(
            got,
            [
                ("https://ex.test/1".into(), 2, 1),
                ("https://ex.test/2".into(), 2, 20),
            ]
        );
    }
}
