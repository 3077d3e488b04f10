//! Loading an untrusted PDF within budgets for the whole document. lopdf bounds each stream it
//! decompresses ([`MAX_STREAM`]) but keeps every object of every object stream, and parsing
//! a small stream of `0 0 0 …` makes objects many times its size. Its load filter sees each
//! object stream before lopdf parses it: the filter decompresses it against the document's
//! [`MAX_DECODED`], counts its tokens (an upper bound on the objects lopdf will make of it)
//! against [`MAX_OBJECTS`], and refuses a stream whose members overlap (each would be parsed
//! again). Other objects are counted as they load. A budget spent stops the load at once.
//!
//! Encrypted PDFs are not read: lopdf loads them without the filter, so nothing would count.

use std::cell::RefCell;
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use lopdf::{Document, LoadOptions, Object, ObjectId, xref::XrefRecovery};

/// The most bytes one stream of the PDF may decompress to.
pub(crate) const MAX_STREAM: usize = 16 << 20;
/// The most bytes the object streams of one PDF may decompress to in all.
pub(crate) const MAX_DECODED: usize = 64 << 20;
/// The most objects loaded from one PDF, the elements of arrays and dictionaries included
/// (an object stream's are counted as its tokens before it is parsed).
pub(crate) const MAX_OBJECTS: usize = 2_000_000;

/// Why a PDF was not loaded: the text of a `document-unreadable` warning.
pub(crate) type Refusal = String;

/// A budget spent while loading: unwinds out of lopdf, whose filter cannot fail a load.
struct Spent(String);

/// What the load of the current thread has spent so far.
#[derive(Default)]
struct Tally {
    objects: usize,
    decoded: usize,
    /// The members of the object stream just read, counted with it: lopdf hands them to the
    /// filter next, each once.
    members: HashSet<u32>,
}

thread_local! {
    static TALLY: RefCell<Tally> = RefCell::default();
}

/// The document in `body`, loaded within the budgets.
pub(crate) fn load(body: &[u8]) -> Result<Document, Refusal> {
    if names_encrypt(body) {
        return Err(
            "it is encrypted, and linkpatrol cannot count an encrypted PDF's objects \
             while it loads them"
                .to_owned(),
        );
    }
    let doc = load_once(body, false)?;
    // lopdf rebuilds a damaged cross-reference table itself only when no filter is given.
    if doc.xref_recovery != Some(XrefRecovery::Reconstructed) && !page_tree_loaded(&doc) {
        drop(doc);
        return load_once(body, true);
    }
    Ok(doc)
}

fn load_once(body: &[u8], reconstruct: bool) -> Result<Document, Refusal> {
    TALLY.with(|t| *t.borrow_mut() = Tally::default());
    let options = LoadOptions {
        filter: Some(count),
        max_decompressed_size: Some(MAX_STREAM),
        force_reconstruct: reconstruct,
        ..LoadOptions::default()
    };
    let loaded = catch_unwind(AssertUnwindSafe(|| {
        Document::load_mem_with_options(body, options)
    }));
    TALLY.with(|t| *t.borrow_mut() = Tally::default());
    match loaded {
        Ok(doc) => doc.map_err(|e| e.to_string()),
        Err(payload) => match payload.downcast::<Spent>() {
            Ok(spent) => Err(spent.0),
            Err(other) => resume_unwind(other),
        },
    }
}

/// Whether the file names `/Encrypt` anywhere (`#` escapes decoded), as an encrypted PDF's
/// trailer or cross-reference stream does: neither is ever compressed.
fn names_encrypt(body: &[u8]) -> bool {
    let mut at = 0;
    while let Some(slash) = body[at..].iter().position(|&b| b == b'/') {
        at += slash + 1;
        let mut name = Vec::new();
        while at < body.len() && name.len() <= 8 && !b" \t\r\n\x0c\0()<>[]{}/%".contains(&body[at])
        {
            if body[at] == b'#'
                && let Some(hex) = body.get(at + 1..at + 3)
                && let Ok(byte) = u8::from_str_radix(&String::from_utf8_lossy(hex), 16)
            {
                name.push(byte);
                at += 3;
            } else {
                name.push(body[at]);
                at += 1;
            }
        }
        if name == b"Encrypt" {
            return true;
        }
    }
    false
}

/// Whether the catalog leads to a page tree, as lopdf checks before it rebuilds.
fn page_tree_loaded(doc: &Document) -> bool {
    doc.catalog()
        .and_then(|c| c.get(b"Pages"))
        .and_then(Object::as_reference)
        .and_then(|root| doc.get_dictionary(root))
        .and_then(|root| root.get_deref(b"Kids", doc))
        .and_then(Object::as_array)
        .is_ok()
}

/// The load filter: every object passes, counted; an object stream is decompressed and
/// counted first. A budget spent unwinds with [`Spent`].
fn count(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    let member = TALLY.with(|t| {
        let mut tally = t.borrow_mut();
        if let Object::Stream(stream) = object
            && stream.dict.has_type(b"ObjStm")
        {
            return object_stream(&mut tally, stream).then_some(false);
        }
        if tally.members.remove(&id.0) {
            return Some(true);
        }
        tally.members.clear();
        tally.objects += size(object);
        if tally.objects > MAX_OBJECTS {
            spend(format!("it has more than {MAX_OBJECTS} objects"));
        }
        Some(false)
    })?;
    // lopdf keeps what is returned for a stream's member and `object` itself for any other
    // object (what is returned is dropped): neither is copied.
    let kept = if member {
        std::mem::replace(object, Object::Null)
    } else {
        Object::Null
    };
    Some((id, kept))
}

/// Decompresses an object stream in place and counts its members' tokens; `false` drops a
/// stream whose members overlap or that cannot be read (lopdf would skip it too).
fn object_stream(tally: &mut Tally, stream: &mut lopdf::Stream) -> bool {
    tally.members.clear();
    let room = MAX_DECODED - tally.decoded;
    let content = match stream.get_plain_content_with_limit(MAX_STREAM.min(room)) {
        Ok(content) => content,
        Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. })) => {
            spend(if room < MAX_STREAM {
                format!("its object streams decompress to more than {MAX_DECODED} bytes")
            } else {
                format!("an object stream decompresses to more than {MAX_STREAM} bytes")
            })
        }
        Err(_) => return false,
    };
    tally.decoded += content.len();
    let first = stream.dict.get(b"First").and_then(Object::as_i64).ok();
    let Some(members) = first.and_then(|f| members(&content, f)) else {
        return false;
    };
    let mut tokens = 0;
    for (at, (number, offset)) in members.iter().enumerate() {
        let end = members.get(at + 1).map_or(content.len(), |next| next.1);
        let Some(n) = balanced_tokens(&content[*offset..end]) else {
            return false;
        };
        tokens += n;
        tally.members.insert(*number);
    }
    tally.objects += tokens;
    if tally.objects > MAX_OBJECTS {
        spend(format!("it has more than {MAX_OBJECTS} objects"));
    }
    stream.set_plain_content(content);
    true
}

/// The members of an object stream's content, `(number, offset)` by offset, from its header
/// (`N1 offset1 N2 offset2 …` before `first`); `None` when two share an offset or one lies
/// outside the content.
fn members(content: &[u8], first: i64) -> Option<Vec<(u32, usize)>> {
    let first = usize::try_from(first).ok()?;
    let header = std::str::from_utf8(content.get(..first)?).ok()?;
    let numbers: Vec<usize> = header
        .split_ascii_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let mut members = Vec::with_capacity(numbers.len() / 2);
    for pair in numbers.chunks_exact(2) {
        let offset = first.checked_add(pair[1])?;
        if offset >= content.len() {
            return None;
        }
        members.push((u32::try_from(pair[0]).ok()?, offset));
    }
    members.sort_unstable_by_key(|m| m.1);
    if members.windows(2).any(|w| w[0].1 == w[1].1) {
        return None;
    }
    Some(members)
}

/// The tokens of one member's text, when its arrays and dictionaries close inside it (so
/// lopdf's parse of it stops there too); `None` otherwise.
fn balanced_tokens(text: &[u8]) -> Option<usize> {
    let (mut tokens, mut depth, mut at) = (0usize, 0usize, 0);
    let regular = |b: u8| !b" \t\r\n\x0c\0()<>[]{}/%".contains(&b);
    while at < text.len() {
        let b = text[at];
        at += 1;
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0' => continue,
            b'%' => {
                while at < text.len() && !matches!(text[at], b'\r' | b'\n') {
                    at += 1;
                }
                continue;
            }
            b'[' => depth += 1,
            b'<' if text.get(at) == Some(&b'<') => {
                at += 1;
                depth += 1;
            }
            b']' => depth = depth.checked_sub(1)?,
            b'>' if text.get(at) == Some(&b'>') => {
                at += 1;
                depth = depth.checked_sub(1)?;
            }
            b'<' => at += text[at..].iter().position(|&c| c == b'>')? + 1,
            b'(' => at = string_end(text, at)?,
            b'/' => {
                while at < text.len() && regular(text[at]) {
                    at += 1;
                }
            }
            _ => {
                while at < text.len() && regular(text[at]) {
                    at += 1;
                }
            }
        }
        tokens += 1;
    }
    (depth == 0).then_some(tokens)
}

/// Where the literal string opened before `at` ends (after its `)`), nesting and escapes
/// followed.
fn string_end(text: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The objects `object` is made of: itself and everything inside (a stream's dictionary, not
/// its content).
fn size(object: &Object) -> usize {
    match object {
        Object::Array(items) => 1 + items.iter().map(size).sum::<usize>(),
        Object::Dictionary(dict) => 1 + dict.iter().map(|(_, v)| 1 + size(v)).sum::<usize>(),
        Object::Stream(stream) => 1 + size_of_dict(&stream.dict),
        _ => 1,
    }
}

fn size_of_dict(dict: &lopdf::Dictionary) -> usize {
    dict.iter().map(|(_, v)| 1 + size(v)).sum()
}

/// Stops the load: unwinds to [`load_once`] without the panic hook's message.
fn spend(why: String) -> ! {
    resume_unwind(Box::new(Spent(why)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PDF of a catalog (object 1) and an uncompressed object stream of `members`
    /// (number, offset) over `text`.
    fn with_object_stream(members: &[(u32, usize)], text: &str) -> Vec<u8> {
        let header: String = members.iter().map(|(n, o)| format!("{n} {o} ")).collect();
        let stream = format!(
            "<< /Type /ObjStm /N {} /First {} /Length {} >>\nstream\n{header}{text}\nendstream",
            members.len(),
            header.len(),
            header.len() + text.len()
        );
        let mut out = b"%PDF-1.5\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in ["<< /Type /Catalog /Pages 3 0 R >>", &stream]
            .iter()
            .enumerate()
        {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
        }
        let xref = out.len();
        out.extend_from_slice(b"xref\n0 3\n0000000000 65535 f \n");
        for o in offsets {
            out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
        }
        let trailer = format!("trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n");
        out.extend_from_slice(trailer.as_bytes());
        out
    }

    #[test]
    fn object_streams_are_counted_and_overlapping_ones_dropped() {
        let pages = "<< /Type /Pages /Kids [] /Count 0 >>";
        let doc = load(&with_object_stream(&[(3, 0)], pages)).unwrap();
        assert!(doc.get_dictionary((3, 0)).is_ok());
        // Member 4 starts inside member 3's array: each would be parsed again.
        let doc = load(&with_object_stream(&[(3, 0), (4, 1)], "[[0 0 0]]")).unwrap();
        assert!(doc.get_object((3, 0)).is_err() && doc.get_object((4, 0)).is_err());
        let many = format!("[{}]", "0 ".repeat(MAX_OBJECTS));
        let why = load(&with_object_stream(&[(3, 0)], &many)).unwrap_err();
        assert!(why.contains("more than 2000000 objects"), "{why}");
    }

    #[test]
    fn an_encrypted_pdf_is_not_loaded() {
        let mut pdf = with_object_stream(&[(3, 0)], "null");
        let at = pdf.windows(5).position(|w| w == b"/Root").unwrap();
        pdf.splice(at..at, b"/Encr#79pt 9 0 R ".iter().copied());
        assert!(load(&pdf).unwrap_err().contains("encrypted"));
        assert!(!names_encrypt(b"/EncryptMetadata true /Encrypted"));
    }

    #[test]
    fn tokens_are_counted_and_overlap_is_refused() {
        assert_eq!(balanced_tokens(b"<</A [1 2 3] /B (x)y)>>"), Some(12));
        assert_eq!(balanced_tokens(b"<</A [1 2 3 >>"), None);
        assert_eq!(balanced_tokens(b"<</A [1 2 3] /B (x\\)y)>>"), Some(10));
        assert_eq!(balanced_tokens(b"[0 0 0"), None);
        assert_eq!(balanced_tokens(b"5 0 R % a comment [\n"), Some(3));
        assert_eq!(balanced_tokens(b"<00ff> /N#41me"), Some(2));
        assert_eq!(members(b"1 0 2 0 x", 8), None);
        assert_eq!(members(b"2 2 1 0 xyz", 8), Some(vec![(1, 8), (2, 10)]));
    }
}
