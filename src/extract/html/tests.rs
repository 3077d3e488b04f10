//! Tests of HTML extraction as a whole: which tags and attributes give links, their order,
//! positions, labels, anchors, the base URL, robots flags and batches, and broken input.

use super::collector::MAX_NAME_CHARS;
use super::*;

fn doc(html: &str) -> HtmlDocument {
    extract_html(html.as_bytes())
}

fn values(html: &str) -> Vec<String> {
    doc(html).links.into_iter().map(|l| l.value).collect()
}

#[test]
fn every_tag_and_attribute_kind() {
    // (document, "tag attr value" of its only link)
    let cases = [
        (r#"<a href="/a">x</a>"#, "a href /a"),
        (r#"<map><area href="/ar"></map>"#, "area href /ar"),
        (r#"<link rel=stylesheet href="/s.css">"#, "link href /s.css"),
        (r#"<img src="/i.png">"#, "img src /i.png"),
        (r#"<script src="/s.js"></script>"#, "script src /s.js"),
        (r#"<iframe src="/f.html"></iframe>"#, "iframe src /f.html"),
        (r#"<frameset><frame src="/fr"></frameset>"#, "frame src /fr"),
        (r#"<embed src="/e.swf">"#, "embed src /e.swf"),
        (
            r#"<video><source src="/v.webm"></video>"#,
            "source src /v.webm",
        ),
        (r#"<video><track src="/t.vtt"></video>"#, "track src /t.vtt"),
        (r#"<audio src="/a.ogg"></audio>"#, "audio src /a.ogg"),
        (r#"<video src="/v.mp4"></video>"#, "video src /v.mp4"),
        (r#"<input type=image src="/go.png">"#, "input src /go.png"),
        (r#"<img srcset="/i2.png 2x">"#, "img srcset /i2.png"),
        (
            r#"<picture><source srcset="/p.webp">"#,
            "source srcset /p.webp",
        ),
        (r#"<object data="/o.pdf"></object>"#, "object data /o.pdf"),
        (r#"<form action="/submit"></form>"#, "form action /submit"),
        (
            r#"<button formaction="/b">x</button>"#,
            "button formaction /b",
        ),
        (
            r#"<input type=submit formaction="/i">"#,
            "input formaction /i",
        ),
        (r#"<video poster="/p.jpg"></video>"#, "video poster /p.jpg"),
        (
            r#"<blockquote cite="/bq">x</blockquote>"#,
            "blockquote cite /bq",
        ),
        (r#"<q cite="/q">x</q>"#, "q cite /q"),
        (r#"<del cite="/del">x</del>"#, "del cite /del"),
        (r#"<ins cite="/ins">x</ins>"#, "ins cite /ins"),
        (
            r#"<meta http-equiv=refresh content="5; url=/n">"#,
            "meta content /n",
        ),
    ];
    for (html, expected) in cases {
        let found: Vec<String> = doc(html)
            .links
            .iter()
            .map(|l| format!("{} {} {}", l.tag, l.attr, l.value))
            .collect();
        assert_eq!(found, [expected], "{html}");
    }
}

#[test]
fn attributes_that_are_not_links_here() {
    for html in [
        r#"<div href="/x" src="/y" cite="/z" data="/w" action="/v"></div>"#,
        r#"<input type=text src="/not-an-image">"#,
        r#"<input src="/no-type">"#,
        r#"<meta name=description content="/not-a-url">"#,
        r#"<meta http-equiv=content-type content="text/html; url=/x">"#,
        r#"<img data="/d" href="/h">"#,
        r#"<link rel=preconnect href="https://cdn.example">"#,
        r#"<link rel="DNS-Prefetch" href="//cdn.example">"#,
    ] {
        assert_eq!(doc(html).links, [], "{html}");
    }
    assert_eq!(
        values(r#"<link rel="preload" href="/f.woff2">"#),
        ["/f.woff2"]
    );
    assert_eq!(values(r#"<input type=" IMAGE " src="/i.png">"#), ["/i.png"]);
}

#[test]
fn document_order_and_attribute_order() {
    let html = r#"<img srcset="/b.png 2x" src="/a.png"><a href="/c">c</a>
            <video poster="/p.jpg" src="/v.mp4"></video>"#;
    assert_eq!(values(html), ["/b.png", "/a.png", "/c", "/p.jpg", "/v.mp4"]);
}

#[test]
fn line_and_column_of_the_opening_angle_bracket() {
    let html = "<html>\n<body>\n  <p>héllo → <a href=\"/x\">x</a>\n\t<img\n   src=\"/y\">";
    let links = doc(html).links;
    // `<a` is preceded on line 3 by 13 characters (é and → count one each).
    assert_eq!((links[0].line, links[0].column), (3, 14));
    // The position is that of the `<`, not of the attribute on the next line.
    assert_eq!((links[1].line, links[1].column), (4, 2));
}

#[test]
fn line_endings_crlf_and_lone_cr() {
    let links = doc("<p>\r\n<a href=/1>1</a>\r\n\r\n x<a href=/2>\r<a href=/3>").links;
    let positions: Vec<_> = links.iter().map(|l| (l.line, l.column)).collect();
    assert_eq!(positions, [(2, 1), (4, 3), (5, 1)]);
}

#[test]
fn column_after_a_long_single_line() {
    let prefix = "ü".repeat(5000);
    let html = format!("<p>{prefix}<a href=/x>x</a> <a href=/y>y</a>");
    let links = doc(&html).links;
    assert_eq!((links[0].line, links[0].column), (1, 5004));
    assert_eq!((links[1].line, links[1].column), (1, 5004 + 17));
}

#[test]
fn base_is_first_one_and_applies_even_when_late() {
    let d = doc(
        r#"<a href="page.html">p</a><base target=_top><base href=" https://ex.com/dir/ ">
               <base href="https://other.example/">"#,
    );
    assert_eq!(d.base.as_deref(), Some("https://ex.com/dir/"));
    assert_eq!(values_of(&d), ["page.html"]);
    assert_eq!(doc("<a href=x>x</a>").base, None);
}

fn values_of(d: &HtmlDocument) -> Vec<&str> {
    d.links.iter().map(|l| l.value.as_str()).collect()
}

#[test]
fn raw_text_elements_yield_no_links() {
    let html = r#"<script>var s = "<a href='/fake1'>"; if (a<b) {}</script>
            <style>a[href="/fake2"]::after { content: "<img src=/fake3>" }</style>
            <title><a href="/fake4"></title><textarea><a href="/fake5"></textarea>
            <script src="/real.js"><!-- <script> <a href="/fake6"> </script> --></script>
            <a href="/after">after</a>"#;
    assert_eq!(values(html), ["/real.js", "/after"]);
}

#[test]
fn noscript_contents_are_markup() {
    let html = r#"<noscript><img src="/pixel.gif" alt=""></noscript><p><a href=/x>x</a>"#;
    assert_eq!(values(html), ["/pixel.gif", "/x"]);
}

#[test]
fn empty_and_bare_href() {
    let d = doc(r#"<a href="">e</a><a href>b</a><a href class=x>c</a><a href = '  '>s</a>"#);
    assert_eq!(values_of(&d), ["", "", "", ""]);
    assert!(d.links.iter().all(|l| l.attr == "href" && l.tag == "a"));
    assert_eq!(d.links[2].name, "c");
}

#[test]
fn duplicate_attributes_keep_the_first() {
    assert_eq!(
        values(r#"<a href="/first" href="/second">x</a>"#),
        ["/first"]
    );
    assert_eq!(values(r#"<a href href="/second">x</a>"#), [""]);
    assert_eq!(values(r#"<img src=/1 SRC=/2 alt=one alt=two>"#), ["/1"]);
    assert_eq!(doc(r#"<img src=/1 alt=one alt=two>"#).links[0].name, "one");
}

#[test]
fn attributes_of_end_tags_and_unclosed_tags_are_ignored() {
    assert_eq!(
        values(r#"<p>x</p href="/end"><a href="/eof""#),
        Vec::<String>::new()
    );
    assert_eq!(values(r#"<b>x</b id=end><a href=/y>y</a>"#), ["/y"]);
}

#[test]
fn values_are_trimmed_and_entities_decoded() {
    assert_eq!(
        values("<a href=\" \t/q?a=1&amp;b=2&#x26;c=&lt;\n\">x</a>"),
        ["/q?a=1&b=2&c=<"]
    );
    assert_eq!(values("<a href=/caf&eacute;>x</a>"), ["/café"]);
    // Inner whitespace is not touched.
    assert_eq!(values("<a href='/a b'>x</a>"), ["/a b"]);
}

#[test]
fn link_text_is_collapsed_and_capped() {
    let d = doc("<a href=/x>\n  Hello,\t<b>brave</b>\n&amp; new&nbsp;\n world  </a> tail");
    assert_eq!(d.links[0].name, "Hello, brave & new world");

    let long = "word ".repeat(100);
    let d = doc(&format!("<a href=/x>{long}</a>"));
    // 51 words (254 characters), then a space and the first letter of the 52nd.
    assert_eq!(d.links[0].name.chars().count(), MAX_NAME_CHARS);
    assert!(d.links[0].name.starts_with("word word "));
    assert!(d.links[0].name.ends_with("word w"));

    let d = doc(&format!("<a href=/x>{}</a>", "é".repeat(300)));
    assert_eq!(d.links[0].name.chars().count(), MAX_NAME_CHARS);
}

#[test]
fn link_text_ends_at_end_tag_next_anchor_or_eof() {
    let d = doc("<a href=/1>one</a> two <a href=/2>three <a href=/3>four");
    let names: Vec<_> = d.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["one", "three", "four"]);
    // Script text inside a link is not its text.
    let d = doc("<a href=/s>go<script>var x = 1;</script></a>");
    assert_eq!(d.links[0].name, "go");
}

#[test]
fn names_from_alt_and_title() {
    let d = doc(r#"<img src=/i.png alt="  A  cat ">
               <img src=/j.png alt="" title="Title only">
               <a href=/t title="Link title"></a>
               <a href=/logo><img src=/logo.png alt="Home"></a>
               <map><area href=/r alt="Region"></map>
               <script src=/s.js></script>"#);
    let names: Vec<_> = d.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "A cat",
            "Title only",
            "Link title",
            "Home",
            "Home",
            "Region",
            ""
        ]
    );
}

#[test]
fn nofollow_from_rel_and_meta_robots() {
    let d = doc(r#"<a href=/1 rel="external NoFollow">1</a><a href=/2 rel="nofollowx">2</a>"#);
    assert_eq!(
        d.links.iter().map(|l| l.nofollow).collect::<Vec<_>>(),
        [true, false]
    );
    assert!(!d.nofollow);
    for meta in [
        r#"<meta name="robots" content="noindex, nofollow">"#,
        r#"<META NAME="Robots" CONTENT="NOFOLLOW">"#,
        r#"<meta name=robots content=none>"#,
    ] {
        assert!(doc(meta).nofollow, "{meta}");
    }
    for meta in [
        r#"<meta name="robots" content="noindex">"#,
        r#"<meta name="googlebot" content="nofollow">"#,
        r#"<meta name="description" content="nofollow">"#,
    ] {
        assert!(!doc(meta).nofollow, "{meta}");
    }
}

/// `extract_html_batched` with `batch`, the batches joined back into one document.
fn batched(html: &str, anchors: bool, batch: usize) -> (HtmlDocument, usize) {
    let mut links = Vec::new();
    let mut calls = 0;
    let mut doc = extract_html_batched(html.as_bytes(), anchors, false, batch, &mut |d| {
        calls += 1;
        // The document-wide facts are final in every batch.
        assert_eq!(d.base.as_deref(), Some("/late/"));
        assert!(d.nofollow);
        links.append(&mut d.links);
    });
    doc.links = links;
    (doc, calls)
}

#[test]
fn batched_links_equal_the_whole_document() {
    // A late <base> and robots <meta> apply to the links before them; an <a> whose text
    // spans other links (images, an unclosed <a>) keeps its label across batch boundaries.
    let mut html = String::from("<html><body id=top>\n");
    for i in 0..300 {
        match i % 5 {
            0 => html.push_str(&format!("<a href='a{i}' id=x{i}>text {i}</a>\n")),
            1 => html.push_str(&format!("<a href='b{i}'>open <img src='i{i}' alt=pic> ")),
            2 => html.push_str(&format!("<img srcset='s{i} 1x, t{i} 2x' title=t{i}>\n")),
            3 => html.push_str(&format!("<a name=n{i} href=' c{i} '>c</a>\n")),
            _ => html.push_str(&format!("<link href='l{i}' rel=nofollow>\n")),
        }
    }
    html.push_str("<base href='/late/'><meta name=robots content=nofollow></body>\n");
    html.push_str(&"<p>tail</p><a href=end>end</a>".repeat(50));
    let whole = extract_html(html.as_bytes());
    assert!(whole.links.len() > 400);
    for batch in [1, 7, 64, 100_000] {
        let (doc, _) = batched(&html, true, batch);
        assert_eq!(doc, whole, "batch {batch}");
    }
    // Without anchors: the same links, no anchors.
    let (doc, _) = batched(&html, false, 64);
    assert_eq!(doc.links, whole.links);
    assert!(doc.anchors.is_empty());
    assert!(!whole.anchors.is_empty());
}

#[test]
fn batches_are_handed_over_once_no_base_or_meta_can_follow() {
    let mut html = String::from("<head><BASE href='/late/'><Meta name=robots content=none>");
    html.push_str(&"<a href=x>x</a>".repeat(1000));
    let (doc, calls) = batched(&html, false, 10);
    assert_eq!(doc.links, extract_html(html.as_bytes()).links);
    // Batches of 9: the tenth link's `<a>` text is still open when the batch fills.
    assert_eq!(calls, 1000usize.div_ceil(9), "{calls} batches");
    // A late `<meta` holds every link until it is passed.
    let late =
        html.replace("<Meta name=robots content=none>", "") + "<meta name=robots content=none>";
    let (doc, calls) = batched(&late, false, 10);
    assert_eq!(doc.links.len(), 1000);
    assert_eq!(calls, 1);
}

#[test]
fn anchors_from_id_and_a_name() {
    let d = doc(
        r#"<body id="top"><h2 ID=Intro>x</h2><a name="old-style">x</a>
               <a href=/x id="both" name="both-name">y</a><p id="">e</p><p id=first id=second>
               <div name="not-an-anchor"></div>"#,
    );
    assert_eq!(
        d.anchors,
        ["top", "Intro", "old-style", "both", "both-name", "first"]
    );
}

#[test]
fn uppercase_tags_and_attributes() {
    let d = doc(r#"<A HREF="/UP" REL=NOFOLLOW>Up</A><IMG SRC="/I.PNG" ALT=Pic><BASE HREF=/b/>"#);
    assert_eq!(
        d.links
            .iter()
            .map(|l| (l.tag, l.attr, l.value.as_str(), l.nofollow))
            .collect::<Vec<_>>(),
        [("a", "href", "/UP", true), ("img", "src", "/I.PNG", false)]
    );
    assert_eq!(d.links[1].name, "Pic");
    assert_eq!(d.base.as_deref(), Some("/b/"));
}

#[test]
fn invalid_utf8_is_replaced() {
    let d = extract_html(b"<p>\xff\xfe</p><a href=\"/caf\xe9\">ol\xc3\xa9 \xc3</a>");
    assert_eq!(values_of(&d), ["/caf\u{FFFD}"]);
    assert_eq!(d.links[0].name, "ol\u{e9} \u{FFFD}");
    assert_eq!((d.links[0].line, d.links[0].column), (1, 10));
}

/// Deterministic xorshift64, so failures are reproducible.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[test]
fn random_bytes_do_not_panic() {
    let mut next = rng(0x9E37_79B9_7F4A_7C15);
    for len in [0, 1, 2, 7, 64, 1000, 65_536] {
        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let _ = extract_html(&bytes);
    }
}

#[test]
fn random_html_fragments_do_not_panic() {
    const PIECES: &str = "<a href=|<a href=\"/x\">|</a>|<img srcset=\"| 2x,|<script>|</script\
            |<meta http-equiv=refresh content=\"0;url=|<base href=|<!--|-->|<![CDATA[|&amp;|&#x\
            |&|&notin|\"|'|=|>|<|/| |\n|\r|\r\n|\0|é|\u{FFFF}|<noscript>|<textarea>|<plaintext>\
            |<title>|</|<!DOCTYPE|<svg>|<math>|<a name=| id=|rel=nofollow|<area href\
            |<link rel=preconnect |<A HREF=/y>|<?php|<img src=/i alt=|x";
    let pieces: Vec<&str> = PIECES.split('|').collect();
    let mut next = rng(42);
    let mut total_links = 0;
    for round in 0..3000 {
        let mut html: Vec<u8> = Vec::new();
        for _ in 0..next() % 40 {
            html.extend_from_slice(pieces[next() as usize % pieces.len()].as_bytes());
            if round % 2 == 1 && next().is_multiple_of(8) {
                html.push(next() as u8);
            }
        }
        let d = extract_html(&html);
        total_links += d.links.len();
        for link in &d.links {
            assert!(link.name.chars().count() <= MAX_NAME_CHARS);
            if let Ok(text) = std::str::from_utf8(&html) {
                // Every reported position holds the `<` of that element's start tag.
                let at = char_at(text, link.line, link.column);
                assert_eq!(at, Some('<'), "{text:?} {link:?}");
            }
        }
    }
    assert!(
        total_links > 1000,
        "fragments produced only {total_links} links"
    );
}

/// The character at a 1-based (line, column), lines ending at `\n`, `\r\n` or `\r`.
fn char_at(text: &str, line: usize, column: usize) -> Option<char> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    normalized
        .split('\n')
        .nth(line - 1)?
        .chars()
        .nth(column - 1)
}

#[test]
fn positions_point_at_the_tag_after_tricky_content() {
    let html = "<!DOCTYPE html><!-- <a href=/c> -->x&amp;y&#233;&notin;&bogus;&\r\n\
            <title>t</title><script>if (a<b) {}</script>é<a href=/1>1</a><![CDATA[x]]>\
            <img\nsrc=/2><p>&lt;</p>\u{1F600}<area href=/3>";
    let d = doc(html);
    assert_eq!(values_of(&d), ["/1", "/2", "/3"]);
    for link in &d.links {
        assert_eq!(char_at(html, link.line, link.column), Some('<'), "{link:?}");
    }
}

#[test]
fn whitespace_around_a_value_is_flagged() {
    let d = extract_html(b"<a href=' /ok '>padded</a><a href='/plain'>plain</a>");
    assert!(d.links[0].padded, "{:?}", d.links[0]);
    assert_eq!(d.links[0].value, "/ok");
    assert!(!d.links[1].padded);
}

#[test]
fn document_wide_facts_settle_after_the_last_base_or_meta_tag() {
    assert_eq!(settled_after(b""), 0);
    assert_eq!(settled_after(b"<a href=x>no such tag</a>"), 0);
    assert_eq!(settled_after(b"<BASE href=/><p><Meta name=robots><a>"), 16);
    // A `<` too near the end to name a tag is no such tag.
    assert_eq!(settled_after(b"<p><meta x><me"), 3);
    assert_eq!(settled_after(b"<a><!-- <metadata> -->"), 8);
}

#[test]
fn verbatim_reads_bare_urls_of_pre_and_code_only() {
    let html = "<p>https://ex.test/prose</p>\n<pre>get https://ex.test/a?x=1&amp;y=2.\n\
                <b>www.ex.test/b</b></pre><code>https://ex.test/c</code>\
                <pre><a href=/d>https://ex.test/d</a></pre><script>x='https://ex.test/s'</script>";
    let found = |verbatim: bool| {
        let mut links = Vec::new();
        extract_html_batched(html.as_bytes(), false, verbatim, 2, &mut |d| {
            links.extend(
                d.links
                    .drain(..)
                    .map(|l| (l.tag, l.value, l.line, l.column)),
            );
        });
        links
    };
    assert_eq!(found(false), [("a", "/d".to_owned(), 3, 62)]);
    assert_eq!(
        found(true),
        [
            ("pre", "https://ex.test/a?x=1&y=2".to_owned(), 2, 10),
            ("pre", "http://www.ex.test/b".to_owned(), 3, 4),
            ("code", "https://ex.test/c".to_owned(), 3, 33),
            ("a", "/d".to_owned(), 3, 62),
        ]
    );
}
