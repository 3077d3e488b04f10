//! The problems of one entry, as the formats that list problems one by one (compact, github,
//! markdown, the text report by page) name them: an error when its URL is broken (with the web
//! archive's copy when `--suggest` found one), then a warning for each of its warnings; a link
//! found only on the rendered page (`--render-js`) says so in each.

use crate::model::outcome::Entry;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Severity {
    /// A broken link.
    Error,
    /// A link with a warning.
    Warning,
}

/// One problem of an entry: its severity and the reason, unescaped (`404 Not Found`,
/// `Redirected to … [http-redirected]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// Error or warning.
    pub(crate) severity: Severity,
    /// What is wrong, as text from the result (to be escaped by the format).
    pub(crate) reason: String,
}

/// The problems of `entry`: the broken verdict first, then each warning (the URL's, then this
/// occurrence's). Empty for a good link without warnings.
pub(crate) fn problems(entry: &Entry) -> Vec<Problem> {
    let mut out = Vec::new();
    let outcome = &entry.result.outcome;
    if outcome.is_broken() {
        let reason = match &entry.result.suggestion {
            Some(s) => format!("{outcome}; archived copy: {s}"),
            None => outcome.to_string(),
        };
        out.push(Problem {
            severity: Severity::Error,
            reason,
        });
    }
    out.extend(entry.warnings().map(|w| Problem {
        severity: Severity::Warning,
        reason: format!("{} [{}]", w.message, w.tag),
    }));
    if is_rendered(entry) {
        for p in &mut out {
            p.reason.push_str(RENDERED_NOTE);
        }
    }
    out
}

/// What a link found only on the rendered page (`--render-js`) adds to each of its problems.
pub(crate) const RENDERED_NOTE: &str = " (found after rendering)";

/// The link of `entry` was found only once its page was rendered (`--render-js`).
pub(crate) fn is_rendered(entry: &Entry) -> bool {
    entry.referrer.as_ref().is_some_and(|r| r.rendered)
}

/// The link of `entry` as written in its page (a start URL: the URL itself).
pub(crate) fn written(entry: &Entry) -> &str {
    entry
        .referrer
        .as_ref()
        .map_or(entry.result.url.as_str(), |r| r.raw.as_str())
}

/// The page of `entry` (a start URL: the URL itself), its line and its column.
pub(crate) fn place(entry: &Entry) -> (&str, Option<usize>, Option<usize>) {
    match &entry.referrer {
        Some(r) => (r.parent.as_str(), r.line, r.column),
        None => (entry.result.url.as_str(), None, None),
    }
}
