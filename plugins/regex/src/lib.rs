//! The `regex` plugin: warns when a page's content matches a pattern ("lorem ipsum", "TODO").
//!
//! Runs on every page the engine reads and parses (the internal pages). Each pattern gives at
//! most one warning per page: the first match, its line, and how many matches there were.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use linkpatrol_plugin_api::{ContentView, Options, Plugin, Remark, Services};
use regex::Regex;

/// The plugin's name.
pub const NAME: &str = "regex";
/// One line for `--list-plugins`.
pub const DESCRIPTION: &str =
    "warn when a parsed page's content matches a pattern; settings: pattern=REGEX (repeatable)";
/// The warning tag.
pub const TAG: &str = "regex-match";
/// Longest match text quoted in a warning.
const QUOTED: usize = 80;

/// The `regex` plugin: its patterns, compiled once.
#[derive(Debug)]
pub struct RegexCheck {
    patterns: Vec<Regex>,
}

impl RegexCheck {
    /// The plugin from its settings: one or more `pattern=REGEX`.
    ///
    /// # Errors
    /// No pattern, a pattern that does not compile, or an unknown setting.
    pub fn from_options(options: &Options) -> Result<RegexCheck, String> {
        options.only(&["pattern"])?;
        let patterns = options
            .get_all("pattern")
            .map(|p| Regex::new(p).map_err(|e| format!("plugin regex: pattern `{p}': {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        if patterns.is_empty() {
            return Err("plugin regex: give at least one pattern=REGEX".into());
        }
        Ok(RegexCheck { patterns })
    }

    /// The warnings for one text: per pattern, its first match and the number of matches.
    fn scan(&self, text: &str) -> Vec<Remark> {
        let mut remarks = Vec::new();
        for re in &self.patterns {
            let mut matches = re.find_iter(text).filter(|m| !m.is_empty());
            let Some(first) = matches.next() else {
                continue;
            };
            let count = 1 + matches.count();
            let line = 1 + text[..first.start()].matches('\n').count();
            let quoted: String = first.as_str().chars().take(QUOTED).collect();
            let mut message = format!("Found `{quoted}' at line {line}");
            if count > 1 {
                message.push_str(&format!(" ({count} matches of `{}')", re.as_str()));
            } else {
                message.push_str(&format!(" (pattern `{}')", re.as_str()));
            }
            message.push('.');
            remarks.push(Remark::warning(TAG, message));
        }
        remarks
    }
}

impl Plugin for RegexCheck {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check_content(&self, content: &ContentView<'_>, _: &dyn Services) -> Vec<Remark> {
        self.scan(&String::from_utf8_lossy(content.body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin(patterns: &[&str]) -> RegexCheck {
        let mut o = Options::new(NAME);
        for p in patterns {
            o.push("pattern", *p);
        }
        RegexCheck::from_options(&o).unwrap()
    }

    fn messages(r: &[Remark]) -> Vec<String> {
        r.iter()
            .map(|r| match r {
                Remark::Warning { tag, message } => {
                    assert_eq!(*tag, TAG);
                    message.clone()
                }
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_hit_names_the_first_match_its_line_and_the_count() {
        let p = plugin(&["(?i)lorem ipsum", "TODO"]);
        let text = "<p>intro</p>\n<p>Lorem ipsum dolor</p>\n<p>lorem IPSUM</p>\n";
        assert_eq!(
            messages(&p.scan(text)),
            ["Found `Lorem ipsum' at line 2 (2 matches of `(?i)lorem ipsum')."]
        );
        assert_eq!(
            messages(&p.scan("a\nb\nTODO: fix")),
            ["Found `TODO' at line 3 (pattern `TODO')."]
        );
    }

    #[test]
    fn a_miss_and_empty_matches_say_nothing() {
        assert!(plugin(&["TODO"]).scan("all done").is_empty());
        assert!(plugin(&["x*"]).scan("abc").is_empty());
    }

    #[test]
    fn settings_are_validated() {
        assert!(RegexCheck::from_options(&Options::new(NAME)).is_err());
        let bad = Options::new(NAME).with("pattern", "(");
        assert!(
            RegexCheck::from_options(&bad)
                .unwrap_err()
                .contains("pattern `('")
        );
        let typo = Options::new(NAME).with("patern", "x");
        assert!(
            RegexCheck::from_options(&typo)
                .unwrap_err()
                .contains("unknown setting")
        );
    }
}
