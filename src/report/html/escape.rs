//! HTML escaping for the HTML report: every string that comes from a crawled page or a server
//! (URLs, link text, result messages) goes through [`Escaped`] before it reaches the page.
//!
//! The same escaping is safe in text and in quoted attribute values: `&`, `<`, `>`, `"` and `'`
//! become character references, so untrusted text can neither open an element nor leave an
//! attribute. NUL, which HTML parsers drop or replace, and the other ASCII controls but tab,
//! line feed and carriage return (HTML calls them parse errors; a terminal showing the file
//! would act on an ESC) become U+FFFD. The page layout lives in the parent module.

use std::fmt;

/// Displays a string HTML-escaped, for text content and quoted attribute values alike.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Escaped<'a>(pub(crate) &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        let mut plain = 0;
        for (i, b) in s.bytes().enumerate() {
            let entity = match b {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                b'\'' => "&#39;",
                b'\0'..=b'\x08' | b'\x0b' | b'\x0c' | b'\x0e'..=b'\x1f' | b'\x7f' => "\u{FFFD}",
                _ => continue,
            };
            // The bytes above are ASCII, so `i` is always a char boundary.
            f.write_str(&s[plain..i])?;
            f.write_str(entity)?;
            plain = i + 1;
        }
        f.write_str(&s[plain..])
    }
}

#[cfg(test)]
mod tests {
    use super::Escaped;

    fn esc(s: &str) -> String {
        Escaped(s).to_string()
    }

    #[test]
    fn plain_text_is_unchanged() {
        assert_eq!(esc(""), "");
        assert_eq!(
            esc("https://example.org/a/b?c=d"),
            "https://example.org/a/b?c=d"
        );
        assert_eq!(esc("Ünïcødé ✓ 日本"), "Ünïcødé ✓ 日本");
    }

    #[test]
    fn markup_characters_become_references() {
        assert_eq!(
            esc(r#"<script>alert("x")</script>"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
        );
        assert_eq!(esc("a & b"), "a &amp; b");
        assert_eq!(esc("it's"), "it&#39;s");
        assert_eq!(
            esc("&amp;"),
            "&amp;amp;",
            "already-escaped text is escaped again"
        );
    }

    #[test]
    fn attribute_values_cannot_be_left() {
        let hostile = r#"x" onmouseover="alert(1)" y='z'"#;
        let out = esc(hostile);
        assert!(!out.contains('"') && !out.contains('\''), "{out}");
        assert_eq!(
            out,
            "x&quot; onmouseover=&quot;alert(1)&quot; y=&#39;z&#39;"
        );
    }

    #[test]
    fn nul_is_replaced_and_neighbours_kept() {
        assert_eq!(esc("a\0<b"), "a\u{FFFD}&lt;b");
        assert_eq!(
            esc("\x1b]0;T\x07\x7f\t\n\r"),
            "\u{FFFD}]0;T\u{FFFD}\u{FFFD}\t\n\r"
        );
        assert_eq!(esc("<"), "&lt;");
        assert_eq!(esc("é<é"), "é&lt;é", "multi-byte text around an escape");
    }
}
