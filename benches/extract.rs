//! Throughput of `extract_html` on deterministic synthetic pages of about 50 KB and 1 MB, and
//! of `extract_markdown` and `markdown_anchors` on a synthetic README of about 50 KB.
//!
//! The generator writes what a content-heavy site looks like: a head with stylesheets, hints and
//! an inline script full of link-like strings, a navigation list, sections of text paragraphs
//! with inline links and entities, images with `srcset`, quotes with `cite`, and a footer. A
//! fixed-seed generator keeps every run on identical input. Run with
//! `cargo bench --bench extract -- --warm-up-time 1 --measurement-time 3`.

use std::fmt::Write;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use linkpatrol::extract::{extract_html, extract_markdown, markdown_anchors};

/// A small linear congruential generator: deterministic, no dependencies.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'w>(&mut self, items: &[&'w str]) -> &'w str {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "link",
    "checker",
    "crawler",
    "document",
    "server",
    "request",
    "response",
    "anchor",
    "fragment",
    "redirect",
    "timeout",
    "status",
    "header",
    "content",
    "archive",
    "release",
    "install",
    "configure",
    "network",
    "réseau",
    "über",
    "naïve",
    "protocol",
    "the",
    "of",
    "and",
    "a",
    "to",
    "in",
    "is",
    "for",
    "with",
    "on",
    "that",
    "by",
    "this",
    "from",
    "are",
    "or",
    "be",
];

const SECTIONS: &[&str] = &["docs", "blog", "guide", "api", "news", "download", "about"];

/// Appends `n` random words separated by spaces.
fn words(out: &mut String, rng: &mut Lcg, n: usize) {
    for i in 0..n {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
}

fn head(out: &mut String) {
    out.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>Synthetic page &mdash; linkpatrol bench</title>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <link rel=\"preconnect\" href=\"https://fonts.example.net\">\n\
         <link rel=\"stylesheet\" href=\"/static/css/site.css?v=3\">\n\
         <link rel=\"icon\" href=\"/favicon.ico\">\n\
         <link rel=\"canonical\" href=\"https://www.example.org/page\">\n\
         <script src=\"/static/js/app.js\" defer></script>\n<script>\n",
    );
    for i in 0..40 {
        let _ = writeln!(
            out,
            "  if (i < {i} && x > 0) {{ el.innerHTML = '<a href=\"/fake/{i}\">x</a>'; }}"
        );
    }
    out.push_str(
        "</script>\n<style>\n  a[href^=\"http\"]::after { content: \"<img src=/no>\"; }\n\
         body > nav ul li { display: inline-block; }\n</style>\n</head>\n<body id=\"top\">\n",
    );
}

fn nav(out: &mut String, rng: &mut Lcg) {
    out.push_str("<header><nav class=\"main-nav\" aria-label=\"Main\">\n<ul>\n");
    for i in 0..40 {
        let section = rng.pick(SECTIONS);
        let _ = write!(
            out,
            "  <li class=\"nav-item\"><a class=\"nav-link\" href=\"/{section}/{i}/\">"
        );
        words(out, rng, 2);
        out.push_str("</a></li>\n");
    }
    out.push_str("</ul>\n</nav></header>\n<main>\n");
}

fn section(out: &mut String, rng: &mut Lcg, n: usize) {
    let _ = write!(out, "<section id=\"s{n}\" class=\"content\">\n<h2>");
    words(out, rng, 4);
    out.push_str("</h2>\n");
    for p in 0..3 + rng.below(3) {
        out.push_str("<p>");
        for _ in 0..4 + rng.below(4) {
            let count = 20 + rng.below(30);
            words(out, rng, count);
            match rng.below(6) {
                0 => out.push_str(" &amp; "),
                1 => out.push_str(", "),
                _ => out.push(' '),
            }
            if rng.below(2) == 0 {
                continue;
            }
            let section = rng.pick(SECTIONS);
            let slug = rng.pick(WORDS);
            if rng.below(5) == 0 {
                let _ = write!(
                    out,
                    "<a href=\"https://ext{}.example.com/{section}/{slug}?ref=bench&amp;id={p}\" \
                     rel=\"nofollow noopener\" target=\"_blank\">",
                    rng.below(50)
                );
            } else {
                let _ = write!(
                    out,
                    "<a href=\"/{section}/{slug}-{n}-{p}.html#frag\" title=\"{slug}\">"
                );
            }
            let count = 1 + rng.below(3);
            words(out, rng, count);
            out.push_str("</a> ");
        }
        out.push_str("</p>\n");
    }
    if rng.below(2) == 0 {
        let _ = write!(
            out,
            "<figure><img src=\"/img/photo-{n}.jpg\" \
             srcset=\"/img/photo-{n}-480.jpg 480w, /img/photo-{n}-800.jpg 800w, \
             /img/photo,v2-{n}-1600.jpg 1600w\" sizes=\"(max-width: 600px) 480px, 800px\" \
             alt=\"Photo {n}\" loading=\"lazy\" width=\"800\" height=\"600\">\n<figcaption>"
        );
        words(out, rng, 6);
        out.push_str("</figcaption></figure>\n");
    }
    if rng.below(4) == 0 {
        let _ = write!(out, "<blockquote cite=\"https://quotes.example/{n}\"><p>");
        words(out, rng, 15);
        out.push_str("</p></blockquote>\n");
    }
    out.push_str("</section>\n");
}

fn footer(out: &mut String, rng: &mut Lcg) {
    out.push_str("</main>\n<footer>\n<ul class=\"footer-links\">\n");
    for i in 0..30 {
        let _ = write!(out, "  <li><a href=\"/legal/{i}\">");
        words(out, rng, 2);
        out.push_str("</a></li>\n");
    }
    out.push_str("</ul>\n<p>&copy; 2026 Example</p>\n</footer>\n</body>\n</html>\n");
}

/// A deterministic page of about `target` bytes.
fn page(target: usize) -> String {
    let mut rng = Lcg(0x5EED_1234_ABCD_0001);
    let mut out = String::with_capacity(target + 8192);
    head(&mut out);
    nav(&mut out, &mut rng);
    let mut n = 0;
    while out.len() + 2_000 < target {
        section(&mut out, &mut rng, n);
        n += 1;
    }
    footer(&mut out, &mut rng);
    out
}

fn bench_extract(c: &mut Criterion) {
    let mut group = c.benchmark_group("extract_html");
    for (label, target) in [("50KB", 50_000), ("1MB", 1_000_000)] {
        let html = page(target);
        let links = extract_html(html.as_bytes()).links;
        // The script's and style's link-like strings and the preconnect hint are not links.
        assert!(links.iter().all(|l| !l.value.contains("/fake/")
            && l.value != "/no"
            && !l.value.contains("fonts.example.net")));
        eprintln!("page {label}: {} bytes, {} links", html.len(), links.len());
        group.throughput(Throughput::Bytes(html.len() as u64));
        group.bench_function(label, |b| {
            b.iter(|| extract_html(black_box(html.as_bytes())))
        });
    }
    group.finish();
}

/// A Markdown document of about `target` bytes: headings in several scripts (Latin,
/// Devanagari with its virama, Arabic with harakat), paragraphs with inline links, reference
/// links (defined and not), bare URLs and mail addresses, and a code block.
fn markdown(target: usize) -> String {
    const HEADINGS: [&str; 4] = [
        "Getting started",
        "दिशानिर्देश",
        "العَرَبِيَّة",
        "What's new (2026)",
    ];
    let mut rng = Lcg(7);
    let mut out = String::new();
    let mut n = 0;
    while out.len() < target {
        let _ = writeln!(out, "## {} {n}\n", rng.pick(&HEADINGS));
        words(&mut out, &mut rng, 40);
        let _ = write!(
            out,
            " See [the guide](guide.md#setup-{n}), [docs][docs] and [missing][nowhere-{n}], \
             https://example.com/page/{n}?a=1 or mailto:team{n}@example.com.\n\n"
        );
        if n % 5 == 0 {
            out.push_str("```rust\nlet url = \"https://in.code/example\";\n```\n\n");
        }
        n += 1;
    }
    out.push_str("[docs]: https://docs.example.com/\n");
    out
}

fn bench_markdown(c: &mut Criterion) {
    let md = markdown(50_000);
    let mut group = c.benchmark_group("extract_markdown");
    group.throughput(Throughput::Bytes(md.len() as u64));
    group.bench_function("links_50KB", |b| {
        b.iter(|| extract_markdown(black_box(md.as_bytes())))
    });
    group.bench_function("anchors_50KB", |b| {
        b.iter(|| markdown_anchors(black_box(md.as_bytes())))
    });
    group.finish();
}

criterion_group!(benches, bench_extract, bench_markdown);
criterion_main!(benches);
