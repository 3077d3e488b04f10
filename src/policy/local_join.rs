//! The cache key of a plain relative link on a local or web page, joined as text: the fast
//! path of a folder check and of a crawl (a parsed page or one replayed after a `304`), which
//! builds no `Url` for the 40 links of each page that only name another file.
//!
//! A link qualifies only when the text join is exactly what `Url::join` followed by
//! `url_norm::cache_key_ref` would give: its path has only characters the URL parser copies
//! as they are (letters, digits, `-._~!$&()*+,;=`, `/`), no empty segment, and it ends in a
//! file name with a dot (`page.html`: a name the file system is never asked about, see
//! `fetch::file::document_key`); its fragment has no character the parser would escape.
//! `.` and `..` segments are resolved here as the parser resolves them. Anything else (a
//! query, an escape, a colon, a folder, a `..` above the root) is left to the parser: `None`.

/// Joins `value` to the folder `dir` (a `file:`, `http:` or `https:` URL ending in `/`, with no
/// escape, query or fragment, and a host without a trailing dot), or to `root` (the site root
/// or the web origin with its `/`, the same kind of URL) when `value` starts with one
/// `/`, writing the key into `out`. Returns the fragment (`None` when there is no `#`), or
/// `None` overall when the link does not qualify (see the module doc); `out` is then
/// left in an unspecified state. The fragment is as written: `Some("")` for `page.html#`.
pub(crate) fn join_local_key<'v>(
    dir: &str,
    root: Option<&str>,
    value: &'v str,
    out: &mut String,
) -> Option<Option<&'v str>> {
    let (path, fragment) = match find_byte(value, b'#') {
        Some(at) => (&value[..at], Some(&value[at + 1..])),
        None => (value, None),
    };
    if path.is_empty()
        || !path.bytes().all(plain_path_byte)
        || !fragment.is_none_or(|f| f.bytes().all(plain_fragment_byte))
    {
        return None;
    }
    let (base, rel) = match path.strip_prefix('/') {
        Some(rest) if !rest.starts_with('/') => (root?, rest),
        Some(_) => return None,
        None => (dir, path),
    };
    let floor = path_floor(base)?;
    if !base.ends_with('/') {
        return None;
    }
    out.clear();
    out.push_str(base);
    let mut rest = Some(rel);
    while let Some(now) = rest {
        let segment = match find_byte(now, b'/') {
            Some(at) => {
                rest = Some(&now[at + 1..]);
                &now[..at]
            }
            None => {
                rest = None;
                now
            }
        };
        let last = rest.is_none();
        match segment {
            // A folder (`a/`, `a/.`, `a/..`) or an empty segment: not for this path.
            "" | "." | ".." if last => return None,
            "" => return None,
            "." => {}
            ".." => {
                // `out` ends in `/`: drop its last segment, never above the floor.
                let cut = last_slash(&out.as_bytes()[..out.len() - 1])? + 1;
                if cut < floor {
                    return None;
                }
                out.truncate(cut);
            }
            name => {
                out.push_str(name);
                if !last {
                    out.push('/');
                }
            }
        }
    }
    let name = &out[last_slash(out.as_bytes())? + 1..];
    if !name.contains('.') || name.bytes().all(|b| b == b'.') {
        return None;
    }
    Some(fragment)
}

/// Where the path of `base` starts, past its first `/`: a `..` never climbs above it. `None`
/// for a base the text join does not know: other schemes, and a `file:` URL with a `:` past
/// the scheme (the parser keeps a Windows drive letter, `/C:/`, when it climbs).
fn path_floor(base: &str) -> Option<usize> {
    if let Some(path) = base.strip_prefix("file:///") {
        return (!path.contains(':')).then_some("file:///".len());
    }
    let authority = if base.starts_with("http://") {
        "http://".len()
    } else if base.starts_with("https://") {
        "https://".len()
    } else {
        return None;
    };
    Some(authority + base[authority..].find('/')? + 1)
}

/// The offset of the first `byte` in `s`: a plain loop, as for [`last_slash`] (`split` and
/// `split_once` set up a searcher per call, which cost a crawl replaying stored links a tenth
/// of its instructions: a link has a handful of short segments).
fn find_byte(s: &str, byte: u8) -> Option<usize> {
    s.bytes().position(|b| b == byte)
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

    /// A web page's folder and origin, with a port and credentials.
    const WEB_DIR: &str = "https://u:p@example.test:8443/docs/guide/";
    const WEB_ROOT: &str = "https://u:p@example.test:8443/";

    fn fast(value: &str) -> Option<(String, Option<String>)> {
        fast_at(DIR, ROOT, value)
    }

    fn fast_at(dir: &str, root: &str, value: &str) -> Option<(String, Option<String>)> {
        let mut out = String::new();
        let fragment = join_local_key(dir, Some(root), value, &mut out)?;
        Some((out, fragment.map(str::to_owned)))
    }

    /// What the parser and the key give, resolved as `Run::consider_link` resolves a link.
    fn slow(value: &str) -> (String, Option<String>) {
        slow_at(DIR, ROOT, value)
    }

    fn slow_at(dir: &str, root: &str, value: &str) -> (String, Option<String>) {
        let url = match value.strip_prefix('/') {
            Some(rest) => Url::parse(root).unwrap().join(rest).unwrap(),
            None => Url::parse(dir).unwrap().join(value).unwrap(),
        };
        let fragment = url.fragment().map(str::to_owned);
        (cache_key_ref(&url).into_owned(), fragment)
    }

    #[test]
    fn on_a_web_page_plain_links_join_as_the_parser_joins_them() {
        for value in [
            "page.html",
            "page.html#intro",
            "../index.html",
            "../../a/b/c.html#x.y",
            "/about.html",
            "/a/./b/../c.css",
        ] {
            let (key, fragment) =
                fast_at(WEB_DIR, WEB_ROOT, value).unwrap_or_else(|| panic!("{value} qualifies"));
            assert_eq!(
                (key, fragment),
                slow_at(WEB_DIR, WEB_ROOT, value),
                "{value}"
            );
        }
        // Above the origin's `/` (the parser stays there), and other schemes: to the parser.
        let mut out = String::new();
        for (dir, value) in [
            (WEB_DIR, "../../../x.html"),
            ("http://example.test/", "../x.html"),
            ("ftp://example.test/a/", "x.html"),
            ("http://example.test", "x.html"),
        ] {
            assert_eq!(join_local_key(dir, None, value, &mut out), None, "{value}");
        }
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
        ] {
            assert_eq!(fast(value), None, "{value:?}");
        }
    }

    #[test]
    fn a_root_relative_link_needs_a_root_and_a_dot_dot_stays_below_it() {
        let mut out = String::new();
        assert_eq!(join_local_key(DIR, None, "/about.html", &mut out), None);
        assert_eq!(
            join_local_key("file:///a/", None, "../../x.html", &mut out),
            None
        );
        // Up to the floor, as the parser goes.
        assert_eq!(
            join_local_key("file:///a/", None, "../x.html", &mut out),
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
