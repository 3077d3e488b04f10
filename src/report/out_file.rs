//! Report files written where the user says, never through a symbolic link a checkout put
//! there: the current folder is often a checkout, which could ship
//! `linkpatrol-out.csv -> ~/.bashrc` and have the report's lines (text its pages chose) written
//! into the link's target. A link at a report's path is replaced by the report, as `mv` would
//! replace it. Only paths the system owns (`/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`),
//! which no checkout can ship, are written through their links.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// What stands at an output's path, looked at without following a symbolic link.
#[derive(Debug)]
pub enum At {
    /// Nothing: the file is created.
    Nothing,
    /// A regular file, with what it was.
    Regular(fs::Metadata),
    /// A symbolic link: replaced, never followed.
    Link,
    /// A device, a pipe or a folder: written in place (a folder then fails to open).
    Other,
    /// A path the system owns, followed wherever it leads ([`system_owned`]).
    System,
}

impl At {
    /// What stands at `path`.
    pub fn of(path: &Path) -> At {
        if system_owned(path) {
            return At::System;
        }
        match fs::symlink_metadata(path) {
            Err(_) => At::Nothing,
            Ok(meta) if meta.file_type().is_symlink() => At::Link,
            Ok(meta) if meta.is_file() => At::Regular(meta),
            Ok(_) => At::Other,
        }
    }
}

/// Whether `path` lies in `/dev` or `/proc` (`/dev/stdout`, `/proc/self/fd/1`): the system's
/// own links, which a checkout cannot ship and which only lead somewhere when followed.
pub fn system_owned(path: &Path) -> bool {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::canonicalize(parent).is_ok_and(|p| p.starts_with("/dev") || p.starts_with("/proc"))
}

/// `options` set to fail, rather than follow, a symbolic link at the path's last component.
pub fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options
}

/// A new file beside `path` (never an existing one, nor through a link), with its name.
pub fn create_beside(path: &Path) -> io::Result<(File, PathBuf)> {
    let tmp = temporary_beside(path);
    let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    Ok((file, tmp))
}

/// Creates (truncates) `path` for writing as a report is written: a symbolic link there is
/// replaced by the new file, never followed, but where the system owns the path
/// ([`system_owned`]).
pub fn create_report_file(path: &Path) -> io::Result<File> {
    match At::of(path) {
        At::Link => {
            let (file, tmp) = create_beside(path)?;
            fs::rename(&tmp, path).inspect_err(|_| {
                let _ = fs::remove_file(&tmp);
            })?;
            Ok(file)
        }
        At::System => File::create(path),
        At::Nothing | At::Regular(_) | At::Other => {
            no_follow(OpenOptions::new().write(true).create(true).truncate(true)).open(path)
        }
    }
}

/// `dir/.NAME.PID.tmp` for `dir/NAME`: in the same folder, so the rename stays on one file
/// system.
pub fn temporary_beside(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}
