//! The state file is untrusted input: a checkout can ship one, a CI cache can restore one. What
//! keeps a crafted file from writing elsewhere, hanging the run or eating the machine:
//! - **The path.** Only a regular file with one link, owned by the user running linkpatrol, is
//!   opened, and never through a symbolic link ([`check_path`]); SQLite opens it with
//!   `SQLITE_OPEN_NOFOLLOW` too, which closes the gap between the check and the open.
//! - **The connection** ([`harden`]): defensive mode (no writes to the schema, no
//!   `PRAGMA writable_schema`), `trusted_schema` off (no SQL functions with side effects
//!   from the schema), views and triggers off, no `ATTACH`, and limits on the size of a
//!   value, a statement, an expression and a program. The schema check
//!   (`schema::inspect`) refuses any object our migrations do not make before a row is read;
//!   these settings are the second line.
//! - **Cancellation.** While the file is loaded, a progress handler stops SQLite as soon as
//!   the run is cancelled (Ctrl-C, SIGTERM, `CancelHandle::cancel`); [`release`] takes it off
//!   before the writer thread gets the connection, which must still write after a cancel.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::config::DbConfig;
use rusqlite::limits::Limit;

use crate::model::cancel::CancelHandle;

/// What [`check_path`] found wrong.
pub(crate) enum PathProblem {
    /// Not ours to read (a symbolic link, someone else's file, a file with other names):
    /// move it aside, as a file of another program.
    Foreign(String),
    /// Not a regular file at all (a folder, a FIFO, a device): leave it and run without.
    NotAFile,
}

/// The largest string or blob one value of the file may hold: a page's packed links are the
/// largest values linkpatrol writes (a page with 100,000 links packs to a few MB).
const MAX_VALUE: i32 = 64 * 1024 * 1024;

/// The SQLite virtual machine instructions between two looks at the cancel flag.
const PROGRESS_EVERY: i32 = 10_000;

/// `path` with its folder resolved (symbolic links in the folder are the user's choice; only
/// the file's own name is refused as a link), after checking what is there: nothing (it is
/// created), or a regular file owned by this user with no other hard link, and its `-wal`
/// and `-shm` companions likewise.
pub(crate) fn check_path(path: &Path) -> Result<PathBuf, PathProblem> {
    let resolved = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            dir.canonicalize()
                .map_or_else(|_| path.to_path_buf(), |d| d.join(name))
        }
        _ => path.to_path_buf(),
    };
    for (i, suffix) in ["", "-wal", "-shm"].into_iter().enumerate() {
        let mut os = resolved.as_os_str().to_owned();
        os.push(suffix);
        let Ok(meta) = std::fs::symlink_metadata(PathBuf::from(os)) else {
            continue;
        };
        let what = if i == 0 {
            "it is".to_owned()
        } else {
            format!("its {suffix} file is")
        };
        if meta.file_type().is_symlink() {
            return Err(PathProblem::Foreign(format!(
                "{what} a symbolic link, which is never followed"
            )));
        }
        if !meta.is_file() {
            return Err(if i == 0 {
                PathProblem::NotAFile
            } else {
                PathProblem::Foreign(format!("{what} not a regular file"))
            });
        }
        owned(&meta).map_err(|why| PathProblem::Foreign(format!("{what} {why}")))?;
    }
    Ok(resolved)
}

/// `Err`: why a regular file is not this user's own.
#[cfg(unix)]
fn owned(meta: &std::fs::Metadata) -> Result<(), &'static str> {
    use std::os::unix::fs::MetadataExt;
    if meta.uid() != effective_uid() {
        return Err("owned by another user");
    }
    if meta.nlink() > 1 {
        return Err("a hard link to a file with other names");
    }
    Ok(())
}

#[cfg(not(unix))]
fn owned(_: &std::fs::Metadata) -> Result<(), &'static str> {
    Ok(())
}

/// The effective user id without `unsafe` (the crate forbids it): the owner of `/proc/self`,
/// or else of a file this process makes.
#[cfg(unix)]
fn effective_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    use std::sync::OnceLock;
    static EUID: OnceLock<u32> = OnceLock::new();
    *EUID.get_or_init(|| {
        // /proc/self is owned by the process's effective user on Linux; elsewhere a file
        // made in the temporary folder tells.
        if let Ok(m) = std::fs::metadata("/proc/self") {
            return m.uid();
        }
        let probe = std::env::temp_dir().join(format!(
            "linkpatrol-uid-{}-{}",
            std::process::id(),
            fastrand::u64(..)
        ));
        let uid = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .and_then(|f| f.metadata())
            .map_or(u32::MAX, |m| m.uid());
        let _ = std::fs::remove_file(&probe);
        uid
    })
}

/// Sets the connection up to read an untrusted file, and has it stop once `cancel` trips.
pub(crate) fn harden(conn: &Connection, cancel: &CancelHandle) -> rusqlite::Result<()> {
    for (setting, on) in [
        (DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true),
        (DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false),
        (DbConfig::SQLITE_DBCONFIG_ENABLE_VIEW, false),
        (DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false),
    ] {
        conn.set_db_config(setting, on)?;
    }
    conn.execute_batch("PRAGMA trusted_schema = OFF;")?;
    for (limit, value) in [
        (Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE),
        (Limit::SQLITE_LIMIT_SQL_LENGTH, 100_000),
        (Limit::SQLITE_LIMIT_COLUMN, 100),
        (Limit::SQLITE_LIMIT_EXPR_DEPTH, 100),
        (Limit::SQLITE_LIMIT_COMPOUND_SELECT, 10),
        (Limit::SQLITE_LIMIT_VDBE_OP, 25_000),
        (Limit::SQLITE_LIMIT_FUNCTION_ARG, 8),
        (Limit::SQLITE_LIMIT_ATTACHED, 0),
        (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100),
        (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, 1),
    ] {
        conn.set_limit(limit, value)?;
    }
    let cancel = cancel.clone();
    conn.progress_handler(PROGRESS_EVERY, Some(move || cancel.is_cancelled()));
    Ok(())
}

/// Takes the cancel check off: the writer thread must still write after a cancel.
pub(crate) fn release(conn: &Connection) {
    conn.progress_handler(0, None::<fn() -> bool>);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query that never ends on its own.
    const ENDLESS: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
                           SELECT count(*) FROM n";

    #[test]
    fn a_cancelled_run_stops_a_query_that_would_never_end() {
        let conn = Connection::open_in_memory().unwrap();
        let cancel = CancelHandle::new();
        harden(&conn, &cancel).unwrap();
        cancel.cancel();
        let e = conn
            .query_row(ENDLESS, [], |r| r.get::<_, i64>(0))
            .unwrap_err();
        assert_eq!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::OperationInterrupted)
        );
        // Released, the connection runs (finite) statements after the cancel.
        release(&conn);
        let n: i64 = conn
            .query_row(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)
                 SELECT count(*) FROM n",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 50_000);
    }

    #[test]
    fn values_views_triggers_and_attach_are_limited() {
        let conn = Connection::open_in_memory().unwrap();
        harden(&conn, &CancelHandle::new()).unwrap();
        let big = conn
            .query_row(&format!("SELECT zeroblob({})", MAX_VALUE + 1), [], |r| {
                r.get::<_, Vec<u8>>(0)
            })
            .unwrap_err();
        assert_eq!(big.sqlite_error_code(), Some(rusqlite::ErrorCode::TooBig));
        assert!(conn.execute_batch("ATTACH ':memory:' AS other").is_err());
        conn.execute_batch(
            "CREATE TABLE t (x); CREATE VIEW v AS SELECT x FROM t;
             CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO t VALUES (0); END;
             INSERT INTO t VALUES (1);",
        )
        .unwrap();
        // The trigger did not fire; the view cannot be read.
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1);
        assert!(conn.prepare("SELECT * FROM v").is_err());
    }
}
