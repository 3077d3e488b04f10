//! The state file's one writer: owned by the thread that consumes the run's results, it
//! gathers each finished result and writes them in batches: one transaction each time that
//! thread finds the result channel empty (`flush`, a group commit), and at the latest every
//! [`FLUSH_INTERVAL`] or [`FLUSH_ROWS`] rows, so a kill loses at most the last batch.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use rusqlite::{Connection, params};

use crate::model::outcome::CheckResult;
use crate::state::codec::{encode, unix};
use crate::state::remembered::StoredPage;

/// Longest time a finished result waits before it is written. Short, so that a kill loses
/// few results (`--resume` requests them again): on the 20,000-page site, 10 ms cost no
/// measurable time against 100 ms (first runs, CPU 6.35 s against 6.28 s, median of 3 pairs)
/// and halved the URLs a resumed 2,000-page crawl requested again.
pub(crate) const FLUSH_INTERVAL: Duration = Duration::from_millis(10);

/// Most results written in one transaction.
pub(crate) const FLUSH_ROWS: usize = 512;

/// Totals of a run for its `runs` row.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub(crate) urls: usize,
    pub(crate) links: usize,
    pub(crate) errors: usize,
    pub(crate) broken_urls: usize,
    pub(crate) interrupted: bool,
}

/// Writes one run's results. Not shared: only the consumer thread has it.
#[derive(Debug)]
pub(crate) struct Writer {
    conn: Connection,
    /// This run's `runs.id`.
    run_id: i64,
    /// Finished results (key, result) not written yet.
    pending: Vec<(String, Arc<CheckResult>)>,
    /// Parsed pages (key, page) not written yet.
    pages: Vec<(String, StoredPage)>,
    /// Fetched robots.txt files (origin, body or none) not written yet.
    robots: Vec<(String, Option<Vec<u8>>)>,
    /// When the last batch was written.
    last_flush: Instant,
    /// The first write error; later writes are skipped and `finish` reports it.
    failed: Option<String>,
}

impl Writer {
    /// Records the start of a run and returns its writer; or, with `resuming`, reopens that
    /// interrupted run (its row is unfinished again until this run ends) and writes as it.
    pub(crate) fn start(
        conn: Connection,
        options: String,
        now: SystemTime,
        resuming: Option<i64>,
    ) -> rusqlite::Result<Self> {
        let run_id = if let Some(id) = resuming {
            conn.execute(
                "UPDATE runs SET finished = NULL, interrupted = 0 WHERE id = ?1",
                params![id],
            )?;
            id
        } else {
            conn.execute(
                "INSERT INTO runs (started, options) VALUES (?1, ?2)",
                params![unix(now), options],
            )?;
            conn.last_insert_rowid()
        };
        Ok(Writer {
            conn,
            run_id,
            pending: Vec::new(),
            pages: Vec::new(),
            robots: Vec::new(),
            last_flush: Instant::now(),
            failed: None,
        })
    }

    /// Takes one finished result, written with the next batch; writes the batch when it is
    /// due.
    pub(crate) fn add(&mut self, key: String, result: Arc<CheckResult>) {
        self.pending.push((key, result));
        self.tick();
    }

    /// Takes one parsed page, written with the next batch.
    pub(crate) fn add_page(&mut self, key: String, page: StoredPage) {
        self.pages.push((key, page));
        self.tick();
    }

    /// Takes the robots.txt fetched for `origin` (`None`: none to obey), written with the next
    /// batch.
    pub(crate) fn add_robots(&mut self, origin: String, body: Option<Vec<u8>>) {
        self.robots.push((origin, body));
        self.tick();
    }

    /// Writes the pending results when the batch is full or old enough.
    pub(crate) fn tick(&mut self) {
        let waiting = self.pending.len() + self.pages.len() + self.robots.len();
        if waiting >= FLUSH_ROWS || (waiting > 0 && self.last_flush.elapsed() >= FLUSH_INTERVAL) {
            self.flush();
        }
    }

    /// Writes every pending result in one transaction.
    pub(crate) fn flush(&mut self) {
        self.last_flush = Instant::now();
        let batch = std::mem::take(&mut self.pending);
        let pages = std::mem::take(&mut self.pages);
        let robots = std::mem::take(&mut self.robots);
        if (batch.is_empty() && pages.is_empty() && robots.is_empty()) || self.failed.is_some() {
            return;
        }
        if let Err(e) = self.write(&batch, &pages, &robots) {
            self.failed = Some(e.to_string());
        }
    }

    fn write(
        &mut self,
        batch: &[(String, Arc<CheckResult>)],
        pages: &[(String, StoredPage)],
        robots: &[(String, Option<Vec<u8>>)],
    ) -> rusqlite::Result<()> {
        let now = unix(SystemTime::now());
        let tx = self.conn.transaction()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO results (key, url, run_id, checked_at, outcome, status, fail_kind,
                     message, real_url, redirects, warnings, content_type, size, modified,
                     internal, broken_since, broken_runs, reused, infos, retries)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                     ?17, ?18, ?19, ?20)
                 ON CONFLICT (key) DO UPDATE SET url = ?2, run_id = ?3, checked_at = ?4,
                     outcome = ?5, status = ?6, fail_kind = ?7, message = ?8, real_url = ?9,
                     redirects = ?10, warnings = ?11, content_type = ?12, size = ?13,
                     modified = ?14, internal = ?15, broken_since = ?16, broken_runs = ?17,
                     reused = ?18, infos = ?19, retries = ?20",
            )?;
            for (key, result) in batch {
                let Some(row) = encode(result) else { continue };
                // A reused result keeps the time it was checked: it ages as it was.
                let checked_at = result.cached_from.map_or(now, unix);
                stmt.execute(params![
                    key,
                    row.url,
                    self.run_id,
                    checked_at,
                    row.outcome,
                    row.status,
                    row.fail_kind,
                    row.message,
                    row.real_url,
                    row.redirects,
                    row.warnings,
                    row.content_type,
                    row.size,
                    row.modified,
                    row.internal,
                    row.broken_since,
                    row.broken_runs,
                    result.cached_from.is_some(),
                    row.infos,
                    row.retries,
                ])?;
            }
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO pages (key, etag, last_modified, content_type, links,
                     run_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (key, p) in pages {
                stmt.execute(params![
                    key,
                    p.etag,
                    p.last_modified,
                    p.content_type,
                    p.links,
                    self.run_id
                ])?;
            }
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO robots (origin, body, run_id, checked_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (origin, body) in robots {
                stmt.execute(params![origin, body, self.run_id, now])?;
            }
        }
        tx.commit()
    }

    /// Writes what is left and the run's end and totals. Returns a warning when a write
    /// failed during the run.
    pub(crate) fn finish(mut self, totals: Totals) -> Option<String> {
        self.flush();
        let end = self.conn.execute(
            "UPDATE runs SET finished = ?1, urls = ?2, links = ?3, errors = ?4,
                 broken_urls = ?5, interrupted = ?6 WHERE id = ?7",
            params![
                unix(SystemTime::now()),
                i64::try_from(totals.urls).unwrap_or(i64::MAX),
                i64::try_from(totals.links).unwrap_or(i64::MAX),
                i64::try_from(totals.errors).unwrap_or(i64::MAX),
                i64::try_from(totals.broken_urls).unwrap_or(i64::MAX),
                totals.interrupted,
                self.run_id,
            ],
        );
        if let Err(e) = end {
            self.failed.get_or_insert(e.to_string());
        }
        self.failed
            .map(|e| format!("state file: writing failed ({e}); some results were not kept"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::outcome::Outcome;
    use crate::state::schema::migrate;

    #[test]
    fn a_flush_commits_what_was_taken_without_waiting_for_a_full_batch() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, 0).unwrap();
        let mut w = Writer::start(conn, "{}".into(), SystemTime::now(), None).unwrap();
        let ok = CheckResult::immediate(
            "http://a.test/".into(),
            Outcome::Ok { status: Some(200) },
            1,
        );
        w.pending.push(("http://a.test/".into(), Arc::new(ok)));
        w.flush();
        assert!(w.pending.is_empty());
        let rows: i64 = w
            .conn
            .query_row("SELECT count(*) FROM results", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1);
        // Committed: no transaction left open, no write failed.
        assert!(w.conn.is_autocommit());
        assert!(w.failed.is_none());
    }
}
