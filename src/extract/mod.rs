//! Link extraction: turn the bytes of a fetched document into the links written in it.
//!
//! Extraction is pure. It does no I/O, prints nothing and resolves no URLs: every value is
//! returned as written in the document (character references decoded, surrounding ASCII
//! whitespace trimmed), and the caller resolves it against the document URL or
//! [`HtmlDocument::base`] once the whole document has been read.

mod autolink;
pub(crate) mod charset;
mod css;
pub(crate) mod format;
mod gzip;
mod html;
mod line_col;
pub(crate) mod login_form;
mod markdown;
mod markdown_anchors;
mod markdown_refs;
mod office;
mod ooxml_part;
pub(crate) mod page_text;
mod pdf;
mod pdf_load;
mod sitemap;
pub(crate) mod sniff;
mod text;
mod visible_text;
mod wikilink;

#[cfg(test)]
mod tests;

pub use css::extract_css;
pub use gzip::{gunzip_capped, is_gzip};
pub use html::{extract_html, extract_html_batched};
pub use markdown::{extract_markdown, extract_markdown_with};
pub use markdown_anchors::markdown_anchors;
pub use office::{OfficeLinks, OfficeTrouble, extract_office};
pub use pdf::extract_pdf;
pub use sitemap::{extract_sitemap, is_sitemap};
pub use text::extract_text_urls;
pub use visible_text::{MAX_VISIBLE_TEXT, markdown_text, visible_text};

/// One link as written in a document, with where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RawLink {
    /// The attribute value: character references decoded, surrounding ASCII whitespace trimmed,
    /// invalid UTF-8 replaced by U+FFFD. May be empty (`href=""` or a bare `href`).
    pub value: String,
    /// Lower-case element name (`"a"`, `"img"`, `"meta"`, ...); static, so a page of 200,000
    /// links does not allocate 200,000 copies of `"a"`.
    pub tag: &'static str,
    /// The attribute the value came from: `"href"`, `"src"`, `"srcset"`, `"data"`, `"action"`,
    /// `"formaction"`, `"poster"`, `"cite"`, or `"content"` for a `<meta http-equiv=refresh>`.
    pub attr: &'static str,
    /// 1-based line of the `<` that opens the element's start tag (in HTML), or of where the
    /// link starts in other formats: its `url(` or `@import` in CSS, its `<loc>` in a sitemap,
    /// the link or image in Markdown, the URL in plain text. `\n` and `\r\n` end a line, and so
    /// does a lone `\r` in HTML (not in the other formats).
    pub line: usize,
    /// 1-based column of that position, counted in characters (UTF-8 code points), as
    /// LinkChecker reports it.
    pub column: usize,
    /// Human label. For `<a>`: its text content (plus the `alt` of images inside it), whitespace
    /// collapsed to single spaces, trimmed and capped at 256 characters. Otherwise, or when that
    /// text is empty, the element's `alt` attribute, else its `title` attribute, else empty.
    pub name: String,
    /// The element's `rel` attribute contains the token `nofollow` (ASCII case-insensitive).
    pub nofollow: bool,
    /// The value as written had leading or trailing whitespace (removed in `value`):
    /// LinkChecker's `url-whitespace` warning.
    pub padded: bool,
    /// The author asked for the link not to be checked: it is the first link after a
    /// `<!-- linkpatrol-ignore -->` comment, or it lies between `<!-- linkpatrol-ignore-start -->`
    /// and `<!-- linkpatrol-ignore-end -->` (HTML and Markdown).
    pub ignored: bool,
    /// Markdown: a full or collapsed reference (`[text][label]`, `[label][]`) whose label no
    /// definition (`[label]: URL`) names. It renders as literal text, so it is a broken link;
    /// `value` is the label in brackets, as written (`[label]`). A shortcut `[label]` alone is
    /// prose and never one.
    pub undefined_label: bool,
    /// Markdown read with wikilinks: an Obsidian wikilink (`[[Page#Heading|text]]`), `value`
    /// the relative link it stands for (`Page.md#heading`). The engine looks such a file up
    /// by its name in the checked folders, as Obsidian does, before it reads `value` as a
    /// link of the page.
    pub wikilink: bool,
}

/// What an HTML comment asks of the links after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IgnoreMark {
    /// `linkpatrol-ignore`: the next link.
    Next,
    /// `linkpatrol-ignore-start`: every link up to the end mark.
    Start,
    /// `linkpatrol-ignore-end`.
    End,
}

impl IgnoreMark {
    /// The mark a comment's text (between `<!--` and `-->`) holds, if it is one.
    pub(crate) fn of(comment: &[u8]) -> Option<IgnoreMark> {
        match comment.trim_ascii() {
            b"linkpatrol-ignore" => Some(IgnoreMark::Next),
            b"linkpatrol-ignore-start" => Some(IgnoreMark::Start),
            b"linkpatrol-ignore-end" => Some(IgnoreMark::End),
            _ => None,
        }
    }
}

/// Applies the ignore marks to links as they are found.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IgnoreState {
    next: bool,
    region: bool,
}

impl IgnoreState {
    /// A comment was read.
    pub(crate) fn comment(&mut self, text: &[u8]) {
        match IgnoreMark::of(text) {
            Some(IgnoreMark::Next) => self.next = true,
            Some(IgnoreMark::Start) => self.region = true,
            Some(IgnoreMark::End) => self.region = false,
            None => {}
        }
    }

    /// Marks `links`, the links of one element (or one Markdown link), as ignored when asked.
    pub(crate) fn apply(&mut self, links: &mut [RawLink]) {
        if links.is_empty() {
            return;
        }
        if self.next || self.region {
            for l in links {
                l.ignored = true;
            }
        }
        self.next = false;
    }
}

/// A link's label from a document's own text (a PDF annotation's, an Office link's): as an
/// `<a>`'s text becomes [`RawLink::name`], whitespace collapsed, trimmed, at most 256 characters.
pub(crate) fn label(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(256)
        .collect()
}

impl RawLink {
    /// A link found outside HTML markup (CSS, Markdown, sitemaps, plain text): no label, no
    /// `rel`, nothing trimmed.
    pub(crate) fn plain(
        value: String,
        tag: &'static str,
        attr: &'static str,
        at: (usize, usize),
    ) -> Self {
        RawLink {
            value,
            tag,
            attr,
            line: at.0,
            column: at.1,
            name: String::new(),
            ignored: false,
            nofollow: false,
            padded: false,
            undefined_label: false,
            wikilink: false,
        }
    }
}

/// Everything the crawler needs from one HTML document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HtmlDocument {
    /// The links, in document order. Within one element, in attribute order; the candidates of
    /// one `srcset` in the order written.
    pub links: Vec<RawLink>,
    /// The `href` of the first `<base href>` in the document (trimmed, not resolved). It applies
    /// to every link, including those written before it.
    pub base: Option<String>,
    /// Every non-empty `id` attribute value and every non-empty `<a name>` value, exactly as
    /// written (not trimmed), for checking fragments later. Empty when
    /// [`extract_html_batched`] was asked not to collect them (no plugin reads anchors).
    pub anchors: Vec<String>,
    /// The document has `<meta name="robots">` whose content contains `nofollow` or `none`
    /// (ASCII case-insensitive).
    pub nofollow: bool,
}
