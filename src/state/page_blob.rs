//! A parsed page's links packed into one blob (one row per page, not one per link): the
//! document's `<base>` and robots flag, then each link as written with its line, column,
//! label and flags, compressed (LZ4). Read back with caps, as the file is untrusted.

/// The blob format's first byte.
const FORMAT: u8 = 2;

/// Most bytes a blob may decompress to (a page of 200,000 links is about 10 MB).
const MAX_INFLATED: u64 = 64 << 20;

/// One link of a stored page, as the extractor gave it, read in place from the unpacked blob
/// (no copy of its texts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct StoredLink<'a> {
    pub(crate) value: &'a str,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) name: &'a str,
    pub(crate) nofollow: bool,
    pub(crate) padded: bool,
    /// A Markdown reference whose label is defined nowhere (`RawLink::undefined_label`).
    pub(crate) undefined_label: bool,
}

/// Everything a page's links need to be considered again without the page: its blob
/// decompressed and checked whole by [`unpack`], so reading its links ([`PageLinks::links`])
/// cannot fail half-way. The texts of all links are kept in one string, checked as UTF-8 in
/// one go (checking each text on its own cost more than the copy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageLinks {
    /// `<base href>` as written.
    pub(crate) base: Option<String>,
    /// `<meta name=robots content=nofollow>`.
    pub(crate) nofollow: bool,
    /// Each link's value and then its name, link after link.
    texts: String,
    /// Each link, its texts as where they end in `texts` (each a character boundary).
    links: Vec<Packed>,
}

/// One link of a [`PageLinks`]; its value starts where the link before it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Packed {
    value_end: u32,
    name_end: u32,
    line: u32,
    column: u32,
    /// `nofollow` (bit 0), `padded` (bit 1), `undefined_label` (bit 2), as packed. A blob
    /// written before bit 2 existed never sets it.
    flags: u8,
}

impl PageLinks {
    /// How many links the page has.
    pub(crate) fn len(&self) -> usize {
        self.links.len()
    }

    /// The links, in the order they were packed, their texts borrowed from the page.
    pub(crate) fn links(&self) -> Links<'_> {
        Links {
            texts: &self.texts,
            at: 0,
            links: self.links.iter(),
        }
    }
}

/// The links of a [`PageLinks`], read one by one (see [`PageLinks::links`]).
#[derive(Debug)]
pub(crate) struct Links<'a> {
    texts: &'a str,
    /// Where the next link's value starts in `texts`.
    at: usize,
    links: std::slice::Iter<'a, Packed>,
}

impl<'a> Iterator for Links<'a> {
    type Item = StoredLink<'a>;

    fn next(&mut self) -> Option<StoredLink<'a>> {
        let p = self.links.next()?;
        let (value_end, name_end) = (p.value_end as usize, p.name_end as usize);
        // `unpack` checked every boundary: these cannot fail; if one did, the iteration
        // would only end early.
        let value = self.texts.get(self.at..value_end)?;
        let name = self.texts.get(value_end..name_end)?;
        self.at = name_end;
        Some(StoredLink {
            value,
            line: p.line as usize,
            column: p.column as usize,
            name,
            nofollow: p.flags & 1 != 0,
            padded: p.flags & 2 != 0,
            undefined_label: p.flags & 4 != 0,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.links.size_hint()
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, u32::try_from(s.len()).unwrap_or(u32::MAX));
    out.extend_from_slice(&s.as_bytes()[..s.len().min(u32::MAX as usize)]);
}

fn put_u32(out: &mut Vec<u8>, n: u32) {
    out.extend_from_slice(&n.to_le_bytes());
}

/// Packs a page's links into a blob (the tests' way; a crawl packs as it goes, with
/// [`Packer`]).
#[cfg(test)]
pub(crate) fn pack(base: Option<&str>, nofollow: bool, links: &[StoredLink<'_>]) -> Vec<u8> {
    let mut packer = Packer::default();
    for l in links {
        packer.push(l);
    }
    packer.finish(base, nofollow)
}

/// Packs a page's links as they are found, without a copy of each.
#[derive(Debug)]
pub(crate) struct Packer {
    /// Room for the header of a page without `<base>` ([`HEADER`] bytes, filled in by
    /// `finish`), then the links, encoded.
    body: Vec<u8>,
    count: u32,
}

/// The header's length without a `<base>`: the format, the flags and the count of links.
const HEADER: usize = 6;

impl Default for Packer {
    fn default() -> Self {
        Packer::with_capacity(0)
    }
}

impl Packer {
    /// A packer whose buffer holds `bytes` of links before it grows.
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        let mut body = Vec::with_capacity(HEADER + bytes);
        body.resize(HEADER, 0);
        Packer { body, count: 0 }
    }

    /// Adds one link.
    pub(crate) fn push(&mut self, link: &StoredLink<'_>) {
        let raw = &mut self.body;
        put_str(raw, link.value);
        put_u32(raw, u32::try_from(link.line).unwrap_or(u32::MAX));
        put_u32(raw, u32::try_from(link.column).unwrap_or(u32::MAX));
        put_str(raw, link.name);
        raw.push(
            u8::from(link.nofollow)
                | (u8::from(link.padded) << 1)
                | (u8::from(link.undefined_label) << 2),
        );
        self.count = self.count.saturating_add(1);
    }

    /// The blob: the document's `<base>` and robots flag, then the links, compressed. Without
    /// a `<base>` (most pages) the header goes into the room left for it, so the links are
    /// compressed where they were packed, not copied first.
    pub(crate) fn finish(mut self, base: Option<&str>, nofollow: bool) -> Vec<u8> {
        let flags = u8::from(nofollow) | (u8::from(base.is_some()) << 1);
        let Some(b) = base else {
            self.body[0] = FORMAT;
            self.body[1] = flags;
            self.body[2..HEADER].copy_from_slice(&self.count.to_le_bytes());
            return compress(&self.body);
        };
        let links = &self.body[HEADER..];
        let mut raw = Vec::with_capacity(HEADER + 4 + b.len() + links.len());
        raw.push(FORMAT);
        raw.push(flags);
        put_str(&mut raw, b);
        put_u32(&mut raw, self.count);
        raw.extend_from_slice(links);
        compress(&raw)
    }
}

/// `raw` compressed: its length (4 bytes, little-endian), then one LZ4 block. LZ4 rather
/// than deflate: a deflate state zeroes ~300 KB of tables per page, which cost a crawl more
/// than the compression itself.
///
/// The block is written into a buffer kept by the thread from page to page and copied out at
/// its size: `compress_prepend_size` allocates the largest size a block can take and then
/// shrinks it, a second allocation and copy of every blob.
#[cfg(feature = "state")]
fn compress(raw: &[u8]) -> Vec<u8> {
    use lz4_flex::block::{compress_into, compress_prepend_size, get_maximum_output_size};
    use std::cell::RefCell;
    /// Largest block buffer a thread keeps (a page of a few hundred links needs a few KB); a
    /// larger page's block is written into a buffer of its own.
    const KEPT: usize = 256 << 10;
    thread_local! {
        static BLOCK: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let need = get_maximum_output_size(raw.len());
    if need > KEPT {
        return compress_prepend_size(raw);
    }
    BLOCK.with_borrow_mut(|block| {
        if block.len() < need {
            block.resize(need, 0);
        }
        match compress_into(raw, block) {
            Ok(n) => {
                let mut blob = Vec::with_capacity(4 + n);
                blob.extend_from_slice(&u32::try_from(raw.len()).unwrap_or(u32::MAX).to_le_bytes());
                blob.extend_from_slice(&block[..n]);
                blob
            }
            // Cannot happen (the buffer holds the largest block); the library's own way then.
            Err(_) => compress_prepend_size(raw),
        }
    })
}

/// Without the `state` feature nothing is stored: kept as it is.
#[cfg(not(feature = "state"))]
fn compress(raw: &[u8]) -> Vec<u8> {
    let mut out = u32::try_from(raw.len())
        .unwrap_or(u32::MAX)
        .to_le_bytes()
        .to_vec();
    out.extend_from_slice(raw);
    out
}

/// What `compress` made, at most `MAX_INFLATED` bytes (the length is read from the untrusted
/// blob, so it is checked before anything is allocated); `None` for anything else.
fn decompress(blob: &[u8]) -> Option<Vec<u8>> {
    let (len, rest) = blob.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len);
    if u64::from(len) > MAX_INFLATED {
        return None;
    }
    #[cfg(feature = "state")]
    {
        lz4_flex::block::decompress(rest, len as usize).ok()
    }
    #[cfg(not(feature = "state"))]
    {
        (rest.len() == len as usize).then(|| rest.to_vec())
    }
}

/// A cursor over the decompressed bytes; every read is bounds-checked.
#[derive(Debug)]
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.bytes(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        let (head, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_le_bytes(*head))
    }
    /// A text as [`put_str`] wrote it, its bytes not checked.
    fn text(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.bytes(n)
    }
}

/// The page a blob holds, or `None` when it is not one this build wrote. Every link is read
/// here, so a blob that is cut or garbled anywhere is refused whole (and its page fetched in
/// full) before any of its links is considered.
pub(crate) fn unpack(blob: &[u8]) -> Option<PageLinks> {
    let raw = decompress(blob)?;
    let mut r = Reader(&raw);
    if r.u8()? != FORMAT {
        return None;
    }
    let flags = r.u8()?;
    let base = if flags & 2 != 0 {
        Some(std::str::from_utf8(r.text()?).ok()?.to_owned())
    } else {
        None
    };
    let count = r.u32()? as usize;
    // Each link takes at least 13 bytes (its texts apart): a count larger than that is a lie.
    if count > r.0.len() / 13 {
        return None;
    }
    let mut texts = Vec::with_capacity(r.0.len() - count * 13);
    let mut links = Vec::with_capacity(count);
    // `texts` is no longer than `raw`, at most `MAX_INFLATED` bytes: its offsets fit a `u32`.
    let end = |texts: &mut Vec<u8>, text: &[u8]| {
        texts.extend_from_slice(text);
        u32::try_from(texts.len()).ok()
    };
    for _ in 0..count {
        let value_end = end(&mut texts, r.text()?)?;
        let line = r.u32()?;
        let column = r.u32()?;
        let name_end = end(&mut texts, r.text()?)?;
        let flags = r.u8()?;
        links.push(Packed {
            value_end,
            name_end,
            line,
            column,
            flags,
        });
    }
    if !r.0.is_empty() {
        return None;
    }
    // Valid as a whole and cut only between characters: each text is valid on its own.
    let texts = String::from_utf8(texts).ok()?;
    let cut = |at: u32| texts.is_char_boundary(at as usize);
    if !links.iter().all(|p| cut(p.value_end) && cut(p.name_end)) {
        return None;
    }
    Some(PageLinks {
        base,
        nofollow: flags & 1 != 0,
        texts,
        links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<StoredLink<'static>> {
        vec![
            StoredLink {
                value: "a.html#x",
                line: 3,
                column: 14,
                name: "Ä label",
                nofollow: true,
                padded: false,
                undefined_label: false,
            },
            StoredLink {
                value: "",
                line: 9,
                column: 1,
                padded: true,
                ..StoredLink::default()
            },
            StoredLink {
                value: "https://ü.test/ä?q=1",
                line: u32::MAX as usize,
                column: 0,
                name: "",
                nofollow: false,
                padded: true,
                undefined_label: true,
            },
        ]
    }

    #[test]
    fn a_page_survives_the_round_trip() {
        let links = sample();
        let page = unpack(&pack(Some("/docs/"), true, &links)).unwrap();
        assert_eq!(page.base.as_deref(), Some("/docs/"));
        assert!(page.nofollow);
        assert_eq!(page.len(), 3);
        assert_eq!(page.links().size_hint(), (3, Some(3)));
        assert_eq!(page.links().collect::<Vec<_>>(), links);
        // Read again: the page is not used up.
        assert_eq!(page.links().count(), 3);

        let empty = unpack(&pack(None, false, &[])).unwrap();
        assert_eq!(
            (empty.base.as_deref(), empty.nofollow, empty.len()),
            (None, false, 0)
        );
        assert_eq!(empty.links().next(), None);
    }

    /// The bytes a page packs to, with and without a `<base>`, are format 2's as files
    /// already hold them: the header is written in the room left for it, or ahead of a copy.
    #[test]
    fn the_packed_bytes_keep_format_2() {
        let link = |out: &mut Vec<u8>| {
            put_str(out, "a.html#x");
            put_u32(out, 3);
            put_u32(out, 14);
            put_str(out, "Ä label");
            out.push(1);
        };
        let mut plain = vec![FORMAT, 1];
        put_u32(&mut plain, 1);
        link(&mut plain);
        let mut based = vec![FORMAT, 2];
        put_str(&mut based, "/docs/");
        put_u32(&mut based, 1);
        link(&mut based);
        let one = &sample()[..1];
        assert_eq!(decompress(&pack(None, true, one)), Some(plain));
        assert_eq!(decompress(&pack(Some("/docs/"), false, one)), Some(based));
        // A page too large for the thread's kept block buffer is packed the same way.
        let many = vec![sample()[0]; 30_000];
        let page = unpack(&pack(None, false, &many)).unwrap();
        assert_eq!(page.links().collect::<Vec<_>>(), many);
    }

    #[test]
    fn a_cut_or_garbled_blob_is_refused_whole() {
        assert_eq!(unpack(b"not an LZ4 block at all"), None);
        assert_eq!(unpack(b""), None);
        let blob = pack(None, false, &sample());
        for len in 0..blob.len() {
            assert_eq!(unpack(&blob[..len]), None, "cut at {len}");
        }
        // Uncompressed bytes that decompress fine but are not a page: each field wrong in
        // turn (format byte, a text that is not UTF-8, a count that lies, bytes left over).
        let mut packer = Packer::default();
        packer.push(&StoredLink {
            value: "a.html",
            line: 1,
            column: 2,
            name: "x",
            ..StoredLink::default()
        });
        let good = packer.finish(None, false);
        let raw = decompress(&good).unwrap();
        let broken = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut r = raw.clone();
            edit(&mut r);
            unpack(&compress(&r))
        };
        assert!(broken(&|_| {}).is_some(), "the unedited page reads");
        assert_eq!(broken(&|r| r[0] = FORMAT + 1), None);
        // The link's value starts after format, flags, count (6 bytes) and its length (4).
        assert_eq!(broken(&|r| r[10] = 0xff), None);
        assert_eq!(broken(&|r| r[2] = 2), None);
        assert_eq!(broken(&|r| r.push(0)), None);
        assert_eq!(broken(&|r| r.truncate(r.len() - 1)), None);
        // A `<base>` flag with no base after it.
        assert_eq!(broken(&|r| r[1] = 2), None);
        // One character cut in two, its halves the end of a value and the start of its
        // name: the texts together are UTF-8, each on its own is not.
        let mut raw = vec![FORMAT, 0, 1, 0, 0, 0];
        raw.extend([2, 0, 0, 0, b'a', 0xc3]);
        raw.extend([1, 0, 0, 0, 1, 0, 0, 0]);
        raw.extend([2, 0, 0, 0, 0xa4, b'b', 0]);
        assert_eq!(unpack(&compress(&raw)), None);
        raw[11] = b'b';
        raw[24] = b'a';
        let whole = unpack(&compress(&raw)).unwrap();
        let link = whole.links().next().unwrap();
        assert_eq!((link.value, link.name, link.line), ("ab", "ab", 1));
    }
}
