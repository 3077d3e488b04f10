//! The git work tree a checked folder lies in: the folder that holds a `.git` entry (a folder,
//! or the file of a linked work tree or submodule), found by looking upward from the checked
//! folder. GitHub shows the whole work tree, so a link from `docs/` to `../README.md#setup`
//! works there when `README.md` has that heading: inside the work tree, files outside the
//! checked folders are read for their anchors (`fetch::file`), never parsed for links.
//!
//! Only the file system is asked (`lstat` of `.git` in each folder up the way): git is never
//! run and nothing of `.git` is read, so a checkout's git configuration does nothing here.
//! A folder's answer is its parent's unless it has a `.git` of its own, so [`WorkTrees`]
//! remembers the answer of every folder it passed: many folders of one tree cost one `lstat`
//! each, not one per folder up to `/`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Most folders remembered (a path and a shared answer each); past it, the memory starts over.
const FOLDERS_REMEMBERED: usize = 4096;

/// The work-tree roots of many folders, each folder asked once. Owned by one caller (the file
/// scope is built on one thread), so no lock.
pub(crate) struct WorkTrees<P = fn(&Path) -> bool> {
    /// Each folder met, and the root of its work tree.
    known: HashMap<PathBuf, Option<Rc<Path>>>,
    /// `true` when a folder holds a `.git` that counts ([`has_own_git`]).
    probe: P,
}

impl WorkTrees {
    /// Asks the file system.
    pub(crate) fn new() -> Self {
        WorkTrees::with_probe(has_own_git)
    }
}

impl<P: FnMut(&Path) -> bool> WorkTrees<P> {
    /// Asks `probe` whether a folder holds a `.git` of its own (tests count the calls).
    fn with_probe(probe: P) -> Self {
        WorkTrees {
            known: HashMap::new(),
            probe,
        }
    }

    /// The root of the git work tree that holds `folder` (a canonical path), when there is
    /// one: the nearest folder at or above it with a `.git` folder or file. A `.git` that is a
    /// symbolic link does not count (a checkout could point it anywhere).
    pub(crate) fn root_of(&mut self, folder: &Path) -> Option<PathBuf> {
        if self.known.len() >= FOLDERS_REMEMBERED {
            self.known.clear();
        }
        // Up from `folder` to the first folder known or with a `.git`; every folder passed
        // gets that answer.
        let mut passed = Vec::new();
        let mut answer = None;
        for dir in folder.ancestors() {
            if let Some(known) = self.known.get(dir) {
                answer = known.clone();
                break;
            }
            passed.push(dir);
            if (self.probe)(dir) {
                answer = Some(Rc::from(dir));
                break;
            }
        }
        for dir in passed {
            self.known.insert(dir.to_path_buf(), answer.clone());
        }
        answer.map(|root| root.to_path_buf())
    }
}

/// `true` when `dir` holds a `.git` folder or file, itself no symbolic link.
fn has_own_git(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok_and(|git| {
        let kind = git.file_type();
        kind.is_dir() || kind.is_file()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh lookup for one folder, as the file scope makes for its first.
    fn work_tree_root(folder: &Path) -> Option<PathBuf> {
        WorkTrees::new().root_of(folder)
    }

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

    /// Every folder of a chain 1,000 deep asked in turn, as a run's start files ask: each
    /// folder is probed once, not once per folder below it.
    #[test]
    fn each_folder_is_probed_once() {
        let top = PathBuf::from("/checkout");
        let mut chain = vec![top.join("site")];
        for _ in 1..1000 {
            let next = chain.last().unwrap().join("d");
            chain.push(next);
        }
        let mut probes: HashMap<PathBuf, usize> = HashMap::new();
        let mut trees = WorkTrees::with_probe(|dir: &Path| {
            *probes.entry(dir.to_path_buf()).or_default() += 1;
            dir == top
        });
        for folder in &chain {
            assert_eq!(trees.root_of(folder).as_deref(), Some(top.as_path()));
        }
        // Outside the tree: up to `/` once, then remembered.
        for _ in 0..3 {
            assert_eq!(trees.root_of(Path::new("/elsewhere/a/b")), None);
        }
        drop(trees);
        let most = probes.values().max().copied();
        assert_eq!(most, Some(1), "a folder probed more than once");
        // The chain, `/checkout`, and `/elsewhere/a/b` up to `/`.
        assert_eq!(probes.len(), 1000 + 1 + 4);
    }

    /// Past the bound the memory starts over, and the answers stay right.
    #[test]
    fn the_memory_is_bounded() {
        let mut trees = WorkTrees::with_probe(|dir: &Path| dir == Path::new("/repo"));
        for i in 0..FOLDERS_REMEMBERED * 2 {
            let folder = PathBuf::from(format!("/repo/f{i}"));
            assert_eq!(trees.root_of(&folder).as_deref(), Some(Path::new("/repo")));
            assert!(trees.known.len() <= FOLDERS_REMEMBERED + 1);
        }
    }
}
