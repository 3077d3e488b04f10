//! The fragments GitHub's pages answer that their HTML does not hold: line anchors of a file
//! view, made by the page's script, and headings of rendered Markdown, whose ids GitHub
//! prefixes with `user-content-` (and whose script finds them from the bare fragment).
//!
//! A page is GitHub's when its URL as written (before any `--remap`), or where its redirects
//! ended, is on the host `github.com` exactly: a mirror serving GitHub-shaped pages under
//! another name is GitHub only through a remap rule.

use linkpatrol_plugin_api::{LinkView, Url};

/// The ids GitHub gives rendered Markdown headings: `user-content-` and the heading's slug.
const USER_CONTENT: &str = "user-content-";

/// `true` when `url` is a page of `github.com`.
fn is_github(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https") && url.host_str() == Some("github.com")
}

/// The GitHub URLs the link's target goes by: as written, and where its redirects ended.
fn github_urls<'a>(link: &'a LinkView<'_>) -> impl Iterator<Item = &'a Url> {
    [link.written_target.or(Some(link.target)), link.real_target]
        .into_iter()
        .flatten()
        .filter(|u| is_github(u))
}

/// `true` when the link's target is a page of `github.com`.
pub(crate) fn is_github_page(link: &LinkView<'_>) -> bool {
    github_urls(link).next().is_some()
}

/// `true` when the fragment is a line anchor of a GitHub file view (`/OWNER/REPO/blob/…`):
/// `L10`, `L10-L20`, each line optionally with a column (`L10C5-L12C2`). GitHub's script
/// makes them; the HTML has no such id.
pub(crate) fn is_line_anchor(link: &LinkView<'_>, fragment: &str) -> bool {
    is_line_fragment(fragment) && github_urls(link).any(is_blob)
}

/// `/OWNER/REPO/blob/REF[/PATH]`.
fn is_blob(url: &Url) -> bool {
    let mut segments = url
        .path_segments()
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty());
    let (owner, repo, kind, reference) = (
        segments.next(),
        segments.next(),
        segments.next(),
        segments.next(),
    );
    owner.is_some() && repo.is_some() && kind == Some("blob") && reference.is_some()
}

/// `L<n>` or `L<n>-L<m>`, each optionally followed by `C<column>`.
fn is_line_fragment(fragment: &str) -> bool {
    let mut ends = fragment.splitn(2, '-');
    ends.next().is_some_and(is_position) && ends.next().is_none_or(is_position)
}

fn is_position(p: &str) -> bool {
    let Some(rest) = p.strip_prefix('L') else {
        return false;
    };
    match rest.split_once('C') {
        Some((line, column)) => is_number(line) && is_number(column),
        None => is_number(rest),
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The ids GitHub's script looks for, after the fragment itself, when it scrolls to
/// `#decoded`: the `user-content-` id, as written and in lower case (GitHub's heading slugs
/// are lower case, and a link `#Install` reaches `user-content-install`).
pub(crate) fn user_content_ids(decoded: &str) -> [String; 2] {
    [
        format!("{USER_CONTENT}{decoded}"),
        format!("{USER_CONTENT}{}", decoded.to_lowercase()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_fragments_are_githubs_forms_only() {
        for ok in ["L1", "L10-L20", "L10C5", "L10C5-L12C2", "L3-L3"] {
            assert!(is_line_fragment(ok), "{ok}");
        }
        for bad in [
            "", "L", "l10", "L10-", "L10-20", "L1x", "LC5", "L10C", "L1-L2-L3", "10",
        ] {
            assert!(!is_line_fragment(bad), "{bad}");
        }
    }

    #[test]
    fn only_file_views_are_blobs() {
        let blob = |u: &str| is_blob(&Url::parse(u).unwrap());
        assert!(blob("https://github.com/o/r/blob/main/src/lib.rs"));
        assert!(blob("https://github.com/o/r/blob/v1"));
        assert!(!blob("https://github.com/o/r/tree/main/src"));
        assert!(!blob("https://github.com/o/r"));
        assert!(!blob("https://github.com/o/r/blob/"));
    }

    #[test]
    fn github_is_the_host_exactly() {
        let gh = |u: &str| is_github(&Url::parse(u).unwrap());
        assert!(gh("https://github.com/o/r"));
        assert!(gh("https://GitHub.com/o/r"));
        assert!(!gh("https://github.com.evil.test/o/r"));
        assert!(!gh("https://gist.github.com/o/1"));
        assert!(!gh("https://api.github.com/repos/o/r"));
    }
}
