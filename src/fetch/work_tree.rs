//! The git work tree a checked folder lies in: the folder that holds a `.git` entry (a folder,
//! or the file of a linked work tree or submodule), found by looking upward from the checked
//! folder. GitHub shows the whole work tree, so a link from `docs/` to `../README.md#setup`
//! works there when `README.md` has that heading: inside the work tree, files outside the
//! checked folders are read for their anchors (`fetch::file`), never parsed for links.
//!
//! Only the file system is asked (`lstat` of `.git` in each folder up the way): git is never
//! run and nothing of `.git` is read, so a checkout's git configuration does nothing here.

use std::path::{Path, PathBuf};

/// The root of the git work tree that holds `folder` (a canonical path), when there is one:
/// the nearest folder at or above it with a `.git` folder or file. A `.git` that is a symbolic
/// link does not count (a checkout could point it anywhere).
pub(crate) fn work_tree_root(folder: &Path) -> Option<PathBuf> {
    folder.ancestors().find_map(|dir| {
        let git = std::fs::symlink_metadata(dir.join(".git")).ok()?;
        let kind = git.file_type();
        (kind.is_dir() || kind.is_file()).then(|| dir.to_path_buf())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_folder_with_a_git_entry_is_the_root() {
        let dir = std::env::temp_dir().join(format!("lp-work-tree-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("repo/.git")).unwrap();
        std::fs::create_dir_all(dir.join("repo/docs/deep")).unwrap();
        std::fs::create_dir_all(dir.join("repo/sub/inner")).unwrap();
        // A submodule's or linked work tree's `.git` is a file.
        std::fs::write(dir.join("repo/sub/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
        std::fs::create_dir_all(dir.join("plain/.git-not")).unwrap();
        let real = std::fs::canonicalize(&dir).unwrap();
        assert_eq!(
            work_tree_root(&real.join("repo/docs/deep")),
            Some(real.join("repo"))
        );
        assert_eq!(work_tree_root(&real.join("repo")), Some(real.join("repo")));
        assert_eq!(
            work_tree_root(&real.join("repo/sub/inner")),
            Some(real.join("repo/sub"))
        );
        #[cfg(unix)]
        {
            std::fs::create_dir_all(dir.join("linked/docs")).unwrap();
            std::os::unix::fs::symlink(dir.join("repo/.git"), dir.join("linked/.git")).unwrap();
            let found = work_tree_root(&real.join("linked/docs"));
            assert!(
                found
                    .as_ref()
                    .is_none_or(|f| !f.starts_with(real.join("linked"))),
                "{found:?}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
