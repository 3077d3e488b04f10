//! The state file's schema, its version (`PRAGMA user_version`) and the migrations run on
//! open. docs/src/state-file.md documents the tables for people who query them.

use rusqlite::{Connection, Transaction};

/// The schema this build writes. A file with a higher `user_version` comes from a newer
/// linkpatrol and is left alone.
pub(crate) const SCHEMA_VERSION: u32 = 5;

/// `MIGRATIONS[v]` takes a file from version `v` to `v + 1`; version 0 is an empty file.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    "
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        started INTEGER NOT NULL,
        finished INTEGER,
        options TEXT NOT NULL,
        urls INTEGER,
        links INTEGER,
        errors INTEGER,
        broken_urls INTEGER,
        interrupted INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE results (
        key TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        run_id INTEGER NOT NULL,
        checked_at INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        status INTEGER,
        fail_kind TEXT,
        message TEXT,
        real_url TEXT,
        redirects TEXT,
        warnings TEXT,
        content_type TEXT,
        size INTEGER,
        modified TEXT,
        internal INTEGER NOT NULL,
        broken_since INTEGER,
        broken_runs INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX results_broken ON results (broken_runs) WHERE broken_runs > 0;
    CREATE TABLE pages (
        key TEXT PRIMARY KEY,
        etag TEXT,
        last_modified TEXT,
        content_type TEXT,
        links BLOB NOT NULL,
        run_id INTEGER NOT NULL
    );
",
    "
    ALTER TABLE results ADD COLUMN reused INTEGER NOT NULL DEFAULT 0;
",
    "
    ALTER TABLE results ADD COLUMN infos TEXT;
    ALTER TABLE results ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
",
    // The robots.txt of each origin a run fetched (`body` NULL: none to obey), which
    // `--resume` uses instead of fetching it again.
    "
    CREATE TABLE robots (
        origin TEXT PRIMARY KEY,
        body BLOB,
        run_id INTEGER NOT NULL,
        checked_at INTEGER NOT NULL
    );
",
    // `results` and `pages` without an index on `key`: a row is appended at the end of its
    // table and found through the writer's map (`row_ids.rs`). With `key` as the primary key,
    // each transaction rewrote a random index page per row or so.
    "
    CREATE TABLE results_5 (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        url TEXT NOT NULL,
        run_id INTEGER NOT NULL,
        checked_at INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        status INTEGER,
        fail_kind TEXT,
        message TEXT,
        real_url TEXT,
        redirects TEXT,
        warnings TEXT,
        content_type TEXT,
        size INTEGER,
        modified TEXT,
        internal INTEGER NOT NULL,
        broken_since INTEGER,
        broken_runs INTEGER NOT NULL DEFAULT 0,
        reused INTEGER NOT NULL DEFAULT 0,
        infos TEXT,
        retries INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO results_5 (key, url, run_id, checked_at, outcome, status, fail_kind, message,
            real_url, redirects, warnings, content_type, size, modified, internal,
            broken_since, broken_runs, reused, infos, retries)
        SELECT key, url, run_id, checked_at, outcome, status, fail_kind, message, real_url,
            redirects, warnings, content_type, size, modified, internal, broken_since,
            broken_runs, reused, infos, retries
        FROM results ORDER BY rowid;
    DROP TABLE results;
    ALTER TABLE results_5 RENAME TO results;
    CREATE INDEX results_broken ON results (broken_runs) WHERE broken_runs > 0;
    CREATE TABLE pages_5 (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        etag TEXT,
        last_modified TEXT,
        content_type TEXT,
        links BLOB NOT NULL,
        run_id INTEGER NOT NULL
    );
    INSERT INTO pages_5 (key, etag, last_modified, content_type, links, run_id)
        SELECT key, etag, last_modified, content_type, links, run_id FROM pages ORDER BY rowid;
    DROP TABLE pages;
    ALTER TABLE pages_5 RENAME TO pages;
",
];

/// What `inspect` found.
#[derive(Debug, PartialEq)]
pub(crate) enum Schema {
    /// Ours, at this version (0: an empty file), which `migrate` brings up to date.
    Ours(u32),
    /// Written by a newer linkpatrol (this version): not ours to change.
    Newer(u32),
    /// An SQLite database of something else (tables, no version of ours, or a version of
    /// ours with objects our migrations do not make): what gives it away.
    Foreign(String),
}

/// One object of a schema: type, name, table, SQL text with its runs of white space made
/// one space.
type Object = (String, String, String, String);

/// Every object of `conn`'s schema, sorted. `sqlite_schema` is read as SQLite parsed it;
/// nothing the file defines is run (views and triggers are off, `harden`).
fn objects(conn: &Connection) -> rusqlite::Result<Vec<Object>> {
    let mut stmt = conn.prepare(
        "SELECT type, name, tbl_name, ifnull(sql, '') FROM sqlite_schema ORDER BY type, name",
    )?;
    let rows = stmt.query_map([], |r| {
        let sql: String = r.get(3)?;
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            sql.split_whitespace().collect::<Vec<_>>().join(" "),
        ))
    })?;
    rows.collect()
}

/// The objects a file of ours at `version` holds: what the migrations up to it make.
fn expected(version: u32) -> rusqlite::Result<Vec<Object>> {
    let conn = Connection::open_in_memory()?;
    for sql in MIGRATIONS.iter().take(version as usize) {
        conn.execute_batch(sql)?;
    }
    objects(&conn)
}

/// Reads the file's version and schema without writing anything. A file whose schema is not
/// exactly what our migrations make at its version (a view or trigger, an extra table or
/// index, a column more or less) is `Foreign`: another program's, or crafted; either way not
/// ours to read or change.
pub(crate) fn inspect(conn: &Connection) -> rusqlite::Result<Schema> {
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Ok(Schema::Newer(version));
    }
    let found = objects(conn)?;
    let want = expected(version)?;
    if found == want {
        return Ok(Schema::Ours(version));
    }
    let odd = found
        .iter()
        .find(|o| !want.contains(o))
        .map(|(kind, name, _, _)| format!("{kind} `{}`", shown(name)))
        .or_else(|| {
            want.iter()
                .find(|o| !found.contains(o))
                .map(|(kind, name, _, _)| format!("no {kind} `{}` of ours", shown(name)))
        })
        .unwrap_or_default();
    Ok(Schema::Foreign(odd))
}

/// An object's name as a warning shows it: printable, at most 40 characters.
fn shown(name: &str) -> String {
    name.chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// Brings a file of ours at `version` to `SCHEMA_VERSION`, one migration per transaction.
pub(crate) fn migrate(conn: &mut Connection, version: u32) -> rusqlite::Result<()> {
    for (from, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let tx = Transaction::new(conn, rusqlite::TransactionBehavior::Immediate)?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", from + 1)?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_1_file_gains_the_reused_column() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO results (key, url, run_id, checked_at, outcome, internal)
             VALUES ('k', 'u', 1, 0, 'ok', 0)",
            [],
        )
        .unwrap();
        assert_eq!(inspect(&conn).unwrap(), Schema::Ours(1));
        migrate(&mut conn, 1).unwrap();
        let reused: i64 = conn
            .query_row("SELECT reused FROM results WHERE key = 'k'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(reused, 0);
        assert_eq!(inspect(&conn).unwrap(), Schema::Ours(SCHEMA_VERSION));
    }

    #[test]
    fn a_version_4_file_keeps_its_rows_in_tables_without_a_key_index() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, 0).unwrap();
        // Back to version 4's tables, as a file written by that version has them.
        conn.execute_batch(
            "DROP TABLE results; DROP TABLE pages;
             CREATE TABLE results (key TEXT PRIMARY KEY, url TEXT NOT NULL,
                 run_id INTEGER NOT NULL, checked_at INTEGER NOT NULL, outcome TEXT NOT NULL,
                 status INTEGER, fail_kind TEXT, message TEXT, real_url TEXT, redirects TEXT,
                 warnings TEXT, content_type TEXT, size INTEGER, modified TEXT,
                 internal INTEGER NOT NULL, broken_since INTEGER,
                 broken_runs INTEGER NOT NULL DEFAULT 0, reused INTEGER NOT NULL DEFAULT 0,
                 infos TEXT, retries INTEGER NOT NULL DEFAULT 0);
             CREATE INDEX results_broken ON results (broken_runs) WHERE broken_runs > 0;
             CREATE TABLE pages (key TEXT PRIMARY KEY, etag TEXT, last_modified TEXT,
                 content_type TEXT, links BLOB NOT NULL, run_id INTEGER NOT NULL);
             INSERT INTO results (key, url, run_id, checked_at, outcome, status, internal,
                 broken_since, broken_runs, reused, infos, retries)
                 VALUES ('b', 'http://b/', 3, 7, 'broken', 404, 1, 5, 2, 1, 'i', 4),
                        ('a', 'http://a/', 3, 8, 'ok', 200, 0, NULL, 0, 0, NULL, 0);
             INSERT INTO pages (key, etag, links, run_id) VALUES ('a', '\"e\"', x'0102', 3);
             PRAGMA user_version = 4;",
        )
        .unwrap();
        migrate(&mut conn, 4).unwrap();
        assert_eq!(inspect(&conn).unwrap(), Schema::Ours(SCHEMA_VERSION));
        // Every column of each row, in the order the rows were written.
        let rows: Vec<String> = conn
            .prepare(
                "SELECT concat_ws(' ', id, key, url, run_id, checked_at, outcome, status,
                     ifnull(broken_since, '-'), broken_runs, reused, ifnull(infos, '-'), retries)
                 FROM results ORDER BY id",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            [
                "1 b http://b/ 3 7 broken 404 5 2 1 i 4",
                "2 a http://a/ 3 8 ok 200 - 0 0 - 0"
            ]
        );
        let page: (i64, String, Vec<u8>) = conn
            .query_row(
                "SELECT id, etag, links FROM pages WHERE key = 'a'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(page, (1, "\"e\"".into(), vec![1, 2]));
        // No index on `key` is left: only the broken streaks' index.
        let indexes: Vec<String> = conn
            .prepare(
                "SELECT name FROM sqlite_schema
                 WHERE type = 'index' AND tbl_name IN ('results', 'pages') ORDER BY name",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(indexes, vec!["results_broken".to_owned()]);
    }
}
