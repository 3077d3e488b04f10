//! The cookie jar file of [`Config::cookie_jar`](crate::Config::cookie_jar): read when a run
//! starts, saved when it ends. Cookies are credentials, so the file is never reached through
//! a symbolic link (a checkout could ship `jar.txt -> ~/.bashrc`): reading one is refused, and
//! the jar is saved to a new file of mode 0600 beside the path, renamed over it (replacing a
//! link there, as `mv` does).

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::config::cookies::CookieJar;

/// The most bytes a jar file may hold (a browser keeps a few thousand cookies of 4 KiB).
const MAX_JAR: u64 = 16 << 20;

/// The jar at `path`: empty when there is no file. Errors name the path and the reason.
pub(crate) fn load(path: &Path) -> Result<CookieJar, String> {
    let shown = path.display();
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(CookieJar::default()),
        Err(e) => return Err(format!("cookie jar `{shown}': {e}")),
        Ok(m) => m,
    };
    if meta.file_type().is_symlink() {
        return Err(format!(
            "cookie jar `{shown}' is a symbolic link, which is never followed (cookies are \
             credentials): name the file itself"
        ));
    }
    if !meta.is_file() {
        return Err(format!("cookie jar `{shown}' is not a regular file"));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Swapped for a link between the look and the open: the open fails.
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let mut text = String::new();
    options
        .open(path)
        .and_then(|f| f.take(MAX_JAR + 1).read_to_string(&mut text))
        .map_err(|e| format!("cookie jar `{shown}': {e}"))?;
    if text.len() as u64 > MAX_JAR {
        return Err(format!("cookie jar `{shown}' is over {MAX_JAR} bytes"));
    }
    CookieJar::parse_netscape(&text).map_err(|e| format!("cookie jar `{shown}', {e}"))
}

/// Writes `text` to `path`: a new file of mode 0600 beside it, renamed over it.
pub(crate) fn save(path: &Path, text: &str) -> io::Result<()> {
    let tmp = beside(path);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = options.open(&tmp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_all()
    });
    let renamed = written.and_then(|()| fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    renamed
}

/// `dir/.NAME.PID.tmp` for `dir/NAME`: in the same folder, so the rename stays on one file
/// system.
fn beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}
