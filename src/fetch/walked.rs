//! What a folder walk kept (its ignore files, hidden files, `--exclude-path`), so that the
//! listing of a folder without `index.html` inside it names only those: one set of rules for
//! the walk and the listing, and a file the walk left out is not read through a listing.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::real_path::real_path;

/// The walked folders, each with the files it kept (`Config::walked_folder`). Their real
/// paths are resolved on the first listing inside a walk, not before the run: most runs list
/// no folder, and a folder of 50,000 files costs an `lstat` and some 150 bytes a file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Walked {
    /// Each folder and the files its walk kept, as the configuration holds them.
    given: Vec<(PathBuf, Arc<Vec<PathBuf>>)>,
    /// Each folder with the files it kept and the folders that hold them, all canonical.
    roots: OnceLock<Vec<(PathBuf, HashSet<PathBuf>)>>,
}

impl Walked {
    /// The walks of `folders`: each folder and the files its walk kept.
    pub(crate) fn new(folders: &[(PathBuf, Arc<Vec<PathBuf>>)]) -> Walked {
        Walked {
            given: folders.to_vec(),
            roots: OnceLock::new(),
        }
    }

    /// The real paths of the walks: each folder, its kept files and the folders between.
    fn resolve(&self) -> Vec<(PathBuf, HashSet<PathBuf>)> {
        self.given
            .iter()
            .filter_map(|(folder, files)| {
                let root = real_path(folder).ok()?;
                let mut kept = HashSet::new();
                for file in files.iter() {
                    let Ok(real) = real_path(file) else {
                        continue;
                    };
                    // The file and every folder between it and the root.
                    for p in real.ancestors() {
                        if !p.starts_with(&root) || !kept.insert(p.to_path_buf()) {
                            break;
                        }
                    }
                }
                Some((root, kept))
            })
            .collect()
    }

    /// `true` when a listing may name `entry`: it is outside every walked folder, or a walk
    /// kept it (a file, or a folder that holds a kept file).
    pub(crate) fn lists(&self, entry: &Path) -> bool {
        if self.given.is_empty() {
            return true;
        }
        let Ok(real) = std::fs::canonicalize(entry) else {
            return false;
        };
        self.roots
            .get_or_init(|| self.resolve())
            .iter()
            .filter(|(root, _)| real.starts_with(root))
            .all(|(_, kept)| kept.contains(&real))
    }
}

#[cfg(test)]
mod tests {
    use super::Walked;

    #[test]
    fn only_kept_files_and_their_folders_are_listed_inside_a_walk() {
        let dir = std::env::temp_dir().join(format!("lp-walked-{}", std::process::id()));
        for sub in ["kept/deep", "left-out", "outside"] {
            std::fs::create_dir_all(dir.join("walk").join(sub)).unwrap();
        }
        let walk = dir.join("walk");
        for f in ["kept/deep/a.html", "left-out/b.html", "c.html"] {
            std::fs::write(walk.join(f), "").unwrap();
        }
        let kept = vec![walk.join("kept/deep/a.html")];
        let walked = Walked::new(&[(walk.clone(), std::sync::Arc::new(kept))]);
        assert!(walked.roots.get().is_none(), "resolved before a listing");
        assert!(walked.lists(&walk.join("kept")));
        assert!(walked.lists(&walk.join("kept/deep/a.html")));
        assert!(!walked.lists(&walk.join("left-out")));
        assert!(!walked.lists(&walk.join("c.html")));
        assert!(walked.lists(&dir), "outside the walk");
        assert!(Walked::default().lists(&walk.join("c.html")), "no walk");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
