//! Markdown (CommonMark with tables and footnotes, via pulldown-cmark): the destination of every
//! link and image — inline, reference, autolink and e-mail autolink — GitHub's autolink
//! literals in the text (a bare `https://…`, a `www.` address, an e-mail address; see
//! `autolink.rs`), and the links of raw HTML inside the document, each with the 1-based line
//! and column where it starts; a reference whose label is defined nowhere is marked
//! (`markdown_refs.rs`). Code (spans and blocks) holds no links, unless `verbatim`: then its
//! autolink literals count too. Pure.

use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use super::autolink::autolinks;
use super::line_col::{Convention, LineCounter};
use super::markdown_refs::{is_undefined, is_unknown, keep_as_link};
use super::wikilink::wikilink_value;
use super::{IgnoreMark, IgnoreState, RawLink, extract_html};

/// The most characters kept of a link's text.
const MAX_NAME: usize = 256;

/// The links and images of a Markdown document, in document order.
pub fn extract_markdown(body: &[u8]) -> Vec<RawLink> {
    extract_markdown_with(body, false, false)
}

/// The links and images of a Markdown document, in document order; with `verbatim`, the
/// autolink literals of its code spans and blocks too; with `wikilinks`, Obsidian's
/// wikilinks (`[[Page#Heading|text]]`, `![[image.png]]`; see [`RawLink::wikilink`]).
pub fn extract_markdown_with(body: &[u8], verbatim: bool, wikilinks: bool) -> Vec<RawLink> {
    let text = String::from_utf8_lossy(body);
    let mut options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    if wikilinks {
        options |= Options::ENABLE_WIKILINKS;
    }
    // Each undefined reference is made a link so its place reaches the events. One inside a
    // link's text is literal text (CommonMark allows no link in a link), and making it a link
    // would unmake the outer one: when there is such a reference, the document is read again
    // with it left as text. A document without one is read once.
    let (first, converted) = read(&text, options, verbatim, &|_| false);
    if !converted.iter().any(|span| may_be_in_a_link(&text, span)) {
        return first;
    }
    let links: Vec<Range<usize>> = Parser::new_ext(&text, options)
        .into_offset_iter()
        .filter_map(|(e, r)| matches!(e, Event::Start(Tag::Link { .. })).then_some(r))
        .collect();
    let in_a_link = |span: &Range<usize>| {
        links
            .iter()
            .any(|l| l.start <= span.start && span.end <= l.end)
    };
    if !converted.iter().any(in_a_link) {
        return first;
    }
    read(&text, options, verbatim, &in_a_link).0
}

/// The links of `text`, with the spans of the undefined references made links (all but those
/// `as_text` leaves as text).
fn read(
    text: &str,
    options: Options,
    verbatim: bool,
    as_text: &dyn Fn(&Range<usize>) -> bool,
) -> (Vec<RawLink>, Vec<Range<usize>>) {
    let converted = std::cell::RefCell::new(Vec::new());
    let parser = Parser::new_with_broken_link_callback(
        text,
        options,
        Some(|broken: pulldown_cmark::BrokenLink<'_>| {
            if as_text(&broken.span) {
                return None;
            }
            keep_as_link(&broken).inspect(|_| converted.borrow_mut().push(broken.span))
        }),
    );
    let links = collect(text, verbatim, parser.into_offset_iter());
    (links, converted.into_inner())
}

/// `true` when an unclosed `[` comes before `span` in its paragraph: only then can the
/// reference at `span` be inside a link's text (escapes are not looked at, which can only say
/// `true` for nothing, and costs one more parse).
fn may_be_in_a_link(text: &str, span: &Range<usize>) -> bool {
    let before = &text[..span.start.min(text.len())];
    let paragraph = before.rfind("\n\n").map_or(0, |i| i + 2);
    let mut depth = 0usize;
    for b in before[paragraph..].bytes().rev() {
        match b {
            b']' => depth += 1,
            b'[' if depth == 0 => return true,
            b'[' => depth -= 1,
            _ => {}
        }
    }
    false
}

/// The links of `text`, read from the `events` of its parse.
fn collect<'a>(
    text: &'a str,
    verbatim: bool,
    events: impl Iterator<Item = (Event<'a>, Range<usize>)>,
) -> Vec<RawLink> {
    // Event offsets follow the document, so the counter moves forward (and starts over, still
    // right, should one ever go back).
    let mut lines = LineCounter::new(text.as_bytes(), Convention::Plain);
    let mut links: Vec<RawLink> = Vec::new();
    // Index in `links` of the link whose text is being collected.
    let mut open: Option<usize> = None;
    // The title of the open link.
    let mut titles: Vec<String> = Vec::new();
    // Inside an image (its alt text) or a code block, and the run of plain text not yet
    // scanned for autolink literals (its source bytes).
    let mut images = 0usize;
    let mut code_block = false;
    let mut run: Option<Range<usize>> = None;
    // The `linkpatrol-ignore` comments read so far, and the links they were applied to.
    let mut ignore = IgnoreState::default();
    let mut applied = 0;
    for (event, range) in events {
        let literal_text = matches!(event, Event::Text(_))
            && open.is_none()
            && images == 0
            && (!code_block || verbatim);
        if literal_text {
            run = Some(match run {
                Some(r) if r.end == range.start => r.start..range.end,
                Some(r) => {
                    literals(text, r, &mut lines, &mut links);
                    range.clone()
                }
                None => range.clone(),
            });
        } else if let Some(r) = run.take() {
            literals(text, r, &mut lines, &mut links);
        }
        // Each Markdown link is one link for `linkpatrol-ignore`.
        for i in applied..links.len() {
            ignore.apply(&mut links[i..=i]);
        }
        applied = links.len();
        match event {
            Event::Start(Tag::CodeBlock(_)) => code_block = true,
            Event::End(TagEnd::CodeBlock) => code_block = false,
            Event::End(TagEnd::Image) => images = images.saturating_sub(1),
            Event::Code(ref code) if verbatim && open.is_none() && images == 0 => {
                // The code without its backticks, where it stands in the span.
                let at = text
                    .get(range.clone())
                    .and_then(|span| span.find(code.as_ref()))
                    .map_or(range.start, |i| range.start + i);
                literals(text, at..at + code.len(), &mut lines, &mut links);
            }
            _ => {}
        }
        match event {
            // A reference to a label defined nowhere: reported, or (after a word) prose.
            Event::Start(Tag::Link { link_type, id, .. })
                if is_undefined(link_type, &id, text, range.start) =>
            {
                open = Some(links.len());
                titles.push(String::new());
                links.push(undefined(lines.locate(range.start), &id, "a", "href"));
            }
            Event::Start(Tag::Link { link_type, .. }) if is_unknown(link_type) => {}
            Event::Start(Tag::Image { link_type, id, .. }) if is_unknown(link_type) => {
                images += 1;
                if is_undefined(link_type, &id, text, range.start) {
                    links.push(undefined(lines.locate(range.start), &id, "img", "src"));
                }
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            }) => {
                let wiki = matches!(link_type, LinkType::WikiLink { .. });
                let value = if link_type == LinkType::Email {
                    format!("mailto:{dest_url}")
                } else if wiki {
                    wikilink_value(&dest_url)
                } else {
                    dest_url.trim().to_owned()
                };
                open = Some(links.len());
                titles.push(title.to_string());
                let mut l = link(lines.locate(range.start), value, "a", "href", "");
                l.wikilink = wiki;
                links.push(l);
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                ..
            }) => {
                images += 1;
                let wiki = matches!(link_type, LinkType::WikiLink { .. });
                let value = if wiki {
                    wikilink_value(&dest_url)
                } else {
                    dest_url.trim().to_owned()
                };
                let mut l = link(lines.locate(range.start), value, "img", "src", &title);
                l.wikilink = wiki;
                links.push(l);
            }
            Event::End(TagEnd::Link) => {
                if let Some(i) = open.take() {
                    let name = links[i]
                        .name
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                    let title = titles.pop().unwrap_or_default();
                    // The link text, else its title (as the HTML extractor does).
                    let name = if name.is_empty() { title } else { name };
                    links[i].name = name.chars().take(MAX_NAME).collect();
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(i) = open
                    && links[i].name.chars().count() < MAX_NAME
                {
                    links[i].name.push_str(&t);
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                let (line, column) = lines.locate(range.start);
                for mut l in extract_html(html.as_bytes()).links {
                    if l.line == 1 {
                        l.column += column - 1;
                    }
                    l.line += line - 1;
                    links.push(l);
                }
                // The HTML marked its own links; the marks before it apply to them too, and
                // its marks to what follows.
                ignore.apply(&mut links[applied..]);
                applied = links.len();
                html_marks(html.as_bytes(), &mut ignore);
            }
            _ => {}
        }
        for i in applied..links.len() {
            ignore.apply(&mut links[i..=i]);
        }
        applied = links.len();
    }
    if let Some(r) = run {
        literals(text, r, &mut lines, &mut links);
    }
    for i in applied..links.len() {
        ignore.apply(&mut links[i..=i]);
    }
    links
}

/// Reads the `linkpatrol-ignore` comments of a piece of raw HTML into `ignore`, in order. A
/// `linkpatrol-ignore` followed by a link in the same piece was used up there.
fn html_marks(html: &[u8], ignore: &mut IgnoreState) {
    let mut rest = html;
    while let Some(open) = find(rest, b"<!--") {
        let body = &rest[open + 4..];
        let Some(close) = find(body, b"-->") else {
            return;
        };
        ignore.comment(&body[..close]);
        rest = &body[close + 3..];
        if IgnoreMark::of(&body[..close]) == Some(IgnoreMark::Next)
            && !extract_html(rest).links.is_empty()
        {
            ignore.apply(&mut [RawLink::plain(String::new(), "a", "href", (1, 1))]);
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Adds the autolink literals of the document's bytes `range` (plain text, as written).
fn literals(
    text: &str,
    range: Range<usize>,
    lines: &mut LineCounter<'_>,
    links: &mut Vec<RawLink>,
) {
    let Some(source) = text.get(range.clone()) else {
        return;
    };
    for found in autolinks(source) {
        let at = lines.locate(range.start + found.start);
        links.push(RawLink {
            name: found.text,
            ..RawLink::plain(found.url, "a", "href", at)
        });
    }
}

/// The undefined reference `[label]` (see `markdown_refs.rs`).
fn undefined(at: (usize, usize), label: &str, tag: &'static str, attr: &'static str) -> RawLink {
    RawLink {
        undefined_label: true,
        ..RawLink::plain(format!("[{label}]"), tag, attr, at)
    }
}

fn link(
    at: (usize, usize),
    value: String,
    tag: &'static str,
    attr: &'static str,
    title: &str,
) -> RawLink {
    RawLink {
        name: title.to_owned(),
        ..RawLink::plain(value, tag, attr, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn got(md: &str) -> Vec<(String, usize, usize, String)> {
        extract_markdown(md.as_bytes())
            .into_iter()
            .map(|l| (l.value, l.line, l.column, l.name))
            .collect()
    }

    #[test]
    fn inline_reference_auto_and_images() {
        let md = "# Title\n\nSee [the *docs*](docs/a.md \"t\") and ![logo](img/logo.png).\n\n\
                  Ref [here][r], <https://ex.test/auto> and <me@ex.test>.\n\n[r]: /ref/\n";
        assert_eq!(
            got(md),
            [
                ("docs/a.md".into(), 3, 5, "the docs".into()),
                ("img/logo.png".into(), 3, 37, "".into()),
                ("/ref/".into(), 5, 5, "here".into()),
                (
                    "https://ex.test/auto".into(),
                    5,
                    16,
                    "https://ex.test/auto".into()
                ),
                ("mailto:me@ex.test".into(), 5, 43, "me@ex.test".into()),
            ]
        );
    }

    #[test]
    fn code_is_not_a_link_and_html_inside_counts() {
        let md = "`[x](nope.md)`\n\n    [y](indented.md)\n\n<div>\n<a href=\"raw.html\">r</a>\n</div>\n\n| a | b |\n|---|---|\n| [t](table.md) | x |\n";
        let links = got(md);
        let values: Vec<&str> = links.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(values, ["raw.html", "table.md"]);
        assert_eq!((links[0].1, links[0].2), (6, 1));
        assert_eq!((links[1].1, links[1].2), (11, 3));
    }

    #[test]
    fn autolink_literals_in_text_but_not_in_code_links_or_alt_text() {
        let md = "See https://ex.test/a. And www.ex.test/b, me@ex.test!\n\n\
                  `https://ex.test/code` [https://ex.test/text](y.md) ![www.ex.test/alt](i.png)\n\n\
                  ```\nhttps://ex.test/block\n```\n\n*https://ex.test/em*\n";
        let links = got(md);
        let values: Vec<(&str, usize, usize)> =
            links.iter().map(|l| (l.0.as_str(), l.1, l.2)).collect();
        assert_eq!(
            values,
            [
                ("https://ex.test/a", 1, 5),
                ("http://www.ex.test/b", 1, 28),
                ("mailto:me@ex.test", 1, 43),
                ("y.md", 3, 24),
                ("i.png", 3, 53),
                ("https://ex.test/em", 9, 2),
            ]
        );
        assert_eq!(links[1].3, "www.ex.test/b");
        let verbatim: Vec<String> = extract_markdown_with(md.as_bytes(), true, false)
            .into_iter()
            .map(|l| l.value)
            .collect();
        assert!(
            verbatim.contains(&"https://ex.test/code".to_owned()),
            "{verbatim:?}"
        );
        assert!(
            verbatim.contains(&"https://ex.test/block".to_owned()),
            "{verbatim:?}"
        );
    }

    #[test]
    fn garbage_does_not_panic() {
        assert!(extract_markdown(b"\xff\xfe[a](").is_empty());
        assert!(extract_markdown(b"").is_empty());
    }
}
