//! The report formats in one table: each format's name, default file, one-line summary and
//! properties. `-o`, `-F`, `--help`, Python's `FORMATS`, the docs check and the tests read
//! them from here, so a new format is a row here, its reporter and its constructor arm in
//! [`reporter_for`](super::reporter_for).

/// The report formats, by the names `-o` and `-F` take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// The problems grouped by page (or by URL, LinkChecker's blocks), then the statistics and
    /// summary.
    Text,
    /// One line per problem, `path:line:column: URL: reason`, then the summary line.
    Compact,
    /// GitHub Actions workflow commands (`::error file=…,line=…::…`), one per problem.
    Github,
    /// A Markdown summary: totals, then a table of problems per page.
    Markdown,
    /// LinkChecker's 17 CSV columns, then `from_state` (18 in all).
    Csv,
    /// One self-contained HTML page for people: summary, broken links by page, sortable table.
    Html,
    /// One JSON document: the entries and a summary.
    Json,
    /// One JSON object per line: the entries, then a summary line.
    Ndjson,
    /// JUnit XML: a test suite per page, a test case per link.
    Junit,
    /// SARIF 2.1.0: one result per broken link (and per warning) where it occurs.
    Sarif,
    /// An XML sitemap (sitemaps.org 0.9) of the good internal HTML pages.
    Sitemap,
    /// One broken URL per line.
    Failures,
    /// The link graph in Graphviz DOT.
    Dot,
    /// The link graph in GML.
    Gml,
}

/// How a format's bytes are spelled, for a reader that checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Syntax {
    /// Lines of text for people (text, compact, GitHub commands, Markdown, failures).
    Text,
    /// Comma- or semicolon-separated values.
    Csv,
    /// One HTML document.
    Html,
    /// One JSON document.
    Json,
    /// One JSON document per line.
    JsonLines,
    /// One XML document.
    Xml,
    /// A Graphviz DOT graph.
    Dot,
    /// A GML graph.
    Gml,
}

/// Which entries a format lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scope {
    /// Problems, or every link with `-v` ([`ReportOptions::verbosity`](super::ReportOptions)).
    Verbosity,
    /// Problems only, whatever the verbosity.
    Problems,
    /// Every link, whatever the verbosity.
    Every,
    /// The good internal HTML pages (the sitemap).
    GoodPages,
}

impl Scope {
    /// How the user guide's table of formats says it (its `-v` column).
    pub fn described(self) -> &'static str {
        match self {
            Scope::Verbosity => "all links",
            Scope::Problems => "problems only",
            Scope::Every => "always all",
            Scope::GoodPages => "good pages only",
        }
    }
}

/// One format's row of the table.
struct Row {
    format: Format,
    name: &'static str,
    file: &'static str,
    summary: &'static str,
    syntax: Syntax,
    scope: Scope,
    timed: bool,
    reasons: bool,
}

/// Every format, in the order `--help` lists them, which is the order of [`Format`]'s variants.
#[rustfmt::skip]
const ROWS: [Row; 14] = [
    Row { format: Format::Text, name: "text", file: "linkpatrol-out.txt",
        summary: "problems grouped by page, statistics, summary", syntax: Syntax::Text,
        scope: Scope::Verbosity, timed: true, reasons: true },
    Row { format: Format::Compact, name: "compact", file: "linkpatrol-out.compact.txt",
        summary: "one `path:line:column: URL: reason` line per problem", syntax: Syntax::Text,
        scope: Scope::Problems, timed: false, reasons: true },
    Row { format: Format::Github, name: "github", file: "linkpatrol-out.github.txt",
        summary: "GitHub Actions annotations, one per problem", syntax: Syntax::Text,
        scope: Scope::Problems, timed: false, reasons: true },
    Row { format: Format::Markdown, name: "markdown", file: "linkpatrol-out.md",
        summary: "totals and a table of problems per page", syntax: Syntax::Text,
        scope: Scope::Problems, timed: true, reasons: true },
    Row { format: Format::Csv, name: "csv", file: "linkpatrol-out.csv",
        summary: "LinkChecker's columns, one row per link and page", syntax: Syntax::Csv,
        scope: Scope::Verbosity, timed: true, reasons: true },
    Row { format: Format::Html, name: "html", file: "linkpatrol-out.html",
        summary: "one self-contained page for people", syntax: Syntax::Html,
        scope: Scope::Verbosity, timed: true, reasons: true },
    Row { format: Format::Json, name: "json", file: "linkpatrol-out.json",
        summary: "one JSON document: entries and summary", syntax: Syntax::Json,
        scope: Scope::Verbosity, timed: true, reasons: true },
    Row { format: Format::Ndjson, name: "ndjson", file: "linkpatrol-out.ndjson",
        summary: "one JSON object per line, then a summary line", syntax: Syntax::JsonLines,
        scope: Scope::Verbosity, timed: true, reasons: true },
    Row { format: Format::Junit, name: "junit", file: "linkpatrol-out.junit.xml",
        summary: "JUnit XML: a test suite per page, a test case per link", syntax: Syntax::Xml,
        scope: Scope::Every, timed: true, reasons: true },
    Row { format: Format::Sarif, name: "sarif", file: "linkpatrol-out.sarif",
        summary: "SARIF 2.1.0 for code scanning", syntax: Syntax::Json,
        scope: Scope::Problems, timed: true, reasons: true },
    Row { format: Format::Sitemap, name: "sitemap", file: "linkpatrol-out.sitemap.xml",
        summary: "an XML sitemap of the good internal pages", syntax: Syntax::Xml,
        scope: Scope::GoodPages, timed: false, reasons: false },
    Row { format: Format::Failures, name: "failures", file: "linkpatrol-failures.txt",
        summary: "each broken URL once, one per line", syntax: Syntax::Text,
        scope: Scope::Problems, timed: false, reasons: false },
    Row { format: Format::Dot, name: "dot", file: "linkpatrol-out.dot",
        summary: "the link graph for Graphviz", syntax: Syntax::Dot,
        scope: Scope::Every, timed: false, reasons: false },
    Row { format: Format::Gml, name: "gml", file: "linkpatrol-out.gml",
        summary: "the link graph in GML", syntax: Syntax::Gml,
        scope: Scope::Every, timed: false, reasons: false },
];

/// [`Format::ALL`], built from the table.
const ALL: [Format; ROWS.len()] = {
    let mut all = [Format::Text; ROWS.len()];
    let mut i = 0;
    while i < ROWS.len() {
        all[i] = ROWS[i].format;
        i += 1;
    }
    all
};

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: &'static [Format] = &ALL;

    fn row(self) -> &'static Row {
        // The rows are in the variants' order (a unit test checks it).
        &ROWS[self as usize]
    }

    /// The name used on the command line (`csv`).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The format with that command-line name, in any case.
    pub fn from_name(name: &str) -> Option<Format> {
        ROWS.iter()
            .find(|row| row.name.eq_ignore_ascii_case(name))
            .map(|row| row.format)
    }

    /// The file `-F FORMAT` writes when no file name is given (`linkpatrol-out.csv`).
    pub fn default_file_name(self) -> &'static str {
        self.row().file
    }

    /// What the format holds, in a few words (`--help` shows it beside the name).
    pub fn summary(self) -> &'static str {
        self.row().summary
    }

    /// How the format's bytes are spelled.
    pub fn syntax(self) -> Syntax {
        self.row().syntax
    }

    /// Which entries the format lists.
    pub fn scope(self) -> Scope {
        self.row().scope
    }

    /// `true` for a format that writes measured times (the run's duration, a link's check
    /// time, a host's wait), which differ from run to run.
    pub fn is_timed(self) -> bool {
        self.row().timed
    }

    /// `true` for a format that writes why a link failed and its warnings (not the sitemap,
    /// the failures list or the graphs).
    pub fn shows_reasons(self) -> bool {
        self.row().reasons
    }

    /// `true` for a format that lists entries that are not problems whatever the verbosity:
    /// JUnit (passing links), the sitemap (good pages) and the link graphs (every link). The
    /// others need only problem entries unless the verbosity is `All`
    /// ([`Config::only_problems`](crate::Config::only_problems)).
    pub fn lists_every_entry(self) -> bool {
        matches!(self.scope(), Scope::Every | Scope::GoodPages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_one_row_and_a_name_of_its_own() {
        for (i, format) in Format::ALL.iter().enumerate() {
            assert_eq!(*format as usize, i, "row {i} is in the variants' order");
            assert_eq!(Format::from_name(format.name()), Some(*format));
            assert_eq!(Format::ALL.iter().position(|f| f == format), Some(i));
        }
        let mut names: Vec<&str> = ROWS.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ROWS.len());
        assert_eq!(Format::from_name("CSV"), Some(Format::Csv));
        assert_eq!(Format::from_name("pdf"), None);
    }
}
