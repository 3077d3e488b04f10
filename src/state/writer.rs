//! The state file's one writer: a thread of its own that owns the connection for the run.
//!
//! The thread that consumes the run's results gathers each finished result (and parsed page)
//! and hands what it gathered over to the writer through an outbox: each time it finds the
//! result channel empty (`flush`, a group commit), and at the latest every [`FLUSH_INTERVAL`]
//! or [`FLUSH_ROWS`] rows. The writer thread takes everything in the outbox at once, writes it
//! in one transaction, then takes what arrived meanwhile (no sooner than [`COMMIT_GAP`]
//! after that transaction started: none). So the consumer never waits on SQLite (it used to commit itself, and
//! while it did, the workers filled the result channel and stopped), and the transactions
//! are fewer and larger. The thread finds a key's existing row through its map of rows
//! (`row_ids.rs`, read when it starts); a new row is appended.
//!
//! A kill loses what was not committed yet: the transaction being written and what waits in
//! the outbox (what arrived since that transaction started), besides what the result
//! channel holds.
//! The outbox holds at most [`OUTBOX_ROWS`] rows; beyond, the consumer waits for the writer,
//! so a writer that falls behind holds the workers back through the result channel instead of
//! piling rows up in memory.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use rusqlite::{Connection, params};

use crate::model::outcome::CheckResult;
use crate::state::batch::{Batch, Totals, end_run, write};
use crate::state::codec::unix;
use crate::state::earlier_runs::StoredPage;
use crate::state::row_ids::RowIds;

/// Longest time a finished result waits on the consumer's side before it is handed to the
/// writer. Short, so that a kill loses few results (`--resume` requests them again).
pub(crate) const FLUSH_INTERVAL: Duration = Duration::from_millis(10);

/// Most results the consumer gathers before it hands them over.
pub(crate) const FLUSH_ROWS: usize = 512;

/// Most rows waiting in the outbox; beyond, the consumer waits for the writer to take them.
pub(crate) const OUTBOX_ROWS: usize = 256;

/// Least time from the start of one transaction to the next (unless the outbox is full or the
/// run ends): none. A gap makes fewer, larger transactions but lets a kill lose more, and it
/// measured no faster (benches/RESULTS.md, "Commit gap"): a transaction takes what arrived
/// while the one before was written.
pub(crate) const COMMIT_GAP: Duration = Duration::ZERO;

/// Records the start of a run in `runs` and returns its id; or, with `resuming`, reopens that
/// interrupted run (its row is unfinished again until this run ends).
pub(crate) fn begin_run(
    conn: &Connection,
    options: String,
    now: SystemTime,
    resuming: Option<i64>,
) -> rusqlite::Result<i64> {
    if let Some(id) = resuming {
        conn.execute(
            "UPDATE runs SET finished = NULL, interrupted = 0 WHERE id = ?1",
            params![id],
        )?;
        Ok(id)
    } else {
        conn.execute(
            "INSERT INTO runs (started, options) VALUES (?1, ?2)",
            params![unix(now), options],
        )?;
        Ok(conn.last_insert_rowid())
    }
}

/// How the writer thread is to end, once the outbox is empty.
#[derive(Debug)]
enum End {
    /// The run ended: record its end and totals.
    Finish(Totals),
    /// The run was given up (its `runs` row stays unfinished, as after a kill).
    Abandon,
}

/// What the consumer hands to the writer thread.
#[derive(Debug, Default)]
struct Outbox {
    /// Rows not taken by the writer yet.
    batch: Batch,
    /// Set once, by the consumer, after its last rows.
    end: Option<End>,
    /// The writer thread has stopped (it only stops after `end`, or by a panic): nothing more
    /// is taken, so the consumer must not wait for room.
    gone: bool,
}

/// The outbox and its two signals.
#[derive(Debug, Default)]
struct Shared {
    outbox: Mutex<Outbox>,
    /// Rows or an end were put in the outbox (the writer waits on it).
    work: Condvar,
    /// The writer took the outbox's rows, or stopped (the consumer waits on it when full).
    room: Condvar,
}

impl Shared {
    /// The outbox. Its data stays consistent whatever panicked while holding it (each change is
    /// one assignment or append), so a poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The consumer thread's handle on the writer thread. Not shared: only that thread has it.
#[derive(Debug)]
pub(crate) struct Writer {
    shared: Arc<Shared>,
    /// The writer thread; it returns the first write error. Taken by `finish` (or the drop).
    thread: Option<JoinHandle<Option<String>>>,
    /// Rows gathered since the last handover.
    pending: Batch,
    /// When the consumer last handed rows over.
    last_flush: Instant,
}

impl Writer {
    /// Starts the writer thread, which writes as run `run_id` through `conn` until the end.
    pub(crate) fn spawn(conn: Connection, run_id: i64) -> std::io::Result<Self> {
        let shared = Arc::new(Shared::default());
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("linkpatrol-state".into())
                .spawn(move || write_loop(conn, run_id, &shared))?
        };
        Ok(Writer {
            shared,
            thread: Some(thread),
            pending: Batch::default(),
            last_flush: Instant::now(),
        })
    }

    /// Takes one finished result, handed over with the next batch; hands the batch over when
    /// it is due.
    pub(crate) fn add(&mut self, key: String, result: Arc<CheckResult>) {
        self.pending.results.push((key, result));
        self.tick();
    }

    /// Takes one parsed page, handed over with the next batch.
    pub(crate) fn add_page(&mut self, key: String, page: StoredPage) {
        self.pending.pages.push((key, page));
        self.tick();
    }

    /// Takes the robots.txt fetched for `origin` (`None`: none to obey), handed over with the
    /// next batch.
    pub(crate) fn add_robots(&mut self, origin: String, body: Option<Vec<u8>>) {
        self.pending.robots.push((origin, body));
        self.tick();
    }

    /// Hands the gathered rows over when they are many or old enough.
    pub(crate) fn tick(&mut self) {
        let waiting = self.pending.len();
        if waiting >= FLUSH_ROWS || (waiting > 0 && self.last_flush.elapsed() >= FLUSH_INTERVAL) {
            self.flush();
        }
    }

    /// Hands every gathered row over to the writer thread, which writes it with whatever else
    /// it has not written yet in its next transaction. Waits only while the outbox is full.
    pub(crate) fn flush(&mut self) {
        self.last_flush = Instant::now();
        if self.pending.is_empty() {
            return;
        }
        let mut out = self.shared.lock();
        while out.batch.len() >= OUTBOX_ROWS && !out.gone {
            out = self
                .shared
                .room
                .wait(out)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if out.gone {
            // Nothing would write them; `finish` reports the stop.
            self.pending = Batch::default();
            return;
        }
        out.batch.append(&mut self.pending);
        drop(out);
        self.shared.work.notify_one();
    }

    /// Ends the writer thread after what was handed over is written, with `end`; returns its
    /// first write error.
    fn stop(&mut self, end: End) -> Option<String> {
        let thread = self.thread.take()?;
        self.flush();
        self.shared.lock().end = Some(end);
        self.shared.work.notify_one();
        match thread.join() {
            Ok(failed) => failed,
            Err(_) => Some("the writer thread stopped".into()),
        }
    }

    /// Writes what is left and the run's end and totals, and closes the file. Returns a
    /// warning when a write failed during the run.
    pub(crate) fn finish(mut self, totals: Totals) -> Option<String> {
        self.stop(End::Finish(totals))
            .map(|e| format!("state file: writing failed ({e}); some results were not kept"))
    }
}

impl Drop for Writer {
    /// A run given up without `finish` (an error before its end): what was handed over is
    /// still written, the run stays unfinished, and the file is closed before the drop
    /// returns (so that a next run of the same process can open it).
    fn drop(&mut self) {
        let _ = self.stop(End::Abandon);
    }
}

/// Marks the outbox `gone` when the writer thread ends, normally or by a panic, so that a
/// consumer waiting for room goes on.
struct Gone<'a>(&'a Shared);

impl Drop for Gone<'_> {
    fn drop(&mut self) {
        self.0.lock().gone = true;
        self.0.room.notify_all();
    }
}

/// The writer thread: takes the outbox's rows and writes them in one transaction, until the
/// consumer has set an end and every row is written. Returns the first write error (later
/// batches are then skipped; the connection closes when the thread ends).
fn write_loop(mut conn: Connection, run_id: i64, shared: &Shared) -> Option<String> {
    let _gone = Gone(shared);
    // Read here, not before the run starts: the workers are already checking.
    let (mut rows, mut failed) = match RowIds::load(&conn) {
        Ok(rows) => (rows, None),
        Err(e) => (RowIds::default(), Some(e.to_string())),
    };
    // When the last transaction started (none yet: the first rows are written at once).
    let mut last: Option<Instant> = None;
    loop {
        let (batch, end) = {
            let mut out = shared.lock();
            if let Some(gap) = last.and_then(|t| COMMIT_GAP.checked_sub(t.elapsed())) {
                // Gather more rows; a full outbox (the consumer waits) or the end cuts it short.
                out = shared
                    .work
                    .wait_timeout_while(out, gap, |o| {
                        o.end.is_none() && o.batch.len() < OUTBOX_ROWS
                    })
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            while out.batch.is_empty() && out.end.is_none() {
                out = shared
                    .work
                    .wait(out)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            let batch = std::mem::take(&mut out.batch);
            // The end only once every row before it is taken.
            let end = if batch.is_empty() {
                out.end.take()
            } else {
                None
            };
            (batch, end)
        };
        shared.room.notify_all();
        last = Some(Instant::now());
        if !batch.is_empty()
            && failed.is_none()
            && let Err(e) = write(&mut conn, run_id, &batch, &mut rows)
        {
            failed = Some(e.to_string());
        }
        match end {
            Some(End::Finish(totals)) => {
                if let Err(e) = end_run(&conn, run_id, totals) {
                    failed.get_or_insert(e.to_string());
                }
                return failed;
            }
            Some(End::Abandon) => return failed,
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::outcome::Outcome;
    use crate::state::schema::migrate;

    /// A fresh state file in the temporary folder, removed with its companions on drop.
    struct TempFile(std::path::PathBuf);

    impl TempFile {
        fn new(name: &str) -> Self {
            let path = std::env::temp_dir()
                .join(format!("lp-writer-{name}-{}.sqlite", std::process::id()));
            let file = TempFile(path);
            file.remove();
            file
        }
        fn remove(&self) {
            for suffix in ["", "-wal", "-shm"] {
                let mut p = self.0.clone().into_os_string();
                p.push(suffix);
                let _ = std::fs::remove_file(p);
            }
        }
        fn open(&self) -> Connection {
            Connection::open(&self.0).unwrap()
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            self.remove();
        }
    }

    fn ok(url: &str) -> Arc<CheckResult> {
        Arc::new(CheckResult::immediate(
            url.into(),
            Outcome::Ok { status: Some(200) },
            1,
        ))
    }

    fn count(conn: &Connection, sql: &str) -> i64 {
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    /// A writer on a fresh file, as `store::open` starts one.
    fn start(file: &TempFile) -> Writer {
        let mut conn = file.open();
        conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
        migrate(&mut conn, 0).unwrap();
        let run_id = begin_run(&conn, "{}".into(), SystemTime::now(), None).unwrap();
        Writer::spawn(conn, run_id).unwrap()
    }

    #[test]
    fn every_handed_over_row_is_committed_and_the_run_ends_with_its_totals() {
        let file = TempFile::new("finish");
        let mut w = start(&file);
        // More than the outbox holds, handed over in several flushes: the consumer waits for
        // room, the writer takes the rows in batches of whatever it found.
        let n = OUTBOX_ROWS * 2 + 3;
        for i in 0..n {
            let url = format!("http://a.test/{i}");
            w.add(url.clone(), ok(&url));
            if i % 100 == 0 {
                w.flush();
            }
        }
        w.add_page(
            "http://a.test/".into(),
            StoredPage {
                etag: Some("\"e\"".into()),
                last_modified: None,
                content_type: Some("text/html".into()),
                links: vec![1, 2, 3],
                resumed: false,
            },
        );
        w.add_robots("http://a.test".into(), Some(b"Disallow: /x".to_vec()));
        let totals = Totals {
            urls: n,
            ..Totals::default()
        };
        assert_eq!(w.finish(totals), None);
        let conn = file.open();
        assert_eq!(
            count(&conn, "SELECT count(*) FROM results"),
            i64::try_from(n).unwrap()
        );
        assert_eq!(count(&conn, "SELECT count(*) FROM pages"), 1);
        assert_eq!(count(&conn, "SELECT count(*) FROM robots"), 1);
        assert_eq!(
            count(&conn, "SELECT urls FROM runs WHERE finished IS NOT NULL"),
            i64::try_from(n).unwrap()
        );
    }

    fn status(url: &str, status: u16) -> Arc<CheckResult> {
        let outcome = match status {
            200..=399 => Outcome::Ok {
                status: Some(status),
            },
            _ => Outcome::Broken { status },
        };
        Arc::new(CheckResult::immediate(url.into(), outcome, 1))
    }

    fn page(etag: &str) -> StoredPage {
        StoredPage {
            etag: Some(etag.into()),
            last_modified: None,
            content_type: Some("text/html".into()),
            links: vec![0],
            resumed: false,
        }
    }

    #[test]
    fn a_key_has_one_row_with_its_last_values_across_batches_and_runs() {
        let file = TempFile::new("upsert");
        // An earlier run's rows, which the next run's writer finds by key.
        let mut w = start(&file);
        w.add("http://a.test/old".into(), status("http://a.test/old", 200));
        w.add_page("http://a.test/".into(), page("\"1\""));
        assert_eq!(w.finish(Totals::default()), None);
        let conn = file.open();
        let run_id = begin_run(&conn, "{}".into(), SystemTime::now(), None).unwrap();
        let mut w = Writer::spawn(conn, run_id).unwrap();
        // Twice in one batch, then again in a later batch.
        w.add("http://a.test/new".into(), status("http://a.test/new", 200));
        w.add("http://a.test/new".into(), status("http://a.test/new", 500));
        w.flush();
        w.add("http://a.test/new".into(), status("http://a.test/new", 404));
        w.add("http://a.test/old".into(), status("http://a.test/old", 410));
        w.add_page("http://a.test/".into(), page("\"2\""));
        assert_eq!(w.finish(Totals::default()), None);
        let conn = file.open();
        let rows: Vec<(i64, String, i64, i64)> = conn
            .prepare("SELECT id, key, status, run_id FROM results ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            vec![
                (1, "http://a.test/old".into(), 410, run_id),
                (2, "http://a.test/new".into(), 404, run_id),
            ]
        );
        let pages: Vec<(String, i64)> = conn
            .prepare("SELECT etag, run_id FROM pages")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(pages, vec![("\"2\"".into(), run_id)]);
    }

    #[test]
    fn a_run_given_up_keeps_its_rows_and_stays_unfinished() {
        let file = TempFile::new("abandon");
        let mut w = start(&file);
        w.add("http://a.test/".into(), ok("http://a.test/"));
        w.add("http://a.test/b".into(), ok("http://a.test/b"));
        drop(w);
        // The drop closed the file: another connection reads both rows, the run unfinished.
        let conn = file.open();
        assert_eq!(count(&conn, "SELECT count(*) FROM results"), 2);
        assert_eq!(
            count(&conn, "SELECT count(*) FROM runs WHERE finished IS NULL"),
            1
        );
    }

    #[test]
    fn a_write_error_is_reported_once_at_the_end() {
        let file = TempFile::new("error");
        let mut conn = file.open();
        migrate(&mut conn, 0).unwrap();
        let run_id = begin_run(&conn, "{}".into(), SystemTime::now(), None).unwrap();
        // No `results` table: every batch fails; the first error is the warning.
        conn.execute_batch("DROP TABLE results;").unwrap();
        let mut w = Writer::spawn(conn, run_id).unwrap();
        w.add("http://a.test/".into(), ok("http://a.test/"));
        w.flush();
        w.add("http://a.test/b".into(), ok("http://a.test/b"));
        let warning = w.finish(Totals::default()).unwrap();
        assert!(
            warning.starts_with("state file: writing failed ("),
            "{warning}"
        );
        assert!(warning.contains("results"), "{warning}");
        // The run's end is still recorded.
        assert_eq!(
            count(
                &file.open(),
                "SELECT count(*) FROM runs WHERE finished IS NOT NULL"
            ),
            1
        );
    }
}
