//! Office documents: the hyperlinks of Office Open XML files (`.docx`, `.xlsx`, `.pptx`: the
//! external `hyperlink` relationships of each part) and of OpenDocument files (`.odt`, `.ods`,
//! `.odp`: `text:a` and `draw:a` in `content.xml`). Each link's `line` is its part's number
//! (slide or sheet; 1 for a text document) and its name says the part (`slide 3`) or
//! holds the link's text.
//!
//! Pure: bytes in, links out. The archive is read in memory, never unpacked to disk (so no
//! path inside it can reach a file), and bounded: at most [`MAX_ENTRIES`] entries, each part
//! read up to [`MAX_PART`] bytes and [`MAX_TOTAL`] in all, so a zip bomb costs a bounded read;
//! at most [`MAX_LINKS`] links are read (as from a PDF), and a part is named by at most
//! [`MAX_KIND`] characters of its file name, so a long part name is not copied into every link.

use std::io::{Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

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

/// The hyperlinks of an Office document, and what kept some from being read, if anything.
pub fn extract_office(body: &[u8]) -> (Vec<RawLink>, Option<OfficeTrouble>) {
    let mut archive = match zip::ZipArchive::new(Cursor::new(body)) {
        Ok(a) => a,
        Err(e) => return (Vec::new(), Some(OfficeTrouble::NotAnArchive(e.to_string()))),
    };
    let mut names: Vec<String> = archive
        .file_names()
        .take(MAX_ENTRIES)
        .filter_map(Result::ok)
        .map(|n| n.into_owned())
        .collect();
    // Slides, sheets and headers in their numbers' order, whatever the archive's.
    names.sort_by_key(|n| part_of(n).map(|(kind, number)| (kind.to_owned(), number)));
    let mut budget = MAX_TOTAL;
    let mut trouble = None;
    let mut links = Vec::new();
    for name in names {
        let is_rels = name.ends_with(".rels") && name.contains("_rels/");
        if !(is_rels || name == "content.xml") {
            continue;
        }
        let Ok(entry) = archive.by_name(&name) else {
            continue;
        };
        let limit = MAX_PART.min(budget);
        let mut bytes = Vec::new();
        if entry.take(limit + 1).read_to_end(&mut bytes).is_err() {
            trouble = Some(OfficeTrouble::NotAnArchive(format!("cannot read {name}")));
            continue;
        }
        if bytes.len() as u64 > limit {
            bytes.truncate(limit as usize);
            trouble = Some(OfficeTrouble::TooLarge);
        }
        budget -= bytes.len() as u64;
        let room = MAX_LINKS - links.len();
        let mut found = if is_rels {
            relationship_links(&name, &bytes, room + 1)
        } else {
            open_document_links(&bytes, room + 1)
        };
        if found.len() > room {
            found.truncate(room);
            links.extend(found);
            trouble = Some(OfficeTrouble::TooManyLinks);
            break;
        }
        links.extend(found);
        if budget == 0 {
            trouble = Some(OfficeTrouble::TooLarge);
            break;
        }
    }
    (links, trouble)
}

/// The part a relationships file belongs to, as a kind and a number: `ppt/slides/_rels/
/// slide3.xml.rels` → `("slide", 3)`; `word/_rels/document.xml.rels` → `("document", 1)`.
fn part_of(rels: &str) -> Option<(&str, usize)> {
    let file = rels.rsplit('/').next()?.strip_suffix(".rels")?;
    let stem = file.split('.').next()?;
    let digits = stem.len() - stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (kind, number) = stem.split_at(stem.len() - digits);
    Some((kind, number.parse().unwrap_or(1)))
}

/// The external hyperlinks of one `.rels` file (`<Relationship Type="…/hyperlink"
/// TargetMode="External" Target="URL"/>`), each at its part's number; at most `most`.
fn relationship_links(rels: &str, xml: &[u8], most: usize) -> Vec<RawLink> {
    let Some((kind, number)) = part_of(rels) else {
        return Vec::new();
    };
    // The package's own relationships (`_rels/.rels`) name its parts, not links.
    if kind.is_empty() {
        return Vec::new();
    }
    // One short name for all the part's links: the part's file name is the archive's to choose.
    let name = format!(
        "{} {number}",
        label(kind).chars().take(MAX_KIND).collect::<String>()
    );
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
                    let mut link = RawLink::plain(target, "office", "hyperlink", (number, 1));
                    link.name.clone_from(&name);
                    links.push(link);
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
                "text:a" | "draw:a" => {
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
            ("ppt/slides/slide10.xml", "<p/>"),
            ("ppt/slides/_rels/slide10.xml.rels", RELS),
            ("ppt/slides/_rels/slide2.xml.rels", RELS),
        ]);
        let (links, trouble) = extract_office(&pptx);
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
        let (links, _) = extract_office(&docx);
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
        let (links, trouble) = extract_office(&ods);
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
        let (links, trouble) = extract_office(b"PK\x03\x04 not really");
        assert!(links.is_empty());
        assert!(matches!(trouble, Some(OfficeTrouble::NotAnArchive(_))));
        // 64 MB of one byte compress to about 64 KB: read up to the part's bound only.
        let big = format!("<x>{}</x>", "a".repeat((MAX_PART + 10) as usize));
        let bomb = archive(&[("word/_rels/document.xml.rels", &big)]);
        assert!(bomb.len() < 1 << 20);
        let (_, trouble) = extract_office(&bomb);
        assert_eq!(trouble, Some(OfficeTrouble::TooLarge));
    }
}
