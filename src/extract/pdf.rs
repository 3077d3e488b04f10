//! PDF files, as LinkChecker's PdfParser reads them: the link annotations of each page, a
//! `URI` action's URI, and the file or URL a `GoToR` or `Launch` action names. Each link's
//! `line` is its page number and its name the annotation's `Contents`, when it has one.
//!
//! Pure: bytes in, links out, with lopdf doing the parsing. Bounded: the document is loaded
//! within the budgets of [`pdf_load`](super::pdf_load) (a stream may decompress to at most
//! [`MAX_STREAM`](super::pdf_load::MAX_STREAM) bytes, the object streams to
//! [`MAX_DECODED`](super::pdf_load::MAX_DECODED) in all, and at most
//! [`MAX_OBJECTS`](super::pdf_load::MAX_OBJECTS) objects are loaded); each page and each `/Annots` array is visited once, at
//! most [`MAX_ANNOTATIONS`] annotations are examined, at most [`MAX_LINKS`] links and
//! [`MAX_TEXT`] bytes of their text are read (a spent budget keeps the links read before it);
//! and a parser panic on a hostile file is caught and reported like any unreadable file, never
//! passed on.

use std::collections::HashSet;

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::{RawLink, label};

/// The most links read from one PDF.
pub(crate) const MAX_LINKS: usize = 100_000;
/// The most annotations of one PDF examined for links.
pub(crate) const MAX_ANNOTATIONS: usize = 250_000;
/// The most bytes of link targets read from one PDF, in all.
pub(crate) const MAX_TEXT: usize = 32 << 20;
/// The most bytes of an annotation's `Contents` decoded for its link's name.
const MAX_CONTENTS: usize = 4096;

/// The links of a PDF file, and why not all of them could be read, if so.
pub fn extract_pdf(body: &[u8]) -> (Vec<RawLink>, Option<String>) {
    std::panic::catch_unwind(|| links_of(body))
        .unwrap_or_else(|_| (Vec::new(), Some("the PDF parser gave up on it".to_owned())))
}

fn links_of(body: &[u8]) -> (Vec<RawLink>, Option<String>) {
    let doc = match super::pdf_load::load(body) {
        Ok(doc) => doc,
        Err(why) => return (Vec::new(), Some(why)),
    };
    let mut walk = Walk::default();
    let trouble = walk.pages(&doc).err();
    (walk.links, trouble)
}

/// The walk over a document's pages: what it has seen and spent.
#[derive(Default)]
struct Walk {
    links: Vec<RawLink>,
    pages: HashSet<ObjectId>,
    arrays: HashSet<ObjectId>,
    annotations: usize,
    text: usize,
}

impl Walk {
    /// Reads the link annotations of every page, each page and `/Annots` array once; `Err`
    /// names the budget that stopped it.
    fn pages(&mut self, doc: &Document) -> Result<(), String> {
        // lopdf numbers the pages as it meets them, a page listed twice included.
        for (index, page) in doc.page_iter().enumerate() {
            if !self.pages.insert(page) {
                continue;
            }
            let Ok(dict) = doc.get_dictionary(page) else {
                continue;
            };
            let annotations = match dict.get(b"Annots") {
                Ok(Object::Reference(id)) if !self.arrays.insert(*id) => continue,
                Ok(annots) => deref(doc, annots).and_then(|a| a.as_array().ok()),
                Err(_) => None,
            };
            for annotation in annotations.into_iter().flatten() {
                self.annotations += 1;
                if self.annotations > MAX_ANNOTATIONS {
                    return Err(format!(
                        "it has more than {MAX_ANNOTATIONS} annotations; the links after them \
                         were not read"
                    ));
                }
                let Some(annotation) = deref(doc, annotation).and_then(|a| a.as_dict().ok()) else {
                    continue;
                };
                let Some(link) = link_of(doc, annotation, index + 1) else {
                    continue;
                };
                self.text += link.value.len();
                if self.links.len() == MAX_LINKS || self.text > MAX_TEXT {
                    return Err(format!(
                        "it has more than {MAX_LINKS} links or {MAX_TEXT} bytes of link \
                         targets; the links after them were not read"
                    ));
                }
                self.links.push(link);
            }
        }
        Ok(())
    }
}

/// The link of one annotation, if it is a link annotation whose action names one.
fn link_of(doc: &Document, annotation: &Dictionary, page: usize) -> Option<RawLink> {
    if annotation.get(b"Subtype").and_then(Object::as_name).ok()? != b"Link" {
        return None;
    }
    let action = deref(doc, annotation.get(b"A").ok()?)?.as_dict().ok()?;
    let kind = action.get(b"S").and_then(Object::as_name).ok()?;
    let (target, attr) = match kind {
        b"URI" => (text(doc, action.get(b"URI").ok()?)?, "uri"),
        b"GoToR" | b"Launch" => (file_of(doc, action.get(b"F").ok()?)?, "file"),
        _ => return None,
    };
    let target = target.trim().to_owned();
    if target.is_empty() {
        return None;
    }
    let mut link = RawLink::plain(target, "pdf", attr, (page, 1));
    if let Some(contents) = annotation.get(b"Contents").ok().and_then(|c| head(doc, c)) {
        link.name = label(&contents);
    }
    Some(link)
}

/// A file specification: a string, or a dictionary's `UF` (Unicode) or `F` entry.
fn file_of(doc: &Document, spec: &Object) -> Option<String> {
    match deref(doc, spec)? {
        Object::Dictionary(d) => d
            .get(b"UF")
            .or_else(|_| d.get(b"F"))
            .ok()
            .and_then(|f| text(doc, f)),
        other => text(doc, other),
    }
}

/// A text string (PDFDocEncoding, or UTF-16 with its byte-order mark).
fn text(doc: &Document, object: &Object) -> Option<String> {
    lopdf::decode_text_string(deref(doc, object)?).ok()
}

/// The start of a text string, [`MAX_CONTENTS`] bytes at most: enough for a link's name.
fn head(doc: &Document, object: &Object) -> Option<String> {
    match deref(doc, object)? {
        Object::String(bytes, format) if bytes.len() > MAX_CONTENTS => {
            let cut = Object::String(bytes[..MAX_CONTENTS].to_vec(), *format);
            lopdf::decode_text_string(&cut).ok()
        }
        other => lopdf::decode_text_string(other).ok(),
    }
}

/// The object itself, or what a reference points to.
fn deref<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, o)| o)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lopdf::{Stream, dictionary};

    /// A PDF of one page per entry of `pages`, each with link annotations `(action, contents)`.
    pub(crate) fn pdf(pages: &[Vec<(Dictionary, Option<&str>)>]) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let mut kids = Vec::new();
        for links in pages {
            let content = doc.add_object(Stream::new(dictionary! {}, b"BT ET".to_vec()));
            let mut annots = Vec::new();
            for (action, contents) in links {
                let mut annot = dictionary! {
                    "Type" => "Annot",
                    "Subtype" => "Link",
                    "Rect" => vec![0.into(), 0.into(), 10.into(), 10.into()],
                    "A" => action.clone(),
                };
                if let Some(c) = contents {
                    annot.set("Contents", Object::string_literal(*c));
                }
                annots.push(doc.add_object(annot).into());
            }
            let page = doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "Contents" => content,
                "Annots" => annots,
            });
            kids.push(page.into());
        }
        let count = kids.len() as i64;
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages",
                "Kids" => kids,
                "Count" => count,
                "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
            }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    /// A `URI` action.
    pub(crate) fn uri(url: &str) -> Dictionary {
        dictionary! { "S" => "URI", "URI" => Object::string_literal(url) }
    }

    #[test]
    fn link_annotations_are_read_with_their_page_and_contents() {
        let remote = dictionary! { "S" => "GoToR", "F" => Object::string_literal("other.pdf") };
        let body = pdf(&[
            vec![(uri("https://example.test/a"), Some("  the\n  spec "))],
            vec![],
            vec![(remote, None), (dictionary! { "S" => "GoTo" }, None)],
        ]);
        let (links, trouble) = extract_pdf(&body);
        assert_eq!(trouble, None);
        let got: Vec<(&str, usize, &str, &str)> = links
            .iter()
            .map(|l| (l.value.as_str(), l.line, l.name.as_str(), l.attr))
            .collect();
        assert_eq!(
            got,
            [
                ("https://example.test/a", 1, "the spec", "uri"),
                ("other.pdf", 3, "", "file"),
            ]
        );
    }

    #[test]
    fn a_pdf_with_object_and_cross_reference_streams_is_read() {
        let plain = pdf(&[vec![(uri("https://example.test/a"), Some("the spec"))]]);
        let mut doc = Document::load_mem(&plain).unwrap();
        let mut modern = Vec::new();
        doc.save_modern(&mut modern).unwrap();
        assert!(modern.windows(7).any(|w| w == b"/ObjStm"));
        let (links, trouble) = extract_pdf(&modern);
        assert_eq!(trouble, None);
        assert_eq!(links.len(), 1);
        assert_eq!(
            (links[0].value.as_str(), links[0].name.as_str()),
            ("https://example.test/a", "the spec")
        );
    }

    #[test]
    fn a_long_annotation_text_is_capped_as_a_links_text_is() {
        let long = "word ".repeat(200);
        let body = pdf(&[vec![(uri("https://example.test/"), Some(long.as_str()))]]);
        let (links, _) = extract_pdf(&body);
        assert_eq!(links[0].name.chars().count(), 256);
    }

    #[test]
    fn a_broken_pdf_is_an_error_not_a_panic() {
        assert!(extract_pdf(b"%PDF-1.4\nnot really").1.is_some());
        assert!(extract_pdf(b"").1.is_some());
        let mut cut = pdf(&[vec![(uri("https://example.test/"), None)]]);
        cut.truncate(cut.len() / 3);
        // Lenient parsing may recover some objects; either way no panic escapes.
        let _ = extract_pdf(&cut);
    }
}
