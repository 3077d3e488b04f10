//! An XML sitemap (sitemaps.org protocol 0.9) of the site's good pages: every internal
//! `http`/`https` URL that was checked OK and is HTML, each once, sorted, with `<lastmod>`
//! when the server sent a `Last-Modified` date.
//!
//! A page reached through redirects is listed under its final URL when that stays on the same
//! origin (a sitemap lists canonical URLs, not redirects), and left out otherwise. Written by
//! `finish`, after a cancelled run too (then it lists the pages found so far). The protocol
//! caps a sitemap at 50,000 URLs; larger sites need splitting, which this reporter does not do.

use std::collections::BTreeMap;
use std::io::{self, Write};

use url::Url;

use super::{Reporter, xml};
use crate::model::outcome::{CheckResult, Entry, Outcome};
use crate::model::run_report::Report;

/// The sitemap namespace.
const NAMESPACE: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// Collects good pages and writes the sitemap at the end.
#[derive(Debug)]
pub struct SitemapReporter<W: Write> {
    out: W,
    /// Page URL → `lastmod` (W3C datetime), sorted by URL.
    pages: BTreeMap<String, Option<String>>,
}

impl<W: Write> SitemapReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W) -> Self {
        SitemapReporter {
            out,
            pages: BTreeMap::new(),
        }
    }
}

/// The URL a good internal HTML page is listed under, or `None` when it does not belong.
fn sitemap_url(r: &CheckResult) -> Option<String> {
    let html = r.content_type.as_deref().is_some_and(|ct| {
        ct.eq_ignore_ascii_case("text/html") || ct.eq_ignore_ascii_case("application/xhtml+xml")
    });
    if !r.internal || !html || !matches!(r.outcome, Outcome::Ok { .. }) {
        return None;
    }
    let checked = Url::parse(&r.url).ok()?;
    let url = match &r.real_url {
        Some(real) if real.origin() == checked.origin() => real.clone(),
        Some(_) => return None,
        None => checked,
    };
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}

impl<W: Write> Reporter for SitemapReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        if let Some(url) = sitemap_url(&entry.result) {
            let lastmod = entry.result.modified.as_deref().and_then(w3c_date);
            self.pages.entry(url).or_insert(lastmod);
        }
        Ok(())
    }

    fn finish(&mut self, _report: &Report) -> io::Result<()> {
        let o = &mut self.out;
        writeln!(o, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(o, r#"<urlset xmlns="{NAMESPACE}">"#)?;
        for (url, lastmod) in &self.pages {
            write!(o, "  <url><loc>{}</loc>", xml::text(url))?;
            if let Some(m) = lastmod {
                write!(o, "<lastmod>{m}</lastmod>")?;
            }
            writeln!(o, "</url>")?;
        }
        writeln!(o, "</urlset>")?;
        o.flush()
    }
}

/// An HTTP date in the IMF-fixdate form servers must send (`Sun, 06 Nov 1994 08:49:37 GMT`)
/// as a W3C datetime (`1994-11-06T08:49:37+00:00`); `None` for anything else.
fn w3c_date(http: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let parts: Vec<&str> = http.split_ascii_whitespace().collect();
    let [weekday, day, month, year, time, "GMT"] = parts[..] else {
        return None;
    };
    if !weekday.ends_with(',') {
        return None;
    }
    let number = |s: &str, len: usize, max: u32| {
        (s.len() == len && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
            .filter(|n| *n <= max)
    };
    let day = number(day, 2, 31).filter(|d| *d >= 1)?;
    let month = MONTHS.iter().position(|m| *m == month)? + 1;
    let year = number(year, 4, 9999)?;
    let [h, m, s] = time.split(':').collect::<Vec<_>>()[..] else {
        return None;
    };
    let (h, m, s) = (number(h, 2, 23)?, number(m, 2, 59)?, number(s, 2, 60)?);
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}+00:00"
    ))
}

#[cfg(test)]
mod tests {
    use super::w3c_date;

    #[test]
    fn http_dates_become_w3c_datetimes() {
        assert_eq!(
            w3c_date("Sun, 06 Nov 1994 08:49:37 GMT").as_deref(),
            Some("1994-11-06T08:49:37+00:00")
        );
        assert_eq!(
            w3c_date("Wed, 31 Dec 2025 23:59:59 GMT").as_deref(),
            Some("2025-12-31T23:59:59+00:00")
        );
    }

    #[test]
    fn other_date_forms_are_dropped() {
        for bad in [
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Sun, 06 Nov 1994 08:49:37 CET",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "",
        ] {
            assert_eq!(w3c_date(bad), None, "{bad}");
        }
    }
}
