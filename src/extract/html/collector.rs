//! The collector: what the HTML extraction keeps of each start tag, attribute and run of text
//! the tokenizer reports, and what it makes of them at the tag's end (links, the base URL,
//! anchors, the robots flag).

use std::borrow::Cow;

use html5gum::{Span, State};

use super::emitter::TagSink;
use super::refresh::refresh_url;
use super::srcset::srcset_urls;
use super::style::{style_attribute_links, style_block_links};
use super::tags::{Attr, Tag, link_attr, next_state};
use super::{Batches, settled_after};
use crate::extract::autolink::autolinks;
use crate::extract::line_col::{Convention, LineCounter};
use crate::extract::{HtmlDocument, IgnoreState, RawLink};

/// Cap, in characters, of [`RawLink::name`].
pub(super) const MAX_NAME_CHARS: usize = 256;

/// One buffered attribute of the current start tag; its value is `values[start..end]`.
#[derive(Debug, Clone, Copy)]
struct AttrSlot {
    attr: Attr,
    start: usize,
    end: usize,
}

/// Receives the tokenizer's tags, attributes and text (as a [`TagSink`]) and builds the
/// [`HtmlDocument`].
pub(super) struct Collector<'a, 's> {
    doc: HtmlDocument,
    /// The document's bytes.
    src: &'a [u8],
    lines: LineCounter<'a>,
    /// Collect `id`s and `<a name>`s into `doc.anchors`.
    want_anchors: bool,
    /// Set for a batched extraction: `doc.links` is handed over in batches.
    batches: Option<Batches<'s>>,

    /// Inside a start tag (between `start_tag` and `close_start_tag`). Attributes outside of
    /// one are ignored.
    in_start_tag: bool,
    tag: Tag,
    /// Byte offset of the current start tag's `<`.
    tag_start: usize,
    /// The state to switch to once the current start tag closes.
    tag_next_state: Option<State>,
    /// Interesting attributes of the current start tag, first occurrence only, in source order.
    attrs: Vec<AttrSlot>,
    /// Backing bytes of the `attrs` values.
    values: Vec<u8>,
    /// Index in `attrs` of the attribute named last: `attribute_value` (never called for an
    /// empty value) fills it in.
    pending: Option<usize>,

    /// Source span of the current start tag's `style` attribute value, if it has a non-empty one.
    style_value: Option<Span<usize>>,
    /// The current start tag is `<style>`.
    opening_style: bool,
    /// Byte offset where the text of the open `<style>` element starts.
    style_text_start: Option<usize>,

    /// Inside the raw contents of `<script>`, `<style>`, `<title>`...: text is not link text.
    raw_text: bool,
    /// The `<a href>` whose text is being collected: its index in `doc.links`, and the text.
    anchor: Option<(usize, LabelBuilder)>,
    /// The `linkpatrol-ignore` comments read so far.
    ignore: IgnoreState,

    /// Read the bare URLs of `<pre>` and `<code>` text (`--include-verbatim`).
    verbatim: bool,
    /// How many `<pre>` and `<code>` elements are open, and the name of the last one opened.
    code_depth: usize,
    code_tag: &'static str,
    /// The current start tag is a `<pre>` or `<code>`.
    opening_code: Option<&'static str>,
    /// No text read since can start before this byte (the end of the last start tag, the start
    /// of the last end tag): where a bare URL's source is looked for.
    text_from: usize,
}

impl<'a, 's> Collector<'a, 's> {
    pub(super) fn new(
        src: &'a [u8],
        want_anchors: bool,
        verbatim: bool,
        batches: Option<Batches<'s>>,
    ) -> Self {
        Collector {
            doc: HtmlDocument::default(),
            src,
            lines: LineCounter::new(src, Convention::Html),
            want_anchors,
            batches,
            in_start_tag: false,
            tag: Tag::Other,
            tag_start: 0,
            tag_next_state: None,
            attrs: Vec::new(),
            values: Vec::new(),
            pending: None,
            style_value: None,
            opening_style: false,
            style_text_start: None,
            raw_text: false,
            anchor: None,
            ignore: IgnoreState::default(),
            verbatim,
            code_depth: 0,
            code_tag: "code",
            opening_code: None,
            text_from: 0,
        }
    }

    /// Reserves room for one batch of links up front.
    pub(super) fn links_cap(&mut self, batch: usize) {
        self.doc.links.reserve(batch.min(4096));
    }

    pub(super) fn finish(mut self) -> HtmlDocument {
        self.close_anchor();
        // A `<style>` left open runs to the end of the document.
        self.close_style_block(self.src.len());
        if let Some(batches) = &mut self.batches
            && !self.doc.links.is_empty()
        {
            (batches.on_batch)(&mut self.doc);
        }
        self.doc
    }

    /// Hands the buffered links over when a batch is full and the document-wide facts are final.
    /// The link of an open `<a>` (its text still being read) and the links after it stay.
    fn flush_full_batch(&mut self) {
        let Some(batches) = &mut self.batches else {
            return;
        };
        if self.doc.links.len() < batches.size {
            return;
        }
        let settled = *batches
            .settled_after
            .get_or_insert_with(|| settled_after(self.src));
        if self.tag_start <= settled {
            return;
        }
        let keep = match &mut self.anchor {
            Some((index, _)) => std::mem::replace(index, 0),
            None => self.doc.links.len(),
        };
        if keep == 0 {
            return;
        }
        let rest = self.doc.links.split_off(keep);
        (batches.on_batch)(&mut self.doc);
        self.doc.links.clear();
        self.doc.links.extend(rest);
    }

    /// The value of the first `attr` of the current start tag, if present.
    fn value(&self, attr: Attr) -> Option<&[u8]> {
        self.attrs
            .iter()
            .find(|slot| slot.attr == attr)
            .map(|slot| &self.values[slot.start..slot.end])
    }

    /// The current start tag is complete: turn its buffered attributes into results.
    fn start_tag_results(&mut self) {
        if self.want_anchors
            && let Some(id) = self.value(Attr::Id)
            && !id.is_empty()
        {
            self.doc.anchors.push(lossy(id).into_owned());
        }
        let tag = self.tag;
        match tag {
            Tag::Other => return,
            Tag::A => {
                if self.want_anchors
                    && let Some(name) = self.value(Attr::Name)
                    && !name.is_empty()
                {
                    self.doc.anchors.push(lossy(name).into_owned());
                }
            }
            Tag::Base => {
                if self.doc.base.is_none()
                    && let Some(href) = self.value(Attr::Href)
                {
                    self.doc.base = Some(lossy(href).trim_ascii().to_owned());
                }
                return;
            }
            Tag::Meta => {
                let is_robots = self
                    .value(Attr::Name)
                    .is_some_and(|name| name.trim_ascii().eq_ignore_ascii_case(b"robots"));
                if is_robots
                    && let Some(content) = self.value(Attr::Content)
                    && tokens(content, |b| b == b',').any(|t| {
                        t.eq_ignore_ascii_case(b"nofollow") || t.eq_ignore_ascii_case(b"none")
                    })
                {
                    self.doc.nofollow = true;
                }
            }
            Tag::Img => {
                // An image inside a link labels it, as its alt text would for a screen reader.
                if let Some((_, label)) = &mut self.anchor
                    && let Some(alt) = self.attrs.iter().find(|slot| slot.attr == Attr::Alt)
                {
                    label.push(" ");
                    label.push(&lossy(&self.values[alt.start..alt.end]));
                    label.push(" ");
                }
            }
            _ => {}
        }

        let rel = self.value(Attr::Rel).unwrap_or_default();
        let nofollow = tokens(rel, |_| false).any(|t| t.eq_ignore_ascii_case(b"nofollow"));
        if tag == Tag::Link
            && tokens(rel, |_| false).any(|t| {
                t.eq_ignore_ascii_case(b"preconnect") || t.eq_ignore_ascii_case(b"dns-prefetch")
            })
        {
            // Hints naming hosts, not documents.
            return;
        }
        if tag == Tag::Meta
            && !self
                .value(Attr::HttpEquiv)
                .is_some_and(|v| v.trim_ascii().eq_ignore_ascii_case(b"refresh"))
        {
            return;
        }
        if !self
            .attrs
            .iter()
            .any(|slot| link_attr(tag, slot.attr).is_some())
        {
            return;
        }
        // `<input src>` is a link only on an image button.
        let src_is_link = tag != Tag::Input
            || self
                .value(Attr::Type)
                .is_some_and(|v| v.trim_ascii().eq_ignore_ascii_case(b"image"));

        let mut name = LabelBuilder::default();
        for attr in [Attr::Alt, Attr::Title] {
            if let Some(value) = self.value(attr) {
                name.push(&lossy(value));
                if !name.is_empty() {
                    break;
                }
            }
        }
        let name = name.finish();

        let first_link = self.doc.links.len();
        let mut position = None;
        for slot in &self.attrs {
            let Some(attr_name) = link_attr(tag, slot.attr) else {
                continue;
            };
            if slot.attr == Attr::Src && !src_is_link {
                continue;
            }
            let value = lossy(&self.values[slot.start..slot.end]);
            let padded = slot.attr != Attr::Srcset
                && slot.attr != Attr::Content
                && value.trim_ascii().len() != value.len();
            let (line, column) = *position.get_or_insert_with(|| self.lines.locate(self.tag_start));
            let mut push = |value: &str| {
                self.doc.links.push(RawLink {
                    value: value.to_owned(),
                    tag: tag.as_str(),
                    attr: attr_name,
                    line,
                    column,
                    name: name.clone(),
                    nofollow,
                    padded,
                    ignored: false,
                    undefined_label: false,
                    wikilink: false,
                });
            };
            match slot.attr {
                Attr::Srcset => srcset_urls(&value, &mut push),
                Attr::Content => {
                    if let Some(url) = refresh_url(&value) {
                        push(url);
                    }
                }
                _ => push(value.trim_ascii()),
            }
        }

        self.ignore.apply(&mut self.doc.links[first_link..]);
        if tag == Tag::A && self.doc.links.len() > first_link {
            self.anchor = Some((first_link, LabelBuilder::default()));
        }
        self.flush_full_batch();
    }

    /// The links of the current start tag's `style` attribute, if it has one; they follow the
    /// element's other links.
    fn style_attribute(&mut self) {
        let Some(span) = self.style_value else {
            return;
        };
        let Some(slot) = self.attrs.iter().find(|slot| slot.attr == Attr::Style) else {
            return;
        };
        let value = &self.values[slot.start..slot.end];
        let raw = self.src.get(span.start..span.end).unwrap_or_default();
        let lines = &mut self.lines;
        style_attribute_links(
            value,
            raw,
            |at| lines.locate(span.start + at),
            &mut self.doc.links,
        );
    }

    /// The open `<style>` element, if any, ends at byte `end`: the links of its text.
    fn close_style_block(&mut self, end: usize) {
        let Some(start) = self.style_text_start.take() else {
            return;
        };
        let text = self.src.get(start..end.max(start)).unwrap_or_default();
        let lines = &mut self.lines;
        style_block_links(text, |at| lines.locate(start + at), &mut self.doc.links);
    }

    /// The open `<a href>` ends: its text, if any, becomes its link's name.
    fn close_anchor(&mut self) {
        if let Some((index, label)) = self.anchor.take()
            && !label.is_empty()
        {
            self.doc.links[index].name = label.finish();
        }
    }
}

impl TagSink for Collector<'_, '_> {
    fn comment(&mut self, text: &[u8]) {
        self.ignore.comment(text);
    }

    fn start_tag(&mut self, name: &[u8], start: usize) {
        self.in_start_tag = true;
        self.raw_text = false;
        self.tag = Tag::from_name(name);
        self.tag_start = start;
        self.tag_next_state = next_state(name);
        self.attrs.clear();
        self.values.clear();
        self.pending = None;
        self.style_value = None;
        self.opening_style = name == b"style";
        self.opening_code = match name {
            b"pre" => Some("pre"),
            b"code" => Some("code"),
            _ => None,
        };
        if self.tag == Tag::A {
            // A new <a> implicitly closes an open one.
            self.close_anchor();
        }
    }

    fn attribute_name(&mut self, name: &[u8]) -> bool {
        self.pending = None;
        if !self.in_start_tag {
            return false;
        }
        let Some(attr) = Attr::from_name(name) else {
            return false;
        };
        let wanted = match self.tag {
            Tag::Other => (attr == Attr::Id && self.want_anchors) || attr == Attr::Style,
            _ => true,
        };
        // Duplicate attributes: the first one wins, as in browsers.
        if wanted && !self.attrs.iter().any(|slot| slot.attr == attr) {
            let at = self.values.len();
            self.pending = Some(self.attrs.len());
            self.attrs.push(AttrSlot {
                attr,
                start: at,
                end: at,
            });
        }
        self.pending.is_some()
    }

    fn attribute_value(&mut self, value: &[u8], span: Span<usize>) {
        if let Some(index) = self.pending.take() {
            let start = self.values.len();
            self.values.extend_from_slice(value);
            self.attrs[index].start = start;
            self.attrs[index].end = self.values.len();
            if self.attrs[index].attr == Attr::Style {
                self.style_value = Some(span);
            }
        }
    }

    fn close_start_tag(&mut self, end: usize) -> Option<State> {
        if !self.in_start_tag {
            return None;
        }
        self.in_start_tag = false;
        self.pending = None;
        self.start_tag_results();
        self.style_attribute();
        if self.opening_style {
            self.style_text_start = Some(end);
        }
        if let Some(name) = self.opening_code.take() {
            self.code_depth += 1;
            self.code_tag = name;
        }
        self.text_from = end;
        self.raw_text = self.tag_next_state.is_some();
        self.tag_next_state
    }

    fn end_tag(&mut self, name: &[u8], start: usize) {
        // Inside `<style>`, the only end tag is `</style>`.
        self.close_style_block(start);
        self.in_start_tag = false;
        self.pending = None;
        self.raw_text = false;
        if name == b"a" {
            self.close_anchor();
        }
        if matches!(name, b"pre" | b"code") {
            self.code_depth = self.code_depth.saturating_sub(1);
        }
        self.text_from = start;
    }

    fn wants_text(&self) -> bool {
        !self.raw_text
            && match &self.anchor {
                Some((_, label)) => !label.is_full(),
                None => self.verbatim && self.code_depth > 0,
            }
    }

    fn text(&mut self, text: &[u8]) {
        if !self.wants_text() {
            return;
        }
        match &mut self.anchor {
            Some((_, label)) => label.push(&lossy(text)),
            None => self.verbatim_links(&lossy(text)),
        }
    }
}

impl Collector<'_, '_> {
    /// The bare URLs (GitHub's autolink literals) of a run of `<pre>` or `<code>` text, each
    /// placed where its text up to any `&` is found in the source after the last tag (a
    /// character reference spells the rest differently; at the run's start when not found).
    fn verbatim_links(&mut self, text: &str) {
        let found = autolinks(text);
        if found.is_empty() {
            return;
        }
        let first = self.doc.links.len();
        let mut from = self.text_from.min(self.src.len());
        for link in found {
            let head = link.text.split('&').next().unwrap_or_default();
            let at =
                memchr::memmem::find(&self.src[from..], head.as_bytes()).map_or(from, |i| from + i);
            from = at;
            let position = self.lines.locate(at);
            self.doc
                .links
                .push(RawLink::plain(link.url, self.code_tag, "text", position));
        }
        for i in first..self.doc.links.len() {
            self.ignore.apply(&mut self.doc.links[i..=i]);
        }
        self.flush_full_batch();
    }
}

/// `bytes` as text, invalid UTF-8 replaced. Valid UTF-8, the common case, is checked with
/// `str::from_utf8`, whose ASCII fast path beats the chunk-by-chunk lossy decoder.
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The non-empty tokens of `value`, split at ASCII whitespace and at bytes matching `extra`.
fn tokens(value: &[u8], extra: impl Fn(u8) -> bool) -> impl Iterator<Item = &[u8]> {
    value
        .split(move |&b| b.is_ascii_whitespace() || extra(b))
        .filter(|t| !t.is_empty())
}

/// Builds a label: whitespace runs collapse to one space, no leading or trailing space, at most
/// [`MAX_NAME_CHARS`] characters.
#[derive(Debug, Default)]
struct LabelBuilder {
    text: String,
    chars: usize,
    space: bool,
}

impl LabelBuilder {
    fn push(&mut self, s: &str) {
        let mut rest = s;
        while let Some(c) = rest.chars().next() {
            if self.is_full() {
                return;
            }
            if c.is_whitespace() {
                self.space = self.chars > 0;
                rest = &rest[c.len_utf8()..];
                continue;
            }
            if self.space {
                self.space = false;
                if self.chars + 2 > MAX_NAME_CHARS {
                    // No room for the next word: a trailing space would be all that fits.
                    self.chars = MAX_NAME_CHARS;
                    return;
                }
                self.text.push(' ');
                self.chars += 1;
            }
            // A run of ASCII that is no whitespace (one character a byte) is copied at once,
            // up to the cap; any other character one at a time.
            let word = rest
                .bytes()
                .take_while(|&b| b.is_ascii() && !b.is_ascii_whitespace() && b != 0x0B)
                .count();
            if word > 0 {
                let n = word.min(MAX_NAME_CHARS - self.chars);
                self.text.push_str(&rest[..n]);
                self.chars += n;
                rest = &rest[n..];
            } else {
                self.text.push(c);
                self.chars += 1;
                rest = &rest[c.len_utf8()..];
            }
        }
    }

    fn is_full(&self) -> bool {
        self.chars >= MAX_NAME_CHARS
    }

    fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The label `push` builds, one character at a time: what the bulk copy must give.
    fn one_by_one(parts: &[&str]) -> String {
        let (mut text, mut chars, mut space) = (String::new(), 0, false);
        for c in parts.iter().flat_map(|p| p.chars()) {
            if chars >= MAX_NAME_CHARS {
                break;
            }
            if c.is_whitespace() {
                space = chars > 0;
                continue;
            }
            if space {
                space = false;
                if chars + 2 > MAX_NAME_CHARS {
                    break;
                }
                text.push(' ');
                chars += 1;
            }
            text.push(c);
            chars += 1;
        }
        text
    }

    #[test]
    fn words_are_copied_in_bulk_as_character_by_character() {
        let long = "x".repeat(300);
        let near = format!("{} ab", "y".repeat(254));
        let cases: [&[&str]; 7] = [
            &["  the\n docs ", " here"],
            &["a\u{0B}b\u{0C}c\u{A0}d\u{2003}e"],
            &["ünïcode wörds\tand ascii"],
            &[&long],
            &[&near],
            &["x\u{1C}y", "z"],
            &["", " ", "\r\n"],
        ];
        for parts in cases {
            let mut label = LabelBuilder::default();
            for p in parts {
                label.push(p);
            }
            assert_eq!(label.finish(), one_by_one(parts), "{parts:?}");
        }
    }
}
