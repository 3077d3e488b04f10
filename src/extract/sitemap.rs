//! Sitemaps (sitemaps.org 0.9): the `<loc>` of every `<url>` of a `<urlset>`, and of every
//! `<sitemap>` of a `<sitemapindex>` (nested sitemaps are then fetched and read the same way).
//! Pure: bytes in, links out, with the line and column of each `<loc>`.

use quick_xml::Reader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;

use super::RawLink;
use super::line_col::{Convention, LineCounter};

/// `true` when `body` looks like a sitemap: its root element is `urlset` or `sitemapindex`.
pub fn is_sitemap(body: &[u8]) -> bool {
    let mut reader = Reader::from_reader(body);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => {
                let name = e.local_name();
                let name: &str = name.as_ref();
                return name == "urlset" || name == "sitemapindex";
            }
            Ok(Event::Eof) | Err(_) => return false,
            Ok(_) => buf.clear(),
        }
    }
}

/// The `<loc>` URLs of a sitemap or sitemap index, in document order. Malformed XML ends the
/// list where the damage starts (what came before is kept).
pub fn extract_sitemap(body: &[u8]) -> Vec<RawLink> {
    let mut reader = Reader::from_reader(body);
    let mut buf = Vec::new();
    let mut links = Vec::new();
    let mut lines = LineCounter::new(body, Convention::Plain);
    // Inside <loc>: the text so far and where the element started.
    let mut loc: Option<(String, usize)> = None;
    loop {
        let before = reader.buffer_position() as usize;
        let event = match reader.read_event_into(&mut buf) {
            Ok(ev) => ev,
            Err(_) => break,
        };
        match event {
            Event::Start(e) => {
                let name = e.local_name();
                if AsRef::<str>::as_ref(&name) == "loc" {
                    loc = Some((String::new(), before));
                }
            }
            Event::Text(t) => {
                if let Some((text, _)) = &mut loc {
                    text.push_str(&t.xml10_content());
                }
            }
            Event::CData(t) => {
                if let Some((text, _)) = &mut loc {
                    text.push_str(&t.into_inner());
                }
            }
            Event::GeneralRef(r) => {
                if let Some((text, _)) = &mut loc {
                    if let Ok(Some(c)) = r.resolve_char_ref() {
                        text.push(c);
                    } else if let Some(s) = resolve_predefined_entity(&r.xml10_content()) {
                        text.push_str(s);
                    }
                }
            }
            Event::End(e) => {
                let name = e.local_name();
                if AsRef::<str>::as_ref(&name) == "loc"
                    && let Some((text, at)) = loc.take()
                {
                    let value = text.trim().to_owned();
                    if !value.is_empty() {
                        links.push(RawLink::plain(value, "loc", "text", lines.locate(at)));
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urlset_and_index() {
        let xml = b"<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n  <url><loc>https://ex.test/a?x=1&amp;y=2</loc></url>\n  <url>\n    <loc> https://ex.test/b </loc><lastmod>2024-01-01</lastmod></url>\n</urlset>";
        assert!(is_sitemap(xml));
        let links = extract_sitemap(xml);
        let got: Vec<(&str, usize, usize)> = links
            .iter()
            .map(|l| (l.value.as_str(), l.line, l.column))
            .collect();
        assert_eq!(
            got,
            [
                ("https://ex.test/a?x=1&y=2", 3, 8),
                ("https://ex.test/b", 5, 5)
            ]
        );
        let index =
            b"<sitemapindex><sitemap><loc>https://ex.test/s2.xml</loc></sitemap></sitemapindex>";
        assert!(is_sitemap(index));
        assert_eq!(extract_sitemap(index)[0].value, "https://ex.test/s2.xml");
    }

    #[test]
    fn not_a_sitemap_and_garbage() {
        assert!(!is_sitemap(b"<rss><channel/></rss>"));
        assert!(!is_sitemap(b"\xff\xfe garbage <<<"));
        let broken =
            b"<urlset><url><loc>https://ex.test/ok</loc></url><url><loc>https://ex.test/cut";
        assert_eq!(extract_sitemap(broken).len(), 1);
        assert!(extract_sitemap(b"").is_empty());
    }
}
