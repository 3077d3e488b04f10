//! The cache key of a plain relative link, joined as text: the fast path of the folder check
//! and of the crawl, which builds no `Url` for the 40 links of each page that only name
//! another page of the same site.
//!
//! A link qualifies only when the text join is exactly what `Url::join` followed by
//! `url_norm::cache_key_ref` would give: its path has only characters the URL parser copies
//! as they are (letters, digits, `-._~!$&()*+,;=`, `/`), no empty segment but the last, and
//! its fragment has no character the parser would escape. `.` and `..` segments are resolved
//! here as the parser resolves them. Anything else (a query, an escape, a colon, a `..` above
//! the root) is left to the parser: `None`.
//!
//! The base is a `file:`, `http:` or `https:` URL (the parser treats all three alike for such
//! paths). On a `file:` page the link must also end in a file name with a dot (`page.html`: a
//! name the file system is never asked about, see `FileScope::document_key`), so a folder
//! link goes to the parser; on the web a folder (`docs/`) is a URL like any other.

/// Joins `value` to the folder `dir` (a `file:`, `http:` or `https:` URL ending in `/`, with no
/// escape, query or fragment, and a host without a trailing dot), or to `root` (the site root,
/// the same kind of URL) when `value` starts with one `/`, writing the key into `out`. Returns the fragment (`None` when there is
/// no `#`), or `None` overall when the link does not qualify (see the module doc); `out` is
/// then left in an unspecified state. The fragment is as written: `Some("")` for `page.html#`.
pub(crate) fn join_local_key<'v>(
    dir: &JoinBase,
    root: Option<&JoinBase>,
    value: &'v str,
    out: &mut String,
) -> Option<Option<&'v str>> {
    // Links are short: a plain loop over the bytes beats a searcher's set-up (`split_once`
    // and `split` cost 7% of a crawl). One pass finds the end of the path and checks it: `#`
    // is no plain path byte, so the path ends at the first byte that is not one, which must
    // then be the `#` of the fragment.
    let bytes = value.as_bytes();
    let end = bytes
        .iter()
        .position(|&b| !plain_path_byte(b))
        .unwrap_or(bytes.len());
    let (path, fragment) = match bytes.get(end) {
        None => (value, None),
        Some(b'#') => (&value[..end], Some(&value[end + 1..])),
        Some(_) => return None,
    };
    if path.is_empty() || !fragment.is_none_or(|f| f.bytes().all(plain_fragment_byte)) {
        return None;
    }
    let (base, rel) = match path.strip_prefix('/') {
        Some(rest) if !rest.starts_with('/') => (root?, rest),
        Some(_) => return None,
        None => (dir, path),
    };
    let JoinBase { text, floor, file } = base;
    let (floor, file) = (*floor, *file);
    out.clear();
    out.push_str(text);
    // Leading `../` segments (most relative links of a site) climb as the loop below would;
    // what follows them, when it is only names, is then appended as it is. Anything else goes
    // through the loop, segment by segment.
    let mut rel = rel;
    while let Some(rest) = rel.strip_prefix("../") {
        climb(out, floor)?;
        rel = rest;
    }
    if only_names(rel.as_bytes()) {
        out.push_str(rel);
    } else {
        join_segments(out, rel, floor, file)?;
    }
    if file {
        let name = &out[last_slash(out.as_bytes())? + 1..];
        if !name.contains('.') || name.bytes().all(|b| b == b'.') {
            return None;
        }
    }
    Some(fragment)
}

/// `true` when every segment of `rel` is a name (not empty, not starting with a dot, so
/// neither `.` nor `..`) and it does not end in `/`: joined, it is appended as it is. Looks
/// only after each `/` (found with `memchr`: a loop over every byte cost 4% of a second run).
fn only_names(rel: &[u8]) -> bool {
    let name_at = |at: usize| !matches!(rel.get(at), None | Some(b'/' | b'.'));
    name_at(0) && memchr::memchr_iter(b'/', rel).all(|slash| name_at(slash + 1))
}

/// Drops the last segment of `out`, which ends in `/`, never above `floor`: what `..` does.
fn climb(out: &mut String, floor: usize) -> Option<()> {
    let cut = last_slash(&out.as_bytes()[..out.len() - 1])? + 1;
    if cut < floor {
        return None;
    }
    out.truncate(cut);
    Some(())
}

/// Appends `rel` to `out` (which ends in `/`) segment by segment, resolving `.` and `..` as
/// the parser does; `None` when `rel` does not qualify (see the module doc).
fn join_segments(out: &mut String, rel: &str, floor: usize, file: bool) -> Option<()> {
    let mut start = 0;
    loop {
        let end = position(&rel.as_bytes()[start..], b'/').map_or(rel.len(), |at| start + at);
        let segment = &rel[start..end];
        let last = end == rel.len();
        start = end + 1;
        match segment {
            // A folder (`a/`, `a/.`, `a/..`): on a `file:` page, not for this path.
            "" | "." | ".." if last && file => return None,
            // On the web, `out` ends in `/` here: the folder is the URL.
            "" if last => {}
            "" => return None,
            "." => {}
            // `out` ends in `/` here.
            ".." => climb(out, floor)?,
            name => {
                out.push_str(name);
                if !last {
                    out.push('/');
                }
            }
        }
        if last {
            return Some(());
        }
    }
}

/// A base URL that links are joined to (see [`join_local_key`]), with what its text says
/// about joining to it: read once for all the links of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JoinBase {
    /// The URL as text.
    text: String,
    /// The offset just past the first `/` of the path: a `..` never climbs above it.
    floor: usize,
    /// A `file:` URL (see the module doc), else `http:` or `https:`.
    file: bool,
}

impl JoinBase {
    /// `None` for a base of another scheme, one not ending in `/`, or a `file:` URL with a `:`
    /// past the scheme (the parser keeps a Windows drive letter, `/C:/`, when it climbs): no
    /// link is joined to such a base as text.
    pub(crate) fn new(base: String) -> Option<JoinBase> {
        if !base.ends_with('/') {
            return None;
        }
        if base.starts_with("file:///") {
            return (!base[5..].contains(':')).then_some(JoinBase {
                text: base,
                floor: "file:///".len(),
                file: true,
            });
        }
        let authority = if base.starts_with("http://") {
            "http://".len()
        } else if base.starts_with("https://") {
            "https://".len()
        } else {
            return None;
        };
        let slash = authority + base[authority..].find('/')?;
        Some(JoinBase {
            text: base,
            floor: slash + 1,
            file: false,
        })
    }
}

/// The offset of the first `byte` in `s` (short: a plain loop beats a searcher's set-up).
fn position(s: &[u8], byte: u8) -> Option<usize> {
    s.iter().position(|&b| b == byte)
}

/// The offset of the last `/` in `s` (a short URL: a plain loop beats a searcher's set-up).
fn last_slash(s: &[u8]) -> Option<usize> {
    s.iter().rposition(|&b| b == b'/')
}

/// A byte the URL parser copies into a path as it is, and that means nothing special in a
/// relative reference (no `:`, which can start a scheme; no `%`, which the key would decode;
/// no `\`, which a `file:` URL reads as `/`; no `?` or `#`).
fn plain_path_byte(b: u8) -> bool {
    PLAIN[usize::from(b)] & PATH != 0
}

/// A byte the URL parser copies into a fragment as it is.
fn plain_fragment_byte(b: u8) -> bool {
    PLAIN[usize::from(b)] & FRAGMENT != 0
}

/// Bit of [`PLAIN`]: a plain path byte.
const PATH: u8 = 1;
/// Bit of [`PLAIN`]: a plain fragment byte.
const FRAGMENT: u8 = 2;

/// Per byte, [`PATH`] and [`FRAGMENT`]: a table, since every byte of every link is looked up.
static PLAIN: [u8; 256] = plain_table();

const fn plain_table() -> [u8; 256] {
    let mut table = [0; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        let path = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'/'
            );
        let fragment = path || matches!(c, b'%' | b':' | b'@' | b'?' | b'\'');
        table[i] = if path {
            PATH | FRAGMENT
        } else if fragment {
            FRAGMENT
        } else {
            0
        };
        i += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::url_norm::cache_key_ref;
    use url::Url;

    const DIR: &str = "file:///site/docs/guide/";
    const ROOT: &str = "file:///site/";

    /// `text` as a base, which it must be.
    fn base(text: &str) -> JoinBase {
        JoinBase::new(text.to_owned()).unwrap_or_else(|| panic!("{text} is a base"))
    }

    fn fast(value: &str) -> Option<(String, Option<String>)> {
        let mut out = String::new();
        let fragment = join_local_key(&base(DIR), Some(&base(ROOT)), value, &mut out)?;
        Some((out, fragment.map(str::to_owned)))
    }

    /// What the parser and the key give, resolved as `Run::consider_link` resolves a link.
    fn slow(value: &str) -> (String, Option<String>) {
        let url = match value.strip_prefix('/') {
            Some(rest) => Url::parse(ROOT).unwrap().join(rest).unwrap(),
            None => Url::parse(DIR).unwrap().join(value).unwrap(),
        };
        let fragment = url.fragment().map(str::to_owned);
        (cache_key_ref(&url).into_owned(), fragment)
    }

    #[test]
    fn plain_links_join_as_the_parser_joins_them() {
        for value in [
            "page.html",
            "page.html#intro",
            "page.html#",
            "sub/page.html",
            "./page.html",
            "../index.html",
            "../../a/b/c.html#x.y",
            "/about.html",
            "/a/./b/../c.css",
            "struct.Vec.html#method.push",
            "fn.f.html#impl-From%3C%26str%3E-for-String",
            "a(1)+b,c;d=e$f&g!h*i~j.png",
            // After leading `../`: only names (appended whole), or a dot segment, a name
            // starting with a dot, a `..` in the middle (segment by segment).
            "../../../guide/x.html",
            "../../a/./b.html",
            "../.hidden/x.html",
            "../a/../b.html",
            "../..x/y.html",
        ] {
            let (key, fragment) = fast(value).unwrap_or_else(|| panic!("{value} qualifies"));
            assert_eq!((key, fragment), slow(value), "{value}");
        }
    }

    #[test]
    fn anything_the_parser_might_change_is_left_to_it() {
        for value in [
            "",
            "#top",
            "folder/",
            "folder",
            "..",
            "../",
            "a/.",
            "a//b.html",
            "//cdn.example.net/x.js",
            "page.html?x=1",
            "a%7Eb.html",
            "mailto:a@b.c",
            "C:/x.html",
            "a\\b.html",
            "a b.html",
            "é.html",
            "page.html#a b",
            "page.html#<x>",
            "...",
            "../../../../../x.html",
            "../../a//b.html",
            "../a/",
            "../../",
        ] {
            assert_eq!(fast(value), None, "{value:?}");
        }
    }

    const WEB_DIR: &str = "https://user@example.com:8443/docs/guide/";
    const WEB_ROOT: &str = "https://user@example.com:8443/";

    #[test]
    fn on_the_web_plain_links_and_folders_join_as_the_parser_joins_them() {
        for value in [
            "page.html",
            "page",
            "page#intro",
            "sub/",
            "sub/.",
            "sub/..",
            ".",
            "./",
            "..",
            "../",
            "../../x",
            "/",
            "/about",
            "/a/./b/../c.css#x",
            "...",
            "a.b.c/",
        ] {
            let mut out = String::new();
            let fragment = join_local_key(&base(WEB_DIR), Some(&base(WEB_ROOT)), value, &mut out)
                .unwrap_or_else(|| panic!("{value} qualifies"));
            let url = match value.strip_prefix('/') {
                Some(rest) => Url::parse(WEB_ROOT).unwrap().join(rest).unwrap(),
                None => Url::parse(WEB_DIR).unwrap().join(value).unwrap(),
            };
            assert_eq!(out, cache_key_ref(&url), "{value}");
            assert_eq!(fragment, url.fragment(), "{value}");
        }
        let mut out = String::new();
        for value in [
            "a//b",
            "../../../x",
            "//cdn.example.net/x.js",
            "a?b",
            "a%41",
        ] {
            assert_eq!(
                join_local_key(&base(WEB_DIR), Some(&base(WEB_ROOT)), value, &mut out),
                None,
                "{value}"
            );
        }
        // Not a base the text join knows.
        for text in ["ftp://example.com/", "https://example.com", "data:x/"] {
            assert_eq!(JoinBase::new(text.to_owned()), None, "{text}");
        }
    }

    #[test]
    fn a_root_relative_link_needs_a_root_and_a_dot_dot_stays_below_it() {
        let mut out = String::new();
        assert_eq!(
            join_local_key(&base(DIR), None, "/about.html", &mut out),
            None
        );
        assert_eq!(
            join_local_key(&base("file:///a/"), None, "../../x.html", &mut out),
            None
        );
        // Up to the floor, as the parser goes.
        assert_eq!(
            join_local_key(&base("file:///a/"), None, "../x.html", &mut out),
            Some(None)
        );
        assert_eq!(out, "file:///x.html");
        assert_eq!(
            Url::parse("file:///a/")
                .unwrap()
                .join("../x.html")
                .unwrap()
                .as_str(),
            "file:///x.html"
        );
    }
}
