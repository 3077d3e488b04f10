//! GitHub's autolink literals (the "extended autolinks" of GitHub Flavored Markdown): a bare
//! `https://…` or `http://…`, a `www.` address (a link to `http://www.…`) and an e-mail
//! address (a `mailto:` link) in the text of a Markdown document are links on GitHub. Found in
//! one run of text; pure.
//!
//! The rules, as GFM writes them:
//! - `www.` starts a link at the start of the text, after whitespace or after `*`, `_`, `~` or
//!   `(`; `http://` and `https://` where no letter or digit comes before them.
//! - Then a domain: segments of letters, digits, `_` and `-` separated by `.`, with no `_` in
//!   its last two segments; a `www.` domain needs a `.` (it has one), a scheme's may be short
//!   (`http://localhost:8080/`).
//! - Then anything up to whitespace or `<`, less what ends a sentence: trailing `?`, `!`, `.`,
//!   `,`, `:`, `*`, `_`, `~`, `'` and `"`; a trailing `)` while the link has more `)` than `(`;
//!   a trailing entity reference (`&amp;`).
//! - An e-mail address: letters, digits, `.`, `-`, `_` and `+`, then `@`, then a domain of
//!   letters, digits, `-` and `_` with at least one `.`, not ending in `-` or `_` (a trailing
//!   `.` is left out). Written after `mailto:` or `xmpp:`, the scheme is part of the link (an
//!   `xmpp:` address may end in `/` and a resource of letters, digits, `@` and `.`).

/// One autolink literal: its byte offset in the text, the URL it links to, and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Autolink {
    /// Byte offset of the first character in the text scanned.
    pub(crate) start: usize,
    /// The link: `https://x.org/`, `http://www.x.org`, `mailto:me@x.org`.
    pub(crate) url: String,
    /// The text as written.
    pub(crate) text: String,
}

/// Every autolink literal of `text`, in order.
pub(crate) fn autolinks(text: &str) -> Vec<Autolink> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    // Where the last link ended: an e-mail address cannot start before it.
    let mut done = 0;
    while i < bytes.len() {
        let prev = i.checked_sub(1).map(|p| bytes[p]);
        let rest = &bytes[i..];
        let scheme = ["https://", "http://"]
            .into_iter()
            .find(|s| starts_with_ignore_case(rest, s.as_bytes()));
        let (domain_at, www) = match scheme {
            Some(s) if !prev.is_some_and(|p| p.is_ascii_alphanumeric()) => (i + s.len(), false),
            None if rest.starts_with(b"www.")
                && prev.is_none_or(|p| {
                    p.is_ascii_whitespace() || matches!(p, b'*' | b'_' | b'~' | b'(')
                }) =>
            {
                (i, true)
            }
            _ => {
                if bytes[i] == b'@'
                    && let Some(link) = email(text, i, done)
                {
                    done = link.start + link.text.len();
                    i = done;
                    found.push(link);
                    continue;
                }
                i += 1;
                continue;
            }
        };
        let Some(domain_end) = domain(bytes, domain_at, www) else {
            i += 1;
            continue;
        };
        let end = trim_end(bytes, i, link_end(bytes, domain_end));
        if end <= domain_at {
            i += 1;
            continue;
        }
        let written = &text[i..end];
        let url = if www {
            format!("http://{written}")
        } else {
            written.to_owned()
        };
        found.push(Autolink {
            start: i,
            url,
            text: written.to_owned(),
        });
        i = end;
        done = end;
    }
    found
}

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// The end of a valid domain starting at `at`, or `None`. `needs_dot`: at least one `.`.
fn domain(bytes: &[u8], at: usize, needs_dot: bool) -> Option<usize> {
    let mut end = at;
    while end < bytes.len()
        && (bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'-' | b'_' | b'.'))
    {
        end += 1;
    }
    // A dot that ends the domain is not part of it (`www.x.org.`).
    let mut name = &bytes[at..end];
    while let [rest @ .., b'.'] = name {
        name = rest;
    }
    if name.is_empty() || name.starts_with(b".") {
        return None;
    }
    let segments: Vec<&[u8]> = name.split(|b| *b == b'.').collect();
    if segments.iter().any(|s| s.is_empty()) || (needs_dot && segments.len() < 2) {
        return None;
    }
    if segments.iter().rev().take(2).any(|s| s.contains(&b'_')) {
        return None;
    }
    Some(end)
}

/// Where the link ends: at whitespace, `<`, or the end of the text.
fn link_end(bytes: &[u8], from: usize) -> usize {
    let mut end = from;
    while end < bytes.len() && !bytes[end].is_ascii_whitespace() && bytes[end] != b'<' {
        end += 1;
    }
    end
}

/// `end` less the trailing punctuation, unbalanced `)` and entity references of the link
/// `bytes[start..end]`.
fn trim_end(bytes: &[u8], start: usize, mut end: usize) -> usize {
    loop {
        let Some(&last) = bytes[start..end].last() else {
            return end;
        };
        match last {
            b'?' | b'!' | b'.' | b',' | b':' | b'*' | b'_' | b'~' | b'\'' | b'"' => end -= 1,
            b')' => {
                let link = &bytes[start..end];
                let open = link.iter().filter(|b| **b == b'(').count();
                let close = link.iter().filter(|b| **b == b')').count();
                if close > open {
                    end -= 1;
                } else {
                    return end;
                }
            }
            b';' => {
                // `&name;` at the end is an entity reference, not part of the link.
                let link = &bytes[start..end - 1];
                let name_len = link
                    .iter()
                    .rev()
                    .take_while(|b| b.is_ascii_alphanumeric())
                    .count();
                let amp = link.len().checked_sub(name_len + 1);
                match amp {
                    Some(a) if name_len > 0 && link[a] == b'&' => end = start + a,
                    _ => return end,
                }
            }
            _ => return end,
        }
    }
}

/// The e-mail address around the `@` at `at`, starting no earlier than `floor`.
fn email(text: &str, at: usize, floor: usize) -> Option<Autolink> {
    let bytes = text.as_bytes();
    let local = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'+');
    let mut start = at;
    while start > floor && local(bytes[start - 1]) {
        start -= 1;
    }
    if start == at {
        return None;
    }
    // `mailto:` or `xmpp:` before the address makes it that scheme's link (GFM's extended
    // protocols).
    let scheme = ["mailto:", "xmpp:"].into_iter().find(|s| {
        start >= floor + s.len()
            && start >= s.len()
            && bytes[start - s.len()..start].eq_ignore_ascii_case(s.as_bytes())
            && (start == s.len() || !bytes[start - s.len() - 1].is_ascii_alphanumeric())
    });
    // Else not part of a path or a URL (`a/b@c.d`, `user:pw@host`).
    if scheme.is_none() && start > 0 && matches!(bytes[start - 1], b'/' | b':' | b'@') {
        return None;
    }
    let mut end = at + 1;
    while end < bytes.len()
        && (bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'-' | b'_' | b'.'))
    {
        end += 1;
    }
    while end > at + 1 && bytes[end - 1] == b'.' {
        end -= 1;
    }
    let host = &bytes[at + 1..end];
    if !host.contains(&b'.')
        || host.starts_with(b".")
        || matches!(host.last(), Some(b'-' | b'_'))
        || host.windows(2).any(|w| w == b"..")
    {
        return None;
    }
    let Some(scheme) = scheme else {
        let written = &text[start..end];
        return Some(Autolink {
            start,
            url: format!("mailto:{written}"),
            text: written.to_owned(),
        });
    };
    if scheme == "xmpp:" && bytes.get(end) == Some(&b'/') {
        let resource = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'@' | b'.');
        let mut after = end + 1;
        while after < bytes.len() && resource(bytes[after]) {
            after += 1;
        }
        while after > end + 1 && bytes[after - 1] == b'.' {
            after -= 1;
        }
        if after > end + 1 {
            end = after;
        }
    }
    let start = start - scheme.len();
    let written = &text[start..end];
    Some(Autolink {
        start,
        url: written.to_owned(),
        text: written.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(text: &str) -> Vec<String> {
        autolinks(text).into_iter().map(|l| l.url).collect()
    }

    #[test]
    fn trailing_punctuation_is_left_out() {
        assert_eq!(
            urls("See https://example.org/x."),
            ["https://example.org/x"]
        );
        assert_eq!(
            urls("(see www.example.org/a?)!"),
            ["http://www.example.org/a"]
        );
        assert_eq!(urls("\"https://ex.org/q\","), ["https://ex.org/q"]);
        assert_eq!(urls("https://ex.org/a_b_"), ["https://ex.org/a_b"]);
    }

    #[test]
    fn parentheses_count_as_github_counts_them() {
        assert_eq!(
            urls("www.google.com/search?q=Markup+(business)"),
            ["http://www.google.com/search?q=Markup+(business)"]
        );
        assert_eq!(
            urls("(www.google.com/search?q=Markup+(business)))"),
            ["http://www.google.com/search?q=Markup+(business)"]
        );
        assert_eq!(
            urls("(https://en.wikipedia.org/wiki/Rust_(language))"),
            ["https://en.wikipedia.org/wiki/Rust_(language)"]
        );
    }

    #[test]
    fn entities_and_angle_brackets_end_a_link() {
        assert_eq!(urls("www.ex.org/a&hl;"), ["http://www.ex.org/a"]);
        assert_eq!(urls("www.ex.org/a&hl=en"), ["http://www.ex.org/a&hl=en"]);
        assert_eq!(urls("https://ex.org/a<b"), ["https://ex.org/a"]);
    }

    #[test]
    fn domains_follow_the_rules() {
        assert!(
            urls("www.ex_ample.org").is_empty(),
            "underscore in the last two"
        );
        assert_eq!(urls("www.a_b.ex.org"), ["http://www.a_b.ex.org"]);
        assert!(urls("www.").is_empty());
        assert!(urls("awww.ex.org").is_empty(), "www. after a letter");
        assert!(urls("xhttps://ex.org").is_empty());
        assert_eq!(urls("http://127.0.0.1:8080/x"), ["http://127.0.0.1:8080/x"]);
        assert_eq!(urls("http://localhost/"), ["http://localhost/"]);
        assert!(urls("https://").is_empty());
    }

    #[test]
    fn emails_are_mailto_links() {
        assert_eq!(urls("Write to foo@bar.baz."), ["mailto:foo@bar.baz"]);
        assert_eq!(urls("a.b-c_d+e@ex.co.uk"), ["mailto:a.b-c_d+e@ex.co.uk"]);
        assert!(urls("foo@bar").is_empty(), "no dot");
        assert!(urls("foo@bar.b-").is_empty(), "ends in -");
        assert!(urls("@ex.org").is_empty());
        assert_eq!(
            urls("https://user@ex.org/ and me@ex.org"),
            ["https://user@ex.org/", "mailto:me@ex.org"]
        );
    }

    /// GFM's extended protocols: `mailto:` and `xmpp:` before an address make the link.
    #[test]
    fn mailto_and_xmpp_addresses_are_links() {
        assert_eq!(
            urls("Mail mailto:foo@bar.baz today."),
            ["mailto:foo@bar.baz"]
        );
        assert_eq!(urls("MAILTO:foo@bar.baz"), ["MAILTO:foo@bar.baz"]);
        assert_eq!(urls("xmpp:foo@bar.baz"), ["xmpp:foo@bar.baz"]);
        assert_eq!(
            urls("xmpp:foo@bar.baz/txt@bin.com."),
            ["xmpp:foo@bar.baz/txt@bin.com"]
        );
        assert_eq!(urls("mailto:foo@bar"), Vec::<String>::new(), "no dot");
        assert_eq!(
            urls("notmailto:a@b.cd"),
            Vec::<String>::new(),
            "a longer scheme"
        );
        let found = autolinks("see mailto:a@b.cd");
        assert_eq!(
            (found[0].start, found[0].text.as_str()),
            (4, "mailto:a@b.cd")
        );
    }

    #[test]
    fn offsets_and_texts() {
        let found = autolinks("a https://x.org/ b www.y.org");
        assert_eq!(found[0].start, 2);
        assert_eq!(found[1].start, 19);
        assert_eq!(found[1].text, "www.y.org");
    }

    #[test]
    fn any_text_is_safe() {
        for text in [
            "@",
            "www.@",
            "http://@.",
            "é@é.é",
            "https://é.org/é",
            "&;)",
            "a@b..c",
        ] {
            let _ = autolinks(text);
        }
    }
}
