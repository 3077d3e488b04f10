//! The text forms of settings that the command line, the config file and the language
//! bindings all read: `NAME: VALUE` headers, `NAME[:key=value,…]` plugin specs and `REGEX=N`
//! per-host limits, parsed once here so every front end accepts and refuses the same strings.

/// One `--plugin`: the plugin's name and its settings in order.
pub type PluginSpec = (String, Vec<(String, String)>);

/// `NAME: VALUE`, as `--header` reads it: the name must be an HTTP token; both sides are
/// trimmed. The error says what is wrong with `s`.
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}' is not a header: use `NAME: VALUE'"))?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b))
    {
        return Err(format!("`{name}' is not a valid header name"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
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
    fn headers_need_a_token_name() {
        assert_eq!(
            parse_header(" X-Token :  a b "),
            Ok(("X-Token".into(), "a b".into()))
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header("bad name: x").is_err());
        assert!(parse_header(": x").is_err());
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
