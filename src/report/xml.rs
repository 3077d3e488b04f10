//! XML escaping for the XML reports (JUnit, sitemap). Every string that goes into a document —
//! URLs, link text, messages — passes through [`text`] or [`attr`], so any input yields a
//! well-formed XML 1.0 document: markup characters become entities, and characters XML 1.0
//! cannot carry at all (most C0 controls, U+FFFE, U+FFFF) become U+FFFD.

/// Escapes `s` for element content: `&`, `<` and `>` become entities (quotes need none there).
/// Line feeds and tabs stay as they are; a carriage return is written as `&#13;` so parsers do
/// not fold it away.
pub(crate) fn text(s: &str) -> String {
    escape(s, false)
}

/// Escapes `s` for a double- or single-quoted attribute value: markup characters and both quotes
/// become entities, and tabs, line feeds and carriage returns character references, since
/// parsers turn the literal characters into spaces.
pub(crate) fn attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, in_attr: bool) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if in_attr => out.push_str("&quot;"),
            '\'' if in_attr => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if in_attr => out.push_str("&#10;"),
            '\t' if in_attr => out.push_str("&#9;"),
            '\n' | '\t' => out.push(c),
            c if allowed(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// XML 1.0 `Char`, less the three whitespace controls handled by the caller. Rust `char`s are
/// never surrogates, so only the C0 controls and U+FFFE/U+FFFF are left out.
fn allowed(c: char) -> bool {
    c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}'
}

#[cfg(test)]
mod tests {
    use super::{attr, text};

    #[test]
    fn markup_characters_become_entities() {
        assert_eq!(text(r#"a<b>&"c"'d'"#), r#"a&lt;b&gt;&amp;"c"'d'"#);
        assert_eq!(
            attr(r#"a<b>&"c"'d'"#),
            "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;"
        );
        assert_eq!(attr("x=1&y=2"), "x=1&amp;y=2");
    }

    #[test]
    fn whitespace_survives_attribute_normalisation() {
        assert_eq!(attr("a\nb\tc\rd"), "a&#10;b&#9;c&#13;d");
        assert_eq!(text("a\nb\tc\rd"), "a\nb\tc&#13;d");
    }

    #[test]
    fn characters_xml_cannot_carry_are_replaced() {
        assert_eq!(
            text("a\u{0}b\u{1b}c\u{FFFF}"),
            "a\u{FFFD}b\u{FFFD}c\u{FFFD}"
        );
        // everything else, including non-ASCII and C1 controls, is allowed
        assert_eq!(text("café ☃ \u{85} 𝄞"), "café ☃ \u{85} 𝄞");
    }
}
