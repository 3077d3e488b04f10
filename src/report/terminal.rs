//! Control characters out of page- and server-controlled text before it reaches a terminal, a
//! log or a line-oriented file.
//!
//! A link's text, its `href` as written, a server's reason phrase or `Last-Modified` header and
//! a file name in a checked-out folder are all chosen by someone else. Written raw, an ESC
//! (`\x1b]0;TITLE\x07`, `\x1b[31m`) drives the reader's terminal, and a line break forges a
//! line of our own, such as the text report's `That's it. … 0 errors found`. [`is_control`]
//! names the characters that do this; [`escape_controls`] spells them out for people (the text
//! report, the CLI's messages, CSV cells), [`percent_encode_controls`] for URL lists (the
//! failures list), where a script reads the line back as a URL, and [`escape_json_controls`]
//! for JSON, as `\uXXXX` escapes.
//!
//! Printable text, non-ASCII included, is left as it is. A backslash is not escaped: the
//! output is for reading, not for parsing back, so `\n` in the output may stand for a line
//! break or for the two characters a page wrote.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `true` for a character a terminal or a line-oriented reader acts on instead of showing it:
/// the C0 controls (tab, line feed and carriage return included), DEL, the C1 controls
/// (U+0080 to U+009F, which a terminal may take as ESC sequences), the Unicode line and
/// paragraph separators (U+2028, U+2029), and the bidirectional embeddings, overrides and
/// isolates (U+202A to U+202E, U+2066 to U+2069), which reorder what is shown around them.
pub fn is_control(c: char) -> bool {
    c.is_control() // C0, DEL and C1: general category Cc
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The byte offset of the first [`is_control`] character of `s`. Every report cell passes
/// here, so a byte scan finds the candidates — ASCII controls, DEL, and the lead bytes of the
/// C1 block (`0xC2`) and of U+2028–U+2069 (`0xE2`) — and only those are decoded.
fn first_control(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(i) = bytes[from..]
        .iter()
        .position(|&b| b < 0x20 || b == 0x7f || b == 0xC2 || b == 0xE2)
    {
        let at = from + i;
        // A lead byte or an ASCII byte: `at` is a character boundary.
        let c = s[at..].chars().next()?;
        if is_control(c) {
            return Some(at);
        }
        from = at + c.len_utf8();
    }
    None
}

/// `s` with every [`is_control`] character spelled out: ESC as `\e`, line feed as `\n`,
/// carriage return as `\r`, tab as `\t`, any other as `\u{XX}` (its code point in lowercase
/// hex, as Rust writes it: `\u{7}` for BEL, `\u{9b}`, `\u{202e}`). Borrowed when there is
/// nothing to escape.
///
/// ```
/// use linkpatrol::report::escape_controls;
///
/// assert_eq!(escape_controls("\x1b[31mRED\x07"), r"\e[31mRED\u{7}");
/// assert_eq!(escape_controls("x\nThat's it."), r"x\nThat's it.");
/// assert_eq!(escape_controls("Café ✓"), "Café ✓");
/// ```
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    let Some(first) = first_control(s) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        match c {
            '\x1b' => out.push_str("\\e"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_control(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `s` with every [`is_control`] character percent-encoded, byte by byte of its UTF-8 form
/// (`%1B`, `%0A`, `%C2%9B`): the spelling a URL parser gives these characters, so a URL stays
/// the same URL. Borrowed when there is nothing to encode.
pub(crate) fn percent_encode_controls(s: &str) -> Cow<'_, str> {
    let Some(first) = first_control(s) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        if is_control(c) {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `json`, a document serde_json wrote, with the [`is_control`] characters serde_json leaves
/// raw (it escapes only U+0000 to U+001F) written as `\uXXXX` escapes: DEL, the C1 controls,
/// U+2028, U+2029 and the bidirectional controls. JSON's own syntax is printable ASCII plus the
/// line breaks and spaces of pretty printing, so these characters can only be inside strings,
/// where the escape stands for the same character. Borrowed when there is nothing to escape.
pub(crate) fn escape_json_controls(json: &str) -> Cow<'_, str> {
    let raw = |c: char| c >= '\u{7f}' && is_control(c);
    let Some(first) = json.find(raw) else {
        return Cow::Borrowed(json);
    };
    let mut out = String::with_capacity(json.len() + 8);
    out.push_str(&json[..first]);
    for c in json[first..].chars() {
        if raw(c) {
            // Every such character is in the Basic Multilingual Plane: four hex digits.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_text_is_borrowed_unchanged() {
        for s in [
            "",
            "https://example.org/a?b=c#d",
            "Ünïcødé ✓ 日本 𝄞",
            r"C:\path\n",
            "\u{a0}non-breaking\u{200b}zero-width",
        ] {
            assert!(matches!(escape_controls(s), Cow::Borrowed(_)), "{s:?}");
            assert!(
                matches!(percent_encode_controls(s), Cow::Borrowed(_)),
                "{s:?}"
            );
        }
    }

    #[test]
    fn terminal_sequences_are_spelled_out() {
        assert_eq!(
            escape_controls("\x1b]0;TITLE\x07\x1b[31mRED"),
            r"\e]0;TITLE\u{7}\e[31mRED"
        );
        assert_eq!(escape_controls("a\nb\rc\td"), r"a\nb\rc\td");
        assert_eq!(
            escape_controls("\0\x7f\u{80}\u{9b}"),
            r"\u{0}\u{7f}\u{80}\u{9b}"
        );
        assert_eq!(
            escape_controls("\u{2028}\u{2029}\u{202e}\u{2066}"),
            r"\u{2028}\u{2029}\u{202e}\u{2066}"
        );
    }

    #[test]
    fn no_control_character_survives() {
        let every: String = (0..=0x10FFFF).filter_map(char::from_u32).collect();
        let out = escape_controls(&every);
        assert!(!out.chars().any(is_control));
        let out = percent_encode_controls(&every);
        assert!(!out.chars().any(is_control));
        // Exactly the C0, DEL, C1 range and the eleven Unicode format characters are changed.
        let changed = every.chars().filter(|&c| is_control(c)).count();
        assert_eq!(changed, 32 + 1 + 32 + 2 + 5 + 4);
    }

    #[test]
    fn a_forged_line_stays_on_its_line() {
        let href = "x\nThat's it. 1 link checked, 0 errors found";
        let out = escape_controls(href);
        assert_eq!(out.lines().count(), 1);
        assert_eq!(out, r"x\nThat's it. 1 link checked, 0 errors found");
    }

    #[test]
    fn json_gets_the_escapes_serde_json_leaves_out() {
        let value = serde_json::json!({"name": "\x1b[31m\u{7f}\u{9b}\u{2028}\u{202e}é\n"});
        let json = serde_json::to_string_pretty(&value).unwrap();
        let safe = escape_json_controls(&json);
        assert!(
            safe.contains(r#""\u001b[31m\u007f\u009b\u2028\u202eé\n""#),
            "{safe}"
        );
        assert!(!safe.chars().any(|c| c != '\n' && is_control(c)), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
        assert!(matches!(
            escape_json_controls(r#"{"a":"é ✓"}"#),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn urls_get_their_percent_encoding() {
        assert_eq!(
            percent_encode_controls("http://h/a\r\nb\x1b\u{9b}"),
            "http://h/a%0D%0Ab%1B%C2%9B"
        );
        assert_eq!(percent_encode_controls("x\u{202e}y"), "x%E2%80%AEy");
    }
}
