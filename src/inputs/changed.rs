//! `--changed-since REF`: in a git checkout, the Markdown and HTML files a change touches — the
//! files changed since REF (committed, staged or not), the files that name a file renamed,
//! moved or deleted since REF (a renamed page leaves its old links pointing at nothing), and
//! the files that link into a changed page with a fragment (`guide.md#setup`: a renamed
//! heading leaves such links pointing at nothing) — and nothing else. Asks the `git` on PATH:
//! `git diff --name-status` for what changed, `git grep` for who names a file that is gone or
//! links into a changed one, so the files not touched are not read by the check.
//!
//! The checkout is untrusted: git runs with the checkout's code turned off for what is asked
//! ([`SAFE_GIT`]: no fsmonitor hook, no bare repository found in a subfolder, no hooks, no
//! external diff or text conversion, every clean filter the checkout's config names replaced
//! by `cat`), and a changed file is read only when it is inside the checkout once symbolic
//! links are resolved (`leak.md -> ../outside/secret.md` is left out, with a warning). File
//! names are taken as the bytes git prints, so a name that is not UTF-8 is checked too.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Result, invalid};

/// The options every git command gets: what the checkout's git configuration could have git
/// run is turned off.
const SAFE_GIT: &[&str] = &[
    "-c",
    "core.fsmonitor=false",
    "-c",
    "safe.bareRepository=explicit",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "diff.external=",
    "--no-pager",
];

/// The files to check for a change since `reference`, absolute, sorted, each once, and the
/// checkout's top folder. A changed file that leads out of the checkout is left out, and `warn`
/// is told.
pub(super) fn changed_files(
    reference: &str,
    warn: &dyn Fn(String),
) -> Result<(Vec<PathBuf>, PathBuf)> {
    // A reference is never an option of git's (`--output=…`).
    if reference.starts_with('-') || reference.is_empty() {
        return Err(invalid(format!(
            "--changed-since `{reference}' is not a git reference"
        )));
    }
    let top = git(Path::new("."), &[], &["rev-parse", "--show-toplevel"]).map_err(|e| {
        invalid(format!(
            "--changed-since needs a git checkout (and git on PATH): {e}"
        ))
    })?;
    let top = PathBuf::from(os_string(top.trim_ascii_end()));
    let filters = no_filters(&top);
    let diff = git(
        &top,
        &filters,
        &[
            "diff",
            "--name-status",
            "-z",
            "-M",
            "--no-ext-diff",
            "--no-textconv",
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
    let pages: Vec<OsString> = changed.into_iter().filter(|p| is_page(p)).collect();
    let mut files: Vec<PathBuf> = pages.iter().map(|p| top.join(p)).collect();
    // Who names a file that is gone, and who links into a changed page's anchors
    // (`guide.md#`, `guide.html#`): one `git grep` for all the names.
    let mut patterns: Vec<OsString> = gone.iter().flat_map(|old| names_of(old)).collect();
    for page in &pages {
        patterns.extend(names_of(page).into_iter().map(|mut name| {
            name.push("#");
            name
        }));
    }
    patterns.sort();
    patterns.dedup();
    for some in patterns.chunks(GREP_PATTERNS) {
        files.extend(
            grep_files(&top, &filters, some)
                .into_iter()
                .map(|p| top.join(p)),
        );
    }
    files.sort();
    files.dedup();
    let files = inside(files, &top, warn);
    Ok((files, top))
}

/// Most patterns one `git grep` is given (its command line stays far below the system's limit).
const GREP_PATTERNS: usize = 200;

/// The Markdown and HTML files of the checkout that hold any of `patterns` (plain text), as
/// paths relative to `top`.
fn grep_files(top: &Path, filters: &[OsString], patterns: &[OsString]) -> Vec<OsString> {
    let mut args: Vec<&OsStr> = ["grep", "-l", "-z", "-F", "--no-textconv"]
        .iter()
        .map(OsStr::new)
        .collect();
    for pattern in patterns {
        args.push(OsStr::new("-e"));
        args.push(pattern);
    }
    args.extend(
        ["--", "*.md", "*.markdown", "*.html", "*.htm"]
            .iter()
            .map(OsStr::new),
    );
    // `git grep` fails (status 1) when no file holds any.
    let found = git(top, filters, &args).unwrap_or_default();
    found
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(os_string)
        .collect()
}

/// The regular files of `files` inside `top` once symbolic links are resolved; a changed file
/// that leads out of the checkout is left out with a warning (the check would read it).
fn inside(files: Vec<PathBuf>, top: &Path, warn: &dyn Fn(String)) -> Vec<PathBuf> {
    let top = std::fs::canonicalize(top).unwrap_or_else(|_| top.to_path_buf());
    files
        .into_iter()
        .filter(|file| {
            let Ok(real) = std::fs::canonicalize(file) else {
                return false;
            };
            if !real.starts_with(&top) {
                warn(format!(
                    "`{}' leads out of the checkout (a symbolic link): not checked",
                    file.display()
                ));
                return false;
            }
            real.is_file()
        })
        .collect()
}

/// `-c filter.NAME.clean=cat` (and `.process=`, `.smudge=cat`) for every filter driver the
/// checkout's git configuration names, so that comparing the working tree runs none of them.
fn no_filters(top: &Path) -> Vec<OsString> {
    let names = git(
        top,
        &[],
        &["config", "--name-only", "-z", "--get-regexp", r"^filter\."],
    )
    .unwrap_or_default();
    let mut args = Vec::new();
    let mut drivers: Vec<&[u8]> = names
        .split(|b| *b == 0)
        .filter_map(|key| {
            let key = key.strip_prefix(b"filter.")?;
            let at = key.iter().rposition(|b| *b == b'.')?;
            Some(&key[..at])
        })
        .collect();
    drivers.sort_unstable();
    drivers.dedup();
    for driver in drivers {
        for (what, value) in [("clean", "cat"), ("smudge", "cat"), ("process", "")] {
            let mut arg = b"filter.".to_vec();
            arg.extend_from_slice(driver);
            arg.extend_from_slice(format!(".{what}={value}").as_bytes());
            args.push(OsString::from("-c"));
            args.push(os_string(&arg));
        }
    }
    args
}

/// Runs `git SAFE_GIT EXTRA ARGS` in `dir`; its standard output, or an error with its
/// standard error.
fn git<A: AsRef<OsStr>>(dir: &Path, extra: &[OsString], args: &[A]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .args(SAFE_GIT)
        .args(extra)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| invalid(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(invalid(err.lines().next().unwrap_or("git failed")));
    }
    Ok(out.stdout)
}

/// The paths `git diff --name-status -z` names: those that exist after the change (added,
/// modified, the new name of a rename or copy) and those that no longer do (deleted, the old
/// name of a rename).
fn parse_name_status(text: &[u8]) -> (Vec<OsString>, Vec<OsString>) {
    let mut fields = text
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(os_string);
    let (mut changed, mut gone) = (Vec::new(), Vec::new());
    while let Some(status) = fields.next() {
        match status.as_encoded_bytes().first() {
            Some(b'R') => {
                if let (Some(old), Some(new)) = (fields.next(), fields.next()) {
                    gone.push(old);
                    changed.push(new);
                }
            }
            Some(b'C') => {
                let _ = fields.next();
                changed.extend(fields.next());
            }
            Some(b'D') => gone.extend(fields.next()),
            _ => changed.extend(fields.next()),
        }
    }
    (changed, gone)
}

/// What a link to the file `path` may name: its file name, and for a Markdown source the page
/// it renders to (`guide.md` is linked as `guide.html` on a built site).
fn names_of(path: &OsStr) -> Vec<OsString> {
    let Some(name) = Path::new(path).file_name() else {
        return Vec::new();
    };
    let mut names = vec![name.to_owned()];
    let name = Path::new(name);
    if name
        .extension()
        .is_some_and(|e| e == "md" || e == "markdown")
        && let Some(stem) = name.file_stem()
    {
        let mut page = stem.to_owned();
        page.push(".html");
        names.push(page);
    }
    names
}

/// A path as git prints it: any bytes on Unix; elsewhere git prints UTF-8.
fn os_string(bytes: &[u8]) -> OsString {
    #[cfg(unix)]
    {
        <OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes).to_owned()
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// A Markdown or HTML file.
fn is_page(path: &OsStr) -> bool {
    let lower = path.as_encoded_bytes().to_ascii_lowercase();
    [&b".md"[..], b".markdown", b".html", b".htm"]
        .iter()
        .any(|e| lower.ends_with(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_status_splits_into_changed_and_gone() {
        let text = b"M\0a.md\0R087\0old.md\0new.md\0D\0gone.html\0A\0added.md\0C100\0x.md\0y.md\0";
        let (changed, gone) = parse_name_status(text);
        assert_eq!(changed, ["a.md", "new.md", "added.md", "y.md"]);
        assert_eq!(gone, ["old.md", "gone.html"]);
    }

    #[test]
    fn a_markdown_page_is_named_by_its_file_and_its_page() {
        assert_eq!(
            names_of(OsStr::new("docs/guide.md")),
            ["guide.md", "guide.html"]
        );
        assert_eq!(names_of(OsStr::new("about.html")), ["about.html"]);
    }
}
