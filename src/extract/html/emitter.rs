//! A custom html5gum [`Emitter`] for link extraction: it reports start tags, end tags,
//! attributes and text to a [`TagSink`], and copies an attribute value or a run of text only when
//! the sink says it wants it.
//!
//! html5gum's `CallbackEmitter` buffers every attribute value and every text run of a document
//! and hands each one over; link extraction reads only a few of them (an `href`, the text of an
//! `<a>`). This emitter asks the sink, once an attribute's name is complete, whether its value
//! matters, and, before keeping text, whether text matters right now. It reports the same events,
//! at the same moments and with the same byte offsets as the `CallbackEmitter` does, so the
//! sink's results do not depend on which of the two drives it (the test below checks this on
//! random fragments). Comments reach the sink cut to their first bytes (for the
//! `linkpatrol-ignore` marks); doctypes and parse errors are dropped.
//!
//! # Why not the `CallbackEmitter`
//! Copying only what the sink wants made extraction faster and a folder check cheaper, with the
//! same output (figures in benches/RESULTS.md, "Link extraction emitter").

use std::convert::Infallible;

use html5gum::{Emitter, Error, Span, State};

/// The longest tag or attribute name a [`TagSink`] is shown. The names that matter to link
/// extraction are at most 10 bytes long (`blockquote`, `formaction`, `http-equiv`; the tests of
/// every tag and attribute kind in `html/tests.rs` fail if one does not fit); a longer name is
/// passed as the empty name, which matches none of them.
pub(super) const MAX_NAME_LEN: usize = 16;

/// What a [`LinkEmitter`] reports to. Names are ASCII-lowercased by the tokenizer, and empty if
/// longer than [`MAX_NAME_LEN`]; offsets are byte offsets in the input.
pub(super) trait TagSink {
    /// A start tag named `name` begins at byte `start` (its `<`). Called once the name is
    /// complete, before its attributes; never for a start tag cut off by the end of the input
    /// before its name ended.
    fn start_tag(&mut self, name: &[u8], start: usize);

    /// The current start tag has an attribute named `name` (duplicates included). Returns
    /// whether [`TagSink::attribute_value`] should be called with its value.
    fn attribute_name(&mut self, name: &[u8]) -> bool;

    /// The non-empty value (character references decoded) of the attribute last named, found at
    /// `span` in the input. Called only when `attribute_name` asked for it.
    fn attribute_value(&mut self, value: &[u8], span: Span<usize>);

    /// The current start tag ends at byte `end` (after its `>`). Returns the tokenizer state to
    /// continue in (raw text after `<script>` and the like), or `None` for ordinary markup.
    fn close_start_tag(&mut self, end: usize) -> Option<State>;

    /// An end tag named `name` begins at byte `start` (its `<`).
    fn end_tag(&mut self, name: &[u8], start: usize);

    /// Whether text read now would be passed to [`TagSink::text`]. The answer must not change
    /// between two calls of the other methods.
    fn wants_text(&self) -> bool;

    /// A run of text (character references decoded) read while `wants_text` held; consecutive
    /// text is passed in one call, before the tag, comment or end of input that follows it.
    fn text(&mut self, text: &[u8]);

    /// A comment, its first [`MAX_COMMENT_LEN`] bytes (enough for the `linkpatrol-ignore`
    /// marks; a longer comment is cut).
    fn comment(&mut self, text: &[u8]);
}

/// The most bytes of a comment kept for [`TagSink::comment`].
pub(super) const MAX_COMMENT_LEN: usize = 64;

/// The [`Emitter`] that drives a [`TagSink`].
pub(super) struct LinkEmitter<'s, S> {
    sink: &'s mut S,
    /// Byte offset of the tokenizer in the input.
    position: usize,
    /// Byte offset of the `<` of the current tag.
    tag_start: usize,
    /// The current tag is an end tag (else a start tag, or no tag yet).
    in_end_tag: bool,
    /// Name of the current tag so far. A start tag's name moves to `last_start_tag` once it is
    /// reported.
    tag_name: ShortName,
    /// Name of the last start tag reported, cleared by an end tag: an end tag that matches it
    /// ends raw text (html5gum's "appropriate end tag").
    last_start_tag: ShortName,
    /// Name of the current attribute so far (start tags only), until it is reported.
    attr_name: ShortName,
    /// The sink asked for the value of the current attribute: only then is it kept.
    value_wanted: bool,
    /// The current attribute's value so far, when wanted.
    value: Vec<u8>,
    /// Byte offsets of the current attribute's value in the input.
    value_start: usize,
    value_end: usize,
    /// Text read since the last tag, comment or doctype, kept only while the sink wants text.
    text: Vec<u8>,
    /// The current comment's first bytes.
    comment: Vec<u8>,
}

impl<'s, S: TagSink> LinkEmitter<'s, S> {
    pub(super) fn new(sink: &'s mut S) -> Self {
        LinkEmitter {
            sink,
            position: 0,
            tag_start: 0,
            in_end_tag: false,
            tag_name: ShortName::default(),
            last_start_tag: ShortName::default(),
            attr_name: ShortName::default(),
            value_wanted: false,
            value: Vec::new(),
            value_start: 0,
            value_end: 0,
            text: Vec::new(),
            comment: Vec::new(),
        }
    }

    /// Hands the kept text over: something other than text follows.
    fn flush_text(&mut self) {
        if !self.text.is_empty() {
            self.sink.text(&self.text);
            self.text.clear();
        }
    }

    /// Reports the current start tag once its name is complete (at its first attribute or its
    /// end), after the text before it.
    fn flush_start_tag(&mut self) {
        self.flush_text();
        if !self.in_end_tag && !self.tag_name.is_empty() {
            self.sink.start_tag(self.tag_name.get(), self.tag_start);
            self.last_start_tag = self.tag_name;
            self.tag_name.clear();
        }
    }

    /// Reports the current attribute's name once it is complete, and learns whether its value
    /// matters.
    fn flush_attribute_name(&mut self) {
        self.flush_start_tag();
        if !self.attr_name.is_empty() {
            self.value_wanted = self.sink.attribute_name(self.attr_name.get());
            self.attr_name.clear();
        }
    }

    /// Reports the current attribute's value, if it was wanted and is not empty.
    fn flush_attribute(&mut self) {
        self.flush_attribute_name();
        if !self.value.is_empty() {
            let span = Span {
                start: self.value_start,
                end: self.value_end,
            };
            self.sink.attribute_value(&self.value, span);
            self.value.clear();
        }
    }
}

impl<S: TagSink> Emitter for LinkEmitter<'_, S> {
    type Token = Infallible;

    #[inline]
    fn move_position(&mut self, offset: isize) {
        self.position = self.position.saturating_add_signed(offset);
    }

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start_tag.clear();
        self.last_start_tag.push(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.flush_text();
    }

    fn emit_error(&mut self, _: Error) {}

    #[inline]
    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Infallible> {
        None
    }

    #[inline]
    fn emit_string(&mut self, s: &[u8]) {
        if self.sink.wants_text() {
            self.text.extend_from_slice(s);
        }
    }

    fn init_start_tag(&mut self) {
        self.tag_name.clear();
        self.in_end_tag = false;
    }

    fn init_end_tag(&mut self) {
        self.tag_name.clear();
        self.in_end_tag = true;
        self.value_wanted = false;
    }

    fn init_comment(&mut self) {
        self.flush_text();
        self.comment.clear();
    }

    fn emit_current_tag(&mut self) -> Option<State> {
        self.flush_attribute();
        self.value_wanted = false;
        if self.in_end_tag {
            self.last_start_tag.clear();
            self.sink.end_tag(self.tag_name.get(), self.tag_start);
            None
        } else {
            self.sink.close_start_tag(self.position)
        }
    }

    fn emit_current_comment(&mut self) {
        self.sink.comment(&self.comment);
    }

    fn emit_current_doctype(&mut self) {}

    fn set_self_closing(&mut self) {}

    fn set_force_quirks(&mut self) {}

    #[inline]
    fn push_tag_name(&mut self, s: &[u8]) {
        self.tag_name.push(s);
    }

    fn push_comment(&mut self, s: &[u8]) {
        let room = MAX_COMMENT_LEN.saturating_sub(self.comment.len());
        self.comment.extend_from_slice(&s[..s.len().min(room)]);
    }

    fn push_doctype_name(&mut self, _: &[u8]) {}

    fn init_doctype(&mut self) {
        self.flush_text();
    }

    fn init_attribute(&mut self) {
        self.flush_attribute();
    }

    #[inline]
    fn push_attribute_name(&mut self, s: &[u8]) {
        // Attributes of end tags mean nothing.
        if !self.in_end_tag {
            self.attr_name.push(s);
        }
    }

    fn init_attribute_value(&mut self) {
        self.value_start = self.position;
    }

    #[inline]
    fn push_attribute_value(&mut self, s: &[u8]) {
        self.flush_attribute_name();
        if self.value_wanted {
            self.value.extend_from_slice(s);
            self.value_end = self.position;
        }
    }

    fn set_doctype_public_identifier(&mut self, _: &[u8]) {}

    fn set_doctype_system_identifier(&mut self, _: &[u8]) {}

    fn push_doctype_public_identifier(&mut self, _: &[u8]) {}

    fn push_doctype_system_identifier(&mut self, _: &[u8]) {}

    fn start_open_tag(&mut self) {
        self.tag_start = self.position.saturating_sub(1);
    }

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        let last = self.last_start_tag.get();
        self.in_end_tag && !last.is_empty() && last == self.tag_name.get()
    }
}

/// A tag or attribute name, kept in place up to [`MAX_NAME_LEN`] bytes: a name is a few bytes
/// pushed in small pieces, too little to be worth a heap buffer and a `memcpy` call per piece.
#[derive(Debug, Default, Clone, Copy)]
struct ShortName {
    bytes: [u8; MAX_NAME_LEN],
    /// Length of the whole name; more than `MAX_NAME_LEN` once it no longer fits.
    len: usize,
}

impl ShortName {
    fn clear(&mut self) {
        self.len = 0;
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn push(&mut self, s: &[u8]) {
        for &b in s {
            if let Some(slot) = self.bytes.get_mut(self.len) {
                *slot = b;
            }
            self.len = self.len.saturating_add(1);
        }
    }

    /// The name, or the empty name if it is longer than [`MAX_NAME_LEN`].
    fn get(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

/// The reference for [`LinkEmitter`]: html5gum's `CallbackEmitter`, which copies every attribute
/// value and text run, driving the same [`Collector`](super::collector::Collector). Both must
/// give the same documents, spans included.
#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use html5gum::emitters::callback::{Callback, CallbackEmitter, CallbackEvent};
    use html5gum::{Emitter, ForwardingEmitter, Span, State, Tokenizer};

    use super::TagSink;
    use crate::extract::HtmlDocument;
    use crate::extract::html::collector::Collector;
    use crate::extract::html::extract_html;

    /// Turns the `CallbackEmitter`'s events into [`TagSink`] calls.
    struct Events<'c, 'a, 's> {
        collector: &'c mut Collector<'a, 's>,
        next_state: Option<State>,
    }

    impl Callback<Infallible, usize> for Events<'_, '_, '_> {
        fn handle_event(
            &mut self,
            event: CallbackEvent<'_>,
            span: Span<usize>,
        ) -> Option<Infallible> {
            let c = &mut *self.collector;
            match event {
                CallbackEvent::OpenStartTag { name } => c.start_tag(name, span.start),
                CallbackEvent::AttributeName { name } => {
                    c.attribute_name(name);
                }
                CallbackEvent::AttributeValue { value } => c.attribute_value(value, span),
                CallbackEvent::CloseStartTag { .. } => {
                    self.next_state = c.close_start_tag(span.end)
                }
                CallbackEvent::EndTag { name } => c.end_tag(name, span.start),
                CallbackEvent::String { value } => c.text(value),
                CallbackEvent::Comment { value } => {
                    c.comment(&value[..value.len().min(super::MAX_COMMENT_LEN)])
                }
                CallbackEvent::Doctype { .. } | CallbackEvent::Error(_) => {}
            }
            None
        }
    }

    /// Switches the tokenizer's state after a start tag, as the collector asks.
    struct StateSwitcher<'c, 'a, 's> {
        inner: CallbackEmitter<Events<'c, 'a, 's>, Infallible, usize>,
    }

    impl ForwardingEmitter for StateSwitcher<'_, '_, '_> {
        type Token = Infallible;

        fn inner(&mut self) -> &mut impl Emitter<Token = Infallible> {
            &mut self.inner
        }

        fn emit_current_tag(&mut self) -> Option<State> {
            let _ = self.inner.emit_current_tag();
            let next = self.inner.callback_mut().next_state.take();
            if next.is_some() {
                self.inner.init_string();
            }
            next
        }

        fn should_emit_errors(&mut self) -> bool {
            false
        }
    }

    fn extract_with_callbacks(html: &[u8]) -> HtmlDocument {
        let mut collector = Collector::new(html, true, false, None);
        let emitter = StateSwitcher {
            inner: CallbackEmitter::new(Events {
                collector: &mut collector,
                next_state: None,
            }),
        };
        let Ok(()) = Tokenizer::new_with_emitter(html, emitter).finish();
        collector.finish()
    }

    #[test]
    fn link_emitter_and_callback_emitter_give_the_same_documents() {
        const PIECES: &[&[u8]] = &[
            b"<a href=",
            b"<a href=\"/x\">",
            b"</a>",
            b"<A HREF='/y' NAME=n>",
            b" id=i",
            b"<img srcset=\"",
            b" 2x,",
            b"<img src=/i alt=",
            b"<img alt=\"",
            b"<script>",
            b"</script",
            b"<style>",
            b"</style>",
            b"</STYLE >",
            b" style=\"background:url(/s.png)\"",
            b"<p style='x: url(",
            b"@import '/c.css';",
            b"url(/u.png)",
            b"<title>",
            b"</title>",
            b"<textarea>",
            b"</textarea>",
            b"<noscript>",
            b"<plaintext>",
            b"<meta http-equiv=refresh content=\"0;url=",
            b"<meta name=robots content=nofollow>",
            b"<base href=",
            b"<link rel=preconnect ",
            b"<area href",
            b"<!--",
            b"-->",
            b"<!DOCTYPE html>",
            b"<![CDATA[",
            b"&amp;",
            b"&#x",
            b"&eacute;",
            b"&notin",
            b"&",
            b"\"",
            b"'",
            b"=",
            b">",
            b"<",
            b"/",
            b"</",
            b" ",
            b"\n",
            b"\r",
            b"\r\n",
            b"\t",
            b"\0",
            "é".as_bytes(),
            "€".as_bytes(),
            b"\xc3",
            b"\xa9",
            b"\xff",
            b"<svg>",
            b"<?php",
            b"word",
            b"<averyveryverylongtagname attr=1>",
            b"<input type=image src=",
            b"<blockquote cite=",
            b"<form action=/f>",
            b"</p x=y>",
            b"<a href=/z rel=nofollow>",
        ];
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Cases the random ones rarely hit: a character split by a comment in link text, end
        // tags that only begin like the one that ends raw text.
        let fixed: &[&[u8]] = &[
            b"<a href=/c>o\xc3<!-- -->\xa9 \xc3<!DOCTYPE x>\xa9</a>",
            b"<style>a{}</sty><a href=/no></style><a href=/yes>",
            b"<script></scrip><a href=/no></scripts><a href=/no></script ><a href=/yes>",
        ];
        for html in fixed {
            assert_eq!(extract_html(html), extract_with_callbacks(html), "{html:?}");
        }
        let mut links = 0;
        for _ in 0..5000 {
            let mut html = Vec::new();
            for _ in 0..next() % 60 {
                html.extend_from_slice(PIECES[next() as usize % PIECES.len()]);
            }
            let doc = extract_html(&html);
            links += doc.links.len();
            assert_eq!(
                doc,
                extract_with_callbacks(&html),
                "{:?}",
                html.escape_ascii().to_string()
            );
        }
        assert!(links > 5000, "fragments produced only {links} links");
    }
}
