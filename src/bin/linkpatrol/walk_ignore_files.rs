//! The ignore files a folder walk reads (`.gitignore`, `.ignore`, git's `info/exclude` and
//! the `.git` file that leads to it in a worktree), checked before the `ignore` crate reads
//! them. That crate opens them wherever they lead and reads lines without a bound, so a FIFO
//! would hang the walk and `/dev/zero` would abort the process: each is first checked to be a
//! regular file of at most [`WALK_IGNORE_MAX`] bytes (see `checkout_file.rs`), inside the
//! walked folder when it is in it. And a bad line of one is warned about by file and line
//! number, never by its text ([`warning`]).

use std::path::{Path, PathBuf};

use crate::checkout_file::{self, Refused};

/// The most bytes of an ignore file the walk reads (real ones are a few kilobytes).
pub const WALK_IGNORE_MAX: u64 = 1 << 20;

/// Checks the ignore files the walk reads for folder `dir`: each that exists must be a
/// regular file of at most [`WALK_IGNORE_MAX`] bytes, inside `root` when one is given (the
/// walked folder; its parents' files are outside it by nature). The error is one line naming
/// the file.
pub fn check_folder(dir: &Path, root: Option<&Path>) -> Result<(), String> {
    let checked = |file: &Path, folder: Option<&Path>| match checkout_file::check(
        file,
        folder,
        WALK_IGNORE_MAX,
    ) {
        Ok(()) | Err(Refused::Missing) => Ok(()),
        Err(why) => Err(format!(
            "the ignore file `{}' {why}: the folder walk does not read it (remove it, or walk \
             without ignore files: --no-ignore)",
            file.display()
        )),
    };
    checked(&dir.join(".ignore"), root)?;
    checked(&dir.join(".gitignore"), root)?;
    let git = dir.join(".git");
    if std::fs::metadata(&git).is_ok_and(|m| m.is_dir()) {
        return checked(&git.join("info/exclude"), None);
    }
    checked(&git, root)?;
    // A worktree's `.git` file: `gitdir: PATH`, whose `commondir` names the folder of
    // `info/exclude` (read as the `ignore` crate reads them).
    let Some(gitdir) = first_line(&git, "gitdir: ") else {
        return Ok(());
    };
    let commondir = PathBuf::from(gitdir).join("commondir");
    checked(&commondir, None)?;
    if let Some(common) = first_line(&commondir, "") {
        let common = if common.starts_with('.') {
            Path::new(gitdir_of(&commondir)).join(common)
        } else {
            PathBuf::from(common)
        };
        checked(&common.join("info/exclude"), None)?;
    }
    Ok(())
}

/// The folder `commondir` is in.
fn gitdir_of(commondir: &Path) -> &Path {
    commondir.parent().unwrap_or(Path::new(""))
}

/// The rest of the first line of the small regular file at `path` after `prefix`.
fn first_line(path: &Path, prefix: &str) -> Option<String> {
    let bytes = checkout_file::read(path, None, WALK_IGNORE_MAX).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let line = text.lines().next()?;
    line.strip_prefix(prefix).map(str::to_owned)
}

/// What a walk error says, without the text of an ignore file's line (a `.gitignore` may be
/// a link to a file of secrets): the file, the line number and what is wrong.
pub fn warning(e: &ignore::Error) -> String {
    match e {
        ignore::Error::WithPath { path, err } => format!("{}: {}", path.display(), warning(err)),
        ignore::Error::WithLineNumber { line, err } => format!("line {line}: {}", warning(err)),
        ignore::Error::WithDepth { err, .. } => warning(err),
        ignore::Error::Partial(errs) => errs.iter().map(warning).collect::<Vec<_>>().join("; "),
        ignore::Error::Glob { .. } => "not a valid glob, skipped".to_owned(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_glob_is_named_by_its_line_not_its_text() {
        // As the `ignore` crate reports a bad line.
        let e = ignore::Error::WithPath {
            path: PathBuf::from("/x/.gitignore"),
            err: Box::new(ignore::Error::WithLineNumber {
                line: 3,
                err: Box::new(ignore::Error::Glob {
                    glob: Some("SECRET[".to_owned()),
                    err: "unclosed character class".to_owned(),
                }),
            }),
        };
        let shown = warning(&e);
        assert!(!shown.contains("SECRET"), "{shown}");
        assert_eq!(shown, "/x/.gitignore: line 3: not a valid glob, skipped");
    }
}
