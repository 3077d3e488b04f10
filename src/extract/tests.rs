//! Tests across the extractors: large documents are read in one pass, whatever their format.

use std::time::Instant;

use super::{RawLink, extract_markdown, extract_sitemap};

/// Links in each large document.
const LINKS: usize = 50_000;

/// How much longer a document eight times as large may take: reading it once takes about
/// eight times as long, rescanning it for every link (the bug this guards against) 64 times.
/// A ratio, not a time limit, so a loaded machine slows both sides alike.
const MOST_GROWTH: f64 = 24.0;

/// Extracts the links of `make(LINKS / 8)` and of `make(LINKS)`, each at its quickest of three
/// runs, checks the second took at most [`MOST_GROWTH`] times the first, and returns the links
/// of the large one.
fn read_in_one_pass(
    what: &str,
    make: fn(usize) -> Vec<u8>,
    extract: fn(&[u8]) -> Vec<RawLink>,
) -> Vec<RawLink> {
    let quickest = |body: &[u8]| {
        (0..3)
            .map(|_| {
                let start = Instant::now();
                let links = extract(body);
                (start.elapsed(), links)
            })
            .min_by_key(|(took, _)| *took)
            .expect("three runs")
    };
    let (small, _) = quickest(&make(LINKS / 8));
    let (large, links) = quickest(&make(LINKS));
    let growth = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    println!(
        "{what}: {} links in {large:?}, 1/8 of them in {small:?}",
        LINKS
    );
    assert!(
        growth <= MOST_GROWTH,
        "{what}: 8 times the links took {growth:.1} times as long ({small:?} -> {large:?})"
    );
    links
}

fn sitemap_of(links: usize) -> Vec<u8> {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for n in 0..links {
        xml.push_str(&format!(
            "  <url><loc>https://example.org/page-{n}.html</loc></url>\n"
        ));
    }
    xml.push_str("</urlset>\n");
    xml.into_bytes()
}

fn markdown_of(links: usize) -> Vec<u8> {
    let mut md = String::new();
    for n in 0..links {
        md.push_str(&format!("[link {n}](https://example.org/{n})\n"));
    }
    md.into_bytes()
}

#[test]
fn a_sitemap_of_fifty_thousand_urls_is_read_in_one_pass() {
    let links = read_in_one_pass("sitemap", sitemap_of, extract_sitemap);
    assert_eq!(links.len(), LINKS);
    // URL `n` is on line `n + 3`, its `<loc>` after two spaces and `<url>`.
    for n in [0, 1, 777, 25_000, LINKS - 1] {
        let link = &links[n];
        assert_eq!(link.value, format!("https://example.org/page-{n}.html"));
        assert_eq!((link.line, link.column), (n + 3, 8), "{link:?}");
    }
}

#[test]
fn a_markdown_file_of_fifty_thousand_links_is_read_in_one_pass() {
    let links = read_in_one_pass("markdown", markdown_of, extract_markdown);
    assert_eq!(links.len(), LINKS);
    // Link `n` opens line `n + 1`.
    for n in [0, 1, 777, 25_000, LINKS - 1] {
        let link = &links[n];
        assert_eq!(link.value, format!("https://example.org/{n}"));
        assert_eq!(link.name, format!("link {n}"));
        assert_eq!((link.line, link.column), (n + 1, 1), "{link:?}");
    }
}
