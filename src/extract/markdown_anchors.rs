//! The anchors of a Markdown document, as a renderer makes them: each heading's slug by
//! GitHub's rules, an explicit heading id (`## Setup {#install}`), and the `id`/`name` of raw
//! HTML (`<a id="x"></a>`). Pure.
//!
//! GitHub's slug of a heading's text, as github-slugger makes it: lower-cased, every character
//! dropped that is not a letter, a combining mark, a number, connector punctuation (`_`), a
//! space or `-`, then each space turned into `-` (`Set up & run!` → `set-up--run`). Marks
//! stay: a Devanagari virama or an Arabic haraka is part of the slug. A slug already taken gets `-1`, `-2`, … (the second `## Notes` is
//! `notes-1`). An explicit id replaces the slug, as kramdown, Pandoc and Hugo do.

use std::collections::HashSet;
use std::sync::LazyLock;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use regex::Regex;

use super::extract_html;

/// Every anchor of a Markdown document, in document order.
pub fn markdown_anchors(body: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(body);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES;
    let mut anchors = Vec::new();
    let mut slugs = Slugs::default();
    // The text of the open heading, and its explicit id.
    let mut heading: Option<(String, Option<String>)> = None;
    for event in Parser::new_ext(&text, options) {
        match event {
            Event::Start(Tag::Heading { id, .. }) => {
                heading = Some((String::new(), id.map(|id| id.to_string())));
            }
            Event::End(TagEnd::Heading(_)) => match heading.take() {
                Some((_, Some(id))) => anchors.push(id),
                // A heading of punctuation alone names nothing.
                Some((text, None)) => {
                    let slug = github_slug(&text);
                    if !slug.is_empty() {
                        anchors.push(slugs.unique(slug));
                    }
                }
                None => {}
            },
            Event::Text(t) | Event::Code(t) => {
                if let Some((text, _)) = heading.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                anchors.extend(extract_html(html.as_bytes()).anchors);
            }
            _ => {}
        }
    }
    anchors
}

/// GitHub's slug of a heading's text (see the module docs), before it is made unique.
pub(super) fn github_slug(text: &str) -> String {
    static DROPPED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[^\p{L}\p{M}\p{N}\p{Pc} -]").expect("a valid pattern"));
    DROPPED
        .replace_all(&text.trim().to_lowercase(), "")
        .replace(' ', "-")
}

/// The slugs given so far in one document.
#[derive(Default)]
struct Slugs {
    taken: HashSet<String>,
}

impl Slugs {
    /// `slug`, or `slug-1`, `slug-2`, … when it is taken.
    fn unique(&mut self, slug: String) -> String {
        let mut candidate = slug.clone();
        let mut n = 0;
        while self.taken.contains(&candidate) {
            n += 1;
            candidate = format!("{slug}-{n}");
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors(md: &str) -> Vec<String> {
        markdown_anchors(md.as_bytes())
    }

    #[test]
    fn slugs_follow_github() {
        assert_eq!(github_slug("Setup"), "setup");
        assert_eq!(github_slug("Set up & run!"), "set-up--run");
        assert_eq!(
            github_slug("  `cargo` install_dir v2.0 "),
            "cargo-install_dir-v20"
        );
        assert_eq!(github_slug("Ünïcode Straße"), "ünïcode-straße");
        assert_eq!(github_slug("What's new? (2026)"), "whats-new-2026");
    }

    /// github-slugger keeps every combining mark (`\p{M}`), which `char::is_alphanumeric`
    /// drops when it is not also alphabetic (the Devanagari virama, U+094D).
    #[test]
    fn slugs_keep_combining_marks() {
        assert_eq!(github_slug("दिशानिर्देश"), "दिशानिर्देश");
        assert_eq!(github_slug("हिन्दी में सहायता"), "हिन्दी-में-सहायता");
        assert_eq!(github_slug("ภาษาไทย ที่นี่"), "ภาษาไทย-ที่นี่");
        assert_eq!(github_slug("العَرَبِيَّة"), "العَرَبِيَّة");
        assert_eq!(
            github_slug("Cafe\u{301} Noe\u{308}l"),
            "cafe\u{301}-noe\u{308}l"
        );
        // Symbols go, as on GitHub: a circled letter, an emoji.
        assert_eq!(github_slug("Ⓐ rocket 🚀"), "-rocket-");
    }

    #[test]
    fn headings_repeats_explicit_ids_and_html() {
        let md = "# Guide\n\n## Setup\n\ntext\n\n## Setup\n\nSetup\n-----\n\n\
                  ## Install {#custom-id}\n\n### The *emphasised* `code` [link](x.md)\n\n\
                  <a id=\"raw-id\"></a>\n\nA paragraph with <a name=\"inline-name\">x</a>.\n\n\
                  ```\n# not a heading\n```\n";
        assert_eq!(
            anchors(md),
            [
                "guide",
                "setup",
                "setup-1",
                "setup-2",
                "custom-id",
                "the-emphasised-code-link",
                "raw-id",
                "inline-name",
            ]
        );
    }

    #[test]
    fn a_slug_that_looks_like_a_repeat_is_still_unique() {
        assert_eq!(anchors("# a-1\n# a\n# a\n"), ["a-1", "a", "a-2"]);
    }

    #[test]
    fn garbage_does_not_panic() {
        assert!(markdown_anchors(b"\xff\xfe#").is_empty());
        assert!(markdown_anchors(b"").is_empty());
        assert!(anchors("#\n## !!\n").is_empty());
    }
}
