//! Text fragments (`#:~:text=`, the WICG "URL Fragment Text Directives"): each `text=`
//! directive of a fragment must match the target page's visible text ([`Page::text`], a block
//! a line), as a browser finds the text it highlights.
//!
//! A directive is `text=[prefix-,]textStart[,textEnd][,-suffix]`; directives are joined by
//! `&`, and only `text=` ones are read. Each term is percent-decoded (`%2C` is a literal `,`,
//! `%2D` a `-`). A term matches case-insensitively, whitespace runs as one space, and starts
//! and ends at word boundaries (no letter or digit just outside it); it never spans two
//! blocks, while the range from `textStart` to `textEnd` may. `prefix-` must end right
//! before `textStart` and `-suffix` start right after the match, whitespace between allowed.
//!
//! [`Page::text`]: linkpatrol_plugin_api::Page::text

use crate::decode::percent_decode;

/// One `text=` directive, its terms decoded, whitespace collapsed and lower case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextDirective {
    prefix: Option<String>,
    start: String,
    end: Option<String>,
    suffix: Option<String>,
    /// As written, for messages.
    pub(crate) written: String,
}

/// The `text=` directives of `directives` (the fragment after `:~:`), or the first one that
/// is malformed, as written.
pub(crate) fn text_directives(directives: &str) -> Result<Vec<TextDirective>, String> {
    directives
        .split('&')
        .filter_map(|d| d.strip_prefix("text="))
        .map(|d| parse(d).ok_or_else(|| format!("text={d}")))
        .collect()
}

fn parse(directive: &str) -> Option<TextDirective> {
    let mut terms: Vec<&str> = directive.split(',').collect();
    let prefix = match terms.first() {
        Some(t) if terms.len() > 1 && t.ends_with('-') => {
            let p = terms.remove(0);
            Some(term(&p[..p.len() - 1])?)
        }
        _ => None,
    };
    let suffix = match terms.last() {
        Some(t) if terms.len() > 1 && t.starts_with('-') => Some(term(&terms.pop()?[1..])?),
        _ => None,
    };
    let (start, end) = match terms.as_slice() {
        [start] => (term(start)?, None),
        [start, end] => (term(start)?, Some(term(end)?)),
        _ => return None,
    };
    Some(TextDirective {
        prefix,
        start,
        end,
        suffix,
        written: format!("text={directive}"),
    })
}

/// A term decoded, whitespace collapsed, lower case; `None` when empty.
fn term(raw: &str) -> Option<String> {
    let t = percent_decode(raw)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    (!t.is_empty()).then_some(t)
}

/// The page text as matched: lower case (blocks stay lines).
pub(crate) fn searchable(text: &str) -> String {
    text.to_lowercase()
}

impl TextDirective {
    /// `true` when the directive matches `text` (from [`searchable`]).
    pub(crate) fn matches(&self, text: &str) -> bool {
        for (s, e) in occurrences(text, &self.start, 0) {
            if let Some(prefix) = &self.prefix
                && !ends_before(text, prefix, s)
            {
                continue;
            }
            match &self.end {
                None => {
                    if self.suffix_after(text, e) {
                        return true;
                    }
                }
                Some(end) => {
                    if occurrences(text, end, e).any(|(_, ee)| self.suffix_after(text, ee)) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// No suffix, or the suffix right after byte `at` (whitespace between).
    fn suffix_after(&self, text: &str, at: usize) -> bool {
        let Some(suffix) = &self.suffix else {
            return true;
        };
        let from = at + whitespace_len(&text[at..]);
        occurrences(text, suffix, from)
            .next()
            .is_some_and(|(s, _)| s == from)
    }
}

/// The byte ranges where `term` occurs in `text` at or after `from`, at word boundaries.
fn occurrences<'a>(
    text: &'a str,
    term: &'a str,
    from: usize,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    text.get(from..)
        .unwrap_or_default()
        .match_indices(term)
        .map(move |(i, _)| (from + i, from + i + term.len()))
        .filter(move |&(s, e)| at_word_boundaries(text, s, e))
}

/// `true` when no letter or digit joins the match `s..e` to the text just outside it.
fn at_word_boundaries(text: &str, s: usize, e: usize) -> bool {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let (first, last) = (text[s..e].chars().next(), text[s..e].chars().next_back());
    let (before, after) = (text[..s].chars().next_back(), text[e..].chars().next());
    let joined_before = word(first) && word(before);
    let joined_after = word(last) && word(after);
    !joined_before && !joined_after
}

/// `true` when `prefix` ends right before byte `at`, whitespace between.
fn ends_before(text: &str, prefix: &str, at: usize) -> bool {
    let before = text[..at].trim_end();
    before.ends_with(prefix) && at_word_boundaries(text, before.len() - prefix.len(), before.len())
}

/// The length of the whitespace (spaces and block ends) at the start of `text`.
fn whitespace_len(text: &str) -> usize {
    text.len() - text.trim_start().len()
}

#[cfg(test)]
mod tests {
    use super::{searchable, text_directives};

    const PAGE: &str = "The Quick brown fox\nJumps over the lazy dog, 100% sure.\nA, b-c";

    fn found(fragment: &str) -> bool {
        let text = searchable(PAGE);
        text_directives(fragment)
            .unwrap()
            .iter()
            .all(|d| d.matches(&text))
    }

    #[test]
    fn terms_prefixes_suffixes_and_ranges() {
        for (f, want) in [
            ("text=quick%20brown", true),
            ("text=QUICK   brown", true),
            ("text=quick", true),
            ("text=quic", false),
            ("text=brown%20fox%20jumps", false),
            ("text=brown,lazy", true),
            ("text=lazy,brown", false),
            ("text=the-,quick", true),
            ("text=over%20the-,lazy", true),
            ("text=fox-,jumps", true),
            ("text=a-,quick", false),
            ("text=quick,-brown", true),
            ("text=quick,-fox", false),
            ("text=fox,-jumps", true),
            ("text=the-,quick,dog,-%2C%20100%25", true),
            ("text=the-,quick,dog,-sure", false),
            ("text=100%25%20sure", true),
            ("text=a%2C%20b%2Dc", true),
            ("text=quick&text=lazy", true),
            ("text=quick&text=cat", false),
            ("other=x&text=dog", true),
            ("", true),
        ] {
            assert_eq!(found(f), want, "{f}");
        }
    }

    #[test]
    fn malformed_directives_are_named() {
        for f in [
            "text=",
            "text=a,b,c",
            "text=-,a",
            "text=a,-",
            "text=a&text=,",
        ] {
            assert!(text_directives(f).is_err(), "{f}");
        }
        assert_eq!(text_directives("text=a,b,c").unwrap_err(), "text=a,b,c");
    }
}
