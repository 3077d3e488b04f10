//! Links to a file of the GitHub repository the checked folder is a checkout of
//! (`Config::github_checkout`): `https://github.com/OWNER/REPO/blob/REF/path#anchor` and
//! `/tree/REF/path` name `path` in the local checkout, which stands for any branch or tag REF
//! (what is checked is the checkout, not the branch on GitHub). A full commit id as REF is a
//! permalink to history and stays a GitHub link. Pure: no I/O.

use url::Url;

/// A repository on GitHub and the folder of its local checkout.
#[derive(Debug, Clone)]
pub(crate) struct Checkout {
    /// `owner/repo`, lowercase (GitHub's names ignore case).
    name: String,
    /// The checkout's root, a `file:` URL ending in `/`.
    folder: Url,
}

impl Checkout {
    /// The checkout of `repository` (`https://github.com/OWNER/REPO`) in `folder`; `None` when
    /// `repository` names no GitHub repository or `folder` is no folder URL.
    pub(crate) fn new(repository: &str, folder: Url) -> Option<Checkout> {
        let url = Url::parse(repository.trim()).ok()?;
        let mut segments = url.path_segments()?.filter(|s| !s.is_empty());
        let (owner, repo) = (segments.next()?, segments.next()?);
        let ok = url.host_str() == Some("github.com")
            && segments.next().is_none()
            && folder.scheme() == "file"
            && folder.path().ends_with('/');
        ok.then(|| Checkout {
            name: format!("{owner}/{repo}").to_ascii_lowercase(),
            folder,
        })
    }

    /// The local file or folder `url` names, when it is a `blob` or `tree` link into this
    /// repository at a branch or tag; its fragment is kept, its query dropped.
    pub(crate) fn local(&self, url: &Url) -> Option<Url> {
        if !matches!(url.scheme(), "https" | "http")
            || !url
                .host_str()
                .is_some_and(|h| h.eq_ignore_ascii_case("github.com"))
        {
            return None;
        }
        let path = url.path().strip_prefix('/')?;
        let mut parts = path.splitn(5, '/');
        let (owner, repo, kind, reference) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let rest = parts.next().unwrap_or("");
        let repo = repo.strip_suffix(".git").unwrap_or(repo);
        if format!("{owner}/{repo}").to_ascii_lowercase() != self.name
            || reference.is_empty()
            || is_commit_id(reference)
        {
            return None;
        }
        let rest = match kind {
            "blob" if !rest.is_empty() && !rest.ends_with('/') => rest.to_owned(),
            "tree" if rest.is_empty() || rest.ends_with('/') => rest.to_owned(),
            "tree" => format!("{rest}/"),
            _ => return None,
        };
        let mut local = self.folder.join(&rest).ok()?;
        // `join` resolved any `..`: a link may not climb out of the checkout this way.
        if !local.as_str().starts_with(self.folder.as_str()) {
            return None;
        }
        local.set_fragment(url.fragment());
        Some(local)
    }
}

/// `true` for a full commit id (40 or 64 hex digits): a permalink to one commit.
fn is_commit_id(reference: &str) -> bool {
    matches!(reference.len(), 40 | 64) && reference.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkout() -> Checkout {
        Checkout::new(
            "https://github.com/Owner/Repo",
            Url::parse("file:///work/repo/").unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn blob_and_tree_links_name_local_files() {
        let c = checkout();
        let local = |u: &str| c.local(&Url::parse(u).unwrap()).map(String::from);
        for (link, want) in [
            (
                "https://github.com/owner/repo/blob/main/docs/guide.md#setup",
                "file:///work/repo/docs/guide.md#setup",
            ),
            (
                "https://github.com/Owner/Repo/blob/v1.2/README.md?plain=1#L10",
                "file:///work/repo/README.md#L10",
            ),
            (
                "https://github.com/owner/repo/tree/main/src",
                "file:///work/repo/src/",
            ),
            (
                "https://github.com/owner/repo/tree/main",
                "file:///work/repo/",
            ),
        ] {
            assert_eq!(local(link).as_deref(), Some(want), "{link}");
        }
        for other in [
            "https://github.com/owner/other/blob/main/README.md",
            "https://github.com/owner/repo/issues/1",
            "https://github.com/owner/repo/blob/main",
            "https://github.com/owner/repo/raw/main/README.md",
            "https://github.com/owner/repo/blob/0123456789abcdef0123456789abcdef01234567/a.md",
            "https://gitlab.com/owner/repo/blob/main/README.md",
            "https://github.com/owner/repo/blob/main/..%2F..%2Fetc/passwd",
        ] {
            let mapped = local(other);
            assert!(
                mapped
                    .as_deref()
                    .is_none_or(|m| m.starts_with("file:///work/repo/")),
                "{other}: {mapped:?}"
            );
            if !other.contains("%2F") {
                assert_eq!(mapped, None, "{other}");
            }
        }
        assert!(
            Checkout::new("https://gitlab.com/o/r", Url::parse("file:///x/").unwrap()).is_none()
        );
    }
}
