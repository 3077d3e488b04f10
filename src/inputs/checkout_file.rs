//! Files a checkout supplies (`.linkpatrolignore`, `.gitignore`/`.ignore`, `book.toml`,
//! `SUMMARY.md` and the chapters it includes, a local `linkpatrol.toml`): read only as regular
//! files, inside the folder they belong to once symbolic links are resolved, up to a stated
//! size. A FIFO, a device or a folder is never opened for reading (a FIFO would block for
//! ever, `/dev/zero` would never end), and a symbolic link out of the folder
//! (`/proc/self/environ`, `~/.ssh/id_rsa`) is never followed. Every such read goes through
//! [`read`] or [`check`]; callers decide what a refusal means (a warning, an error, no book).

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

/// Why a file the checkout supplies is not read.
#[derive(Debug)]
#[non_exhaustive]
pub enum Refused {
    /// There is no such file.
    Missing,
    /// Once symbolic links are resolved, it is outside the folder it must be in.
    Outside,
    /// A folder, FIFO, socket or device.
    NotRegular,
    /// Larger than the cap, in bytes.
    TooLarge(u64),
    /// It could not be opened or read.
    Io(std::io::Error),
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Missing => f.write_str("does not exist"),
            Refused::Outside => f.write_str("leads out of its folder (a symbolic link)"),
            Refused::NotRegular => f.write_str("is not a regular file (a FIFO, device or folder)"),
            Refused::TooLarge(cap) => write!(f, "is larger than {cap} bytes"),
            Refused::Io(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

/// The text of the file at `path`, read whole, when it is a regular file of at most `cap`
/// bytes (inside `folder` when one is given).
pub fn read(path: &Path, folder: Option<&Path>, cap: u64) -> Result<Vec<u8>, Refused> {
    let (bytes, whole) = read_prefix(path, folder, cap)?;
    if whole {
        Ok(bytes)
    } else {
        Err(Refused::TooLarge(cap))
    }
}

/// The first `cap` bytes of the file at `path` and whether that is all of it, when it is a
/// regular file (inside `folder` when one is given).
pub fn read_prefix(
    path: &Path,
    folder: Option<&Path>,
    cap: u64,
) -> Result<(Vec<u8>, bool), Refused> {
    let file = open(path, folder)?;
    let mut bytes = Vec::new();
    // The size the file system states is no bound (`/proc` files say 0): the read is.
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refused::Io)?;
    let whole = bytes.len() as u64 <= cap;
    bytes.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
    Ok((bytes, whole))
}

/// Checks, without reading it, that the file at `path` is one another reader (the `ignore`
/// crate) may read: a regular file of at most `cap` bytes, inside `folder` when one is given.
/// A missing file is [`Refused::Missing`].
pub fn check(path: &Path, folder: Option<&Path>, cap: u64) -> Result<(), Refused> {
    let meta = open(path, folder)?.metadata().map_err(Refused::Io)?;
    if meta.len() > cap {
        return Err(Refused::TooLarge(cap));
    }
    Ok(())
}

/// Opens the file at `path` for reading when it is a regular file (inside `folder`): its
/// type is looked at before it is opened, so a FIFO is never opened, and again on the open
/// handle, in case the path changed in between.
fn open(path: &Path, folder: Option<&Path>) -> Result<File, Refused> {
    // Most files asked about do not exist (a folder's `.ignore`): one `lstat` says so, where
    // resolving the path would cost a `readlink` for each of its folders.
    if let Err(e) = std::fs::symlink_metadata(path)
        && e.kind() == std::io::ErrorKind::NotFound
    {
        return Err(Refused::Missing);
    }
    let real = std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Refused::Missing,
        _ => Refused::Io(e),
    })?;
    if let Some(folder) = folder {
        let folder = std::fs::canonicalize(folder).map_err(Refused::Io)?;
        if !real.starts_with(folder) {
            return Err(Refused::Outside);
        }
    }
    if !std::fs::metadata(&real).map_err(Refused::Io)?.is_file() {
        return Err(Refused::NotRegular);
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Never blocks on a FIFO swapped in after the look above; never follows a link
        // swapped in for the canonical path's last component.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = options.open(&real).map_err(Refused::Io)?;
    if !file.metadata().map_err(Refused::Io)?.is_file() {
        return Err(Refused::NotRegular);
    }
    Ok(file)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_small_regular_files_inside_the_folder_are_read() {
        let dir = std::env::temp_dir().join(format!("linkpatrol-checkout-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("in")).unwrap();
        let inside = dir.join("in");
        std::fs::write(inside.join("a"), "hello").unwrap();
        std::fs::write(dir.join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(dir.join("secret"), inside.join("out")).unwrap();
        std::os::unix::fs::symlink("a", inside.join("same")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", inside.join("zero")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(inside.join("fifo"))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        let folder = Some(inside.as_path());
        assert_eq!(read(&inside.join("a"), folder, 5).unwrap(), b"hello");
        assert_eq!(read(&inside.join("same"), folder, 5).unwrap(), b"hello");
        assert!(matches!(
            read(&inside.join("a"), folder, 4),
            Err(Refused::TooLarge(4))
        ));
        assert_eq!(
            read_prefix(&inside.join("a"), folder, 2).unwrap(),
            (b"he".to_vec(), false)
        );
        assert!(matches!(
            read(&inside.join("out"), folder, 9),
            Err(Refused::Outside)
        ));
        assert_eq!(read(&inside.join("out"), None, 9).unwrap(), b"s");
        for name in ["fifo", "zero", "."] {
            assert!(
                matches!(read(&inside.join(name), None, 9), Err(Refused::NotRegular)),
                "{name}"
            );
            assert!(matches!(
                check(&inside.join(name), None, 9),
                Err(Refused::NotRegular)
            ));
        }
        assert!(matches!(
            read(&inside.join("none"), folder, 9),
            Err(Refused::Missing)
        ));
        assert!(check(&inside.join("a"), folder, 5).is_ok());
        assert!(matches!(
            check(&inside.join("a"), folder, 4),
            Err(Refused::TooLarge(4))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
