//! `srcset` values: the image candidate URLs of `<img srcset>` and `<source srcset>`.

/// Calls `f` with each image candidate URL of a `srcset` value, following the WHATWG parsing
/// algorithm (descriptors are skipped, not validated). A URL is a run of non-whitespace, so
/// commas inside it (`/img,v2.png 2x`) survive; commas at its end separate candidates.
pub(super) fn srcset_urls(input: &str, mut f: impl FnMut(&str)) {
    let bytes = input.as_bytes();
    let mut pos = 0;
    loop {
        while pos < bytes.len() && (bytes[pos].is_ascii_whitespace() || bytes[pos] == b',') {
            pos += 1;
        }
        if pos == bytes.len() {
            return;
        }
        let start = pos;
        while pos < bytes.len() && !bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        let url = &input[start..pos];
        if url.ends_with(',') {
            // "a.png, b.png": no descriptors follow.
            f(url.trim_end_matches(','));
            continue;
        }
        f(url);
        // Skip the descriptors up to the comma that ends the candidate (not one in parentheses).
        let mut in_parens = false;
        while pos < bytes.len() {
            match bytes[pos] {
                b'(' => in_parens = true,
                b')' => in_parens = false,
                b',' if !in_parens => {
                    pos += 1;
                    break;
                }
                _ => {}
            }
            pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::{HtmlDocument, extract_html};

    fn doc(html: &str) -> HtmlDocument {
        extract_html(html.as_bytes())
    }

    fn values(html: &str) -> Vec<String> {
        doc(html).links.into_iter().map(|l| l.value).collect()
    }

    #[test]
    fn srcset_forms() {
        // (srcset, its URLs joined by " | ")
        let cases = [
            ("/a.png", "/a.png"),
            ("/a.png 1x, /b.png 2x", "/a.png | /b.png"),
            ("/a.png 480w,/b.png 800w", "/a.png | /b.png"),
            (
                "/img,v2.png 2x, /img,v3.png 3x",
                "/img,v2.png | /img,v3.png",
            ),
            ("/a.png, /b.png", "/a.png | /b.png"),
            ("  \n/a.png  1.5x ,\n\t/b.png\t2x  ,  ", "/a.png | /b.png"),
            ("/a.png 100w (min-width: 1px, x), /b.png", "/a.png | /b.png"),
            (
                "data:image/png;base64,iVB 1x, /b.png",
                "data:image/png;base64,iVB | /b.png",
            ),
            (",,,", ""),
            ("", ""),
        ];
        for (srcset, expected) in cases {
            let html = format!(r#"<img srcset="{srcset}">"#);
            assert_eq!(values(&html).join(" | "), expected, "{srcset:?}");
        }
        let d = doc(r#"<img alt=pic srcset="/a.png 1x, /b.png 2x">"#);
        assert_eq!(d.links.len(), 2);
        assert!(
            d.links
                .iter()
                .all(|l| l.attr == "srcset" && l.name == "pic")
        );
    }
}
