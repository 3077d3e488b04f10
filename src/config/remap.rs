//! [`Remap`]: a rule that rewrites links before they are checked (`--remap 'REGEX
//! REPLACEMENT'`): production URLs to a local folder or a staging host. The rules are applied
//! by `policy::remap`.

use regex::Regex;

/// Rewrites a link whose URL matches `pattern` into `replacement` (regex syntax: `$1`,
/// `${name}` for groups) before it is checked. The report keeps the link as written and says
/// what it was remapped to.
#[derive(Debug, Clone)]
pub struct Remap {
    pub(crate) pattern: Regex,
    pub(crate) replacement: String,
}

impl Remap {
    /// A rule replacing the first match of `pattern` in a link's URL with `replacement`.
    pub fn new(pattern: Regex, replacement: impl Into<String>) -> Self {
        Remap {
            pattern,
            replacement: replacement.into(),
        }
    }

    /// A rule from `REGEX REPLACEMENT`: the text up to the last run of whitespace is the
    /// pattern (so it may hold spaces), the rest the replacement.
    ///
    /// # Errors
    /// When there is no whitespace, either part is empty, or the pattern is not a regex.
    ///
    /// ```
    /// let rule = linkpatrol::Remap::parse(r"^https://example\.org/ http://127.0.0.1:8080/").unwrap();
    /// assert_eq!(rule.replacement(), "http://127.0.0.1:8080/");
    /// ```
    pub fn parse(rule: &str) -> Result<Remap, String> {
        let rule = rule.trim();
        let Some((pattern, replacement)) = rule.rsplit_once(char::is_whitespace) else {
            return Err(format!(
                "`{rule}' is not `REGEX REPLACEMENT' (no space between them)"
            ));
        };
        let pattern = pattern.trim_end();
        if pattern.is_empty() || replacement.is_empty() {
            return Err(format!("`{rule}' is not `REGEX REPLACEMENT'"));
        }
        let pattern =
            Regex::new(pattern).map_err(|e| format!("`{pattern}' is not a valid regex: {e}"))?;
        Ok(Remap::new(pattern, replacement))
    }

    /// The pattern a link's URL must match.
    pub fn pattern(&self) -> &Regex {
        &self.pattern
    }

    /// What the match is replaced with.
    pub fn replacement(&self) -> &str {
        &self.replacement
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_space_separates_pattern_and_replacement() {
        let r = Remap::parse("^https://a b/  file:///site/").unwrap();
        assert_eq!(r.pattern().as_str(), "^https://a b/");
        assert_eq!(r.replacement(), "file:///site/");
    }

    #[test]
    fn malformed_rules_are_refused() {
        assert!(Remap::parse("no-space").is_err());
        assert!(Remap::parse("( x").is_err());
        assert!(Remap::parse("   ").is_err());
    }
}
