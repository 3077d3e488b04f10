//! Links inside PDF files and Office documents (.docx, .xlsx, .pptx, .odt, .ods, .odp), built
//! by the test (lopdf, zip): each link is checked at its page, slide or sheet number, in the CSV,
//! JSON and text reports, at 1 and 8 threads; a document served over HTTP is read too, and a
//! damaged one is warned about.

use std::path::Path;

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{CSV_FLAGS, TempDir, cli, rows, zip_archive as archive};

/// Office Open XML relationships: one external hyperlink per URL.
fn rels(urls: &[&str]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\"?><Relationships \
         xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">",
    );
    for (i, url) in urls.iter().enumerate() {
        xml.push_str(&format!(
            "<Relationship Id=\"rId{i}\" Type=\"http://schemas.openxmlformats.org/\
             officeDocument/2006/relationships/hyperlink\" Target=\"{url}\" \
             TargetMode=\"External\"/>"
        ));
    }
    xml + "</Relationships>"
}

/// OpenDocument content: one sheet or slide per URL (`element`), each holding a link to it.
fn content(kind: &str, element: &str, urls: &[&str]) -> String {
    let mut xml = format!("<office:document-content><office:body><office:{kind}>");
    for url in urls {
        xml.push_str(&format!(
            "<{element}><text:p><text:a xlink:href=\"{url}\">to {url}</text:a></text:p></{element}>"
        ));
    }
    xml + &format!("</office:{kind}></office:body></office:document-content>")
}

/// The documents of one kind each, linking to `ok` and `gone`.
fn documents(dir: &Path, ok: &str, gone: &str) {
    let two = [ok, gone];
    let write = |name: &str, bytes: Vec<u8>| std::fs::write(dir.join(name), bytes).unwrap();
    write(
        "deck.pptx",
        archive(&[
            ("ppt/slides/_rels/slide1.xml.rels", rels(&[ok])),
            ("ppt/slides/_rels/slide2.xml.rels", rels(&[gone])),
        ]),
    );
    write(
        "book.xlsx",
        archive(&[("xl/worksheets/_rels/sheet3.xml.rels", rels(&two))]),
    );
    write(
        "letter.docx",
        archive(&[("word/_rels/document.xml.rels", rels(&two))]),
    );
    write(
        "sheets.ods",
        archive(&[("content.xml", content("spreadsheet", "table:table", &two))]),
    );
    write(
        "slides.odp",
        archive(&[("content.xml", content("presentation", "draw:page", &two))]),
    );
    write(
        "text.odt",
        archive(&[("content.xml", content("text", "text:section", &two))]),
    );
}

fn site() -> TestServer {
    TestServer::start(
        Routes::new()
            .page("/ok", "fine")
            .reply("/gone", Reply::not_found()),
    )
}

#[test]
fn the_links_of_office_documents_are_checked_at_their_part() {
    let server = site();
    let dir = TempDir::new("office");
    let (ok, gone) = (server.url("/ok"), server.url("/gone"));
    documents(&dir, &ok, &gone);
    let names = [
        "deck.pptx",
        "book.xlsx",
        "letter.docx",
        "sheets.ods",
        "slides.odp",
        "text.odt",
    ];
    for threads in ["1", "8"] {
        let inputs: Vec<String> = names
            .iter()
            .map(|n| dir.join(n).to_string_lossy().into_owned())
            .collect();
        let mut args: Vec<&str> = CSV_FLAGS.to_vec();
        args.extend(["-t", threads]);
        args.extend(inputs.iter().map(String::as_str));
        let out = cli(&args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let rows = rows(&out);
        // (document, link, valid, line, name) of every link row.
        let mut got: Vec<(String, String, String, String, String)> = rows
            .iter()
            .filter(|r| !r[1].is_empty())
            .map(|r| {
                let page = r[1].rsplit('/').next().unwrap().to_owned();
                let link = r[0].trim_start_matches(&server.url("")).to_owned();
                (
                    page,
                    link,
                    r[6].to_owned(),
                    r[8].to_owned(),
                    r[10].to_owned(),
                )
            })
            .collect();
        got.sort();
        let row = |p: &str, l: &str, v: &str, line: &str, name: &str| {
            (
                p.to_owned(),
                l.to_owned(),
                v.to_owned(),
                line.to_owned(),
                name.to_owned(),
            )
        };
        assert_eq!(
            got,
            [
                row("book.xlsx", "gone", "False", "3", "sheet 3"),
                row("book.xlsx", "ok", "True", "3", "sheet 3"),
                row("deck.pptx", "gone", "False", "2", "slide 2"),
                row("deck.pptx", "ok", "True", "1", "slide 1"),
                row("letter.docx", "gone", "False", "1", "document 1"),
                row("letter.docx", "ok", "True", "1", "document 1"),
                row("sheets.ods", "gone", "False", "2", &format!("to {gone}")),
                row("sheets.ods", "ok", "True", "1", &format!("to {ok}")),
                row("slides.odp", "gone", "False", "2", &format!("to {gone}")),
                row("slides.odp", "ok", "True", "1", &format!("to {ok}")),
                row("text.odt", "gone", "False", "1", &format!("to {gone}")),
                row("text.odt", "ok", "True", "1", &format!("to {ok}")),
            ],
            "{threads} threads"
        );
    }
    // JSON and the text report name the document and the part.
    let deck = dir.join("deck.pptx");
    let out = cli(&["--no-status", "-o", "json", deck.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["errors"], 1, "{doc}");
    let text =
        String::from_utf8_lossy(&cli(&["--no-status", deck.to_str().unwrap()]).stdout).into_owned();
    assert!(text.contains("deck.pptx") && text.contains(&gone), "{text}");
}

#[test]
fn a_served_document_is_read_and_a_damaged_one_is_warned_about() {
    let gone_server = site();
    let gone = gone_server.url("/gone");
    let xlsx = archive(&[("xl/worksheets/_rels/sheet1.xml.rels", rels(&[&gone]))]);
    let mut cut = xlsx.clone();
    cut.truncate(cut.len() / 2);
    let xlsx_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
    let server = TestServer::start(
        Routes::new()
            .page(
                "/",
                "<a href='book.xlsx'>book</a> <a href='cut.xlsx'>cut</a>",
            )
            .reply(
                "/book.xlsx",
                Reply::html("").body(xlsx).content_type(xlsx_type),
            )
            .reply(
                "/cut.xlsx",
                Reply::html("").body(cut).content_type(xlsx_type),
            ),
    );
    for threads in ["1", "8"] {
        let mut args: Vec<&str> = CSV_FLAGS.to_vec();
        let start = server.url("/");
        args.extend(["-t", threads, &start]);
        let out = cli(&args);
        let rows = rows(&out);
        let broken = rows
            .iter()
            .find(|r| r[0] == gone)
            .expect("the sheet's link");
        assert!(
            broken[1].ends_with("/book.xlsx") && broken[6] == *"False",
            "{broken:?}"
        );
        let cut_row = rows
            .iter()
            .find(|r| &r[0] == "cut.xlsx")
            .expect("the damaged file");
        assert!(cut_row[4].contains("[document-unreadable]"), "{cut_row:?}");
    }
}

/// A PDF of one page per entry of `pages`, each with `URI` link annotations (URL, contents).
fn pdf(pages: &[&[(&str, &str)]]) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut kids: Vec<Object> = Vec::new();
    for links in pages {
        let content = doc.add_object(Stream::new(dictionary! {}, b"BT ET".to_vec()));
        let mut annots: Vec<Object> = Vec::new();
        for (url, contents) in *links {
            let annot = dictionary! {
                "Type" => "Annot",
                "Subtype" => "Link",
                "Rect" => vec![0.into(), 0.into(), 10.into(), 10.into()],
                "Contents" => Object::string_literal(*contents),
                "A" => dictionary! { "S" => "URI", "URI" => Object::string_literal(*url) },
            };
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

#[test]
fn the_links_of_a_pdf_are_checked_at_their_page() {
    let server = site();
    let (ok, gone) = (server.url("/ok"), server.url("/gone"));
    let dir = TempDir::new("pdf");
    let file = dir.join("manual.pdf");
    std::fs::write(
        &file,
        pdf(&[&[(&ok, "the spec")], &[], &[(&gone, "gone away")]]),
    )
    .unwrap();
    std::fs::write(dir.join("cut.pdf"), b"%PDF-1.5\n1 0 obj <<").unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<a href='manual.pdf'>manual</a> <a href='cut.pdf'>cut</a>",
    )
    .unwrap();
    for threads in ["1", "8"] {
        let mut args: Vec<&str> = CSV_FLAGS.to_vec();
        args.extend(["-t", threads, dir.to_str().unwrap()]);
        let out = cli(&args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let rows = rows(&out);
        let on_pdf: Vec<(&str, &str, &str, &str)> = rows
            .iter()
            .filter(|r| r[1].ends_with("/manual.pdf"))
            .map(|r| (&r[0], &r[6], &r[8], &r[10]))
            .collect();
        assert_eq!(
            on_pdf,
            [
                (ok.as_str(), "True", "1", "the spec"),
                (gone.as_str(), "False", "3", "gone away")
            ],
            "{threads} threads"
        );
        let cut = rows
            .iter()
            .find(|r| &r[0] == "cut.pdf")
            .expect("the damaged file");
        assert!(cut[4].contains("[document-unreadable]"), "{cut:?}");
    }
    let out = cli(&["--no-status", "-o", "json", file.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["errors"], 1, "{doc}");
}

/// `fixture` with every `from` in its parts' text replaced by `to` (a producer's file made
/// with a placeholder host, pointed at the test's server).
fn rehosted(fixture: &str, from: &str, to: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/office")
        .join(fixture);
    let mut source = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut parts = Vec::new();
    for i in 0..source.len() {
        let mut entry = source.by_index(i).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut entry, &mut text).unwrap();
        let name = entry.name().unwrap().into_owned();
        parts.push((name, text.replace(from, to)));
    }
    let parts: Vec<(&str, String)> = parts.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    archive(&parts)
}

/// Runs the CSV report over `input` at `threads` threads: (link as written, valid, resolved
/// URL, line, name) of the links on a document named `document`, sorted.
fn links_on(input: &str, threads: &str, document: &str) -> Vec<[String; 5]> {
    let mut args: Vec<&str> = CSV_FLAGS.to_vec();
    args.extend(["-t", threads, input]);
    let out = cli(&args);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    let mut got: Vec<[String; 5]> = rows(&out)
        .iter()
        .filter(|r| r[1].ends_with(document))
        .map(|r| [&r[0], &r[6], &r[7], &r[8], &r[10]].map(str::to_owned))
        .collect();
    got.sort();
    got
}

/// A link row: (link as written, valid, resolved URL, line, name).
fn link(written: &str, valid: bool, url: &str, line: &str, name: &str) -> [String; 5] {
    let valid = if valid { "True" } else { "False" };
    [written, valid, url, line, name].map(str::to_owned)
}

/// pandoc 2.17.1.1 (`pandoc in.md -o out.docx`, a link-and-footnote Markdown file) lists every
/// hyperlink again in `word/_rels/footnotes.xml.rels`, which `footnotes.xml` never references:
/// each link is one row, not two.
#[test]
fn a_pandoc_docx_reports_each_link_once() {
    let server = site();
    let dir = TempDir::new("pandoc-docx");
    let file = dir.join("notes.docx");
    let docx = rehosted(
        "pandoc-footnote.docx",
        "http://127.0.0.1:1/",
        &server.url("/"),
    );
    std::fs::write(&file, docx).unwrap();
    let (ok, gone) = (server.url("/ok"), server.url("/gone"));
    for threads in ["1", "8"] {
        assert_eq!(
            links_on(file.to_str().unwrap(), threads, "/notes.docx"),
            [
                link(&gone, false, &gone, "1", "document 1"),
                link(&ok, true, &ok, "1", "document 1"),
            ],
            "{threads} threads"
        );
    }
}

/// A Word part's `HYPERLINK` fields: a complex field split over runs, with `\l` (a fragment),
/// and a simple one in the page header.
#[test]
fn docx_hyperlink_fields_are_checked() {
    let server = site();
    let dir = TempDir::new("docx-fields");
    let (ok, gone) = (server.url("/ok"), server.url("/gone"));
    let w = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"";
    let document = format!(
        "<w:document {w}><w:body><w:p>\
         <w:r><w:fldChar w:fldCharType=\"begin\"/></w:r>\
         <w:r><w:instrText xml:space=\"preserve\"> HYPERLINK \"{ok}\" </w:instrText></w:r>\
         <w:r><w:instrText xml:space=\"preserve\">\\l \"part\" \\o \"tip\" \\h </w:instrText></w:r>\
         <w:r><w:fldChar w:fldCharType=\"separate\"/></w:r><w:r><w:t>ok</w:t></w:r>\
         <w:r><w:fldChar w:fldCharType=\"end\"/></w:r></w:p></w:body></w:document>"
    );
    let header = format!(
        "<w:hdr {w}><w:p><w:fldSimple w:instr=\" HYPERLINK &quot;{gone}&quot; \">\
         <w:r><w:t>gone</w:t></w:r></w:fldSimple></w:p></w:hdr>"
    );
    let file = dir.join("fields.docx");
    std::fs::write(
        &file,
        archive(&[
            ("word/document.xml", document),
            ("word/_rels/document.xml.rels", rels(&[])),
            ("word/header1.xml", header),
        ]),
    )
    .unwrap();
    let part = format!("{ok}#part");
    for threads in ["1", "8"] {
        assert_eq!(
            links_on(file.to_str().unwrap(), threads, "/fields.docx"),
            [
                link(&gone, false, &gone, "1", "header 1"),
                link(&part, true, &part, "1", "document 1"),
            ],
            "{threads} threads"
        );
    }
}

/// An OpenDocument text whose `styles.xml` holds a link in the page header (as LibreOffice
/// writes headers and footers).
#[test]
fn odf_page_headers_are_checked() {
    let server = site();
    let dir = TempDir::new("odf-headers");
    let (ok, gone) = (server.url("/ok"), server.url("/gone"));
    let styles = format!(
        "<office:document-styles><office:master-styles><style:master-page style:name=\"Standard\">\
         <style:header><text:p><text:a xlink:type=\"simple\" xlink:href=\"{gone}\">header link\
         </text:a></text:p></style:header></style:master-page></office:master-styles>\
         </office:document-styles>"
    );
    let odt = dir.join("report.odt");
    std::fs::write(
        &odt,
        archive(&[
            (
                "content.xml",
                content("text", "text:section", &[ok.as_str()]),
            ),
            ("styles.xml", styles),
        ]),
    )
    .unwrap();
    for threads in ["1", "8"] {
        assert_eq!(
            links_on(odt.to_str().unwrap(), threads, "/report.odt"),
            [
                link(&gone, false, &gone, "1", "header link"),
                link(&ok, true, &ok, "1", &format!("to {ok}")),
            ],
            "{threads} threads"
        );
    }
}

/// An OpenDocument presentation whose shape on slide 2 links on a click
/// (`presentation:event-listener`).
#[test]
fn odp_click_actions_are_checked() {
    let server = site();
    let dir = TempDir::new("odp-click");
    let gone = server.url("/gone");
    let slides = format!(
        "<office:document-content><office:body><office:presentation>\
         <draw:page draw:name=\"one\"/><draw:page draw:name=\"two\"><draw:custom-shape>\
         <text:p>click me</text:p><office:event-listeners><presentation:event-listener \
         script:event-name=\"dom:click\" presentation:action=\"show\" xlink:href=\"{gone}\" \
         xlink:type=\"simple\"/></office:event-listeners></draw:custom-shape></draw:page>\
         </office:presentation></office:body></office:document-content>"
    );
    let odp = dir.join("slides.odp");
    std::fs::write(&odp, archive(&[("content.xml", slides)])).unwrap();
    for threads in ["1", "8"] {
        assert_eq!(
            links_on(odp.to_str().unwrap(), threads, "/slides.odp"),
            [link(&gone, false, &gone, "2", "")],
            "{threads} threads"
        );
    }
}

/// LibreOffice writes a link to a file next to the document as `../sibling.html`: ODF resolves
/// it against the package as a folder, so it is that file, on disk and served.
#[test]
fn odf_relative_links_resolve_next_to_the_document() {
    const ODT: &str = "application/vnd.oasis.opendocument.text";
    let odt = archive(&[(
        "content.xml",
        content(
            "text",
            "text:section",
            &["../sibling.html", "../missing.html", "#bookmark"],
        ),
    )]);
    let dir = TempDir::new("odf-relative");
    std::fs::create_dir(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/report.odt"), &odt).unwrap();
    std::fs::write(dir.join("docs/sibling.html"), "<p>here</p>").unwrap();
    // The folder above holds the files a wrong base would find.
    std::fs::write(dir.join("sibling.html"), "<p>not this one</p>").unwrap();
    let server = TestServer::start(
        Routes::new()
            .reply(
                "/docs/report.odt",
                Reply::html("").body(odt).content_type(ODT),
            )
            .page("/docs/sibling.html", "here")
            .page("/sibling.html", "not this one"),
    );
    let file = dir.join("docs/report.odt");
    let folder = url::Url::from_directory_path(dir.join("docs")).unwrap();
    let web = server.url("/docs/");
    for threads in ["1", "8"] {
        for (input, base) in [
            (file.to_str().unwrap(), folder.as_str()),
            (&server.url("/docs/report.odt"), web.as_str()),
        ] {
            let at = |name: &str| format!("{base}{name}");
            assert_eq!(
                links_on(input, threads, "/report.odt"),
                [
                    // A place in the document itself, not in the package as a folder.
                    link(
                        "#bookmark",
                        true,
                        &at("report.odt#bookmark"),
                        "1",
                        "to #bookmark"
                    ),
                    link(
                        "../missing.html",
                        false,
                        &at("missing.html"),
                        "1",
                        "to ../missing.html"
                    ),
                    link(
                        "../sibling.html",
                        true,
                        &at("sibling.html"),
                        "1",
                        "to ../sibling.html"
                    ),
                ],
                "{input} at {threads} threads"
            );
        }
    }
}

/// LibreOffice's own files (7.4.7.2, see `tests/data/office/README.md`): a text with a link in
/// its page header and links to files next to it written `../sibling.html`, and slides whose
/// shape links on a click.
#[test]
fn libreoffice_documents_are_read_as_libreoffice_means_them() {
    let server = site();
    let gone = server.url("/gone");
    let dir = TempDir::new("libreoffice");
    let host = "http://127.0.0.1:1/";
    let odt = dir.join("report.odt");
    let header = format!("{host}header");
    let text = rehosted("libreoffice-header-relative.odt", &header, &gone);
    std::fs::write(&odt, text).unwrap();
    std::fs::write(dir.join("sibling.html"), "<p>here</p>").unwrap();
    let odp = dir.join("slides.odp");
    let click = format!("{host}click");
    let slides = rehosted("libreoffice-click-action.odp", &click, &gone);
    std::fs::write(&odp, slides).unwrap();
    let folder = url::Url::from_directory_path(&*dir).unwrap();
    let at = |name: &str| format!("{folder}{name}");
    for threads in ["1", "8"] {
        assert_eq!(
            links_on(odt.to_str().unwrap(), threads, "/report.odt"),
            [
                link(
                    "../missing.html",
                    false,
                    &at("missing.html"),
                    "1",
                    "the missing one"
                ),
                link(
                    "../sibling.html",
                    true,
                    &at("sibling.html"),
                    "1",
                    "the sibling"
                ),
                link(&gone, false, &gone, "1", "header link"),
            ],
            "{threads} threads"
        );
        assert_eq!(
            links_on(odp.to_str().unwrap(), threads, "/slides.odp"),
            [link(&gone, false, &gone, "1", "")],
            "{threads} threads"
        );
    }
}
