//! The words a reader sees on an HTML page, for telling whether two pages say the same thing
//! (`--detect-soft-404`): the words of its `<title>` and of the rest of the document (script,
//! style and template content left out), lower case. A word is a run of letters and digits.
//! Pure.
//!
//! Two pages of one site say the same thing ([`same_page`]) when, once the words of each
//! page's own URL are left out of both (a "not found" page echoes the path it was asked
//! for: "No page /docs/setup here"), their titles have the same words and their texts
//! either have the same words in the same order or share at least [`SAME_WORDS`] of their
//! distinct words (a date or a request id that differs). A site whose pages share a title
//! (its name) still differs in the text; a page without text (an app's shell that scripts
//! fill in) is never said to be the same as anything.

use std::collections::HashSet;

use html5gum::{DefaultEmitter, Token, Tokenizer};
use url::Url;

/// The share of distinct words two texts must have in common (of all the distinct words in
/// either) to be the same page, when they are not word for word the same.
pub(crate) const SAME_WORDS: f64 = 0.9;

/// Words read from a page at most (bodies are capped already; this bounds the comparison).
const MAX_WORDS: usize = 20_000;

/// The words of a page's title and of its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PageText {
    /// The words of the first `<title>`.
    pub(crate) title: Vec<String>,
    /// The words of everything else that is text, in order.
    pub(crate) words: Vec<String>,
}

/// The title and text words of `html`.
pub(crate) fn page_text(html: &[u8]) -> PageText {
    let mut emitter = DefaultEmitter::default();
    // `<script>`, `<style>`, `<textarea>`, `<title>` contents are text, not tags.
    emitter.naively_switch_states(true);
    let mut text = PageText::default();
    // Inside `<title>` (the first only), or inside an element whose text nobody reads.
    let (mut in_title, mut titled, mut hidden) = (false, false, 0usize);
    for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
        match token {
            Token::StartTag(tag) => match tag.name.as_slice() {
                b"title" if !titled => in_title = true,
                b"script" | b"style" | b"template" | b"noscript" if !tag.self_closing => {
                    hidden += 1;
                }
                _ => {}
            },
            Token::EndTag(tag) => match tag.name.as_slice() {
                b"title" if in_title => {
                    in_title = false;
                    titled = true;
                }
                b"script" | b"style" | b"template" | b"noscript" => {
                    hidden = hidden.saturating_sub(1);
                }
                _ => {}
            },
            Token::String(s) if in_title => add_words(&mut text.title, &s),
            Token::String(s) if hidden == 0 => add_words(&mut text.words, &s),
            _ => {}
        }
        if text.words.len() >= MAX_WORDS {
            break;
        }
    }
    text
}

/// Appends the words of `bytes` (read as UTF-8, lower case) to `out`.
pub(crate) fn add_words(out: &mut Vec<String>, bytes: &[u8]) {
    let s = String::from_utf8_lossy(bytes);
    out.extend(
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase),
    );
}

/// The words of `url` that a page may echo: its host, port, path segments and query,
/// percent-decoded.
fn url_words(url: &Url) -> HashSet<String> {
    let mut words = Vec::new();
    add_words(&mut words, url.host_str().unwrap_or("").as_bytes());
    if let Some(port) = url.port() {
        words.push(port.to_string());
    }
    add_words(&mut words, &percent_decoded(url.path()));
    if let Some(q) = url.query() {
        add_words(&mut words, &percent_decoded(q));
    }
    words.into_iter().collect()
}

fn percent_decoded(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |j: usize| b.get(j).and_then(|c| (*c as char).to_digit(16));
        match (b[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `true` when `page` (at `page_url`) says what `probe` (at `probe_url`) says: the rule in
/// the module doc.
pub(crate) fn same_page(
    page: &PageText,
    page_url: &Url,
    probe: &PageText,
    probe_url: &Url,
) -> bool {
    let mut echoed = url_words(page_url);
    echoed.extend(url_words(probe_url));
    let kept = |words: &[String]| -> Vec<String> {
        words
            .iter()
            .filter(|w| !echoed.contains(*w))
            .cloned()
            .collect()
    };
    if kept(&page.title) != kept(&probe.title) {
        return false;
    }
    let (a, b) = (kept(&page.words), kept(&probe.words));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a == b {
        return true;
    }
    let a: HashSet<&String> = a.iter().collect();
    let b: HashSet<&String> = b.iter().collect();
    let common = a.intersection(&b).count() as f64;
    let all = a.union(&b).count() as f64;
    common / all >= SAME_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    const NOT_FOUND: &str = "<title>Oops - Example</title><h1>Page not found</h1>\
        <p>Sorry, there is nothing at PATH on our site. Try the search, or go back to the \
        home page; our team has been told about the broken link.</p>";

    fn not_found(path: &str) -> PageText {
        page_text(NOT_FOUND.replace("PATH", path).as_bytes())
    }

    #[test]
    fn a_not_found_page_echoing_its_path_is_the_probes_page() {
        let probe_url = url("http://h.test/lp-probe-0123abcd");
        let probe = not_found("/lp-probe-0123abcd");
        let page_url = url("http://h.test/docs/old-setup%20guide?v=2");
        let page = not_found("/docs/old-setup guide?v=2");
        assert!(same_page(&page, &page_url, &probe, &probe_url));
    }

    #[test]
    fn real_pages_sharing_the_title_are_not() {
        let probe_url = url("http://h.test/lp-probe-0123abcd");
        let probe = not_found("/lp-probe-0123abcd");
        let real = page_text(
            b"<title>Oops - Example</title><h1>Setup</h1><p>Install the tool, then run it \
              on your site; the broken link report lists every page.</p>",
        );
        assert!(!same_page(
            &real,
            &url("http://h.test/setup"),
            &probe,
            &probe_url
        ));
        // Same text, another title: not the same page either.
        let retitled = page_text(
            NOT_FOUND
                .replace("Oops", "Setup")
                .replace("PATH", "/setup")
                .as_bytes(),
        );
        assert!(!same_page(
            &retitled,
            &url("http://h.test/setup"),
            &probe,
            &probe_url
        ));
    }

    #[test]
    fn pages_without_text_are_never_the_same() {
        let shell = page_text(b"<title>App</title><div id=root></div><script>boot()</script>");
        let a = url("http://h.test/a");
        let b = url("http://h.test/probe");
        assert!(!same_page(&shell, &a, &shell, &b));
    }

    #[test]
    fn a_detail_that_differs_is_still_the_same_page() {
        let long: String = (0..40).map(|i| format!("word{i} ")).collect();
        let probe = page_text(format!("<title>404</title><p>{long} id 1111</p>").as_bytes());
        let page = page_text(format!("<title>404</title><p>{long} id 2222</p>").as_bytes());
        let (a, b) = (url("http://h.test/a"), url("http://h.test/b"));
        assert!(same_page(&page, &a, &probe, &b));
    }

    #[test]
    fn title_and_visible_words_only() {
        let t = page_text(
            b"<html><head><title>Not Found &ndash; Site</title><style>p{color:red}</style>\
              <script>var x = '<p>hidden</p>';</script></head><body><h1>Page not found</h1>\
              <p>We looked for <code>/docs/x-y</code>.</p><title>second</title></body></html>",
        );
        assert_eq!(t.title, ["not", "found", "site"]);
        assert_eq!(
            t.words,
            [
                "page", "not", "found", "we", "looked", "for", "docs", "x", "y", "second"
            ]
        );
    }

    #[test]
    fn anything_is_read_without_panic() {
        for bad in [
            &b""[..],
            b"<title>",
            b"</script></title>\xff\xfe<",
            b"<<<>>>&&;",
        ] {
            let _ = page_text(bad);
        }
    }
}
