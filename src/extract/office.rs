//! Office documents: the hyperlinks of Office Open XML files (`.docx`, `.xlsx`, `.pptx`: the
//! external `hyperlink` relationships each part references by `r:id`, not every one its
//! `.rels` lists, as pandoc repeats a document's in `footnotes.xml.rels`; and a Word part's
//! `HYPERLINK` field codes, see `ooxml_part`) and of OpenDocument files (`.odt`, `.ods`, `.odp`:
//! `text:a`, `draw:a` and a slide shape's click action, `presentation:event-listener`, in
//! `content.xml` and in `styles.xml`, which holds the page headers and footers). Each link's
//! `line` is its part's number (slide or sheet; 1 for a text document and for `styles.xml`) and
//! its name says the part (`slide 3`) or holds the link's text. An OpenDocument's relative
//! links resolve against the package as a folder ([`OfficeLinks::open_document`]).
//!
//! Pure: bytes in, links out. The archive is read in memory, never unpacked to disk (so no
//! path inside it can reach a file), and bounded: at most [`MAX_ENTRIES`] entries, each part
//! read up to [`MAX_PART`] bytes and [`MAX_TOTAL`] in all (relationships, parts, `content.xml`
//! and `styles.xml` alike), so a zip bomb costs a bounded read; at most [`MAX_LINKS`] links are
//! read (as from a PDF; relationships and fields together), a field's instruction is read up to
//! 16 KiB, and a part is named by at most
//! [`MAX_KIND`] characters of its file name, so a long part name is not copied into every link.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::ooxml_part::scan_part;
use super::{RawLink, label};

/// The most entries of an archive looked at.
pub(crate) const MAX_ENTRIES: usize = 20_000;
/// The most bytes of one part read (a part beyond it is read up to it).
pub(crate) const MAX_PART: u64 = 16 << 20;
/// The most bytes read from one archive in all.
pub(crate) const MAX_TOTAL: u64 = 64 << 20;
/// The most links read from one document, as from one PDF.
pub(crate) const MAX_LINKS: usize = super::pdf::MAX_LINKS;
/// The most characters of a part's kind (`slide`, `sheet`) in its links' names.
pub(crate) const MAX_KIND: usize = 32;

/// Why an Office document's links could not all be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OfficeTrouble {
    /// Not a readable zip archive.
    NotAnArchive(String),
    /// A part, or the archive, was larger than the bounds: links past them are not read.
    TooLarge,
    /// More than `MAX_LINKS` (100,000) links: the first ones are kept.
    TooManyLinks,
}

impl std::fmt::Display for OfficeTrouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OfficeTrouble::NotAnArchive(why) => write!(f, "not a readable archive ({why})"),
            OfficeTrouble::TooLarge => {
                f.write_str("larger than linkpatrol reads; the links past its bounds were not read")
            }
            OfficeTrouble::TooManyLinks => write!(
                f,
                "more than {MAX_LINKS} links; the links past the first {MAX_LINKS} were not read"
            ),
        }
    }
}

/// The links of an Office document and what kept some from being read, if anything.
#[derive(Debug, Default)]
pub struct OfficeLinks {
    /// The links, part by part.
    pub links: Vec<RawLink>,
    /// Why some links were not read.
    pub trouble: Option<OfficeTrouble>,
    /// An OpenDocument package: its relative links resolve against the document as if it were
    /// a folder (ODF 1.2 part 3 §3.7), so `../x` is a file next to it.
    pub open_document: bool,
}

/// What of an archive is read for links.
enum Unit {
    /// An OpenDocument part (`content.xml`, `styles.xml`).
    OpenDocument(String),
    /// An Office Open XML part, read for the relationships it references and its fields, and
    /// its relationships file.
    Part { part: String, rels: Option<String> },
}

/// The archive being read and what is left of its byte budget.
struct Package<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    budget: u64,
    trouble: Option<OfficeTrouble>,
}

impl Package<'_> {
    /// The bytes of the entry `name`, within the part's and the archive's bounds; `None` when
    /// it cannot be read.
    fn read(&mut self, name: &str) -> Option<Vec<u8>> {
        if self.budget == 0 {
            self.trouble = Some(OfficeTrouble::TooLarge);
            return None;
        }
        let entry = self.archive.by_name(name).ok()?;
        let limit = MAX_PART.min(self.budget);
        let mut bytes = Vec::new();
        if entry.take(limit + 1).read_to_end(&mut bytes).is_err() {
            self.trouble = Some(OfficeTrouble::NotAnArchive(format!("cannot read {name}")));
            return None;
        }
        if bytes.len() as u64 > limit {
            bytes.truncate(limit as usize);
            self.trouble = Some(OfficeTrouble::TooLarge);
        }
        self.budget -= bytes.len() as u64;
        Some(bytes)
    }
}

/// A reader that counts the bytes read through it and remembers a failed read.
struct Counted<R> {
    inner: R,
    read: u64,
    failed: bool,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf).inspect_err(|_| self.failed = true)?;
        self.read += n as u64;
        Ok(n)
    }
}

impl Package<'_> {
    /// Streams the entry `name` through `read`, within the same bounds as [`Package::read`]
    /// (the bytes `read` consumes are charged): a large part is not held in memory whole.
    fn stream<T>(&mut self, name: &str, read: impl FnOnce(&mut dyn BufRead) -> T) -> Option<T> {
        if self.budget == 0 {
            self.trouble = Some(OfficeTrouble::TooLarge);
            return None;
        }
        let mut entry = self.archive.by_name(name).ok()?;
        let limit = MAX_PART.min(self.budget);
        let mut counted = Counted {
            inner: (&mut entry).take(limit),
            read: 0,
            failed: false,
        };
        let out = read(&mut BufReader::new(&mut counted));
        let (consumed, failed) = (counted.read, counted.failed);
        if failed {
            self.trouble = Some(OfficeTrouble::NotAnArchive(format!("cannot read {name}")));
        } else if consumed == limit && entry.read(&mut [0]).is_ok_and(|n| n > 0) {
            self.trouble = Some(OfficeTrouble::TooLarge);
        }
        self.budget -= consumed;
        Some(out)
    }
}

/// The hyperlinks of an Office document, and what kept some from being read, if anything.
pub fn extract_office(body: &[u8]) -> OfficeLinks {
    let archive = match zip::ZipArchive::new(Cursor::new(body)) {
        Ok(a) => a,
        Err(e) => {
            return OfficeLinks {
                trouble: Some(OfficeTrouble::NotAnArchive(e.to_string())),
                ..OfficeLinks::default()
            };
        }
    };
    let names: Vec<String> = archive
        .file_names()
        .take(MAX_ENTRIES)
        .filter_map(Result::ok)
        .map(|n| n.into_owned())
        .collect();
    let units = units(&names);
    let present: HashSet<&str> = names.iter().map(String::as_str).collect();
    let mut package = Package {
        archive,
        budget: MAX_TOTAL,
        trouble: None,
    };
    let mut out = OfficeLinks::default();
    for unit in units {
        let room = MAX_LINKS - out.links.len();
        let mut found = match unit {
            Unit::OpenDocument(name) => {
                out.open_document = true;
                match package.read(&name) {
                    Some(bytes) => open_document_links(&bytes, room + 1),
                    None => Vec::new(),
                }
            }
            Unit::Part { part, rels } => {
                let exists = present.contains(part.as_str());
                part_links(&mut package, &part, exists, rels.as_deref(), room)
            }
        };
        if found.len() > room {
            found.truncate(room);
            out.links.extend(found);
            package.trouble = Some(OfficeTrouble::TooManyLinks);
            break;
        }
        out.links.extend(found);
        if package.budget == 0 {
            package.trouble = Some(OfficeTrouble::TooLarge);
            break;
        }
    }
    out.trouble = package.trouble;
    out
}

/// What of an archive whose entries are `names` is read: OpenDocument's `content.xml` and
/// `styles.xml` (headers and footers), then each Office Open XML part with a relationships
/// file or in `word/` (which may hold fields), slides, sheets and headers in their numbers'
/// order, whatever the archive's.
fn units(names: &[String]) -> Vec<Unit> {
    let mut units: Vec<Unit> = ["content.xml", "styles.xml"]
        .into_iter()
        .filter(|n| names.iter().any(|name| name == n))
        .map(|n| Unit::OpenDocument(n.to_owned()))
        .collect();
    let mut parts: Vec<(String, Option<String>)> = Vec::new();
    for name in names {
        if let Some(part) = part_of_rels(name) {
            parts.push((part, Some(name.clone())));
        }
    }
    let listed: HashSet<String> = parts.iter().map(|(p, _)| p.clone()).collect();
    for name in names {
        if name.starts_with("word/")
            && name.ends_with(".xml")
            && !name.contains("_rels/")
            && !listed.contains(name)
        {
            parts.push((name.clone(), None));
        }
    }
    // The package's own relationships (`_rels/.rels`) name its parts, not links.
    parts.retain(|(part, _)| part_of(part).is_some_and(|(kind, _)| !kind.is_empty()));
    parts.sort_by_key(|(part, _)| part_of(part).map(|(kind, number)| (kind.to_owned(), number)));
    units.extend(
        parts
            .into_iter()
            .map(|(part, rels)| Unit::Part { part, rels }),
    );
    units
}

/// The part a relationships file is about: `word/_rels/document.xml.rels` →
/// `word/document.xml`; `None` for another name.
fn part_of_rels(name: &str) -> Option<String> {
    let stem = name.strip_suffix(".rels")?;
    let (dir, file) = stem.rsplit_once("_rels/")?;
    (dir.is_empty() || dir.ends_with('/')).then(|| format!("{dir}{file}"))
}

/// The links of one Office Open XML part: the external hyperlinks its relationships file lists
/// and the part references (all of them when the archive lacks the part), then its
/// `HYPERLINK` fields; at most `room + 1`.
fn part_links(
    package: &mut Package<'_>,
    part: &str,
    exists: bool,
    rels: Option<&str>,
    room: usize,
) -> Vec<RawLink> {
    let Some((kind, number)) = part_of(part) else {
        return Vec::new();
    };
    // One short name for all the part's links: the part's file name is the archive's to choose.
    let name = format!(
        "{} {number}",
        label(kind).chars().take(MAX_KIND).collect::<String>()
    );
    let listed = match rels.and_then(|r| package.read(r)) {
        Some(bytes) => hyperlink_relationships(&bytes, room + 1),
        None => Vec::new(),
    };
    let mut used = vec![!exists; listed.len()];
    let mut fields = Vec::new();
    if exists {
        let index: HashMap<&str, usize> = listed
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (id.as_str(), i))
            .collect();
        let mark = |id: &str| {
            if let Some(&i) = index.get(id) {
                used[i] = true;
            }
        };
        fields = package
            .stream(part, |xml| scan_part(xml, mark, room + 1))
            .unwrap_or_default();
    }
    let relationships = listed
        .into_iter()
        .zip(used)
        .filter_map(|((_, target), used)| used.then_some((target, "hyperlink")));
    let fields = fields.into_iter().map(|url| (url, "field"));
    relationships
        .chain(fields)
        .take(room + 1)
        .map(|(target, attr)| {
            let mut link = RawLink::plain(target, "office", attr, (number, 1));
            link.name.clone_from(&name);
            link
        })
        .collect()
}

/// A part as a kind and a number: `ppt/slides/slide3.xml` → `("slide", 3)`;
/// `word/document.xml` → `("document", 1)`.
fn part_of(part: &str) -> Option<(&str, usize)> {
    let file = part.rsplit('/').next()?;
    let stem = file.split('.').next()?;
    let digits = stem.len() - stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (kind, number) = stem.split_at(stem.len() - digits);
    Some((kind, number.parse().unwrap_or(1)))
}

/// The external hyperlinks a relationships file lists (`<Relationship Id="rId1"
/// Type="…/hyperlink" TargetMode="External" Target="URL"/>`), as id and target; at most `most`.
fn hyperlink_relationships(xml: &[u8], most: usize) -> Vec<(String, String)> {
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    let mut links = Vec::new();
    while links.len() < most {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => {
                if e.local_name().as_ref() == "Relationship"
                    && attribute(&e, "Type").is_some_and(|t| t.ends_with("/hyperlink"))
                    && attribute(&e, "TargetMode").as_deref() == Some("External")
                    && let Some(target) = attribute(&e, "Target").filter(|t| !t.is_empty())
                {
                    links.push((attribute(&e, "Id").unwrap_or_default(), target));
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
        buf.clear();
    }
    links
}

/// The links of an OpenDocument `content.xml`: `text:a` and `draw:a` (`xlink:href`), each at
/// the number of its sheet (`table:table`) or slide (`draw:page`), named by its text; at most
/// `most`.
fn open_document_links(xml: &[u8], most: usize) -> Vec<RawLink> {
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    let mut links: Vec<RawLink> = Vec::new();
    // The element that numbers the parts (a sheet, a slide): none in a text document.
    let mut numbered: Option<&str> = None;
    let mut part = 0usize;
    // The link being read (its index in `links`) and how deep inside it the reader is.
    let mut open: Option<(usize, usize)> = None;
    // Past `most`, only the last link's text is read to its end.
    while links.len() < most || open.is_some() {
        let event = match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) | Err(_) => break,
            Ok(e) => e,
        };
        let empty = matches!(event, Event::Empty(_));
        match event {
            Event::Start(e) | Event::Empty(e) if open.is_none() => match e.name().as_ref() {
                "office:spreadsheet" => numbered = Some("table:table"),
                "office:presentation" | "office:drawing" => numbered = Some("draw:page"),
                name if Some(name) == numbered => part += 1,
                // A slide's shape with a click action (`presentation:event-listener`) links too.
                "text:a" | "draw:a" | "presentation:event-listener" => {
                    if let Some(href) = attribute(&e, "xlink:href").filter(|h| !h.is_empty()) {
                        links.push(RawLink::plain(href, "office", "href", (part.max(1), 1)));
                        if !empty {
                            open = Some((links.len() - 1, 1));
                        }
                    }
                }
                _ => {}
            },
            Event::Start(_) => {
                if let Some((_, depth)) = &mut open {
                    *depth += 1;
                }
            }
            Event::End(_) => {
                if let Some((at, depth)) = &mut open {
                    *depth -= 1;
                    if *depth == 0 {
                        links[*at].name = label(&links[*at].name);
                        open = None;
                    }
                }
            }
            Event::Text(t) => {
                if let Some((at, _)) = open
                    && links[at].name.len() < 4096
                {
                    links[at].name.push_str(&t.xml10_content());
                }
            }
            _ => {}
        }
        buf.clear();
    }
    links
}

/// The value of the attribute `key` (its qualified name), unescaped; `None` when absent or
/// malformed.
fn attribute(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.into_owned())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A zip archive of `parts` (name, text), deflated.
    pub(crate) fn archive(parts: &[(&str, &str)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, text) in parts {
            zip.start_file(*name, options).unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    const RELS: &str = r##"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.test/a?x=1&amp;y=2" TargetMode="External"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="#Bookmark"/></Relationships>"##;

    #[test]
    fn ooxml_hyperlinks_are_read_per_part() {
        let pptx = archive(&[
            ("_rels/.rels", RELS),
            (
                "ppt/slides/slide10.xml",
                r#"<p:sld xmlns:a="a" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><a:hlinkClick r:id="rId1"/></p:sld>"#,
            ),
            ("ppt/slides/_rels/slide10.xml.rels", RELS),
            ("ppt/slides/_rels/slide2.xml.rels", RELS),
        ]);
        let OfficeLinks { links, trouble, .. } = extract_office(&pptx);
        assert_eq!(trouble, None);
        let got: Vec<(&str, usize, &str)> = links
            .iter()
            .map(|l| (l.value.as_str(), l.line, l.name.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("https://example.test/a?x=1&y=2", 2, "slide 2"),
                ("https://example.test/a?x=1&y=2", 10, "slide 10"),
            ]
        );
        let docx = archive(&[("word/_rels/document.xml.rels", RELS)]);
        let links = extract_office(&docx).links;
        assert_eq!((links[0].line, links[0].name.as_str()), (1, "document 1"));
    }

    #[test]
    fn open_document_links_carry_their_text_and_part() {
        let content = r#"<office:document-content><office:body><office:spreadsheet>
            <table:table table:name="One"><text:p><text:a xlink:href="https://example.test/1">first <text:span>one</text:span></text:a></text:p></table:table>
            <table:table table:name="Two"><text:p><text:a xlink:href="../local.html">second</text:a><text:a xlink:href=""/></text:p></table:table>
            </office:spreadsheet></office:body></office:document-content>"#;
        let ods = archive(&[
            ("mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
            ("content.xml", content),
        ]);
        let OfficeLinks {
            links,
            trouble,
            open_document,
        } = extract_office(&ods);
        assert!(open_document);
        assert_eq!(trouble, None);
        let got: Vec<(&str, usize, &str)> = links
            .iter()
            .map(|l| (l.value.as_str(), l.line, l.name.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("https://example.test/1", 1, "first one"),
                ("../local.html", 2, "second"),
            ]
        );
    }

    #[test]
    fn broken_and_huge_archives_give_trouble_not_a_panic() {
        let OfficeLinks { links, trouble, .. } = extract_office(b"PK\x03\x04 not really");
        assert!(links.is_empty());
        assert!(matches!(trouble, Some(OfficeTrouble::NotAnArchive(_))));
        // 64 MB of one byte compress to about 64 KB: read up to the part's bound only.
        let big = format!("<x>{}</x>", "a".repeat((MAX_PART + 10) as usize));
        let bomb = archive(&[("word/_rels/document.xml.rels", &big)]);
        assert!(bomb.len() < 1 << 20);
        let trouble = extract_office(&bomb).trouble;
        assert_eq!(trouble, Some(OfficeTrouble::TooLarge));
        // styles.xml is read within the same bounds as content.xml.
        let styles = format!("{big}<text:a xlink:href=\"https://example.test/late\"/>");
        let odt = archive(&[("content.xml", "<x/>"), ("styles.xml", &styles)]);
        let read = extract_office(&odt);
        assert_eq!(read.trouble, Some(OfficeTrouble::TooLarge));
        assert!(read.links.is_empty());
        // A part read for its references and fields is streamed within the same bounds.
        let document = format!(
            "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">\
             {big}<w:fldSimple w:instr='HYPERLINK \"https://example.test/late\"'/></w:document>"
        );
        let read = extract_office(&archive(&[("word/document.xml", &document)]));
        assert_eq!(read.trouble, Some(OfficeTrouble::TooLarge));
        assert!(read.links.is_empty());
        // Fields count against the same link cap as relationships.
        let field = r#"<w:fldSimple w:instr='HYPERLINK "https://example.test/f"'/>"#;
        let document = format!(
            "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">{}</w:document>",
            field.repeat(MAX_LINKS + 1)
        );
        let docx = archive(&[("word/document.xml", &document)]);
        let read = extract_office(&docx);
        assert_eq!(read.trouble, Some(OfficeTrouble::TooManyLinks));
        assert_eq!(read.links.len(), MAX_LINKS);
    }

    #[test]
    fn only_the_relationships_a_part_references_are_links() {
        let footnotes = r#"<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>"#;
        let docx = archive(&[
            (
                "word/document.xml",
                r#"<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:rel="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:hyperlink rel:id="rId1"/><w:fldSimple w:instr='HYPERLINK "https://example.test/f" \l "x"'/></w:document>"#,
            ),
            ("word/_rels/document.xml.rels", RELS),
            ("word/footnotes.xml", footnotes),
            ("word/_rels/footnotes.xml.rels", RELS),
            (
                "word/header1.xml",
                r#"<w:hdr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:fldSimple w:instr='HYPERLINK "https://example.test/h"'/></w:hdr>"#,
            ),
        ]);
        let read = extract_office(&docx);
        assert_eq!(read.trouble, None);
        assert!(!read.open_document);
        let got: Vec<(&str, &str, &str)> = read
            .links
            .iter()
            .map(|l| (l.value.as_str(), l.attr, l.name.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("https://example.test/a?x=1&y=2", "hyperlink", "document 1"),
                ("https://example.test/f#x", "field", "document 1"),
                ("https://example.test/h", "field", "header 1"),
            ]
        );
    }

    #[test]
    fn open_document_headers_and_click_actions_are_read() {
        let content = r#"<office:document-content><office:body><office:presentation>
            <draw:page><draw:custom-shape><office:event-listeners><presentation:event-listener script:event-name="dom:click" presentation:action="show" xlink:href="https://example.test/click"/></office:event-listeners></draw:custom-shape></draw:page>
            </office:presentation></office:body></office:document-content>"#;
        let styles = r#"<office:document-styles><office:master-styles><style:master-page><style:header><text:p><text:a xlink:href="../head.html">head</text:a></text:p></style:header></style:master-page></office:master-styles></office:document-styles>"#;
        let odp = archive(&[("content.xml", content), ("styles.xml", styles)]);
        let read = extract_office(&odp);
        assert_eq!(read.trouble, None);
        let got: Vec<(&str, usize, &str)> = read
            .links
            .iter()
            .map(|l| (l.value.as_str(), l.line, l.name.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("https://example.test/click", 1, ""),
                ("../head.html", 1, "head"),
            ]
        );
    }
}
