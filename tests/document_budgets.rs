//! Hostile PDFs and Office documents, built by the test: each is read within its document's
//! budgets (objects and decompressed bytes loaded, annotations examined, links read, a part's
//! name), as a local file and served over HTTP, at 1 and 8 threads. The binary runs with its
//! address space and CPU time limited, so a bomb that is not bounded fails the test instead of
//! taking the machine.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{
    CSV_FLAGS, TempDir, rows, without_machine_settings, zip_archive as archive,
};

/// The binary's limits: 4 GiB of address space, 120 s of CPU time (not wall-clock time).
const LIMITS: &str = "ulimit -v 4194304 && ulimit -t 120 && exec \"$@\"";

/// Runs `linkpatrol --no-config` with [`CSV_FLAGS`], `-t threads` and `input`, within
/// [`LIMITS`].
fn limited(dir: &Path, threads: &str, input: &str) -> Output {
    let mut cmd = Command::new("sh");
    without_machine_settings(&mut cmd, &dir.join("home"));
    cmd.args([
        "-c",
        LIMITS,
        "sh",
        env!("CARGO_BIN_EXE_linkpatrol"),
        "--no-config",
    ])
    .args(CSV_FLAGS)
    .args(["-t", threads, input])
    .output()
    .unwrap()
}

/// The CSV rows of a run over `name` (holding `body`) as a local file and as served by a
/// loopback server with `content_type`, at 1 and 8 threads: `(how, threads, rows)`.
fn every_way(
    name: &str,
    body: &[u8],
    content_type: &str,
    server_routes: Routes,
) -> Vec<(String, Vec<csv::StringRecord>)> {
    let dir = TempDir::new(&format!("budget-{name}"));
    let file = dir.join(name);
    std::fs::write(&file, body).unwrap();
    let server = TestServer::start(
        server_routes.reply(
            &format!("/{name}"),
            Reply::html("")
                .body(body.to_vec())
                .content_type(content_type),
        ),
    );
    let served = server.url(&format!("/{name}"));
    let mut runs = Vec::new();
    for threads in ["1", "8"] {
        for (how, input) in [
            ("file", file.to_str().unwrap()),
            ("served", served.as_str()),
        ] {
            let out = limited(&dir, threads, input);
            let what = format!("{how} at {threads} threads");
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{what}: {:?} {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            runs.push((what, rows(&out)));
        }
    }
    runs
}

/// The warning column of the document's own row.
fn warning_of<'a>(rows: &'a [csv::StringRecord], name: &str) -> &'a str {
    rows.iter()
        .find(|r| r[1].is_empty() && r[0].ends_with(name))
        .map_or("", |r| &r[4])
}

/// A PDF of the numbered objects `bodies` (object `i + 1` each), with a cross-reference
/// table; object 1 is the catalog.
fn raw_pdf(bodies: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", bodies.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            bodies.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A flate-compressed object stream holding `members` (number, text).
fn object_stream(members: &[(usize, String)]) -> Vec<u8> {
    let (mut header, mut text) = (String::new(), String::new());
    for (number, member) in members {
        header.push_str(&format!("{number} {} ", text.len()));
        text.push_str(member);
        text.push(' ');
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(header.as_bytes()).unwrap();
    z.write_all(text.as_bytes()).unwrap();
    let data = z.finish().unwrap();
    let mut out = format!(
        "<< /Type /ObjStm /N {} /First {} /Filter /FlateDecode /Length {} >>\nstream\n",
        members.len(),
        header.len(),
        data.len()
    )
    .into_bytes();
    out.extend_from_slice(&data);
    out.extend_from_slice(b"\nendstream");
    out
}

/// The first objects of a one-page PDF: catalog, page tree (`kids` copies of the page), the
/// page (its `/Annots` object 4), and a link annotation to `url` (object 5).
fn one_page(kids: usize, url: &str) -> Vec<Vec<u8>> {
    vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count 1 >>",
            "3 0 R ".repeat(kids)
        )
        .into_bytes(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Annots 4 0 R >>".to_vec(),
        Vec::new(),
        format!(
            "<< /Type /Annot /Subtype /Link /Rect [0 0 1 1] /Contents (the link) \
             /A << /S /URI /URI ({url}) >> >>"
        )
        .into_bytes(),
        b"<< /Type /Annot /Subtype /Text /Rect [0 0 1 1] >>".to_vec(),
    ]
}

fn ok_site() -> Routes {
    Routes::new().page("/ok", "fine")
}

/// Object streams of `0 0 0 …`: 94 KB that lopdf would parse into gigabytes.
#[test]
fn a_pdf_whose_object_streams_are_too_many_objects_is_refused() {
    let probe = TestServer::start(ok_site());
    let mut bodies = one_page(1, &probe.url("/ok"));
    bodies[3] = b"[5 0 R]".to_vec();
    let zeros = format!("[{}]", "0 ".repeat(7_500_000));
    for i in 0..6 {
        bodies.push(object_stream(&[(100 + i, zeros.clone())]));
    }
    let pdf = raw_pdf(&bodies);
    assert!(pdf.len() < 200_000, "{}", pdf.len());
    for (what, rows) in every_way("bomb.pdf", &pdf, "application/pdf", ok_site()) {
        let warning = warning_of(&rows, "bomb.pdf");
        assert!(
            warning.contains("[document-unreadable]") && warning.contains("2000000 objects"),
            "{what}: {warning:?}"
        );
    }
}

/// One page listed 20,000 times, its 20,000 annotations examined once: one link, read once.
#[test]
fn a_pdf_page_listed_many_times_is_read_once() {
    let probe = TestServer::start(ok_site());
    let ok = probe.url("/ok");
    let mut bodies = one_page(20_000, &ok);
    bodies[3] = format!("[5 0 R {}]", "6 0 R ".repeat(20_000)).into_bytes();
    let filler: Vec<(usize, String)> = (100..20_100).map(|n| (n, "null".to_owned())).collect();
    bodies.push(object_stream(&filler));
    let pdf = raw_pdf(&bodies);
    for (what, rows) in every_way("pages.pdf", &pdf, "application/pdf", ok_site()) {
        let links: Vec<(&str, &str, &str)> = rows
            .iter()
            .filter(|r| r[1].ends_with("pages.pdf"))
            .map(|r| (&r[0], &r[8], &r[10]))
            .collect();
        assert_eq!(links, [(ok.as_str(), "1", "the link")], "{what}");
        assert_eq!(warning_of(&rows, "pages.pdf"), "", "{what}");
    }
}

/// 250,001 annotations: the link before the budget's end is kept, and the budget is named.
#[test]
fn a_pdf_with_too_many_annotations_keeps_the_links_before_them() {
    let probe = TestServer::start(ok_site());
    let ok = probe.url("/ok");
    let mut bodies = one_page(1, &ok);
    bodies[3] = format!("[5 0 R {}]", "6 0 R ".repeat(250_000)).into_bytes();
    let pdf = raw_pdf(&bodies);
    for (what, rows) in every_way("annots.pdf", &pdf, "application/pdf", ok_site()) {
        let links = rows.iter().filter(|r| r[1].ends_with("annots.pdf")).count();
        assert_eq!(links, 1, "{what}");
        let warning = warning_of(&rows, "annots.pdf");
        assert!(
            warning.contains("[document-unreadable]") && warning.contains("250000 annotations"),
            "{what}: {warning:?}"
        );
    }
}

const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/// A `.rels` part named by 60,000 letters: its links are named by a few dozen of them.
#[test]
fn a_long_part_name_is_cut_in_the_links_names() {
    let probe = TestServer::start(ok_site());
    let ok = probe.url("/ok");
    let mut rels = String::from("<Relationships>");
    for i in 0..50 {
        rels.push_str(&format!(
            "<Relationship Id=\"r{i}\" Type=\"http://x/hyperlink\" Target=\"{ok}?{i}\" \
             TargetMode=\"External\"/>"
        ));
    }
    rels.push_str("</Relationships>");
    let name = format!("word/_rels/{}7.xml.rels", "a".repeat(60_000));
    let docx = archive(&[(name.as_str(), rels)]);
    for (what, rows) in every_way("long.docx", &docx, DOCX, ok_site()) {
        let names: Vec<&str> = rows
            .iter()
            .filter(|r| r[1].ends_with("long.docx"))
            .map(|r| &r[10])
            .collect();
        assert_eq!(names.len(), 50, "{what}");
        let expected = format!("{} 7", "a".repeat(32));
        assert!(
            names.iter().all(|n| *n == expected),
            "{what}: {:?}",
            names[0]
        );
    }
}

const ODT: &str = "application/vnd.oasis.opendocument.text";

/// 100,001 links in 1 KB of text: the first 100,000 are read, and the cap is named.
#[test]
fn an_office_document_has_a_link_cap() {
    let probe = TestServer::start(ok_site());
    let ok = probe.url("/ok");
    let link = format!("<text:a xlink:href=\"{ok}\"/>");
    let content = format!(
        "<office:document-content><office:body><office:text>{}</office:text></office:body>\
         </office:document-content>",
        link.repeat(100_001)
    );
    let odt = archive(&[("content.xml", content)]);
    for (what, rows) in every_way("many.odt", &odt, ODT, ok_site()) {
        let links = rows.iter().filter(|r| r[1].ends_with("many.odt")).count();
        assert_eq!(links, 100_000, "{what}");
        let warning = warning_of(&rows, "many.odt");
        assert!(
            warning.contains("[document-unreadable]") && warning.contains("100000 links"),
            "{what}: {warning:?}"
        );
    }
}
