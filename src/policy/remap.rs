//! Applies the `--remap` rules ([`Remap`]) to a link's URL before it is claimed and checked:
//! the first rule whose pattern matches replaces its first match, and the result must parse
//! as a URL. Links found on pages (and in sitemaps) are remapped; start inputs are not, since
//! they are where to read from.

use url::Url;

use crate::config::remap::Remap;

/// What the rules make of a URL.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Remapped {
    /// No rule matched, or the rule left the URL as it was.
    Same,
    /// The URL to check instead.
    To(Url),
    /// The rule made text that is not a URL (the message says which).
    Invalid(String),
}

/// `url` after the first rule of `rules` that matches it.
pub(crate) fn remap(rules: &[Remap], url: &Url) -> Remapped {
    let Some(rule) = rules.iter().find(|r| r.pattern.is_match(url.as_str())) else {
        return Remapped::Same;
    };
    let new = rule
        .pattern
        .replace(url.as_str(), rule.replacement.as_str());
    if new == url.as_str() {
        return Remapped::Same;
    }
    match Url::parse(&new) {
        Ok(u) => Remapped::To(u),
        Err(e) => Remapped::Invalid(format!("remapped to `{new}', which is not a URL: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(list: &[&str]) -> Vec<Remap> {
        list.iter().map(|r| Remap::parse(r).unwrap()).collect()
    }

    #[test]
    fn the_first_matching_rule_applies_with_its_groups() {
        let r = rules(&[
            r"^https://example\.org/(.*)$ http://127.0.0.1:8080/$1",
            r"^https://example\.org/ http://other.test/",
        ]);
        let url = Url::parse("https://example.org/docs/a.html#top").unwrap();
        assert_eq!(
            remap(&r, &url),
            Remapped::To(Url::parse("http://127.0.0.1:8080/docs/a.html#top").unwrap())
        );
        let other = Url::parse("https://example.net/").unwrap();
        assert_eq!(remap(&r, &other), Remapped::Same);
    }

    #[test]
    fn a_replacement_that_is_no_url_is_reported() {
        let r = rules(&[r"^https://example\.org/ not-a-url/"]);
        let url = Url::parse("https://example.org/a").unwrap();
        assert!(matches!(remap(&r, &url), Remapped::Invalid(m) if m.contains("not-a-url/a")));
    }
}
