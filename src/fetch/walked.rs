//! What a folder walk kept (its ignore files, hidden files, `--exclude-path`), so that the
//! listing of a folder without `index.html` inside it names only those: one set of rules for
//! the walk and the listing, and a file the walk left out is not read through a listing.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::real_path::real_path;

/// The walked folders, each with the files it kept and the folders that hold them, all
/// canonical (`Config::walked_folder`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Walked {
    roots: Vec<(PathBuf, HashSet<PathBuf>)>,
}

impl Walked {
    /// The walks of `folders`: each folder and the files its walk kept.
    pub(crate) fn new(folders: &[(PathBuf, Vec<PathBuf>)]) -> Walked {
        let roots = folders
            .iter()
            .filter_map(|(folder, files)| {
                let root = real_path(folder).ok()?;
                let mut kept = HashSet::new();
                for file in files {
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
            .collect();
        Walked { roots }
    }

    /// `true` when a listing may name `entry`: it is outside every walked folder, or a walk
    /// kept it (a file, or a folder that holds a kept file).
    pub(crate) fn lists(&self, entry: &Path) -> bool {
        if self.roots.is_empty() {
            return true;
        }
        let Ok(real) = std::fs::canonicalize(entry) else {
            return false;
        };
        self.roots
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
        let walked = Walked::new(&[(walk.clone(), vec![walk.join("kept/deep/a.html")])]);
        assert!(walked.lists(&walk.join("kept")));
        assert!(walked.lists(&walk.join("kept/deep/a.html")));
        assert!(!walked.lists(&walk.join("left-out")));
        assert!(!walked.lists(&walk.join("c.html")));
        assert!(walked.lists(&dir), "outside the walk");
        assert!(Walked::default().lists(&walk.join("c.html")), "no walk");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
