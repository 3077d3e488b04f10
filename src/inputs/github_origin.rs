//! The GitHub repository a checked folder is a checkout of: the `origin` remote of the git work
//! tree that holds it, read from `.git/config` as text. A README often links to its own files
//! as `https://github.com/OWNER/REPO/blob/main/docs/guide.md#setup`; with the repository known,
//! such links are checked in the local checkout (`Config::github_checkout`), so
//! `--internal-only` checks them too.
//!
//! git is never run. `.git/config` is the checkout's: read only as a regular file inside
//! `.git` (`checkout_file`), up to 64 KiB, and only its `origin` URL is taken, and only when it
//! names a repository on `github.com`. A `.git` that is a file (a linked work tree, a
//! submodule) or a symbolic link is not followed.

use std::path::{Path, PathBuf};

/// Most bytes of `.git/config` read.
const MAX_CONFIG: u64 = 64 * 1024;

/// The root of the work tree that holds `folder`, and its GitHub repository as
/// `https://github.com/OWNER/REPO`, when its `origin` remote is on GitHub.
pub(super) fn github_origin(folder: &Path) -> Option<(PathBuf, String)> {
    let folder = std::fs::canonicalize(folder).ok()?;
    let root = folder.ancestors().find(|dir| {
        std::fs::symlink_metadata(dir.join(".git")).is_ok_and(|m| !m.file_type().is_symlink())
    })?;
    let git = root.join(".git");
    if !std::fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let bytes = super::checkout_file::read(&git.join("config"), Some(&git), MAX_CONFIG).ok()?;
    let url = origin_url(&String::from_utf8_lossy(&bytes))?;
    Some((root.to_path_buf(), github_repository(&url)?))
}

/// The `url` of `[remote "origin"]` in a git config's text.
fn origin_url(config: &str) -> Option<String> {
    let mut in_origin = false;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let section: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            in_origin = section == "[remote\"origin\"]";
            continue;
        }
        if !in_origin {
            continue;
        }
        if let Some((key, value)) = line.split_once('=')
            && key.trim().eq_ignore_ascii_case("url")
        {
            return Some(value.trim().trim_matches('"').to_owned());
        }
    }
    None
}

/// `https://github.com/OWNER/REPO` for a remote URL on GitHub (`https://github.com/O/R.git`,
/// `git@github.com:O/R.git`, `ssh://git@github.com/O/R`), names checked as GitHub allows them.
fn github_repository(remote: &str) -> Option<String> {
    let path = [
        "https://github.com/",
        "http://github.com/",
        "ssh://git@github.com/",
    ]
    .iter()
    .find_map(|p| remote.strip_prefix(p))
    .or_else(|| remote.strip_prefix("git@github.com:"))?;
    let path = path.trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let (owner, repo) = path.split_once('/')?;
    let name_ok = |s: &str| {
        !s.is_empty()
            && s.len() <= 100
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && s != "."
            && s != ".."
    };
    (name_ok(owner) && name_ok(repo)).then(|| format!("https://github.com/{owner}/{repo}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_remote_on_github_is_the_repository() {
        let config = "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://github.com/a/b\n\
                      [remote \"origin\"]\n\turl = git@github.com:Owner/Repo.git\n\
                      \tfetch = +refs/heads/*:refs/remotes/origin/*\n";
        assert_eq!(
            origin_url(config).as_deref(),
            Some("git@github.com:Owner/Repo.git")
        );
        for (remote, want) in [
            (
                "git@github.com:Owner/Repo.git",
                Some("https://github.com/Owner/Repo"),
            ),
            ("https://github.com/o/r", Some("https://github.com/o/r")),
            (
                "ssh://git@github.com/o/r.git/",
                Some("https://github.com/o/r"),
            ),
            ("https://gitlab.com/o/r", None),
            ("https://github.com/o", None),
            ("https://github.com/o/r/../x", None),
            ("https://github.com/../r", None),
        ] {
            assert_eq!(github_repository(remote).as_deref(), want, "{remote}");
        }
        assert_eq!(origin_url("[remote \"origin\"]\n"), None);
    }

    #[test]
    fn a_checkout_is_found_from_a_folder_inside_it() {
        let dir = std::env::temp_dir().join(format!("lp-origin-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("repo/.git")).unwrap();
        std::fs::create_dir_all(dir.join("repo/docs")).unwrap();
        std::fs::write(
            dir.join("repo/.git/config"),
            "[remote \"origin\"]\n\turl = https://github.com/o/r.git\n",
        )
        .unwrap();
        let real = std::fs::canonicalize(&dir).unwrap();
        assert_eq!(
            github_origin(&dir.join("repo/docs")),
            Some((real.join("repo"), "https://github.com/o/r".to_owned()))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
