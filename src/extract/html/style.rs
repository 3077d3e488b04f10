//! CSS inside HTML: the `url(…)` and `@import` links of `<style>` blocks and `style` attributes,
//! each placed at its own line and column in the HTML file.

use crate::extract::RawLink;
use crate::extract::css::scan_css;

/// [`RawLink::tag`] of every link found in CSS inside HTML.
const TAG: &str = "style";
/// [`RawLink::attr`] of a link of a `style` attribute (a `<style>` block's say `url`/`import`).
const STYLE_ATTR: &str = "style";

/// Appends the links of the text of a `<style>` block to `links`. The text is taken from the
/// HTML source as is (a raw-text element has no character references); `locate` turns a byte
/// offset into the text into the 1-based line and column in the HTML file.
pub(super) fn style_block_links(
    text: &[u8],
    mut locate: impl FnMut(usize) -> (usize, usize),
    links: &mut Vec<RawLink>,
) {
    scan_css(text, |at, value, form| {
        links.push(style_link(value, form, locate(at)));
    });
}

/// Appends the links of a `style` attribute value to `links`. `value` is the decoded value and
/// `raw` the bytes it was written as in the HTML source; `locate` turns a byte offset into `raw`
/// into the 1-based line and column in the HTML file. Each link is placed at its `url(`, unless
/// character references were decoded in the value: offsets in it then do not map to the source,
/// and every link is placed at the value's start.
pub(super) fn style_attribute_links(
    value: &[u8],
    raw: &[u8],
    mut locate: impl FnMut(usize) -> (usize, usize),
    links: &mut Vec<RawLink>,
) {
    // Written as decoded (the usual case): offsets are the same.
    let offsets = if value == raw {
        None
    } else {
        Some(offsets_in_source(value, raw))
    };
    scan_css(value, |at, url, _| {
        let in_raw = match &offsets {
            None => at,
            Some(Some(map)) => map.get(at).copied().unwrap_or(0),
            Some(None) => 0,
        };
        links.push(style_link(url, STYLE_ATTR, locate(in_raw)));
    });
}

/// The offset in `raw` of each byte of `value`, when `value` is `raw` with its line breaks
/// normalized (the tokenizer reads `\r\n` and a lone `\r` as `\n`); `None` when they differ
/// otherwise (a character reference was decoded).
fn offsets_in_source(value: &[u8], raw: &[u8]) -> Option<Vec<usize>> {
    let mut map = Vec::with_capacity(value.len());
    let mut i = 0;
    for &v in value {
        let r = *raw.get(i)?;
        map.push(i);
        if r == v {
            i += 1;
        } else if r == b'\r' && v == b'\n' {
            i += if raw.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
        } else {
            return None;
        }
    }
    (i == raw.len()).then_some(map)
}

fn style_link(value: String, attr: &'static str, at: (usize, usize)) -> RawLink {
    RawLink::plain(value, TAG, attr, at)
}

#[cfg(test)]
mod tests {
    use crate::extract::{RawLink, extract_html};

    fn links(html: &str) -> Vec<RawLink> {
        extract_html(html.as_bytes()).links
    }

    /// (value, tag, attr, line, column) of every link.
    fn got(html: &str) -> Vec<(String, &'static str, &'static str, usize, usize)> {
        links(html)
            .into_iter()
            .map(|l| (l.value, l.tag, l.attr, l.line, l.column))
            .collect()
    }

    /// The source from 1-based (line, column in characters) on; lines end at `\n`.
    fn source_at(html: &str, line: usize, column: usize) -> String {
        let text = html.split('\n').nth(line - 1).unwrap_or_default();
        text.chars().skip(column - 1).collect()
    }

    #[test]
    fn style_block_links_at_their_own_line_and_column() {
        let html = "<html><head>\n<style>\nbody { background: url(/img/bg.png) }\n  \
                    @import \"print.css\";</style><a href=/x>x</a>\n\
                    <style media=print>h1{background:URL( 'é.png' )}</style>";
        assert_eq!(
            got(html),
            [
                ("/img/bg.png".into(), "style", "url", 3, 20),
                ("print.css".into(), "style", "import", 4, 3),
                ("/x".into(), "a", "href", 4, 31),
                ("é.png".into(), "style", "url", 5, 34),
            ]
        );
        for (value, _, attr, line, column) in got(html) {
            let at = source_at(html, line, column).to_ascii_lowercase();
            let written = match attr {
                "url" => "url(",
                "import" => "@import",
                _ => "<a",
            };
            assert!(at.starts_with(written), "{value} at {at}");
        }
    }

    #[test]
    fn style_attribute_links_on_any_element_after_its_other_links() {
        let html = "<p>\n<div class=a style=\"color: red; background: url('/a.png')\">\n\
                    <a style='background:url(/b.png), url(c.png)' href=/link>x</a>\n\
                    <td style=background:url(d.png)></td>";
        assert_eq!(
            got(html),
            [
                ("/a.png".into(), "style", "style", 2, 45),
                ("/link".into(), "a", "href", 3, 1),
                ("/b.png".into(), "style", "style", 3, 22),
                ("c.png".into(), "style", "style", 3, 35),
                ("d.png".into(), "style", "style", 4, 22),
            ]
        );
        for (value, _, _, line, column) in got(html) {
            if value != "/link" {
                assert!(source_at(html, line, column).starts_with("url("), "{value}");
            }
        }
        // The label of the `<a>` is still its text.
        assert_eq!(links(html)[1].name, "x");
    }

    #[test]
    fn a_style_attribute_with_character_references_points_at_its_value() {
        let html = "<div id=x\n style=\"background: url(&quot;/q&amp;r.png&quot;)\">";
        assert_eq!(got(html), [("/q&r.png".into(), "style", "style", 2, 9)]);
    }

    #[test]
    fn a_style_attribute_over_several_lines() {
        let html = "<div style=\"color: red;\r\n  background: url(/crlf.png);\n\
                    mask: url(/lf.png)\">";
        assert_eq!(
            got(html),
            [
                ("/crlf.png".into(), "style", "style", 2, 15),
                ("/lf.png".into(), "style", "style", 3, 7),
            ]
        );
    }

    #[test]
    fn escapes_quotes_and_whitespace_in_url() {
        let html = r#"<style>
a { background: url("a\"b.png") }
b { background: url(c\)d.png) }
c { background: url(  'sp ace.png'  ) }
d { background: url( e.png ) }
e { content: "url(in-a-string.png)" } /* url(in-a-comment.png) */
f { background: url() url('') }
</style>"#;
        let values: Vec<String> = links(html).into_iter().map(|l| l.value).collect();
        assert_eq!(values, ["a\"b.png", "c)d.png", "sp ace.png", "e.png"]);
    }

    #[test]
    fn data_urls_are_one_link_and_do_not_hide_the_next() {
        // The filter ignores `data:` links, as it does for `<img src="data:…">`.
        let html = "<style>.i{background:url(\"data:image/svg+xml;utf8,<svg xmlns='x'>(</svg>\")}\
                    .j{background:url(/after.png)}</style>\
                    <i style=\"background:url(data:image/png;base64,iVBORw0KGgo=)\"></i>";
        let values: Vec<String> = links(html).into_iter().map(|l| l.value).collect();
        assert_eq!(
            values,
            [
                "data:image/svg+xml;utf8,<svg xmlns='x'>(</svg>",
                "/after.png",
                "data:image/png;base64,iVBORw0KGgo="
            ]
        );
    }

    #[test]
    fn css_outside_style_is_not_read() {
        let html = "<p>background: url(/text.png)</p><script>x='url(/script.png)'</script>\
                    <title>url(/title.png)</title><div data-style='url(/data.png)'>\
                    <style>/* </style> ends here */</style><p>url(/after.png)";
        assert_eq!(links(html), []);
    }

    #[test]
    fn an_unclosed_style_runs_to_the_end() {
        let html = "<style>\n a { background: url(/eof.png";
        assert_eq!(got(html), [("/eof.png".into(), "style", "url", 2, 18)]);
    }

    #[test]
    fn broken_css_never_panics_and_positions_stay_on_the_link() {
        let html = "<style>@import 'a.css';\r\nb{background:url(\"b\\\").png\")}/* c\n</style>\
                    <p style=\"background:url('d.png'\">é<style>e{f:url(g</style>\
                    <div style=\"url(\"><style>@import</style><b style='url('>";
        // Every prefix, cut at any byte: the CSS is truncated everywhere a scan could stop.
        for end in 0..=html.len() {
            let cut = &html.as_bytes()[..end];
            let doc = extract_html(cut);
            for link in doc.links.iter().filter(|l| l.tag == "style") {
                assert!(!link.value.is_empty());
                assert!(link.line >= 1 && link.column >= 1);
            }
        }
        let full = got(html);
        assert_eq!(full.len(), 4, "{full:?}");
        assert_eq!(full[0], ("a.css".into(), "style", "import", 1, 8));
        assert_eq!(full[1], ("b\").png".into(), "style", "url", 2, 14));
    }
}
