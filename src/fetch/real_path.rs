//! Real paths of many files below the same folders, each in a few system calls.
//! `canonicalize` costs a `readlink` for every folder on the way, each a lookup from the top,
//! so a tree `d` folders deep cost `d²` a file; here each thread remembers the real path of the
//! folders it met, and a name below one costs one `lstat`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use foldhash::fast::RandomState as FastHash;

/// Most folders one thread remembers (a few hundred KB at most).
const FOLDERS_REMEMBERED: usize = 4096;

/// What `std::fs::canonicalize(path)` gives, in a few system calls for a path below folders
/// met before: `canonicalize` costs a `readlink` per folder on the way, each a lookup from the
/// top, so a tree `d` folders deep cost `d²` a file.
pub(crate) fn real_path(path: &Path) -> std::io::Result<PathBuf> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return std::fs::canonicalize(path);
    }
    let absolute;
    let path = if path.is_relative() {
        absolute = std::env::current_dir()?.join(path);
        absolute.as_path()
    } else {
        path
    };
    real_path_of_entry(path).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "a folder on the way does not resolve",
        )
    })
}

// Keyed by the folder's bytes: hashing a `Path` parses its components.
thread_local! {
    static FOLDERS: RefCell<HashMap<OsString, Option<PathBuf>, FastHash>> =
        RefCell::new(HashMap::default());
}

/// Forgets what this thread remembers of folders. A worker thread lives for one run; the
/// caller's thread (an embedder's, Python's) runs many, and a folder may have changed between
/// them: a run forgets on that thread before it resolves its inputs.
pub(crate) fn forget_folders() {
    FOLDERS.with_borrow_mut(HashMap::clear);
}

/// The path the file system opens for `path`, itself no symbolic link: its folder with `..`
/// resolved and symbolic links followed, then its name. Folders are resolved once per thread
/// (a site's pages share a few folders), each from its parent's answer and one `lstat`.
/// `None` when it does not resolve.
pub(super) fn real_path_of_entry(path: &Path) -> Option<PathBuf> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        // `/` itself, or a path ending in `..`.
        return std::fs::canonicalize(path).ok();
    };
    let folder = FOLDERS.with_borrow_mut(|known| {
        if known.len() >= FOLDERS_REMEMBERED {
            known.clear();
        }
        real_folder(parent, known)
    })?;
    Some(folder.join(name))
}

/// The real path of `folder`, remembered in `known`: its parent's real path and its name when
/// it is no symbolic link (one `lstat`), else what `realpath` says (a link, `..`, the root).
fn real_folder(
    folder: &Path,
    known: &mut HashMap<OsString, Option<PathBuf>, FastHash>,
) -> Option<PathBuf> {
    if let Some(real) = known.get(folder.as_os_str()) {
        return real.clone();
    }
    let plain = |f: &Path| {
        std::fs::symlink_metadata(f).is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink())
    };
    let real = match (folder.parent(), folder.file_name()) {
        (Some(parent), Some(name)) if plain(folder) => {
            real_folder(parent, known).map(|p| p.join(name))
        }
        _ => std::fs::canonicalize(folder).ok(),
    };
    known.insert(folder.as_os_str().to_owned(), real.clone());
    real
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// `real_path` answers as `canonicalize` does: through links, `..`, relative paths.
    #[test]
    fn real_paths_are_what_canonicalize_gives() {
        let dir = std::env::temp_dir().join(format!("linkpatrol-real-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a/b/c")).unwrap();
        std::fs::create_dir_all(dir.join("elsewhere")).unwrap();
        std::fs::write(dir.join("a/b/c/page.md"), "x").unwrap();
        std::fs::write(dir.join("elsewhere/x.md"), "x").unwrap();
        std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("a/link")).unwrap();
        for path in [
            "a/b/c/page.md",
            "a/b/c",
            "a/b/../b/c/page.md",
            "a/link/x.md",
            "a/link",
            "a/b/c/page.md",
        ] {
            let path = dir.join(path);
            let want = std::fs::canonicalize(&path).unwrap();
            assert_eq!(real_path(&path).unwrap(), want, "{}", path.display());
        }
        let here = std::env::current_dir().unwrap();
        let relative = Path::new("Cargo.toml");
        assert_eq!(
            real_path(relative).unwrap(),
            std::fs::canonicalize(here.join(relative)).unwrap()
        );
        assert!(real_path(&dir.join("a/none.md")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
