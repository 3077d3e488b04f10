//! "Did you mean": the existing name closest to a missing local file's, among the entries of
//! its folder (hidden ones left out), so `../items/enumerations.mdr` says `enumerations.md`.
//! The caller asks only for folders inside the checked ones: the names of other folders are
//! not the checkout's to learn.

use std::path::Path;

use rapidfuzz::distance::levenshtein;

/// Most entries of a folder compared: a huge folder costs no more than this.
const MAX_ENTRIES: usize = 10_000;

/// The name in `path`'s folder closest to its own, case ignored: at an edit distance of at
/// most a third of its length (at least 1); ties go to the first in alphabetical order.
pub(crate) fn closest_sibling(path: &Path) -> Option<String> {
    let wanted = path.file_name()?.to_str()?.to_lowercase();
    let limit = (wanted.chars().count() / 3).max(1);
    let entries = std::fs::read_dir(path.parent()?).ok()?;
    // One pattern against every name, each comparison given up once past the limit.
    let compare = levenshtein::BatchComparator::new(wanted.chars());
    let cutoff = levenshtein::Args::default().score_cutoff(limit);
    entries
        .take(MAX_ENTRIES)
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.'))
        .filter_map(|name| {
            let d = compare.distance_with_args(name.to_lowercase().chars(), &cutoff)?;
            Some((d, name))
        })
        .min()
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::closest_sibling;

    #[test]
    fn names_the_closest_visible_sibling_or_none() {
        let dir = std::env::temp_dir().join(format!("lp-sibling-hint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "enumerations.md",
            "enums.md",
            ".enumerations.mdr",
            "Intro.md",
        ] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        let hint = |name: &str| closest_sibling(&dir.join(name));
        assert_eq!(hint("enumerations.mdr").as_deref(), Some("enumerations.md"));
        assert_eq!(hint("intro.md").as_deref(), Some("Intro.md"));
        assert_eq!(hint("totally-else.txt"), None);
        assert_eq!(closest_sibling(&dir.join("gone/x.md")), None, "no folder");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
