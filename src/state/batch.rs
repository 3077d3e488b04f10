//! One batch of rows for the state file and the SQL that writes it: a run's finished results
//! (`results`, one upsert each), parsed pages (`pages`) and fetched robots.txt files
//! (`robots`), in one transaction; and the run's end and totals (`runs`).

use std::sync::Arc;
use std::time::SystemTime;

use rusqlite::{CachedStatement, Connection, ToSql, Transaction, params};

use crate::model::outcome::CheckResult;
use crate::model::url_fingerprint::UrlFingerprints;
use crate::state::codec::{encode, unix};
use crate::state::earlier_runs::StoredPage;
use crate::state::row_ids::{RowIds, TableRows};

/// Totals of a run for its `runs` row.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub(crate) urls: usize,
    pub(crate) links: usize,
    pub(crate) errors: usize,
    pub(crate) broken_urls: usize,
    pub(crate) interrupted: bool,
}

/// Rows not written yet: finished results and parsed pages, each with its key, and fetched
/// robots.txt files (origin, body or none to obey).
#[derive(Debug, Default)]
pub(super) struct Batch {
    pub(super) results: Vec<(String, Arc<CheckResult>)>,
    pub(super) pages: Vec<(String, StoredPage)>,
    pub(super) robots: Vec<(String, Option<Vec<u8>>)>,
}

impl Batch {
    /// Rows in the batch.
    pub(super) fn len(&self) -> usize {
        self.results.len() + self.pages.len() + self.robots.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Moves every row of `other` to the end of this batch (keeping their order).
    pub(super) fn append(&mut self, other: &mut Batch) {
        if self.is_empty() {
            std::mem::swap(self, other);
        } else {
            self.results.append(&mut other.results);
            self.pages.append(&mut other.pages);
            self.robots.append(&mut other.robots);
        }
    }
}

/// Writes `batch` as run `run_id` in one transaction: a key's row in `results` and `pages` is
/// updated when `rows` knows it, else appended (and then known).
pub(super) fn write(
    conn: &mut Connection,
    run_id: i64,
    batch: &Batch,
    rows: &mut RowIds,
) -> rusqlite::Result<()> {
    let now = unix(SystemTime::now());
    let tx = conn.transaction()?;
    {
        let mut insert = tx.prepare_cached(
            "INSERT INTO results (key, url, run_id, checked_at, outcome, status, fail_kind,
                 message, real_url, redirects, warnings, content_type, size, modified,
                 internal, broken_since, broken_runs, reused, infos, retries)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                 ?17, ?18, ?19, ?20)",
        )?;
        let mut update = tx.prepare_cached(
            "UPDATE results SET key = ?1, url = ?2, run_id = ?3, checked_at = ?4,
                 outcome = ?5, status = ?6, fail_kind = ?7, message = ?8, real_url = ?9,
                 redirects = ?10, warnings = ?11, content_type = ?12, size = ?13,
                 modified = ?14, internal = ?15, broken_since = ?16, broken_runs = ?17,
                 reused = ?18, infos = ?19, retries = ?20
             WHERE id = ?21",
        )?;
        for (key, result) in &batch.results {
            let Some(row) = encode(result) else { continue };
            // A reused result keeps the time it was checked: it ages as it was.
            let checked_at = result.cached_from.map_or(now, unix);
            let reused = result.cached_from.is_some();
            let values: [&dyn ToSql; 20] = [
                key,
                &row.url,
                &run_id,
                &checked_at,
                &row.outcome,
                &row.status,
                &row.fail_kind,
                &row.message,
                &row.real_url,
                &row.redirects,
                &row.warnings,
                &row.content_type,
                &row.size,
                &row.modified,
                &row.internal,
                &row.broken_since,
                &row.broken_runs,
                &reused,
                &row.infos,
                &row.retries,
            ];
            upsert(
                &tx,
                &mut insert,
                &mut update,
                &values,
                key,
                &mut rows.results,
                &rows.prints,
            )?;
        }
        let mut insert = tx.prepare_cached(
            "INSERT INTO pages (key, etag, last_modified, content_type, links, run_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        let mut update = tx.prepare_cached(
            "UPDATE pages SET key = ?1, etag = ?2, last_modified = ?3, content_type = ?4,
                 links = ?5, run_id = ?6
             WHERE id = ?7",
        )?;
        for (key, p) in &batch.pages {
            let values: [&dyn ToSql; 6] = [
                key,
                &p.etag,
                &p.last_modified,
                &p.content_type,
                &p.links,
                &run_id,
            ];
            upsert(
                &tx,
                &mut insert,
                &mut update,
                &values,
                key,
                &mut rows.pages,
                &rows.prints,
            )?;
        }
        let mut stmt = tx.prepare_cached(
            "INSERT OR REPLACE INTO robots (origin, body, run_id, checked_at)
             VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (origin, body) in &batch.robots {
            stmt.execute(params![origin, body, run_id, now])?;
        }
    }
    tx.commit()
}

/// Writes one row of `key`: `update` (its `values` and then the row's id) when `table` knows
/// the key's row, else `insert` (its `values`), and records the new row.
fn upsert(
    tx: &Transaction<'_>,
    insert: &mut CachedStatement<'_>,
    update: &mut CachedStatement<'_>,
    values: &[&dyn ToSql],
    key: &str,
    table: &mut TableRows,
    prints: &UrlFingerprints,
) -> rusqlite::Result<()> {
    // Fingerprinted once, for the look-up and the new row alike.
    let print = prints.of(key);
    match table.get(print) {
        Some(id) => {
            let mut with_id = values.to_vec();
            with_id.push(&id);
            // A row deleted by hand since the run started: the key gets a new one.
            if update.execute(&*with_id)? == 0 {
                insert.execute(values)?;
                table.insert(print, tx.last_insert_rowid());
            }
        }
        None => {
            insert.execute(values)?;
            table.insert(print, tx.last_insert_rowid());
        }
    }
    Ok(())
}

/// Records the end of run `run_id` and its totals.
pub(super) fn end_run(conn: &Connection, run_id: i64, totals: Totals) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE runs SET finished = ?1, urls = ?2, links = ?3, errors = ?4,
             broken_urls = ?5, interrupted = ?6 WHERE id = ?7",
        params![
            unix(SystemTime::now()),
            i64::try_from(totals.urls).unwrap_or(i64::MAX),
            i64::try_from(totals.links).unwrap_or(i64::MAX),
            i64::try_from(totals.errors).unwrap_or(i64::MAX),
            i64::try_from(totals.broken_urls).unwrap_or(i64::MAX),
            totals.interrupted,
            run_id,
        ],
    )
    .map(|_| ())
}
