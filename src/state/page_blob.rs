//! A parsed page's links packed into one blob (one row per page, not one per link): the
//! document's `<base>` and robots flag, then each link as written with its line, column,
//! label and flags, compressed (LZ4). Read back with caps, as the file is untrusted.

/// The blob format's first byte.
const FORMAT: u8 = 2;

/// Most bytes a blob may decompress to (a page of 200,000 links is about 10 MB).
const MAX_INFLATED: u64 = 64 << 20;

/// One link of a stored page, as the extractor gave it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct StoredLink {
    pub(crate) value: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) name: String,
    pub(crate) nofollow: bool,
    pub(crate) padded: bool,
}

/// Everything a page's links need to be considered again without the page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct PageLinks {
    /// `<base href>` as written.
    pub(crate) base: Option<String>,
    /// `<meta name=robots content=nofollow>`.
    pub(crate) nofollow: bool,
    pub(crate) links: Vec<StoredLink>,
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, u32::try_from(s.len()).unwrap_or(u32::MAX));
    out.extend_from_slice(&s.as_bytes()[..s.len().min(u32::MAX as usize)]);
}

fn put_u32(out: &mut Vec<u8>, n: u32) {
    out.extend_from_slice(&n.to_le_bytes());
}

/// Packs `page` into a blob (the tests' way; a crawl packs as it goes, with [`Packer`]).
#[cfg(test)]
pub(crate) fn pack(page: &PageLinks) -> Vec<u8> {
    let mut packer = Packer::default();
    for l in &page.links {
        packer.push(&l.value, l.line, l.column, &l.name, l.nofollow, l.padded);
    }
    packer.finish(page.base.as_deref(), page.nofollow)
}

/// Packs a page's links as they are found, without a copy of each.
#[derive(Debug, Default)]
pub(crate) struct Packer {
    /// The links, encoded.
    body: Vec<u8>,
    count: u32,
}

impl Packer {
    /// A packer whose buffer holds `bytes` before it grows.
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        Packer {
            body: Vec::with_capacity(bytes),
            count: 0,
        }
    }

    /// Adds one link.
    pub(crate) fn push(
        &mut self,
        value: &str,
        line: usize,
        column: usize,
        name: &str,
        nofollow: bool,
        padded: bool,
    ) {
        let raw = &mut self.body;
        put_str(raw, value);
        put_u32(raw, u32::try_from(line).unwrap_or(u32::MAX));
        put_u32(raw, u32::try_from(column).unwrap_or(u32::MAX));
        put_str(raw, name);
        raw.push(u8::from(nofollow) | (u8::from(padded) << 1));
        self.count = self.count.saturating_add(1);
    }

    /// The blob: the document's `<base>` and robots flag, then the links, compressed.
    pub(crate) fn finish(self, base: Option<&str>, nofollow: bool) -> Vec<u8> {
        let mut raw = Vec::with_capacity(16 + base.map_or(0, str::len) + self.body.len());
        raw.push(FORMAT);
        raw.push(u8::from(nofollow) | (u8::from(base.is_some()) << 1));
        if let Some(b) = base {
            put_str(&mut raw, b);
        }
        put_u32(&mut raw, self.count);
        raw.extend_from_slice(&self.body);
        compress(&raw)
    }
}

/// `raw` compressed: its length (4 bytes, little-endian), then one LZ4 block. LZ4 rather
/// than deflate: a deflate state zeroes ~300 KB of tables per page, which cost a crawl more
/// than the compression itself.
#[cfg(feature = "state")]
fn compress(raw: &[u8]) -> Vec<u8> {
    lz4_flex::block::compress_prepend_size(raw)
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
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.bytes(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.bytes(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn string(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.bytes(n)?).ok().map(str::to_owned)
    }
}

/// The page a blob holds, or `None` when it is not one this build wrote.
pub(crate) fn unpack(blob: &[u8]) -> Option<PageLinks> {
    let raw = decompress(blob)?;
    let mut r = Reader(&raw);
    if r.u8()? != FORMAT {
        return None;
    }
    let flags = r.u8()?;
    let base = if flags & 2 != 0 {
        Some(r.string()?)
    } else {
        None
    };
    let count = r.u32()? as usize;
    // Each link takes at least 13 bytes: a count larger than that is a lie.
    if count > r.0.len() / 13 {
        return None;
    }
    let mut links = Vec::with_capacity(count);
    for _ in 0..count {
        let value = r.string()?;
        let line = r.u32()? as usize;
        let column = r.u32()? as usize;
        let name = r.string()?;
        let f = r.u8()?;
        links.push(StoredLink {
            value,
            line,
            column,
            name,
            nofollow: f & 1 != 0,
            padded: f & 2 != 0,
        });
    }
    r.0.is_empty().then_some(PageLinks {
        base,
        nofollow: flags & 1 != 0,
        links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_survives_the_round_trip_and_junk_is_refused() {
        let page = PageLinks {
            base: Some("/docs/".into()),
            nofollow: true,
            links: vec![
                StoredLink {
                    value: "a.html#x".into(),
                    line: 3,
                    column: 14,
                    name: "Ä label".into(),
                    nofollow: true,
                    padded: false,
                },
                StoredLink {
                    value: String::new(),
                    line: 9,
                    column: 1,
                    padded: true,
                    ..StoredLink::default()
                },
            ],
        };
        let blob = pack(&page);
        assert_eq!(unpack(&blob), Some(page));
        assert_eq!(unpack(b"not an LZ4 block at all"), None);
        let mut cut = blob.clone();
        cut.truncate(blob.len() / 2);
        assert_eq!(unpack(&cut), None);
    }
}
