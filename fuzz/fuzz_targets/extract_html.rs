//! Fuzz target: arbitrary bytes → `extract_html`, checking the invariants of every `RawLink`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linkpatrol::extract::extract_html;

/// Cap of `RawLink::name`, in characters (documented on the field).
const MAX_NAME_CHARS: usize = 256;

fuzz_target!(|data: &[u8]| {
    let doc = extract_html(data);

    // Lines as `extract` counts them: `\n`, `\r\n` and a lone `\r` each end one.
    let terminators = data
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' && (i == 0 || data[i - 1] != b'\r') || b == b'\r')
        .count();
    let lines = terminators + 1;
    let text = std::str::from_utf8(data).ok();

    for link in &doc.links {
        assert!(link.line >= 1 && link.column >= 1, "{link:?}");
        // The brief's bound is `lines + 1`; with lines counted as above the tight bound holds.
        assert!(
            link.line <= lines,
            "line {} of {lines}: {link:?}",
            link.line
        );
        assert_eq!(
            link.value,
            link.value.trim_ascii(),
            "untrimmed value: {link:?}"
        );
        assert!(link.name.chars().count() <= MAX_NAME_CHARS, "{link:?}");
        assert!(!link.tag.is_empty(), "{link:?}");
        if let Some(text) = text {
            // On valid UTF-8 the position names the `<` of the element's start tag.
            assert_eq!(char_at(text, link.line, link.column), Some('<'), "{link:?}");
        }
    }
    if let Some(base) = &doc.base {
        assert_eq!(base, base.trim_ascii(), "untrimmed base");
    }
    assert!(doc.anchors.iter().all(|a| !a.is_empty()), "empty anchor");
});

/// The character at a 1-based (line, column), lines ending at `\n`, `\r\n` or `\r`.
fn char_at(text: &str, line: usize, column: usize) -> Option<char> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    normalized
        .split('\n')
        .nth(line - 1)?
        .chars()
        .nth(column - 1)
}
