//! The HTML report: one self-contained page for people, with inline CSS and a small inline
//! script, no external assets and no network fetches (a Content-Security-Policy forbids them).
//!
//! The page says what was checked and when (the start URLs, the run's start and duration, the
//! settings the front end names), then has a summary (numbers, an interrupted banner, per-host
//! statistics), the broken links grouped by the page that contains them, and a sortable table
//! of the other shown entries: the links with warnings, or with `-v` every other link, with
//! filters (warnings, OK, ignored, all). No row is in both: a broken link is listed once, under
//! its page, with its warnings. Every string that comes from a crawl goes
//! through [`escape::Escaped`]; only `http`, `https` and `file` URLs become clickable links.
//! A local page or link inside the base folder (`with_base`: the checked folder) is shown as a
//! path relative to it (`docs/guide.md`, linking to its `file:` URL), and so is its path in a
//! result's text, instead of the same `file:///…` prefix on every row. The URLs found and not
//! checked are counted by reason, as in the text report.
//!
//! Entries are buffered and the page is written by `finish`, which also runs after an
//! interrupted run, so the file is always a complete page. Rows are sorted (problems first,
//! then by URL and page), so two runs over the same site give the same page. The style and the
//! script live beside this file in `html/report.css` and `html/report.js`.

mod escape;

use std::collections::BTreeMap;
use std::io::{self, Write};

use self::escape::Escaped;
use super::page_path::PagePaths;
use super::text::{mdbook_line, plural};
use super::{Reporter, Verbosity, human_bytes, human_duration, statistics};
use crate::model::failure_class::FailureClass;
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// The page's style sheet, inlined into `<style>`.
const STYLE: &str = include_str!("report.css");
/// The page's filter and sort script, inlined into `<script>`. It never sees report data.
const SCRIPT: &str = include_str!("report.js");
/// No fetches of any kind; only the inline style and script may run.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/// Writes the HTML report.
#[derive(Debug)]
pub struct HtmlReporter<W: Write> {
    out: W,
    verbosity: Verbosity,
    /// The entries shown (every broken one among them), in arrival order.
    shown: Vec<Entry>,
    /// What was checked and the settings, as the front end names them.
    settings: Vec<(String, String)>,
    /// How local pages and links are shown (relative to the base folder).
    paths: Shown,
}

/// How local URLs are shown: relative to a base folder, when inside it.
#[derive(Debug, Default)]
struct Shown {
    paths: PagePaths,
    /// The base folder's `file:` URL and path, each ending in `/`, as they appear in texts.
    prefixes: Vec<String>,
}

impl Shown {
    fn new(base: Option<&std::path::Path>) -> Shown {
        let mut prefixes = Vec::new();
        if let Some(base) = base
            && let Ok(url) = url::Url::from_directory_path(base)
        {
            prefixes.push(url.to_string());
            let path = base.to_string_lossy();
            let slash = if path.ends_with('/') { "" } else { "/" };
            prefixes.push(format!("{path}{slash}"));
        }
        Shown {
            paths: PagePaths::new(base),
            prefixes,
        }
    }

    /// The text shown for `url`: a local one inside the base as its relative path (with its
    /// `#fragment`), any other as it is.
    fn url<'a>(&self, url: &'a str) -> std::borrow::Cow<'a, str> {
        let (page, fragment) = url.split_once('#').unwrap_or((url, ""));
        match self.paths.relative(page) {
            Some(rel) if fragment.is_empty() => rel.into(),
            Some(rel) => format!("{rel}#{fragment}").into(),
            None => url.into(),
        }
    }

    /// `text` (a result or warning) with the base folder's URL and path left out of it.
    fn text<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        let mut out = std::borrow::Cow::Borrowed(text);
        for prefix in &self.prefixes {
            if out.contains(prefix.as_str()) {
                out = out.replace(prefix.as_str(), "").into();
            }
        }
        out
    }
}

impl<W: Write> HtmlReporter<W> {
    /// A reporter writing to `out`; `verbosity` chooses the rows of the full table (broken
    /// links are always shown).
    pub fn new(out: W, verbosity: Verbosity) -> Self {
        HtmlReporter {
            out,
            verbosity,
            shown: Vec::new(),
            settings: Vec::new(),
            paths: Shown::default(),
        }
    }

    /// Shows local pages and links inside `base` (the checked folder) as paths relative to
    /// it, also in results' texts. Defaults to none: whole `file:` URLs.
    pub fn with_base(mut self, base: Option<&std::path::Path>) -> Self {
        self.paths = Shown::new(base);
        self
    }

    /// Names what the run checked and its settings at the top of the page (`("Inputs",
    /// "docs/")`, `("Recursion level", "2")`), in this order. Credentials must already be
    /// masked.
    pub fn with_settings(mut self, settings: Vec<(String, String)>) -> Self {
        self.settings = settings;
        self
    }

    /// Returns the underlying writer (the page is complete after `finish`).
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Reporter for HtmlReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        if self.verbosity.shows(entry) {
            self.shown.push(entry.clone());
        }
        Ok(())
    }

    fn finish(&mut self, report: &Report) -> io::Result<()> {
        let mut shown = std::mem::take(&mut self.shown);
        shown.sort_by(|a, b| sort_key(a).cmp(&sort_key(b)));
        let o = &mut self.out;
        let paths = &self.paths;
        head(o, report, &self.settings, paths)?;
        summary(o, report)?;
        broken(o, &shown, paths)?;
        let others: Vec<Entry> = shown
            .into_iter()
            .filter(|e| !e.result.outcome.is_broken())
            .collect();
        table(o, &others, self.verbosity, report, paths)?;
        write!(
            o,
            "</main>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
        )?;
        o.flush()
    }
}

/// Problems first, then by URL, page and place: a stable order whatever the threads did.
fn sort_key(e: &Entry) -> (u8, &str, &str, Option<usize>, Option<usize>) {
    let r = e.referrer.as_ref();
    (
        rank(e),
        &e.result.url,
        r.map_or("", |r| r.parent.as_str()),
        r.and_then(|r| r.line),
        r.and_then(|r| r.column),
    )
}

/// 0 broken, 1 with warnings, 2 fine, 3 ignored.
fn rank(e: &Entry) -> u8 {
    let o = &e.result.outcome;
    if o.is_broken() {
        0
    } else if e.warnings().next().is_some() {
        1
    } else if o.is_ignored() {
        3
    } else {
        2
    }
}

/// Start URLs named in the header; more are counted.
const STARTS_SHOWN: usize = 10;

/// The doctype, `<head>`, the page title, and what was checked and when.
fn head(
    o: &mut impl Write,
    report: &Report,
    settings: &[(String, String)],
    paths: &Shown,
) -> io::Result<()> {
    let errors = report.errors();
    let title = match errors {
        0 => "no broken links".to_owned(),
        1 => "1 broken link".to_owned(),
        n => format!("{n} broken links"),
    };
    write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"generator\" content=\"linkpatrol {version}\">\n\
         <title>linkpatrol: {title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n\
         <header>\n<h1>Link check report</h1>\n",
        version = env!("CARGO_PKG_VERSION"),
    )?;
    let starts: Vec<&str> = report
        .entries
        .iter()
        .filter(|e| e.referrer.is_none())
        .map(|e| e.result.url.as_str())
        .collect();
    if !starts.is_empty() {
        write!(o, "<p class=\"sub\" id=\"starts\">Started from ")?;
        for (i, url) in starts.iter().take(STARTS_SHOWN).enumerate() {
            if i > 0 {
                write!(o, ", ")?;
            }
            url_link(o, url, paths)?;
        }
        if starts.len() > STARTS_SHOWN {
            write!(o, " and {} more", starts.len() - STARTS_SHOWN)?;
        }
        writeln!(o, "</p>")?;
    }
    writeln!(o, "<dl class=\"run\" id=\"run\">")?;
    let when = match report.started_at {
        Some(t) => format!(
            "{}, for {}",
            crate::model::date::format_date(t),
            human_duration(report.duration)
        ),
        None => format!("for {}", human_duration(report.duration)),
    };
    writeln!(
        o,
        "<div><dt>Checked</dt><dd data-run=\"checked\">{}</dd></div>",
        Escaped(&when)
    )?;
    for (name, value) in settings {
        writeln!(
            o,
            "<div><dt>{}</dt><dd>{}</dd></div>",
            Escaped(name),
            Escaped(value)
        )?;
    }
    writeln!(o, "</dl>\n</header>")
}

/// The numbers, the interrupted banner and the per-host statistics.
fn summary(o: &mut impl Write, report: &Report) -> io::Result<()> {
    let errors = report.errors();
    let warnings = report.warnings();
    writeln!(
        o,
        "<section id=\"summary\" aria-label=\"Summary\">\n<dl class=\"stats\">"
    )?;
    let stats = [
        ("links", "Links", report.links().to_string(), ""),
        ("urls", "URLs", report.urls.to_string(), ""),
        (
            "errors",
            "Broken",
            errors.to_string(),
            if errors > 0 { " bad" } else { " good" },
        ),
        (
            "warnings",
            "Warnings",
            warnings.to_string(),
            if warnings > 0 { " warn" } else { "" },
        ),
        ("duration", "Duration", human_duration(report.duration), ""),
    ];
    // Only when rendering found links (--render-js): other reports keep their shape.
    let rendered = report.stats.rendered;
    let rendered = (rendered > 0).then(|| ("rendered", "Rendered", rendered.to_string(), ""));
    for (key, label, value, class) in stats.into_iter().chain(rendered) {
        writeln!(
            o,
            "<div class=\"stat{class}\"><dt>{label}</dt><dd data-stat=\"{key}\">{}</dd></div>",
            Escaped(&value)
        )?;
    }
    writeln!(o, "</dl>")?;
    if let Some(limit) = report.time_limit_reached {
        writeln!(
            o,
            "<p class=\"banner\" id=\"interrupted\" role=\"alert\"><strong>Stopped at the time \
             limit.</strong> The check reached its time limit of {} s (--max-run-time); results \
             are not complete (<span data-stat=\"unchecked\">{}</span> URLs not checked).</p>",
            limit.as_secs_f64(),
            report.unchecked
        )?;
    } else if report.interrupted {
        writeln!(
            o,
            "<p class=\"banner\" id=\"interrupted\" role=\"alert\"><strong>Interrupted.</strong> \
             The check was stopped before it finished; results are not complete \
             (<span data-stat=\"unchecked\">{}</span> URLs not checked).</p>",
            report.unchecked
        )?;
    }
    for (url, why) in &report.stats.unreached_starts {
        writeln!(
            o,
            "<p class=\"banner\" role=\"alert\">The start URL {} could not be reached: {}.</p>",
            Escaped(url),
            Escaped(why)
        )?;
    }
    let unreachable = super::text::unreachable_hosts(report);
    if !unreachable.is_empty() {
        writeln!(
            o,
            "<p class=\"banner\" id=\"unreachable\">Unreachable, other URLs not requested: {}.</p>",
            Escaped(&unreachable.join("; "))
        )?;
    }
    if report.stats.blocked > 0 {
        writeln!(
            o,
            "<p class=\"banner\" id=\"blocked\"><span data-stat=\"blocked\">{}</span> \
             link{} could not be verified: blocked by bot protection on host{} {}.</p>",
            report.stats.blocked,
            plural(report.stats.blocked),
            plural(report.stats.blocked_hosts.len()),
            Escaped(&report.stats.blocked_hosts.join(", "))
        )?;
    }
    let skipped = report.stats.skipped;
    if skipped.total() > 0 {
        writeln!(
            o,
            "<p class=\"more\" id=\"skipped\"><span data-stat=\"skipped\">{}</span> URL{} \
             not checked: {}.</p>",
            skipped.total(),
            plural(skipped.total()),
            Escaped(&skipped.reasons_text())
        )?;
    }
    if let Some(lost) = &report.session_lost {
        writeln!(
            o,
            "<p class=\"banner\" id=\"session-lost\">{}</p>",
            Escaped(&crate::report::text::session_lost_line(lost))
        )?;
    }
    if report.over_limit > 0 {
        writeln!(
            o,
            "<p class=\"banner\" id=\"over-limit\"><span data-stat=\"over_limit\">{}</span> \
             links to further URLs not checked: {}</p>",
            report.over_limit,
            Escaped(&crate::report::text::discovery_stopped(report))
        )?;
    }
    let st = statistics(report);
    let types: Vec<String> = st
        .content_types
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    write!(
        o,
        "<p class=\"more\" id=\"statistics\">Downloaded <span data-stat=\"bytes\">{}</span>",
        Escaped(&human_bytes(st.bytes))
    )?;
    if !types.is_empty() {
        write!(o, " · content types: {}", Escaped(&types.join(", ")))?;
    }
    if let Some((min, max, avg)) = st.url_lengths {
        write!(o, " · URL lengths: min {min}, max {max}, avg {avg:.0}")?;
    }
    if report.insecure {
        write!(
            o,
            " · <strong>TLS certificates were not verified (--insecure)</strong>"
        )?;
    }
    for (src, chapters) in &report.mdbooks {
        write!(o, " · {}", Escaped(&mdbook_line(src, *chapters)))?;
    }
    writeln!(o, "</p>")?;
    let mut hosts: Vec<_> = st.hosts.iter().filter(|(h, _)| h.requests > 0).collect();
    hosts.sort_by(|a, b| a.0.host.cmp(&b.0.host));
    if !hosts.is_empty() {
        writeln!(
            o,
            "<table class=\"hosts\" id=\"hosts\">\n<caption>Requests per host</caption>\n\
             <thead><tr><th>Host</th><th class=\"num\">Requests</th><th class=\"num\">Rate</th>\
             <th class=\"num\">Retries</th><th class=\"num\">429/503</th>\
             <th class=\"num\">Broken</th><th class=\"num\">Waiting for politeness</th></tr></thead>\n<tbody>"
        )?;
        for (h, broken) in hosts {
            writeln!(
                o,
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}/s</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td></tr>",
                Escaped(&h.host),
                h.requests,
                h.effective_rate,
                h.retries,
                h.overloaded,
                broken,
                Escaped(&human_duration(h.waited))
            )?;
        }
        writeln!(o, "</tbody>\n</table>")?;
    }
    writeln!(o, "</section>")
}

/// The broken links, one block per page that contains them (start URLs in their own block).
fn broken(o: &mut impl Write, shown: &[Entry], paths: &Shown) -> io::Result<()> {
    let mut pages: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in shown.iter().filter(|e| e.result.outcome.is_broken()) {
        let page = e.referrer.as_ref().map_or("", |r| r.parent.as_str());
        pages.entry(page).or_default().push(e);
    }
    let total: usize = pages.values().map(Vec::len).sum();
    writeln!(
        o,
        "<section id=\"broken\">\n<h2>Broken links <span class=\"count\">{total}</span></h2>"
    )?;
    if pages.is_empty() {
        writeln!(o, "<p class=\"none\">No broken links.</p>")?;
    }
    for (page, mut entries) in pages {
        entries.sort_by_key(|e| {
            let r = e.referrer.as_ref();
            (r.and_then(|r| r.line), r.and_then(|r| r.column))
        });
        write!(
            o,
            "<article class=\"page\" data-page=\"{}\">\n<h3>",
            Escaped(page)
        )?;
        if page.is_empty() {
            write!(o, "Start URLs")?;
        } else {
            write!(o, "On ")?;
            url_link(o, page, paths)?;
        }
        writeln!(
            o,
            " <span class=\"n\">{} broken</span></h3>\n<table class=\"links\">\n\
             <thead><tr><th class=\"num\">Line</th><th class=\"num\">Col</th><th>Link</th>\
             <th>Text</th><th>Result</th><th>Real URL</th></tr></thead>\n<tbody>",
            entries.len()
        )?;
        for e in entries {
            let r = e.referrer.as_ref();
            // The failure class and its description, as a tooltip on the result.
            let class = FailureClass::of(&e.result.outcome);
            write!(
                o,
                "<tr class=\"broken-link\"><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"raw\"><code>{}</code></td><td class=\"name\">{}</td>\
                 <td class=\"result\" data-failure=\"{}\" title=\"{}\">{}",
                number(r.and_then(|r| r.line)),
                number(r.and_then(|r| r.column)),
                Escaped(r.map_or(e.result.url.as_str(), |r| r.raw.as_str())),
                Escaped(r.map_or("", |r| r.name.as_str())),
                class.map_or("", FailureClass::name),
                Escaped(class.map_or("", FailureClass::description)),
                Escaped(&paths.text(&e.result.outcome.to_string())),
            )?;
            suggestion(o, e, paths)?;
            warnings(o, e, paths)?;
            if r.is_some_and(|r| r.rendered) {
                write!(
                    o,
                    " <small class=\"rendered\">(found after rendering)</small>"
                )?;
            }
            write!(o, "</td><td class=\"real\">")?;
            real_url(o, e, paths)?;
            writeln!(o, "</td></tr>")?;
        }
        writeln!(o, "</tbody>\n</table>\n</article>")?;
    }
    writeln!(o, "</section>")
}

/// The table of the shown entries that are not broken (those are listed once, above): the
/// links with warnings, or with `-v` every other link, with filter buttons.
fn table(
    o: &mut impl Write,
    others: &[Entry],
    verbosity: Verbosity,
    report: &Report,
    paths: &Shown,
) -> io::Result<()> {
    let count = |class: u8| others.iter().filter(|e| rank(e) == class).count();
    let (warnings, fine, ignored) = (count(1), count(2), count(3));
    let heading = match verbosity {
        Verbosity::All => "Other links",
        Verbosity::Problems => "Links with warnings",
    };
    writeln!(
        o,
        "<section id=\"all\">\n<h2>{heading} <span class=\"count\">{}</span></h2>",
        others.len()
    )?;
    let broken = report.errors();
    let unlisted = report.links().saturating_sub(broken + others.len());
    if verbosity == Verbosity::Problems && unlisted > 0 {
        writeln!(
            o,
            "<p class=\"note\">{}{unlisted} other link{} checked without a warning {} not \
             listed (see -v).</p>",
            if broken > 0 {
                "Broken links are listed above; "
            } else {
                ""
            },
            plural(unlisted),
            if unlisted == 1 { "is" } else { "are" }
        )?;
    }
    if others.is_empty() {
        return writeln!(o, "<p class=\"none\">Nothing to list.</p>\n</section>");
    }
    if verbosity == Verbosity::All {
        writeln!(
            o,
            "<div class=\"filters\" role=\"group\" aria-label=\"Show\">\
             <button type=\"button\" data-filter=\"warning\" aria-pressed=\"false\">Warnings ({warnings})</button>\
             <button type=\"button\" data-filter=\"ok\" aria-pressed=\"false\">OK ({fine})</button>\
             <button type=\"button\" data-filter=\"ignored\" aria-pressed=\"false\">Ignored ({ignored})</button>\
             <button type=\"button\" data-filter=\"all\" aria-pressed=\"true\">All ({})</button>\
             <span class=\"shown\" id=\"shown-count\"></span></div>",
            others.len()
        )?;
    }
    writeln!(
        o,
        "<table id=\"entries\" class=\"sortable\">\n<colgroup><col class=\"c-status\">\
         <col class=\"c-url\"><col class=\"c-page\"><col class=\"c-line\"><col class=\"c-col\">\
         <col class=\"c-text\"><col class=\"c-result\"><col class=\"c-time\"></colgroup>\n<thead><tr>\
         <th data-type=\"num\">Status</th><th>URL</th><th>Page</th><th class=\"num\" data-type=\"num\">Line</th>\
         <th class=\"num\" data-type=\"num\">Col</th><th>Text</th><th>Result</th>\
         <th class=\"num\" data-type=\"num\">Time (s)</th></tr></thead>\n<tbody>"
    )?;
    for e in others {
        entry_row(o, e, paths)?;
    }
    writeln!(o, "</tbody>\n</table>\n</section>")
}

/// One row of the full table.
fn entry_row(o: &mut impl Write, e: &Entry, paths: &Shown) -> io::Result<()> {
    let r = &e.result;
    let rf = e.referrer.as_ref();
    let (label, class) = match rank(e) {
        0 if e.warnings().next().is_none() => ("Error", "error"),
        0 => ("Error", "error warning"),
        1 => ("Warning", "warning"),
        2 => ("OK", "ok"),
        _ => ("Ignored", "ignored"),
    };
    write!(
        o,
        "<tr class=\"{class}\"><td data-sort=\"{}\"><span class=\"badge\">{label}</span></td>\
         <td class=\"url\">",
        rank(e)
    )?;
    let url = match &e.fragment {
        Some(f) => format!("{}#{f}", r.url),
        None => r.url.clone(),
    };
    url_link(o, &url, paths)?;
    write!(o, "</td><td class=\"parent\">")?;
    match rf {
        Some(rf) => url_link(o, &rf.parent, paths)?,
        None => write!(o, "<span class=\"muted\">(start)</span>")?,
    }
    write!(
        o,
        "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"name\">{}</td>\
         <td class=\"result\">{}",
        number(rf.and_then(|x| x.line)),
        number(rf.and_then(|x| x.column)),
        Escaped(rf.map_or("", |x| x.name.as_str())),
        Escaped(&paths.text(&r.outcome.to_string())),
    )?;
    suggestion(o, e, paths)?;
    warnings(o, e, paths)?;
    if r.real_url.is_some() {
        write!(o, "<div class=\"muted\">→ ")?;
        real_url(o, e, paths)?;
        write!(o, "</div>")?;
    }
    writeln!(
        o,
        "</td><td class=\"num\">{:.3}</td></tr>",
        r.check_time.as_secs_f64()
    )
}

/// The URL's warnings, then this occurrence's (`url-whitespace`, a plugin's `anchor-not-found`).
fn warnings(o: &mut impl Write, e: &Entry, paths: &Shown) -> io::Result<()> {
    for w in e.warnings() {
        write!(
            o,
            "<div class=\"warn-text\">[{}] {}</div>",
            Escaped(w.tag),
            Escaped(&paths.text(&w.message))
        )?;
    }
    Ok(())
}

/// The web archive's copy of a broken URL (`--suggest`), as a link.
fn suggestion(o: &mut impl Write, e: &Entry, paths: &Shown) -> io::Result<()> {
    if let Some(s) = &e.result.suggestion {
        write!(o, "<div class=\"suggestion\">archived copy: ")?;
        url_link(o, s, paths)?;
        write!(o, "</div>")?;
    }
    Ok(())
}

/// Where the URL ended (after redirects), with the redirect hops.
fn real_url(o: &mut impl Write, e: &Entry, paths: &Shown) -> io::Result<()> {
    let r = &e.result;
    url_link(
        o,
        r.real_url.as_ref().map_or(r.url.as_str(), |u| u.as_str()),
        paths,
    )?;
    for hop in &r.redirects {
        write!(o, "<div class=\"hop\">{} from ", hop.status)?;
        url_link(o, hop.url.as_str(), paths)?;
        write!(o, "</div>")?;
    }
    Ok(())
}

/// A clickable link for `http`, `https` and `file` URLs; any other URL (`javascript:`) is text.
/// A local URL inside the base folder reads as its relative path.
fn url_link(o: &mut impl Write, url: &str, paths: &Shown) -> io::Result<()> {
    let followable = ["http://", "https://", "file:"].iter().any(|p| {
        url.get(..p.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(p))
    });
    if followable {
        write!(
            o,
            "<a href=\"{}\" rel=\"noopener noreferrer\">",
            Escaped(url)
        )?;
        url_text(o, &paths.url(url))?;
        write!(o, "</a>")
    } else {
        url_text(o, url)
    }
}

/// `url` escaped, with a line-break opportunity (`<wbr>`) after each `/`, `?` and `&`, so
/// long URLs wrap at their parts rather than anywhere.
fn url_text(o: &mut impl Write, url: &str) -> io::Result<()> {
    let mut rest = url;
    while let Some(i) = rest.find(['/', '?', '&']) {
        let (part, tail) = rest.split_at(i + 1);
        // No break inside `//`: the scheme's slashes stay together.
        let wbr = if tail.starts_with('/') { "" } else { "<wbr>" };
        write!(o, "{}{wbr}", Escaped(part))?;
        rest = tail;
    }
    write!(o, "{}", Escaped(rest))
}

/// A line or column number, empty when unknown.
fn number(n: Option<usize>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}
