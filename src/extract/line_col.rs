//! Byte offsets to 1-based lines and columns, counted forward through a document: the one
//! counter every extractor uses to give a [`RawLink`](super::RawLink) its `line` and `column`.
//!
//! # Order
//! [`LineCounter::locate`] advances from the offset it was last asked for, finding line breaks
//! with `memchr` and counting the characters after the last one in bulk, so a document is
//! scanned once however many links it has. The extractors ask in increasing order: HTML at the
//! tokenizer's offsets, CSS, sitemaps and plain text as they scan forward, Markdown at the
//! offsets pulldown-cmark gives its events, which follow the document but are not promised to.
//! Asked for an offset before the last one, the counter starts over from byte 0: the answer is
//! still right, only that one call costs a rescan.
//!
//! # Conventions
//! A column counts characters (UTF-8 code points) before the position, plus one. There are two
//! [`Convention`]s: HTML's, which follows its tokenizer, and that of every other format, which
//! counts lines as `str::lines` does. They agree on `\n`, `\r\n` and valid UTF-8, and differ
//! only on a lone `\r` and on invalid UTF-8.

use memchr::{memchr_iter, memchr2_iter, memrchr};

/// How a format ends its lines and counts the characters of invalid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Convention {
    /// `\n`, `\r\n` and a lone `\r` each end a line, as the HTML tokenizer reads them. A column
    /// counts the bytes that start a UTF-8 sequence (every byte but `0b10xx_xxxx`).
    Html,
    /// Only `\n` ends a line, as `str::lines` reads a text; a lone `\r` is a character. A column
    /// counts the characters `String::from_utf8_lossy` makes of the line, one U+FFFD for each
    /// invalid sequence. CSS, Markdown, sitemaps and plain text.
    Plain,
}

/// Turns byte offsets of one document into 1-based (line, column) pairs; see the module doc.
#[derive(Debug, Clone, Copy)]
pub(super) struct LineCounter<'a> {
    src: &'a [u8],
    convention: Convention,
    /// Everything before this offset is counted. For [`Convention::Plain`] it is 0, the end of
    /// `src`, or the offset of a byte that is not a UTF-8 continuation byte: no character, valid
    /// or not, spans it, so the count from here on adds up to the count from the line start.
    offset: usize,
    /// Line and column of the byte at `offset`.
    line: usize,
    column: usize,
    /// The byte before `offset` is `\r` (for [`Convention::Html`], a `\n` right after it ends
    /// no further line).
    after_cr: bool,
}

impl<'a> LineCounter<'a> {
    pub(super) fn new(src: &'a [u8], convention: Convention) -> Self {
        LineCounter {
            src,
            convention,
            offset: 0,
            line: 1,
            column: 1,
            after_cr: false,
        }
    }

    /// The 1-based line and column of byte `offset` (the end of the document if past it).
    pub(super) fn locate(&mut self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.src.len());
        if offset < self.offset {
            *self = LineCounter::new(self.src, self.convention);
        }
        // A lossy decoding of the line can only be counted piece by piece where no character
        // spans the split. Keep the count up to the last such split at or before `offset`, and
        // count the few continuation bytes after it on a copy: an offset inside a character
        // then gives what counting its line from the start gives, and the next call starts
        // clean. Counting lead bytes adds up across any split.
        let clean = match self.convention {
            Convention::Html => offset,
            Convention::Plain => (self.offset..=offset)
                .rev()
                .find(|&i| self.src.get(i).is_none_or(|&b| !is_continuation(b)))
                .unwrap_or(self.offset),
        };
        self.advance(clean);
        if clean == offset {
            return (self.line, self.column);
        }
        let mut inside = *self;
        inside.advance(offset);
        (inside.line, inside.column)
    }

    /// Counts the bytes from `self.offset` up to `to`.
    fn advance(&mut self, to: usize) {
        let seg = &self.src[self.offset..to];
        // Line breaks are found with memchr and the bytes after the last one counted in bulk:
        // a byte-at-a-time loop here was 7% of the CPU of a folder check.
        let mut rest = 0;
        match self.convention {
            Convention::Html => {
                for i in memchr2_iter(b'\n', b'\r', seg) {
                    let crlf = seg[i] == b'\n'
                        && if i == 0 {
                            self.after_cr
                        } else {
                            seg[i - 1] == b'\r'
                        };
                    if !crlf {
                        self.line += 1;
                    }
                    self.column = 1;
                    rest = i + 1;
                }
            }
            Convention::Plain => {
                if let Some(last) = memrchr(b'\n', seg) {
                    self.line += memchr_iter(b'\n', seg).count();
                    self.column = 1;
                    rest = last + 1;
                }
            }
        }
        let tail = &seg[rest..];
        self.column += match self.convention {
            Convention::Html => tail.iter().filter(|&&b| !is_continuation(b)).count(),
            Convention::Plain => lossy_chars(tail),
        };
        if let Some(&last) = seg.last() {
            self.after_cr = last == b'\r';
        }
        self.offset = to;
    }
}

/// A UTF-8 continuation byte (`0b10xx_xxxx`): it never starts a character.
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The number of characters in `String::from_utf8_lossy(bytes)`.
fn lossy_chars(bytes: &[u8]) -> usize {
    if bytes.is_ascii() {
        return bytes.len();
    }
    bytes
        .utf8_chunks()
        .map(|chunk| chunk.valid().chars().count() + usize::from(!chunk.invalid().is_empty()))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The HTML count, byte by byte: a CR LF pair is one break, a lone CR or LF is one.
    fn html_reference(src: &[u8], offset: usize) -> (usize, usize) {
        let (mut line, mut column, mut after_cr) = (1, 1, false);
        for &b in &src[..offset] {
            match b {
                b'\n' if after_cr => column = 1,
                b'\n' | b'\r' => (line, column) = (line + 1, 1),
                _ if b & 0xC0 != 0x80 => column += 1,
                _ => {}
            }
            after_cr = b == b'\r';
        }
        (line, column)
    }

    /// The plain count, from the document start: lines end at `\n`, the line is decoded lossily.
    fn plain_reference(src: &[u8], offset: usize) -> (usize, usize) {
        let before = &src[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        (line, column)
    }

    /// Random documents of line breaks, ASCII, valid multi-byte characters and pieces of
    /// invalid UTF-8, asked at random offsets (character boundaries or not), mostly forward.
    #[test]
    fn agrees_with_counting_from_the_start() {
        let mut rng = fastrand::Rng::with_seed(12);
        let pieces: [&[u8]; 12] = [
            b"\r",
            b"\n",
            b"\r\n",
            "é".as_bytes(),
            b"ab",
            "€".as_bytes(),
            "\u{1F600}".as_bytes(),
            b"\xe2\x82",
            b"\x80",
            b"\xff",
            b"\xe0\x80\x80",
            b"\xc3",
        ];
        for (convention, reference) in [
            (Convention::Html, html_reference as fn(&[u8], usize) -> _),
            (Convention::Plain, plain_reference),
        ] {
            for _ in 0..500 {
                let mut src = Vec::new();
                for _ in 0..rng.usize(0..40) {
                    src.extend_from_slice(pieces[rng.usize(..pieces.len())]);
                }
                let mut counter = LineCounter::new(&src, convention);
                let mut offset = 0;
                for _ in 0..20 {
                    offset = if rng.u8(..10) == 0 {
                        rng.usize(..=src.len())
                    } else {
                        rng.usize(offset.min(src.len())..=src.len())
                    };
                    assert_eq!(
                        counter.locate(offset),
                        reference(&src, offset),
                        "{convention:?} {:?} at {offset}",
                        src.escape_ascii().to_string()
                    );
                }
            }
        }
    }

    #[test]
    fn the_conventions_differ_on_a_lone_cr_and_invalid_utf8() {
        let src = b"a\rb\r\nc\x80\xe0\x80d";
        let at = |convention, offset| LineCounter::new(src, convention).locate(offset);
        // `b`: after a lone CR.
        assert_eq!(at(Convention::Html, 2), (2, 1));
        assert_eq!(at(Convention::Plain, 2), (1, 3));
        // `d`: after three invalid sequences, two of them lone continuation bytes.
        assert_eq!(at(Convention::Html, 9), (3, 3));
        assert_eq!(at(Convention::Plain, 9), (2, 5));
        // Past the end: the end.
        assert_eq!(at(Convention::Plain, 99), (2, 6));
    }
}
