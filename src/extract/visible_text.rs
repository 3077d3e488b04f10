//! The text a reader sees on an HTML page, for text fragments (`#:~:text=`, checked by the
//! `anchors` plugin): the text of the body, script, style, template, noscript and head
//! contents left out, character references decoded. Each run of whitespace is one space;
//! a block element (a paragraph, a heading, a list item, a table cell, …) starts and ends a
//! line (`\n`), as a text fragment's terms match within one block only. At most
//! [`MAX_VISIBLE_TEXT`] bytes are kept. A Markdown page's text is what it renders to
//! ([`markdown_text`]): its text and code, each block a line, raw HTML left out. Pure.

use html5gum::{DefaultEmitter, Token, Tokenizer};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The most bytes of text kept of one page (its body is capped already: this bounds what a
/// plugin holds on to).
pub const MAX_VISIBLE_TEXT: usize = 4 << 20;

/// The visible text of `html`, at most `budget` bytes (cut at a character boundary).
pub fn visible_text(html: &[u8], budget: usize) -> String {
    let mut emitter = DefaultEmitter::default();
    // `<script>`, `<style>`, `<textarea>`, `<title>` contents are text, not tags.
    emitter.naively_switch_states(true);
    let mut out = Text {
        text: String::new(),
        budget,
        space: false,
    };
    // Inside an element whose text nobody sees, and inside `<head>`.
    let (mut hidden, mut head) = (0usize, false);
    for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
        match token {
            Token::StartTag(tag) => match tag.name.as_slice() {
                b"script" | b"style" | b"template" | b"noscript" | b"title"
                    if !tag.self_closing =>
                {
                    hidden += 1;
                }
                b"head" => head = true,
                b"body" => head = false,
                name if is_block(name) => out.block(),
                b"br" => out.space = true,
                _ => {}
            },
            Token::EndTag(tag) => match tag.name.as_slice() {
                b"script" | b"style" | b"template" | b"noscript" | b"title" => {
                    hidden = hidden.saturating_sub(1);
                }
                b"head" => head = false,
                name if is_block(name) => out.block(),
                _ => {}
            },
            Token::String(s) if hidden == 0 && !head => out.push(&String::from_utf8_lossy(&s)),
            _ => {}
        }
        if out.text.len() >= out.budget {
            break;
        }
    }
    out.text.truncate(out.text.trim_end().len());
    out.text
}

/// The text a Markdown page renders to (as GitHub shows it), as [`visible_text`] gives an
/// HTML page's: at most `budget` bytes.
pub fn markdown_text(markdown: &[u8], budget: usize) -> String {
    let source = String::from_utf8_lossy(markdown);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let mut out = Text {
        text: String::new(),
        budget,
        space: false,
    };
    for event in Parser::new_ext(&source, options) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push(&t),
            Event::SoftBreak | Event::HardBreak => out.space = true,
            Event::Start(tag) if is_markdown_block(&tag) => out.block(),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::BlockQuote(_)
                | TagEnd::TableCell
                | TagEnd::FootnoteDefinition,
            ) => out.block(),
            _ => {}
        }
        if out.text.len() >= out.budget {
            break;
        }
    }
    out.text.truncate(out.text.trim_end().len());
    out.text
}

/// Markdown blocks (a term of a text fragment never spans two).
fn is_markdown_block(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Paragraph
            | Tag::Heading { .. }
            | Tag::Item
            | Tag::CodeBlock(_)
            | Tag::BlockQuote(_)
            | Tag::TableCell
            | Tag::FootnoteDefinition(_)
    )
}

/// The text so far: `space` when whitespace was read since its last character.
struct Text {
    text: String,
    budget: usize,
    space: bool,
}

impl Text {
    /// A block starts or ends: a new line, unless the text is empty or on a new line.
    fn block(&mut self) {
        self.space = false;
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
    }

    fn push(&mut self, s: &str) {
        for c in s.chars() {
            if c.is_whitespace() {
                self.space = true;
                continue;
            }
            if self.space && !self.text.is_empty() && !self.text.ends_with('\n') {
                self.text.push(' ');
            }
            self.space = false;
            if self.text.len() + c.len_utf8() > self.budget {
                self.budget = self.text.len();
                return;
            }
            self.text.push(c);
        }
    }
}

/// Elements a browser shows as blocks (a text fragment's term never spans two).
fn is_block(name: &[u8]) -> bool {
    matches!(
        name,
        b"address"
            | b"article"
            | b"aside"
            | b"blockquote"
            | b"body"
            | b"caption"
            | b"dd"
            | b"details"
            | b"dialog"
            | b"div"
            | b"dl"
            | b"dt"
            | b"fieldset"
            | b"figcaption"
            | b"figure"
            | b"footer"
            | b"form"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"header"
            | b"hr"
            | b"html"
            | b"legend"
            | b"li"
            | b"main"
            | b"nav"
            | b"ol"
            | b"p"
            | b"pre"
            | b"section"
            | b"summary"
            | b"table"
            | b"tbody"
            | b"td"
            | b"tfoot"
            | b"th"
            | b"thead"
            | b"tr"
            | b"ul"
    )
}

#[cfg(test)]
mod tests {
    use super::visible_text;

    #[test]
    fn blocks_are_lines_and_whitespace_one_space() {
        let html = "<html><head><title>T</title><style>p{}</style></head><body>\n\
                    <h1>The  <em>big</em>\n title</h1><p>One&nbsp;para&amp;graph.<br>Next\
                    <script>var x = 'no';</script> words</p><ul><li>a</li><li> b </li></ul>\
                    <noscript>no</noscript>tail</body></html>";
        assert_eq!(
            visible_text(html.as_bytes(), 1000),
            "The big title\nOne para&graph. Next words\na\nb\ntail"
        );
    }

    #[test]
    fn markdown_renders_to_its_text() {
        let md = "# The *big* title\n\nOne `code`\nline, [a link](x.md).\n\n- a\n- b\n\n\
                  <div>raw</div>\n\n| x | y |\n|---|---|\n| 1 | 2 |\n";
        assert_eq!(
            super::markdown_text(md.as_bytes(), 1000),
            "The big title\nOne code line, a link.\na\nb\nx\ny\n1\n2"
        );
    }

    #[test]
    fn the_budget_cuts_at_a_character() {
        let text = visible_text("<p>ééé ab</p>".as_bytes(), 5);
        assert_eq!(text, "éé");
        assert_eq!(visible_text(b"", 10), "");
        assert_eq!(visible_text(b"<p>\xff</p>", 10), "\u{fffd}");
    }
}
