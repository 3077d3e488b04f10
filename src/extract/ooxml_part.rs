//! What one Office Open XML part says about its links: the relationships it references
//! (`r:id`, so that a relationship listed but never used is no link), and the `HYPERLINK` field
//! codes of a Word part (`w:instrText` between a field's `begin` and `separate`, or
//! `w:fldSimple w:instr`), which link a URL with a fragment and have no relationship.

use std::io::BufRead;

use quick_xml::NsReader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;

/// The namespaces of `r:id` (transitional and strict Office Open XML).
const RELATIONSHIPS: [&str; 2] = [
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "http://purl.oclc.org/ooxml/officeDocument/relationships",
];
/// The namespaces of WordprocessingML (transitional and strict).
const WORD: [&str; 2] = [
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://purl.oclc.org/ooxml/wordprocessingml/main",
];
/// The most bytes of one field's instruction read: a `HYPERLINK` field is a URL and a few
/// switches; a longer instruction is not read as a link.
pub(crate) const MAX_INSTRUCTION: usize = 16 << 10;

/// Reads the part `xml` (streamed: a large part is not held whole): calls `referenced` with
/// each relationship id it references, and returns the URLs of its `HYPERLINK` fields
/// (`url#fragment` with `\l`), at most `most`.
pub(super) fn scan_part(
    xml: impl BufRead,
    mut referenced: impl FnMut(&str),
    most: usize,
) -> Vec<String> {
    let mut reader = NsReader::from_reader(xml);
    let mut buf = Vec::new();
    let mut fields = Vec::new();
    // Complex fields nest: how deep, and the outermost one's instruction until `separate`.
    let mut depth = 0usize;
    let mut instruction: Option<String> = None;
    let mut in_instr_text = false;
    while fields.len() < most {
        let (ns, event) = match reader.read_resolved_event_into(&mut buf) {
            Ok((ResolveResult::Bound(ns), event)) => (Some(ns.into_inner()), event),
            Ok((_, event)) => (None, event),
            Err(_) => break,
        };
        let word = ns.is_some_and(|ns| WORD.contains(&ns));
        let empty = matches!(event, Event::Empty(_));
        match event {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                for value in relationship_ids(&reader, &e) {
                    referenced(&value);
                }
                if !word {
                    continue;
                }
                match e.local_name().as_ref() {
                    "instrText" => in_instr_text = !empty,
                    "fldSimple" => {
                        if let Some(url) = word_attribute(&reader, &e, "instr")
                            .as_deref()
                            .and_then(hyperlink_field)
                        {
                            fields.push(url);
                        }
                    }
                    "fldChar" => match word_attribute(&reader, &e, "fldCharType").as_deref() {
                        Some("begin") => {
                            depth += 1;
                            if depth == 1 {
                                instruction = Some(String::new());
                            }
                        }
                        Some("separate") if depth == 1 => {
                            fields.extend(instruction.take().as_deref().and_then(hyperlink_field));
                        }
                        Some("end") if depth > 0 => {
                            if depth == 1 {
                                fields.extend(
                                    instruction.take().as_deref().and_then(hyperlink_field),
                                );
                            }
                            depth -= 1;
                        }
                        _ => {}
                    },
                    _ => {}
                }
            }
            Event::End(e) if word && e.local_name().as_ref() == "instrText" => {
                in_instr_text = false;
            }
            Event::Text(t) if in_instr_text && depth == 1 => {
                push_capped(&mut instruction, &t.xml10_content());
            }
            Event::GeneralRef(r) if in_instr_text && depth == 1 => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    push_capped(&mut instruction, c.encode_utf8(&mut [0; 4]));
                } else if let Some(s) = resolve_predefined_entity(&r.xml10_content()) {
                    push_capped(&mut instruction, s);
                }
            }
            _ => {}
        }
        buf.clear();
    }
    fields
}

/// Adds `text` to the instruction being read; one past [`MAX_INSTRUCTION`] is dropped whole.
fn push_capped(instruction: &mut Option<String>, text: &str) {
    if let Some(i) = instruction {
        if i.len() + text.len() > MAX_INSTRUCTION {
            *instruction = None;
        } else {
            i.push_str(text);
        }
    }
}

/// The values of `e`'s attributes in the relationships namespace named `id`.
fn relationship_ids<'a, R>(
    reader: &'a NsReader<R>,
    e: &'a BytesStart<'_>,
) -> impl Iterator<Item = String> + 'a {
    e.attributes().flatten().filter_map(move |a| {
        let (ns, local) = reader.resolver().resolve_attribute(a.key);
        let ours =
            matches!(ns, ResolveResult::Bound(ns) if RELATIONSHIPS.contains(&ns.into_inner()));
        (ours && local.as_ref() == "id")
            .then(|| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok())
            .flatten()
            .map(|v| v.into_owned())
    })
}

/// The value of `e`'s WordprocessingML attribute named `local`.
fn word_attribute<R>(reader: &NsReader<R>, e: &BytesStart<'_>, local: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        let (ns, name) = reader.resolver().resolve_attribute(a.key);
        let ours = matches!(ns, ResolveResult::Bound(ns) if WORD.contains(&ns.into_inner()));
        (ours && name.as_ref() == local)
            .then(|| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok())
            .flatten()
            .map(|v| v.into_owned())
    })
}

/// The link of a field instruction `HYPERLINK "url" [\l "fragment"] [other switches]`: the
/// quoted URL, with `#fragment` after it. `None` for another field, an unquoted or missing URL
/// (`HYPERLINK \l "x"` is a bookmark of the document itself), or an unclosed quote.
pub(crate) fn hyperlink_field(instruction: &str) -> Option<String> {
    let mut rest = instruction.trim_start();
    let keyword_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    if !rest[..keyword_end].eq_ignore_ascii_case("HYPERLINK") {
        return None;
    }
    rest = &rest[keyword_end..];
    let mut url = None;
    let mut fragment = None;
    loop {
        rest = rest.trim_start();
        let Some(first) = rest.chars().next() else {
            break;
        };
        if first == '\\' {
            // A switch: `\l`, `\o`, `\t` take an argument; `\h`, `\m`, `\n` none.
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let switch = rest[1..end].to_ascii_lowercase();
            rest = &rest[end..];
            if matches!(switch.as_str(), "l" | "o" | "t") {
                let (argument, after) = argument(rest.trim_start())?;
                rest = after;
                if switch == "l" {
                    fragment = Some(argument);
                }
            }
        } else if first == '"' && url.is_none() {
            let (value, after) = quoted(rest)?;
            url = Some(value);
            rest = after;
        } else {
            return None;
        }
    }
    let url = url.filter(|u| !u.trim().is_empty())?;
    Some(match fragment.filter(|f| !f.is_empty()) {
        Some(f) => format!("{}#{f}", url.trim()),
        None => url.trim().to_owned(),
    })
}

/// A switch's argument: quoted, or a word.
fn argument(text: &str) -> Option<(String, &str)> {
    if text.starts_with('"') {
        return quoted(text);
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    (end > 0 && !text.starts_with('\\')).then(|| (text[..end].to_owned(), &text[end..]))
}

/// The quoted text at the start of `text` (`\x` stands for `x`, as Word writes `\\` in a
/// path), and what follows its closing quote; `None` when it is not closed.
fn quoted(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((value, &text[at + 1..])),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyperlink_fields_are_read_strictly() {
        let cases = [
            (
                r#" HYPERLINK "https://example.test/a" \l "part" "#,
                Some("https://example.test/a#part"),
            ),
            (
                r#"HYPERLINK "https://example.test/a" \o "tip \"x\"" \h"#,
                Some("https://example.test/a"),
            ),
            (
                r#"hyperlink \h "https://example.test/a""#,
                Some("https://example.test/a"),
            ),
            (r#"HYPERLINK "C:\\docs\\x.doc""#, Some(r"C:\docs\x.doc")),
            (r#"HYPERLINK \l "bookmark""#, None),
            (r#"HYPERLINK "https://example.test/a"#, None),
            ("HYPERLINK https://example.test/a", None),
            (r#"PAGEREF "https://example.test/a""#, None),
            (r#"HYPERLINK "a" "b""#, None),
            (r#"HYPERLINK "a" \l"#, None),
        ];
        for (instruction, expected) in cases {
            assert_eq!(
                hyperlink_field(instruction).as_deref(),
                expected,
                "{instruction}"
            );
        }
    }

    #[test]
    fn a_part_gives_its_references_and_fields() {
        let xml = r#"<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>
            <w:p><w:hyperlink r:id="rId5" w:id="rId9"><w:r><w:t>x</w:t></w:r></w:hyperlink></w:p>
            <w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> HYPERLINK "https://example.test/b" </w:instrText></w:r><w:r><w:instrText>\l &quot;sec&quot;</w:instrText></w:r>
            <w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>b</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>
            <w:fldSimple w:instr=" HYPERLINK &quot;https://example.test/c&quot; "><w:r><w:t>c</w:t></w:r></w:fldSimple>
            </w:body></w:document>"#;
        let mut ids = Vec::new();
        let fields = scan_part(xml.as_bytes(), |id| ids.push(id.to_owned()), 10);
        assert_eq!(ids, ["rId5"]);
        assert_eq!(
            fields,
            ["https://example.test/b#sec", "https://example.test/c"]
        );
        let long = format!(
            r#"<w:p xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:fldChar w:fldCharType="begin"/><w:instrText>HYPERLINK "{}"</w:instrText><w:fldChar w:fldCharType="end"/></w:p>"#,
            "a".repeat(MAX_INSTRUCTION)
        );
        assert!(scan_part(long.as_bytes(), |_| {}, 10).is_empty());
        assert_eq!(scan_part(xml.as_bytes(), |_| {}, 1).len(), 1);
    }
}
