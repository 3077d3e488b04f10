//! Patterns of an option whose meaning is "any of them matches" (`--include`, `--exclude`,
//! `--no-follow`), compiled into as few regexes as that takes. A compiled regex costs some
//! 4–6 KB however short its pattern, and every pattern was tried on every URL; an alternation
//! of a thousand literal URLs is one Aho-Corasick search that takes a fraction of that (figures
//! in benches/RESULTS.md).

use regex::Regex;

/// Patterns joined into one regex: compiling an alternation parses it whole first, about 3 KB
/// of syntax tree per pattern of a URL's length while it compiles, so the patterns are joined
/// a thousand at a time.
const JOINED_PATTERNS: usize = 1_000;

/// Most compiled size of a joined alternation (the regex crate's default is 10 MB, which a
/// thousand long patterns may pass).
const JOINED_SIZE_LIMIT: usize = 256 * 1024 * 1024;

/// Each pattern checked on its own (`Err` names the first bad one and why), then all of them
/// without inline flags (`(?i)`, whose `(?x)` comments could swallow the rest) joined into
/// alternations of [`JOINED_PATTERNS`]. A pattern alone stays as given (messages quote it); an
/// alternation too big to compile stays apart.
pub(super) fn any_of(patterns: &[String]) -> Result<Vec<Regex>, String> {
    for p in patterns {
        Regex::new(p).map_err(|e| format!("`{p}' is not a valid regex: {e}"))?;
    }
    let (plain, flagged): (Vec<&String>, Vec<&String>) =
        patterns.iter().partition(|p| !p.contains("(?"));
    let mut out = Vec::new();
    for group in plain.chunks(JOINED_PATTERNS) {
        if let [one] = group {
            out.extend(Regex::new(one).ok());
            continue;
        }
        let joined: Vec<String> = group.iter().map(|p| format!("(?:{p})")).collect();
        match regex::RegexBuilder::new(&joined.join("|"))
            .size_limit(JOINED_SIZE_LIMIT)
            .build()
        {
            Ok(r) => out.push(r),
            Err(_) => out.extend(group.iter().filter_map(|p| Regex::new(p).ok())),
        }
    }
    out.extend(flagged.iter().filter_map(|p| Regex::new(p).ok()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_joined_but_match_as_before() {
        let patterns: Vec<String> = [r"example\.org/a\.html$", "^https://b", "(?i)/SECRET"]
            .iter()
            .map(|p| (*p).to_owned())
            .collect();
        let joined = any_of(&patterns).unwrap();
        assert_eq!(
            joined.len(),
            2,
            "the plain ones joined, the flagged one apart"
        );
        let matches = |url: &str| joined.iter().any(|r| r.is_match(url));
        assert!(matches("https://example.org/a.html"));
        assert!(!matches("https://example.org/a.html?x"));
        assert!(matches("https://b.example/"));
        assert!(!matches("http://b.example/"));
        assert!(matches("https://c.example/secret/"));
        assert!(!matches("https://c.example/"));
        let bad = vec!["ok".to_owned(), "(unclosed".to_owned()];
        assert!(
            any_of(&bad)
                .unwrap_err()
                .starts_with("`(unclosed' is not a valid regex")
        );
    }
}
