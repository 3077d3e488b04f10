//! The files of a run by lower-case file name, for wikilinks (`--include-wikilinks`; see
//! `wikilinks.rs`): a start file or one a folder walk kept, found by its name in any folder.

use std::collections::HashMap;
use std::path::PathBuf;

/// The files of a run by lower-case file name, for wikilinks.
#[derive(Debug, Default)]
pub(crate) struct WikiIndex {
    names: HashMap<String, Vec<PathBuf>>,
}

impl WikiIndex {
    /// The index of `files`.
    pub(crate) fn new(files: impl IntoIterator<Item = PathBuf>) -> WikiIndex {
        let mut names: HashMap<String, Vec<PathBuf>> = HashMap::new();
        for file in files {
            if let Some(n) = file.file_name() {
                let n = n.to_string_lossy().to_lowercase();
                names.entry(n).or_default().push(file);
            }
        }
        WikiIndex { names }
    }

    /// The file a wikilink's target (`Page.md`, `folder/Page.md`, decoded) names: of the
    /// files whose path ends with it, in any case, the one with the fewest folders (then the
    /// first by path), as Obsidian picks the shortest path.
    pub(super) fn named(&self, target: &str) -> Option<&PathBuf> {
        let target = target.trim_start_matches('/').to_lowercase();
        let name = target.rsplit('/').next()?;
        self.names
            .get(name)?
            .iter()
            .filter(|p| {
                let p = p.to_string_lossy().to_lowercase();
                p == target || p.ends_with(&format!("/{target}"))
            })
            .min_by_key(|p| (p.components().count(), *p))
    }
}

#[cfg(test)]
mod tests {
    use super::WikiIndex;

    #[test]
    fn a_name_finds_the_shortest_path_in_any_case() {
        let index = WikiIndex::new(
            ["/w/deep/er/Page.md", "/w/notes/page.md", "/w/b/Other.md"].map(Into::into),
        );
        let named = |t: &str| index.named(t).map(|p| p.display().to_string());
        assert_eq!(named("PAGE.md").as_deref(), Some("/w/notes/page.md"));
        assert_eq!(named("er/page.md").as_deref(), Some("/w/deep/er/Page.md"));
        assert_eq!(named("/b/Other.md").as_deref(), Some("/w/b/Other.md"));
        assert_eq!(named("r/page.md"), None, "a whole folder name");
        assert_eq!(named("missing.md"), None);
    }
}
