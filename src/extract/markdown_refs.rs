//! Markdown references whose label is defined nowhere (`[text][label]`, `[label][]`): GitHub
//! and mdBook render them as literal brackets, so each is a broken link. A shortcut `[label]`
//! alone is prose (a note in brackets, a task box) and is left alone, and so is a pair of
//! brackets that indexes the word before it (`matrix[i][j]`), and a label that is a rustdoc
//! intra-doc link (`[Command][crate::Command]`, ``[x][`Vec`]``: Markdown that rustdoc renders
//! from `include_str!` resolves those). Pure; `markdown.rs` reports them.

use pulldown_cmark::{BrokenLink, CowStr, LinkType};

/// The parser's broken-link callback: a full or collapsed reference becomes a link (of type
/// `ReferenceUnknown` or `CollapsedUnknown`, with an empty destination), so its place and label
/// reach the events; a shortcut stays text.
pub(super) fn keep_as_link<'a>(broken: &BrokenLink<'_>) -> Option<(CowStr<'a>, CowStr<'a>)> {
    matches!(broken.link_type, LinkType::Reference | LinkType::Collapsed)
        .then_some((CowStr::Borrowed(""), CowStr::Borrowed("")))
}

/// `true` for the link types [`keep_as_link`] gives a reference without a definition.
pub(super) fn is_unknown(link_type: LinkType) -> bool {
    matches!(
        link_type,
        LinkType::ReferenceUnknown | LinkType::CollapsedUnknown | LinkType::ShortcutUnknown
    )
}

/// `true` when a link of `link_type` to `label` that starts at byte `start` of `text` is an
/// undefined reference to report: not one written right after a word (`a[i][j]` indexes `a`),
/// nor a rustdoc intra-doc link (a path with `::`, or a name in backticks).
pub(super) fn is_undefined(link_type: LinkType, label: &str, text: &str, start: usize) -> bool {
    let intra_doc = label.contains("::") || (label.len() > 1 && label.starts_with('`'));
    let after_word = text
        .get(..start)
        .and_then(|before| before.chars().next_back())
        .is_some_and(|c| c.is_alphanumeric() || c == '_');
    matches!(
        link_type,
        LinkType::ReferenceUnknown | LinkType::CollapsedUnknown
    ) && !after_word
        && !intra_doc
}

#[cfg(test)]
mod tests {
    use crate::extract::extract_markdown;

    /// The undefined labels of `md`, with their line and column.
    fn undefined(md: &str) -> Vec<(String, usize, usize)> {
        extract_markdown(md.as_bytes())
            .into_iter()
            .filter(|l| l.undefined_label)
            .map(|l| (l.value, l.line, l.column))
            .collect()
    }

    #[test]
    fn full_and_collapsed_references_without_a_definition_are_reported() {
        let md = "A [text][nowhere] and [Gone][] and [fine][ok].\n\n\
                  ![logo][no-image]\n\n[ok]: /ok/\n";
        assert_eq!(
            undefined(md),
            [
                ("[nowhere]".to_owned(), 1, 3),
                ("[Gone]".to_owned(), 1, 23),
                ("[no-image]".to_owned(), 3, 1),
            ]
        );
        let values: Vec<String> = extract_markdown(md.as_bytes())
            .into_iter()
            .filter(|l| !l.undefined_label)
            .map(|l| l.value)
            .collect();
        assert_eq!(values, ["/ok/"], "a defined label is an ordinary link");
    }

    #[test]
    fn shortcuts_code_and_indexing_are_not_references() {
        let md = "A [shortcut] note, [x] done, a[i][j] and m_[0][1].\n\n\
                  [Command][crate::Command] and [vectors][`Vec`].\n\n\
                  `[code][span]`\n\n```\n[block][label]\n```\n\n    [indented][label]\n";
        assert_eq!(undefined(md), []);
    }

    /// CommonMark allows no link inside a link: in `[outer [inner][label]](url)` the inner
    /// reference is text, and the outer link stays a link. Outside a link it is still reported.
    #[test]
    fn a_reference_inside_a_links_text_is_text() {
        let md = "See [outer [inner][label] text](https://example.test/x) here.\n\n\
                  And [alone][label] there.\n";
        assert_eq!(undefined(md), [("[label]".to_owned(), 3, 5)]);
        let values: Vec<String> = extract_markdown(md.as_bytes())
            .into_iter()
            .filter(|l| !l.undefined_label)
            .map(|l| l.value)
            .collect();
        assert_eq!(values, ["https://example.test/x"]);
    }
}
