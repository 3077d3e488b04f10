//! `--changed-since REF`: in a git checkout, the Markdown and HTML files a change touches — the
//! files changed since REF (committed, staged or not), and the files that name a file renamed,
//! moved or deleted since REF (a renamed page leaves its old links pointing at nothing) — and
//! nothing else. Asks the `git` on PATH: `git diff --name-status` for what changed, `git grep`
//! for who names a file that is gone, so the files not touched are not read by the check.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Result, invalid};

/// The files to check for a change since `reference`, absolute, sorted, each once, and the
/// checkout's top folder.
pub(super) fn changed_files(reference: &str) -> Result<(Vec<PathBuf>, PathBuf)> {
    // A reference is never an option of git's (`--output=…`).
    if reference.starts_with('-') || reference.is_empty() {
        return Err(invalid(format!(
            "--changed-since `{reference}' is not a git reference"
        )));
    }
    let top = git(Path::new("."), &["rev-parse", "--show-toplevel"]).map_err(|e| {
        invalid(format!(
            "--changed-since needs a git checkout (and git on PATH): {e}"
        ))
    })?;
    let top = PathBuf::from(top.trim_end_matches(['\n', '\r']));
    let diff = git(
        &top,
        &[
            "diff",
            "--name-status",
            "-z",
            "-M",
            "--no-ext-diff",
            "--end-of-options",
            reference,
            "--",
        ],
    )
    .map_err(|e| {
        invalid(format!(
            "--changed-since: cannot compare with `{reference}': {e}"
        ))
    })?;
    let (changed, gone) = parse_name_status(&diff);
    let mut files: Vec<PathBuf> = changed
        .into_iter()
        .filter(|p| is_page(p))
        .map(|p| top.join(p))
        .filter(|p| p.is_file())
        .collect();
    for old in gone {
        for pattern in names_of(&old) {
            let found = git(
                &top,
                &[
                    "grep",
                    "-l",
                    "-z",
                    "-F",
                    "-e",
                    &pattern,
                    "--",
                    "*.md",
                    "*.markdown",
                    "*.html",
                    "*.htm",
                ],
            )
            // `git grep` fails (status 1) when nothing names the file.
            .unwrap_or_default();
            files.extend(
                found
                    .split('\0')
                    .filter(|p| !p.is_empty())
                    .map(|p| top.join(p)),
            );
        }
    }
    files.sort();
    files.dedup();
    Ok((files, top))
}

/// Runs `git ARGS` in `dir`; its standard output, or an error with its standard error.
fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| invalid(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(invalid(err.lines().next().unwrap_or("git failed")));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The paths `git diff --name-status -z` names: those that exist after the change (added,
/// modified, the new name of a rename or copy) and those that no longer do (deleted, the old
/// name of a rename).
fn parse_name_status(text: &str) -> (Vec<String>, Vec<String>) {
    let mut fields = text.split('\0').filter(|f| !f.is_empty());
    let (mut changed, mut gone) = (Vec::new(), Vec::new());
    while let Some(status) = fields.next() {
        match status.as_bytes().first() {
            Some(b'R') => {
                if let (Some(old), Some(new)) = (fields.next(), fields.next()) {
                    gone.push(old.to_owned());
                    changed.push(new.to_owned());
                }
            }
            Some(b'C') => {
                let _ = fields.next();
                changed.extend(fields.next().map(str::to_owned));
            }
            Some(b'D') => gone.extend(fields.next().map(str::to_owned)),
            _ => changed.extend(fields.next().map(str::to_owned)),
        }
    }
    (changed, gone)
}

/// What a link to the file `path` may name: its file name, and for a Markdown source the page
/// it renders to (`guide.md` is linked as `guide.html` on a built site).
fn names_of(path: &str) -> Vec<String> {
    let name = Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.is_empty() {
        return Vec::new();
    }
    let mut names = vec![name.clone()];
    if let Some(stem) = name
        .strip_suffix(".md")
        .or_else(|| name.strip_suffix(".markdown"))
    {
        names.push(format!("{stem}.html"));
    }
    names
}

/// A Markdown or HTML file.
fn is_page(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".html", ".htm"]
        .iter()
        .any(|e| lower.ends_with(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_status_splits_into_changed_and_gone() {
        let text = "M\0a.md\0R087\0old.md\0new.md\0D\0gone.html\0A\0added.md\0C100\0x.md\0y.md\0";
        let (changed, gone) = parse_name_status(text);
        assert_eq!(changed, ["a.md", "new.md", "added.md", "y.md"]);
        assert_eq!(gone, ["old.md", "gone.html"]);
    }

    #[test]
    fn a_markdown_page_is_named_by_its_file_and_its_page() {
        assert_eq!(names_of("docs/guide.md"), ["guide.md", "guide.html"]);
        assert_eq!(names_of("about.html"), ["about.html"]);
    }
}
