//! Obsidian's wikilinks in Markdown (`[[Page]]`, `[[Page#Heading]]`, `[[Page|text]]`,
//! `![[image.png]]`), read when asked (`--include-wikilinks`): the target made the relative
//! link a reader means, `Page.md#heading`. A name without an extension is a Markdown page
//! (`.md` added); a heading becomes its GitHub slug, as the anchors of a Markdown page are
//! made; a block reference (`#^id`) names no anchor and is left out. The engine then looks
//! the file up by name in the checked folders (`fetch::walked`). Pure.

use super::markdown_anchors::github_slug;

/// The longest extension a wikilink's file name is taken to have (`.jpeg`, `.canvas` is 6).
const MAX_EXTENSION: usize = 6;

/// The relative link a wikilink's target (`Page#Heading`, as pulldown-cmark gives it, the
/// text after `|` left out) stands for.
pub(crate) fn wikilink_value(target: &str) -> String {
    let (path, heading) = match target.trim().split_once('#') {
        Some((path, heading)) => (path.trim(), Some(heading)),
        None => (target.trim(), None),
    };
    let mut value = encode(path);
    if !path.is_empty() && !has_extension(path) {
        value.push_str(".md");
    }
    // Nested headings (`Page#Part#Section`) name the last one.
    if let Some(heading) = heading.and_then(|h| h.rsplit('#').next())
        && !heading.trim().starts_with('^')
    {
        let slug = github_slug(heading);
        if !slug.is_empty() {
            value.push('#');
            value.push_str(&encode(&slug));
        }
    }
    value
}

/// `true` when the last segment of `path` ends in a short extension (`notes.txt`, not
/// `v1.2 draft`).
fn has_extension(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=MAX_EXTENSION).contains(&ext.len())
            && ext.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// `text` percent-encoded where a relative link would read it otherwise (space, `%`, `?`,
/// `#`, …); letters of any script and `/` stay.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_alphanumeric() || "-._~/!$&'()*+,;=:@".contains(c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wikilink_value;

    #[test]
    fn targets_become_relative_links() {
        for (target, value) in [
            ("Page", "Page.md"),
            ("Page#Install Steps", "Page.md#install-steps"),
            ("folder/My Page#A#B c", "folder/My%20Page.md#b-c"),
            ("#Local heading", "#local-heading"),
            ("image.png", "image.png"),
            ("v1.2 draft", "v1.2%20draft.md"),
            ("Page#^block-id", "Page.md"),
            ("100% done?", "100%25%20done%3F.md"),
            ("Über", "Über.md"),
        ] {
            assert_eq!(wikilink_value(target), value, "{target}");
        }
    }
}
