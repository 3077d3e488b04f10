//! The text forms of settings that the command line, the config file and the language
//! bindings all read: `NAME: VALUE` headers, `NAME[:key=value,…]` plugin specs, `REGEX=N`
//! per-host limits and `IP[:PORT]` resolvers, parsed once here so every front end accepts and
//! refuses the same strings.

/// One `--plugin`: the plugin's name and its settings in order.
pub type PluginSpec = (String, Vec<(String, String)>);

/// `true` when `value` cannot be sent as a header value: it holds a control character (CR,
/// LF, NUL, DEL, …; a tab is fine), which would end the header or the request early.
pub(crate) fn bad_header_value(value: &str) -> bool {
    value.chars().any(|c| c.is_control() && c != '\t')
}

/// `true` when `name` is no HTTP token, so no header name.
pub(crate) fn bad_header_name(name: &str) -> bool {
    name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b))
}

/// `IP` or `IP:PORT` (port 53 when none), as `--dns-server` reads it.
pub fn parse_dns_server(s: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::{IpAddr, SocketAddr};
    s.parse::<SocketAddr>()
        .or_else(|_| s.parse::<IpAddr>().map(|ip| SocketAddr::new(ip, 53)))
        .map_err(|_| format!("`{}' is not an IP address or IP:PORT", s.escape_debug()))
}

/// `NAME: VALUE`, as `--header` reads it: the name must be an HTTP token, the value free of
/// control characters; both sides are trimmed. The error says what is wrong with `s`.
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}' is not a header: use `NAME: VALUE'"))?;
    let name = name.trim();
    if bad_header_name(name) {
        return Err(format!(
            "`{}' is not a valid header name",
            name.escape_debug()
        ));
    }
    if bad_header_value(value) {
        return Err(format!(
            "the value of `{name}' has a control character (CR, LF, …), which a header cannot carry"
        ));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// An extension of `--fallback-extensions` (`md`, `.md`), trimmed and without its dot: one
/// with `/`, `\`, `..` or NUL would name another path than the missing file's sibling.
pub(crate) fn fallback_extension(s: &str) -> Result<String, String> {
    let given = s.trim();
    if given.contains(['/', '\\', '\0']) || given.contains("..") {
        return Err(format!(
            "`{}' is not a file extension (no `/', `\\', `..' or NUL)",
            s.escape_debug()
        ));
    }
    Ok(given.trim_start_matches('.').to_owned())
}

/// A name of `--index-files` (`index.html`, `README.md`, `.`), trimmed: a file name of the
/// linked folder, so one with `/`, `\`, `..` or NUL (which would name another path) is refused.
pub(crate) fn index_file(s: &str) -> Result<String, String> {
    let given = s.trim();
    if given.contains(['/', '\\', '\0']) || given.contains("..") {
        return Err(format!(
            "`{}' is not a file name (no `/', `\\', `..' or NUL)",
            s.escape_debug()
        ));
    }
    Ok(given.to_owned())
}

/// `NAME` or `NAME:key=value,key=value`, as `--plugin` reads it. A value with a comma stays
/// whole when some piece after a comma is not `key=value` (`pattern=a{1,2}`); otherwise repeat
/// the flag.
pub fn parse_plugin_spec(s: &str) -> Result<PluginSpec, String> {
    let (name, rest) = s.split_once(':').unwrap_or((s, ""));
    let name = name.trim();
    if name.is_empty() {
        return Err("expected NAME or NAME:key=value".into());
    }
    let mut pairs = Vec::new();
    if !rest.is_empty() {
        let pieces: Vec<&str> = rest.split(',').collect();
        let pieces = if pieces.iter().all(|p| p.contains('=')) {
            pieces
        } else {
            vec![rest]
        };
        for piece in pieces {
            let (k, v) = piece
                .split_once('=')
                .ok_or_else(|| format!("`{piece}' is not key=value"))?;
            if k.trim().is_empty() {
                return Err(format!("`{piece}' has no key"));
            }
            pairs.push((k.trim().to_owned(), v.to_owned()));
        }
    }
    Ok((name.to_owned(), pairs))
}

/// `REGEX=N`, as `--host-rate` and `--host-max-concurrency` read it: the pattern is everything
/// before the last `=` (a pattern may hold `=` itself), the number after it, trimmed.
pub fn parse_pattern_number<T: std::str::FromStr>(s: &str) -> Result<(String, T), String> {
    let (pattern, n) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("`{s}' is not REGEX=N"))?;
    let n = n
        .trim()
        .parse()
        .map_err(|_| format!("`{n}' is not a valid number"))?;
    Ok((pattern.to_owned(), n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fallback_extension_names_no_path() {
        assert_eq!(fallback_extension(" .md ").as_deref(), Ok("md"));
        assert_eq!(fallback_extension("tar.gz").as_deref(), Ok("tar.gz"));
        for bad in ["a/b", "/", "..", "..md", "a\\b", "a\0b"] {
            assert!(fallback_extension(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn headers_need_a_token_name() {
        assert_eq!(
            parse_header(" X-Token :  a b "),
            Ok(("X-Token".into(), "a b".into()))
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header("bad name: x").is_err());
        assert!(parse_header(": x").is_err());
        for bad in ["X: a\r\nEvil: 1", "X: a\nb", "X: \u{0}", "X: a\u{7f}"] {
            assert!(parse_header(bad).is_err(), "{bad:?}");
        }
        assert!(parse_header("X: a\tb").is_ok());
    }

    #[test]
    fn a_dns_server_is_an_ip_with_or_without_a_port() {
        assert_eq!(parse_dns_server("10.0.0.1").unwrap().port(), 53);
        assert_eq!(parse_dns_server("[::1]:5353").unwrap().port(), 5353);
        for bad in ["notanip", "", "1.2.3.4:x", "example.org:53"] {
            assert!(parse_dns_server(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn plugin_specs_keep_a_value_with_a_comma_whole() {
        assert_eq!(parse_plugin_spec("anchors"), Ok(("anchors".into(), vec![])));
        assert_eq!(
            parse_plugin_spec("regex:pattern=a{1,2}"),
            Ok(("regex".into(), vec![("pattern".into(), "a{1,2}".into())]))
        );
        assert_eq!(
            parse_plugin_spec("anchors:severity=warning,x=1"),
            Ok((
                "anchors".into(),
                vec![
                    ("severity".into(), "warning".into()),
                    ("x".into(), "1".into())
                ]
            ))
        );
        assert!(parse_plugin_spec(":a=b").is_err());
        assert!(parse_plugin_spec("p:=b").is_err());
    }

    #[test]
    fn pattern_numbers_split_at_the_last_equals_sign() {
        assert_eq!(
            parse_pattern_number::<usize>("a=b\\.org= 3"),
            Ok(("a=b\\.org".into(), 3))
        );
        assert_eq!(
            parse_pattern_number::<f64>("example\\.org=0.5"),
            Ok(("example\\.org".into(), 0.5))
        );
        assert!(parse_pattern_number::<usize>("no-number").is_err());
        assert!(parse_pattern_number::<usize>("x=-1").is_err());
    }
}
