//! The options of a [`Config`] that decide *what* a run checks (start inputs, scope, filters,
//! recursion, what counts as working), as flag names and values in text: what the state file
//! records for each run, and what `--resume` compares with the run it continues. Options that
//! change only how a run checks (threads, timeouts, rates, output) are not among them.

use std::hash::{Hash, Hasher};

use crate::config::{Config, Input};

/// One option that decides what is checked: its command-line name and its value in text.
pub(crate) type CheckedOption = (&'static str, String);

/// Every option of `cfg` that decides what is checked, in a fixed order.
pub(crate) fn checked_options(cfg: &Config) -> Vec<CheckedOption> {
    let patterns = |v: &[regex::Regex]| {
        v.iter()
            .map(|r| r.as_str().to_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let inputs: Vec<String> = cfg.inputs.iter().map(input_text).collect();
    vec![
        ("start inputs", inputs.join(" ")),
        (
            "--recursion-level",
            cfg.recursion_level
                .map_or_else(|| "unlimited".into(), |n| n.to_string()),
        ),
        ("--internal-only", (!cfg.check_external).to_string()),
        ("--include", patterns(&cfg.include)),
        ("--exclude", patterns(&cfg.exclude)),
        (".linkpatrolignore", patterns(&cfg.ignore_file)),
        ("--no-follow", patterns(&cfg.no_follow)),
        ("--remap", format!("{:?}", cfg.remap)),
        ("--no-robots", (!cfg.robots).to_string()),
        (
            "--max-urls",
            cfg.max_urls
                .map_or_else(|| "none".into(), |n| n.to_string()),
        ),
        ("--sitemaps", cfg.seed_sitemaps.to_string()),
        (
            "--root-dir",
            cfg.root_dir
                .as_ref()
                .map_or_else(String::new, |p| p.display().to_string()),
        ),
        ("--follow-outside-root", cfg.follow_outside_root.to_string()),
        ("--include-verbatim", cfg.include_verbatim.to_string()),
        ("--include-wikilinks", cfg.include_wikilinks.to_string()),
        ("--fallback-extensions", cfg.fallback_extensions.join(",")),
        (
            "--preprocess",
            cfg.preprocess
                .as_ref()
                .map_or_else(String::new, |p| p.display().to_string()),
        ),
        (
            "--default-extension",
            cfg.default_extension.clone().unwrap_or_default(),
        ),
        ("--index-files", cfg.index_files.join(",")),
        ("mdbook", cfg.readme_as_index.to_string()),
        ("mdbook chapters", format!("{:?}", cfg.mdbooks)),
        ("mdbook redirects", format!("{:?}", cfg.mdbook_redirects)),
        ("--base-url", cfg.base_url.clone().unwrap_or_default()),
        ("--accept", cfg.accept.to_string()),
        ("--accept-timeouts", cfg.accept_timeouts.to_string()),
        ("--require-https", cfg.require_https.to_string()),
        ("--ignore-warning", cfg.ignore_warnings.join(" ")),
        ("--plugin", cfg.plugin_names().join(" ")),
        ("--shard", format!("{:?}", cfg.shard)),
        (
            "--exclude-private/--exclude-loopback/--exclude-link-local/--allow-private",
            format!("{:?} {}", cfg.exclude_addresses, cfg.allow_private),
        ),
    ]
}

/// A start input as text: a URL or path as given; a document held in memory by its base
/// URL and a hash of its text (the text itself may be large).
fn input_text(input: &Input) -> String {
    match input {
        Input::Url(u) => u.clone(),
        Input::Path(p) => p.display().to_string(),
        Input::Html { html, base } => {
            let mut h = std::hash::DefaultHasher::new();
            html.hash(&mut h);
            format!("document at {base} (hash {:016x})", h.finish())
        }
    }
}

/// The first option whose value differs between `then` (as recorded for an earlier run) and
/// `now`: its name and both values. An option `then` does not name (recorded by an older
/// version) is not compared.
pub(crate) fn first_difference<'a>(
    then: &'a [(String, String)],
    now: &'a [CheckedOption],
) -> Option<(&'static str, &'a str, &'a str)> {
    now.iter().find_map(|(name, value)| {
        let (_, old) = then.iter().find(|(n, _)| n == name)?;
        (old != value).then_some((*name, old.as_str(), value.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(cfg: &Config) -> Vec<(String, String)> {
        checked_options(cfg)
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v))
            .collect()
    }

    #[test]
    fn a_changed_scope_is_named_and_a_changed_thread_count_is_not() {
        let base = Config::new().input_url("http://127.0.0.1:1/");
        let then = recorded(&base.clone().recursion_level(Some(2)));
        let same = checked_options(&base.clone().recursion_level(Some(2)).threads(7));
        assert_eq!(first_difference(&then, &same), None);
        let deeper = checked_options(&base.clone().recursion_level(Some(3)));
        assert_eq!(
            first_difference(&then, &deeper),
            Some(("--recursion-level", "2", "3"))
        );
        let other = checked_options(
            &Config::new()
                .input_url("http://127.0.0.1:2/")
                .recursion_level(Some(2)),
        );
        assert_eq!(
            first_difference(&then, &other).map(|d| d.0),
            Some("start inputs")
        );
        // An option an older file did not record is not compared.
        let older: Vec<(String, String)> = then
            .into_iter()
            .filter(|(n, _)| n != "--recursion-level")
            .collect();
        assert_eq!(first_difference(&older, &deeper), None);
    }
}
