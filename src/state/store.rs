//! Opening the state file: set it up (WAL, one run at a time), migrate it, load what the run
//! may reuse, and record the run's start; or, whatever goes wrong, one line of warning and a
//! run without state. A corrupt file, or one that is not SQLite or belongs to something else,
//! is moved aside (renamed with a `.bad-<unix time>` suffix, with its `-wal` and `-shm`
//! companions) and a fresh file takes its place.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::config::checked_options::{checked_options, first_difference};
use crate::config::{Config, ROBOTS_TXT_LIMIT};
use crate::model::cancel::CancelHandle;
use crate::state::codec::{Row, decode, from_unix, kind_name, outcome_name, unix};
use crate::state::earlier_runs::{Remembered, StoredPage, Streak};
use crate::state::harden::{PathProblem, check_path, harden, release};
use crate::state::schema::{Schema, inspect, migrate};
use crate::state::writer::{Writer, begin_run};

/// How long a run waits for another run that holds the file before going on without it.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(3);

/// Why a try at the file failed.
enum Failure {
    /// Wrong contents: move the file aside and start a fresh one.
    Bad(String),
    /// Anything else: go on without state, leave the file as it is.
    Skip(String),
    /// `--resume` asked for something the file cannot give (the interrupted run checked
    /// other things): the run does not start.
    Refuse(String),
}

/// What [`open`] gives: what the run may reuse and the writer for the consumer thread (or
/// `None`), and the warnings to show (one line each).
pub(crate) type Opened = (Option<(Remembered, Writer)>, Vec<String>);

/// Opens `cfg`'s state file for one run; loading it stops when `cancel` trips. `Err`: the
/// one-line reason the run must not start (`--resume` with options that change what the
/// interrupted run checked).
pub(crate) fn open(cfg: &Config, now: SystemTime, cancel: &CancelHandle) -> Result<Opened, String> {
    let Some(path) = cfg.state.file.as_deref() else {
        return Ok((None, Vec::new()));
    };
    let mut warnings = Vec::new();
    for _ in 0..2 {
        match try_open(cfg, path, now, cancel) {
            Ok(mut opened) => {
                warnings.extend(opened.0.notice.take());
                return Ok((Some(opened), warnings));
            }
            Err(Failure::Refuse(why)) => return Err(why),
            Err(Failure::Skip(why)) => {
                warnings.push(format!(
                    "state file {}: {why}; running without it",
                    path.display()
                ));
                return Ok((None, warnings));
            }
            Err(Failure::Bad(why)) => match move_aside(path, now) {
                Ok(aside) => warnings.push(format!(
                    "state file {}: {why}; moved aside to {} and started afresh",
                    path.display(),
                    aside.display()
                )),
                Err(e) => {
                    warnings.push(format!(
                        "state file {}: {why}, and it cannot be moved aside ({e}); running \
                         without it",
                        path.display()
                    ));
                    return Ok((None, warnings));
                }
            },
        }
    }
    Ok((None, warnings))
}

/// Renames the file (and its WAL and shared-memory files, when present) out of the way.
fn move_aside(path: &Path, now: SystemTime) -> std::io::Result<PathBuf> {
    let suffix = format!(".bad-{}", unix(now));
    let with = |p: &Path, s: &str| {
        let mut os = p.as_os_str().to_owned();
        os.push(s);
        PathBuf::from(os)
    };
    // Never over an earlier file set aside in the same second.
    let aside = (0..1000)
        .map(|n| match n {
            0 => with(path, &suffix),
            n => with(path, &format!("{suffix}-{n}")),
        })
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .ok_or_else(|| std::io::Error::other("too many files set aside"))?;
    std::fs::rename(path, &aside)?;
    for companion in ["-wal", "-shm"] {
        let from = with(path, companion);
        // A symbolic link is moved as a link (never followed), even when it leads nowhere.
        if std::fs::symlink_metadata(&from).is_ok() {
            let _ = std::fs::rename(&from, with(&aside, companion));
        }
    }
    Ok(aside)
}

/// Sorts an SQLite error into "bad contents" and "cannot use now".
fn classify(e: &rusqlite::Error) -> Failure {
    let text = e.to_string();
    match e.sqlite_error_code() {
        // A value or statement over `harden`'s limits is a crafted file, not a passing fault.
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt | ErrorCode::TooBig) => {
            Failure::Bad(text)
        }
        Some(ErrorCode::OperationInterrupted) => {
            Failure::Skip("reading it was stopped (the run was cancelled)".into())
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Failure::Skip(format!(
            "in use by another run (waited {} s)",
            BUSY_TIMEOUT.as_secs()
        )),
        _ => Failure::Skip(text),
    }
}

/// One try: open, migrate, load, record the run's start.
fn try_open(
    cfg: &Config,
    path: &Path,
    now: SystemTime,
    cancel: &CancelHandle,
) -> Result<(Remembered, Writer), Failure> {
    let path = match check_path(path) {
        Ok(p) => p,
        Err(PathProblem::NotAFile) => return Err(Failure::Skip("not a regular file".into())),
        Err(PathProblem::Foreign(why)) => return Err(Failure::Bad(why)),
    };
    // No symbolic link is followed, should one take the file's place after the check.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let mut conn = Connection::open_with_flags(&path, flags).map_err(|e| classify(&e))?;
    harden(&conn, cancel).map_err(|e| classify(&e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| classify(&e))?;
    // One run at a time: the first read takes a lock this connection keeps until it closes
    // (when the process dies, even by SIGKILL, the lock goes with it). Nothing is written
    // before the file is known to be ours.
    conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE;")
        .map_err(|e| classify(&e))?;
    let version = match inspect(&conn).map_err(|e| classify(&e))? {
        Schema::Ours(v) => v,
        Schema::Newer(v) => {
            return Err(Failure::Skip(format!(
                "written by a newer linkpatrol (schema {v}), left as it is"
            )));
        }
        Schema::Foreign(odd) => {
            return Err(Failure::Bad(format!(
                "an SQLite database of another program (it holds {odd})"
            )));
        }
    };
    // No `fsync` at all (`synchronous = OFF`): what a commit wrote is in the operating
    // system's hands, so a killed or crashed run (SIGKILL included) loses nothing committed;
    // only a power cut or kernel crash could leave a damaged file, which the next run moves
    // aside like any corrupt file. The checkpoints' `fsync`s cost a first run of the
    // 20,000-page site about 2% of its time. Set before the switch to WAL, which a new file
    // makes through a rollback journal: set after, that switch cost a new file four `fsync`s
    // (the journal twice, its folder, the file). A checkpoint every 4,096 pages (16 MB of WAL,
    // the default is 1,000) writes the pages that many small commits touch again and again
    // once.
    conn.execute_batch(
        "PRAGMA synchronous = OFF; PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 4096;",
    )
    .map_err(|e| classify(&e))?;
    migrate(&mut conn, version).map_err(|e| classify(&e))?;
    let remembered = load(&conn, cfg, now).map_err(|e| classify(&e))?;
    if let Some(id) = remembered.resuming {
        same_checks(&conn, cfg, id)?;
    }
    // From here on only this run's own statements run, on a schema checked to be ours.
    release(&conn);
    let run_id =
        begin_run(&conn, run_options(cfg), now, remembered.resuming).map_err(|e| classify(&e))?;
    let writer = Writer::spawn(conn, run_id)
        .map_err(|e| Failure::Skip(format!("cannot start its writer thread ({e})")))?;
    Ok((remembered, writer))
}

/// The run's options as the `runs.options` JSON text.
fn run_options(cfg: &Config) -> String {
    let inputs: Vec<String> = cfg.inputs.iter().map(|i| format!("{i:?}")).collect();
    serde_json::json!({
        "inputs": inputs,
        "threads": cfg.threads,
        "recursion_level": cfg.recursion_level,
        "check_external": cfg.check_external,
        "max_cache_age_s": cfg.state.max_age.as_secs(),
        "cache_failures": cfg.state.cache_failures,
        "checked": checked_options(cfg)
            .into_iter()
            .map(|(name, value)| (name.to_owned(), serde_json::Value::String(value)))
            .collect::<serde_json::Map<_, _>>(),
    })
    .to_string()
}

/// Refuses to resume run `id` when `cfg` would check other things than it did: the first
/// option that differs, named in one line.
fn same_checks(conn: &Connection, cfg: &Config, id: i64) -> Result<(), Failure> {
    let options: String = conn
        .query_row("SELECT options FROM runs WHERE id = ?1", [id], |r| r.get(0))
        .map_err(|e| classify(&e))?;
    // `run_to_resume` resumes only a run whose options are all on record.
    let Some(then) = recorded_options(Some(&options), cfg) else {
        return Err(Failure::Refuse(format!(
            "--resume: run {id} has no record of the options it checked with"
        )));
    };
    let now = checked_options(cfg);
    match first_difference(&then, &now) {
        None => Ok(()),
        Some((name, old, new)) => Err(Failure::Refuse(format!(
            "--resume: {name} differs from the interrupted run's (run {id}: `{}`, now `{}`); \
             give the same options to resume it, or leave out --resume to check from the start",
            shortened(old),
            shortened(new)
        ))),
    }
}

/// `text` cut to 120 characters (a long list of inputs or patterns), with `…` when cut.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Under `Config::resume`, the run to continue: the latest in `runs` when it has no normal
/// end (no `finished`: killed or crashed; or `interrupted`: stopped by Ctrl-C) and its options
/// are on record. Otherwise `None` and the line that says the run is a plain `--cache` run.
fn run_to_resume(
    conn: &Connection,
    cfg: &Config,
) -> rusqlite::Result<(Option<i64>, Option<String>)> {
    if !cfg.state.trusted {
        return Ok((
            None,
            Some(
                "--resume: the state file may have been written by someone else (it was \
                 turned on by an untrusted config), so nothing in it is reused; checking \
                 from the start"
                    .into(),
            ),
        ));
    }
    let latest = conn
        .query_row(
            "SELECT id, finished IS NULL OR interrupted != 0, options
             FROM runs ORDER BY id DESC LIMIT 1",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, bool>(1)?,
                    r.get::<_, String>(2).ok(),
                ))
            },
        )
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })?;
    Ok(match latest {
        // A run whose options are not all on record (empty, unreadable, from an older
        // version, or crafted) cannot be shown to check the same things: never resumed.
        Some((id, true, options)) if recorded_options(options.as_deref(), cfg).is_none() => (
            None,
            Some(format!(
                "--resume: the interrupted run (run {id}) has no record of the options it \
                 checked with, so it cannot be resumed; checking as with --cache"
            )),
        ),
        Some((id, true, _)) => (Some(id), None),
        Some((id, false, _)) => (
            None,
            Some(format!(
                "--resume: the last run (run {id}) ended normally, nothing to resume; \
                 checking as with --cache"
            )),
        ),
        None => (
            None,
            Some("--resume: no earlier run in the state file; checking from the start".into()),
        ),
    })
}

/// The options a run recorded in `runs.options` (its `checked` object), when it names every
/// option `cfg` has that decides what is checked; `None` otherwise.
fn recorded_options(options: Option<&str>, cfg: &Config) -> Option<Vec<(String, String)>> {
    let value = serde_json::from_str::<serde_json::Value>(options?).ok()?;
    let serde_json::Value::Object(m) = value.get("checked")? else {
        return None;
    };
    let then: Vec<(String, String)> = m
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
        .collect();
    checked_options(cfg)
        .iter()
        .all(|(name, _)| then.iter().any(|(n, _)| n == name))
        .then_some(then)
}

/// Reads the reusable results and the broken streaks.
fn load(conn: &Connection, cfg: &Config, now: SystemTime) -> rusqlite::Result<Remembered> {
    let mut known = Remembered::default();
    if cfg.state.resume {
        (known.resuming, known.notice) = run_to_resume(conn, cfg)?;
    }
    // No run has this id: nothing is resumed.
    let resuming = known.resuming.unwrap_or(-1);
    let age = i64::try_from(cfg.state.max_age.as_secs()).unwrap_or(i64::MAX);
    let now_s = unix(now);
    let oldest = now_s.saturating_sub(age);
    let trusted = cfg.state.trusted;
    let mut stmt = conn.prepare(
        "SELECT key, url, checked_at, outcome, status, fail_kind, message, real_url, redirects,
                warnings, content_type, size, modified, internal, broken_since, broken_runs,
                run_id = ?2, reused, infos, retries
         FROM results WHERE checked_at > ?1 OR broken_runs > 0 OR run_id = ?2",
    )?;
    let mut rows = stmt.query(rusqlite::params![oldest, resuming])?;
    // Errors of the file itself come from `next`; a row whose values have the wrong type
    // (the file is untrusted) is skipped by `read_row`.
    while let Some(r) = rows.next()? {
        let Some((key, checked_at, mut row)) = read_row(r) else {
            continue;
        };
        // A time after now (a clock set back, or a crafted file) is not "fresh forever": the
        // result is expired, and a streak started no later than now.
        let future = checked_at > now_s;
        let checked_at = checked_at.min(now_s);
        row.broken_since = row.broken_since.map(|t| t.min(now_s));
        if row.broken_runs > 0 {
            known.broken.insert(
                key.clone(),
                Streak {
                    since: from_unix(row.broken_since.unwrap_or(checked_at)),
                    runs: row.broken_runs,
                },
            );
        }
        // A result of the resumed run is part of this run: reused as it is, whatever its age
        // or outcome, and marked as cached only when that run had it from an earlier one.
        if r.get::<_, bool>(16).unwrap_or(false) {
            let reused = r.get::<_, bool>(17).unwrap_or(false);
            if let Some(mut result) = decode(row) {
                // That run reused it from an earlier one, as this run reports it again.
                if reused {
                    result.cached_from = Some(from_unix(checked_at));
                }
                known.resumed.insert(key.clone());
                known.fresh.insert(key, Arc::new(result));
            }
            continue;
        }
        let reusable = trusted
            && (row.outcome == "ok" || cfg.state.cache_failures)
            && !cfg.state.excludes(row.status);
        if checked_at <= oldest || future || !reusable {
            continue;
        }
        if let Some(mut result) = decode(row) {
            result.cached_from = Some(from_unix(checked_at));
            known.fresh.insert(key, Arc::new(result));
        }
    }
    // A page of the interrupted run: parsed by it, or answered 304 and replayed by it (its
    // result row says so; a 304 writes nothing to `pages`, the links are the stored ones).
    // The keys answered 304 are gathered once (`IN`, not a lookup per page: `results` has no
    // index on `key`).
    let mut stmt = conn.prepare(
        "SELECT p.key, p.etag, p.last_modified, p.content_type, p.links,
                p.run_id = ?1 OR (?1 >= 0 AND p.key IN (SELECT key FROM results
                    WHERE run_id = ?1 AND status = 304))
         FROM pages p",
    )?;
    let mut rows = stmt.query([resuming])?;
    while let Some(r) = rows.next()? {
        let read = || -> rusqlite::Result<(String, StoredPage)> {
            Ok((
                r.get(0)?,
                StoredPage {
                    etag: r.get(1)?,
                    last_modified: r.get(2)?,
                    content_type: r.get(3)?,
                    links: r.get(4)?,
                    resumed: r.get(5)?,
                },
            ))
        };
        if let Ok((key, page)) = read()
            && trusted
        {
            known.pages.insert(key, page);
        }
    }
    if known.resuming.is_some() {
        load_robots(conn, &mut known, resuming)?;
    }
    Ok(known)
}

/// Reads the robots.txt files run `resuming` fetched, each cut to `ROBOTS_TXT_LIMIT` bytes as
/// a fetch cuts it; a row whose values have other types (the file is untrusted) is skipped,
/// and that origin's robots.txt is fetched again.
fn load_robots(conn: &Connection, known: &mut Remembered, resuming: i64) -> rusqlite::Result<()> {
    let cap = i64::try_from(ROBOTS_TXT_LIMIT).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare(
        "SELECT origin, CASE WHEN typeof(body) = 'blob' THEN substr(body, 1, ?2) ELSE body END
         FROM robots WHERE run_id = ?1",
    )?;
    let mut rows = stmt.query(rusqlite::params![resuming, cap])?;
    while let Some(r) = rows.next()? {
        let read = || -> rusqlite::Result<(String, Option<Vec<u8>>)> { Ok((r.get(0)?, r.get(1)?)) };
        if let Ok((origin, mut body)) = read() {
            if let Some(b) = &mut body {
                b.truncate(usize::try_from(ROBOTS_TXT_LIMIT).unwrap_or(usize::MAX));
            }
            known.robots.insert(origin, body);
        }
    }
    Ok(())
}

/// One `results` row as read by `load`: its key, `checked_at` and the rest; `None` when a
/// value has a type or range this build does not expect.
fn read_row(r: &rusqlite::Row<'_>) -> Option<(String, i64, Row)> {
    let read = || -> rusqlite::Result<Option<(String, i64, Row)>> {
        let Some(outcome) = outcome_name(&r.get::<_, String>(3)?) else {
            return Ok(None);
        };
        let status = match r.get::<_, Option<i64>>(4)? {
            Some(s) => match u16::try_from(s) {
                Ok(s) => Some(s),
                Err(_) => return Ok(None),
            },
            None => None,
        };
        let row = Row {
            url: r.get(1)?,
            outcome,
            status,
            fail_kind: r
                .get::<_, Option<String>>(5)?
                .as_deref()
                .and_then(kind_name),
            message: r.get(6)?,
            real_url: r.get(7)?,
            redirects: r.get(8)?,
            warnings: r.get(9)?,
            content_type: r.get(10)?,
            size: r.get(11)?,
            modified: r.get(12)?,
            internal: r.get::<_, i64>(13)? != 0,
            broken_since: r.get(14)?,
            broken_runs: u32::try_from(r.get::<_, i64>(15)?).unwrap_or(0),
            infos: r.get(18)?,
            retries: u32::try_from(r.get::<_, i64>(19)?).unwrap_or(0),
        };
        Ok(Some((r.get(0)?, r.get(2)?, row)))
    };
    read().ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::schema::migrate;

    /// A file with run 1 (which parsed the page) and run 2 (killed), whose result for the page
    /// has the given status.
    fn file_with_page(status_in_run_2: u16) -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, 0).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (id, started, finished, options) VALUES (1, 0, 1, '{}');
             INSERT INTO pages (key, etag, links, run_id) VALUES ('http://a.test/', '\"e\"', x'00', 1);",
        )
        .unwrap();
        // Run 2 recorded the options the tests resume it with.
        conn.execute(
            "INSERT INTO runs (id, started, options) VALUES (2, 2, ?1)",
            [run_options(
                &Config::new().state_file("unused").resume(true),
            )],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO results (key, url, run_id, checked_at, outcome, status, internal)
             VALUES ('http://a.test/', 'http://a.test/', 2, 2, 'ok', ?1, 1)",
            [status_in_run_2],
        )
        .unwrap();
        conn
    }

    #[test]
    fn resume_reads_the_robots_txt_of_the_interrupted_run_capped_and_skips_garbage() {
        let conn = file_with_page(200);
        let big = vec![b'#'; usize::try_from(ROBOTS_TXT_LIMIT).unwrap() + 10];
        conn.execute(
            "INSERT INTO robots (origin, body, run_id, checked_at) VALUES
                 ('http://big.test', ?1, 2, 0), ('http://none.test', NULL, 2, 0),
                 ('http://text.test', 'Disallow: /', 2, 0), (x'07', x'00', 2, 0),
                 ('http://older.test', x'00', 1, 0)",
            [&big],
        )
        .unwrap();
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(10);
        let resume = Config::new().state_file("unused").resume(true);
        let known = load(&conn, &resume, now).unwrap();
        let cap = usize::try_from(ROBOTS_TXT_LIMIT).unwrap();
        assert_eq!(
            known.robots_txt("http://big.test").unwrap().unwrap().len(),
            cap
        );
        assert_eq!(known.robots_txt("http://none.test"), Some(None));
        // A text value is no body this build wrote; an origin of another run is not this one's.
        assert_eq!(known.robots_txt("http://text.test"), None);
        assert_eq!(known.robots_txt("http://older.test"), None);
        assert_eq!(known.robots.len(), 2);
        // Without --resume robots.txt is fetched afresh.
        let plain = Config::new().state_file("unused");
        assert!(load(&conn, &plain, now).unwrap().robots.is_empty());
    }

    #[test]
    fn a_page_the_interrupted_run_had_answered_304_is_replayed_on_resume() {
        let cfg = Config::new().state_file("unused").resume(true);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(10);
        let known = load(&file_with_page(304), &cfg, now).unwrap();
        assert_eq!(known.resuming, Some(2));
        assert!(known.page("http://a.test/").unwrap().resumed);
        // A 200 in that run without a new `pages` row: its stored links are older, not replayed.
        let known = load(&file_with_page(200), &cfg, now).unwrap();
        assert!(!known.page("http://a.test/").unwrap().resumed);
        // Without --resume nothing is marked.
        let plain = Config::new().state_file("unused");
        let known = load(&file_with_page(304), &plain, now).unwrap();
        assert!(!known.page("http://a.test/").unwrap().resumed);
    }
}
