//! HTML link extraction on top of html5gum's tokenizer: the entry points, for a whole document
//! and in batches.
//!
//! A [`LinkEmitter`] (see [`emitter`]) reports start tags, attribute names and values, end tags
//! and text to a [`Collector`] (see [`collector`]), copying a value or a run of text only when the
//! collector asks for it. The collector buffers the attributes of the current start tag that can
//! matter (see [`tags`]) and decides at the closing `>` what they yield: links (a `srcset` split
//! by [`srcset`], a refresh URL read by [`refresh`]), the base URL, anchors or the robots flag.
//! After `<script>`, `<style>` and friends it switches the tokenizer into raw-text states, so
//! their contents never produce links, but (unlike html5gum's `naive_next_state`) parses
//! `<noscript>` contents as markup, as a user agent without scripting and LinkChecker do. The CSS
//! of `<style>` blocks and `style` attributes goes to [`style`].

mod collector;
mod emitter;
mod refresh;
mod srcset;
mod style;
mod tags;
#[cfg(test)]
mod tests;

use html5gum::Tokenizer;

use super::HtmlDocument;
use collector::Collector;
use emitter::LinkEmitter;

/// Extract the links, base URL, anchors and robots flag from one HTML document.
///
/// The input is treated as UTF-8; invalid sequences are replaced by U+FFFD (transcode other
/// charsets first). Any input, however broken, yields a document and never panics.
///
/// ```
/// use linkpatrol::extract::extract_html;
///
/// let doc = extract_html(b"<p>See <a href='/docs?a=1&amp;b=2'>the\n docs</a></p>");
/// assert_eq!(doc.links[0].value, "/docs?a=1&b=2");
/// assert_eq!(doc.links[0].name, "the docs");
/// assert_eq!((doc.links[0].line, doc.links[0].column), (1, 8));
/// ```
pub fn extract_html(html: &[u8]) -> HtmlDocument {
    run(Collector::new(html, true, false, None), html)
}

/// Like [`extract_html`], but hands the links over in batches of about `batch` as the document
/// is read, so a page with 200,000 links never holds them all at once. Anchors (`id`s and
/// `<a name>`s) are collected only with `anchors`; with `verbatim`, the bare URLs of the text
/// of `<pre>` and `<code>` elements (outside an `<a>`) are links too (`tag` `pre` or `code`,
/// `attr` `text`), as GitHub's autolink literals find them in Markdown.
///
/// Each call of `on_batch` gets the document so far: its `links` are the batch, in document
/// order, and its `base` and `nofollow` are already final (a batch is handed over only once no
/// `<base>` or `<meta>` tag can follow). Whatever `on_batch` leaves in
/// `links` is dropped. The returned document has the base, anchors and robots flag, and no
/// links: every link went to `on_batch`, in the same order and with the same fields as
/// [`extract_html`] gives them.
pub fn extract_html_batched(
    html: &[u8],
    anchors: bool,
    verbatim: bool,
    batch: usize,
    on_batch: &mut dyn FnMut(&mut HtmlDocument),
) -> HtmlDocument {
    let mut collector =
        Collector::new(html, anchors, verbatim, Some(Batches::new(batch, on_batch)));
    collector.links_cap(batch);
    let mut doc = run(collector, html);
    doc.links.clear();
    doc
}

/// Tokenizes `html` into `collector` and returns what it collected.
fn run(mut collector: Collector<'_, '_>, html: &[u8]) -> HtmlDocument {
    // A byte-slice reader cannot fail: the error type is `Infallible`.
    let Ok(()) = Tokenizer::new_with_emitter(html, LinkEmitter::new(&mut collector)).finish();
    collector.finish()
}

/// Where the links of a batched extraction go (see [`extract_html_batched`]).
struct Batches<'s> {
    /// Hand links over once this many are buffered (and the document-wide facts are final).
    size: usize,
    on_batch: &'s mut dyn FnMut(&mut HtmlDocument),
    /// Byte offset after which no `<base>` or `<meta>` tag starts; computed at the first full
    /// batch (small documents never pay for the scan).
    settled_after: Option<usize>,
}

impl<'s> Batches<'s> {
    fn new(size: usize, on_batch: &'s mut dyn FnMut(&mut HtmlDocument)) -> Self {
        Batches {
            size: size.max(1),
            on_batch,
            settled_after: None,
        }
    }
}

/// The byte offset of the last `<base` or `<meta` (ASCII case-insensitive) in `html`, `0` when
/// there is none. Only those tags set a document-wide fact (base URL, robots `nofollow`) that
/// applies to links written before them; once the tokenizer is past this offset, both are final.
/// Text that merely looks like such a tag (in a comment or script) only delays the batches.
fn settled_after(html: &[u8]) -> usize {
    // Only the `<`s are looked at, found from the end with `memrchr` (a loop over every byte
    // cost 3% of a check of the Rust documentation).
    memchr::memrchr_iter(b'<', html)
        .find(|&at| {
            let name = html.get(at + 1..at + 5).unwrap_or_default();
            name.eq_ignore_ascii_case(b"base") || name.eq_ignore_ascii_case(b"meta")
        })
        .unwrap_or(0)
}
