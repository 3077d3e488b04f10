//! A local document is read once, whatever its name: a folder and its `index.html` (`./`,
//! `sub`, `sub/`, `sub/index.html`) and a file with any query string (`about.html?x=1`) are one
//! cache key, one parse and one report row per link occurrence.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::util::{CSV_FLAGS, TempDir, cli, rows};

/// How many rows each (link as written, page file name) has.
fn row_counts(rows: &[csv::StringRecord], root: &Path) -> BTreeMap<(String, String), usize> {
    let root = url::Url::from_directory_path(root).unwrap().to_string();
    let mut counts = BTreeMap::new();
    for r in rows.iter().filter(|r| !r[1].is_empty()) {
        let page = r[1].strip_prefix(root.as_str()).unwrap_or(&r[1]).to_owned();
        *counts.entry((r[0].to_owned(), page)).or_default() += 1;
    }
    counts
}

#[test]
fn a_folder_its_index_and_query_strings_are_one_document() {
    let dir = TempDir::new("one-document");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<a href='missing.html'>m</a> <a href='./'>home</a> <a href='index.html'>home</a>\n\
         <a href='about.html?x=1&amp;y=2'>q</a> <a href='about.html'>a</a> <a href='sub'>s</a>\n\
         <a href='sub/'>s</a> <a href='sub/index.html?v=2'>s</a>",
    )
    .unwrap();
    std::fs::write(
        dir.join("about.html"),
        "<a href='./'>home</a> <a href='index.html#top'>home</a> <a href='gone.html'>g</a>",
    )
    .unwrap();
    std::fs::write(dir.join("sub/index.html"), "<a href='../nope.html'>n</a>").unwrap();
    for threads in ["1", "4"] {
        let out = cli(&[
            &CSV_FLAGS[..],
            &["--threads", threads],
            &[dir.to_str().unwrap()],
        ]
        .concat());
        assert_eq!(out.status.code(), Some(1));
        let rows = rows(&out);
        let counts = row_counts(&rows, &dir);
        // Each link of each page is one row: no page was parsed twice.
        let pages: BTreeMap<&str, usize> =
            counts.iter().fold(BTreeMap::new(), |mut m, ((_, p), n)| {
                *m.entry(p.as_str()).or_default() += n;
                m
            });
        assert_eq!(
            pages,
            BTreeMap::from([("index.html", 8), ("about.html", 3), ("sub/index.html", 1)]),
            "threads={threads}: {counts:#?}"
        );
        assert!(
            counts.values().all(|n| *n == 1),
            "threads={threads}: {counts:#?}"
        );
        // Three documents and three missing files: one URL each, plus the start. The url
        // column carries each link's fragment (`index.html#top`), so it is set aside here.
        let urls: std::collections::BTreeSet<&str> = rows
            .iter()
            .map(|r| r[7].split('#').next().unwrap_or_default())
            .collect();
        assert_eq!(urls.len(), 6, "threads={threads}: {urls:#?}");
        let broken: Vec<&str> = rows
            .iter()
            .filter(|r| &r[6] == "False")
            .map(|r| &r[0])
            .collect();
        assert_eq!(broken.len(), 3, "each broken link once: {broken:?}");
    }
}
