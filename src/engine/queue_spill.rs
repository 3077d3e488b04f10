//! The queue's tasks past its memory share, on disk (see `memory`): a private temporary SQLite
//! database, which SQLite unlinks as soon as it creates it, so that nothing is left behind
//! however the process ends and no other process can open it.
//!
//! A lane (one host's tasks, or the tasks without a host) that spills keeps its order: its
//! first tasks in memory, then its tasks on disk, then its newest ones in a small outbox that
//! is written in batches. The queue refills a lane from disk (or, with nothing there, from
//! its outbox) as soon as its last task in memory is taken, so a lane with tasks on disk
//! always has one in memory and stays on the timeline. A task the codec cannot write (an
//! in-memory document, a deferred task with its first try) stays in memory.

use std::time::{Duration, Instant};

/// How the queue's items go to bytes and back, and what one holds in memory.
#[derive(Debug)]
pub(crate) struct SpillCodec<T> {
    /// Bytes an item holds in memory (its strings and its own size).
    pub(crate) size: fn(&T) -> usize,
    /// Appends the item's bytes to the buffer; `false` when it cannot be written.
    pub(crate) encode: fn(&T, &mut Vec<u8>) -> bool,
    /// The item written as these bytes.
    pub(crate) decode: fn(&[u8]) -> Option<T>,
}

/// Tasks of one lane outside its memory: on disk, and in the outbox.
#[derive(Debug, Default)]
pub(crate) struct Overflow {
    /// The lane's number in the database.
    pub(crate) id: u64,
    /// Tasks of the lane in the database.
    pub(crate) on_disk: usize,
    /// The lane's newest tasks, written and waiting for the next batch: when each was put
    /// (microseconds after `Spill::base`), and its bytes.
    pub(crate) outbox: Vec<(u64, Vec<u8>)>,
}

impl Overflow {
    /// Tasks of the lane outside memory.
    pub(crate) fn len(&self) -> usize {
        self.on_disk + self.outbox.len()
    }
}

/// Items written for their lane, and what went wrong on the way.
#[derive(Debug)]
pub(crate) struct Spill<T> {
    codec: SpillCodec<T>,
    /// Opened at the first batch; `None` before, and after an error (nothing more spills).
    store: Option<Store>,
    /// The instants of tasks on disk are kept as microseconds after this one.
    base: Instant,
    /// Bytes in every lane's outbox.
    pub(crate) outbox_bytes: usize,
    /// Source of lane numbers (0 is the lane without a host).
    next_lane: u64,
    /// Tasks that went to the outbox over the run.
    pub(crate) spilled: usize,
    /// The first error of the database; once set nothing more spills.
    pub(crate) error: Option<String>,
    /// Tasks lost to an error reading them back: never handed out.
    pub(crate) lost: usize,
    /// Reused by `encode`.
    buf: Vec<u8>,
}

/// An outbox this large is written as one batch.
pub(crate) const BATCH_BYTES: usize = 256 * 1024;
/// Tasks read back into a lane's memory at a time.
pub(crate) const REFILL: usize = 64;

impl<T> Spill<T> {
    /// Spills through `codec`.
    pub(crate) fn new(codec: SpillCodec<T>) -> Self {
        Spill {
            codec,
            store: None,
            base: Instant::now(),
            outbox_bytes: 0,
            next_lane: 1,
            spilled: 0,
            error: None,
            lost: 0,
            buf: Vec::new(),
        }
    }

    /// A number for a new lane.
    pub(crate) fn lane_id(&mut self) -> u64 {
        self.next_lane += 1;
        self.next_lane
    }

    /// The instant that tasks put without one (no host) are given.
    pub(crate) fn base(&self) -> Instant {
        self.base
    }

    /// Bytes `item` holds in memory.
    pub(crate) fn size(&self, item: &T) -> usize {
        (self.codec.size)(item)
    }

    /// `false` once an error stopped spilling.
    pub(crate) fn works(&self) -> bool {
        self.error.is_none()
    }

    /// Writes `item` (put at `at`) to the outbox of `lane`; gives it back when it cannot be
    /// written. Returns whether the outbox should now be written as a batch.
    pub(crate) fn push(&mut self, lane: &mut Overflow, item: T, at: Instant) -> Result<bool, T> {
        self.buf.clear();
        if !self.works() || !(self.codec.encode)(&item, &mut self.buf) {
            return Err(item);
        }
        let micros = u64::try_from(at.saturating_duration_since(self.base).as_micros());
        self.outbox_bytes += self.buf.len() + 24;
        lane.outbox
            .push((micros.unwrap_or(u64::MAX), self.buf.as_slice().into()));
        self.spilled += 1;
        Ok(self.outbox_bytes >= BATCH_BYTES)
    }

    /// Writes the outboxes of `lanes` to disk, in one transaction. On an error the outboxes
    /// stay (and are read back from memory), and nothing more spills.
    pub(crate) fn flush<'a>(&mut self, lanes: impl Iterator<Item = &'a mut Overflow>) {
        if self.store.is_none() && self.works() {
            match Store::open() {
                Ok(store) => self.store = Some(store),
                Err(e) => self.error = Some(e),
            }
        }
        let Some(store) = self.store.as_mut() else {
            return;
        };
        let mut batch: Vec<&mut Overflow> = lanes.filter(|l| !l.outbox.is_empty()).collect();
        match store.write(&batch) {
            Ok(()) => {
                for lane in &mut batch {
                    lane.on_disk += lane.outbox.len();
                    lane.outbox = Vec::new();
                }
                self.outbox_bytes = 0;
            }
            Err(e) => {
                self.error = Some(e);
                self.store = None;
            }
        }
    }

    /// Up to `REFILL` of `lane`'s oldest tasks outside memory, with the instants they were put,
    /// their sizes added to `held`: from disk first (they are older), else from the outbox. A
    /// task that cannot be read back is counted in `lost`.
    pub(crate) fn refill(&mut self, lane: &mut Overflow, held: &mut usize) -> Vec<(T, Instant)> {
        let rows: Vec<(u64, Vec<u8>)> = if lane.on_disk > 0 {
            let read = match self.store.as_mut() {
                Some(store) => store.read(lane.id, REFILL),
                None => Err("the spill file is gone".to_owned()),
            };
            match read {
                Ok(rows) if !rows.is_empty() => {
                    lane.on_disk -= rows.len().min(lane.on_disk);
                    rows
                }
                Ok(_) | Err(_) => {
                    if let Err(e) = read {
                        self.error.get_or_insert(e);
                    }
                    // Whatever is left on disk for this lane cannot be had: lost.
                    self.lost += lane.on_disk;
                    lane.on_disk = 0;
                    return self.refill(lane, held);
                }
            }
        } else {
            let n = lane.outbox.len().min(REFILL);
            let rows: Vec<_> = lane.outbox.drain(..n).collect();
            self.outbox_bytes = self
                .outbox_bytes
                .saturating_sub(rows.iter().map(|(_, b)| b.len() + 24).sum());
            rows
        };
        let mut items = Vec::with_capacity(rows.len());
        for (micros, bytes) in rows {
            match (self.codec.decode)(&bytes) {
                Some(item) => {
                    *held += self.size(&item);
                    items.push((item, self.base + Duration::from_micros(micros)));
                }
                None => self.lost += 1,
            }
        }
        items
    }

    /// Drops every task outside memory (the queue shut down).
    pub(crate) fn clear(&mut self) {
        self.store = None;
        self.outbox_bytes = 0;
    }
}

#[cfg(feature = "state")]
use sqlite::Store;

#[cfg(feature = "state")]
mod sqlite {
    //! The database: one table of (lane, sequence) → (put instant, task bytes).
    use rusqlite::{Connection, params};

    use super::Overflow;

    #[derive(Debug)]
    pub(crate) struct Store {
        conn: Connection,
        seq: i64,
    }

    fn text(e: rusqlite::Error) -> String {
        format!("the queue's spill file: {e}")
    }

    impl Store {
        /// A new private temporary database (SQLite's empty file name): on disk in the
        /// temporary folder, deleted when closed. Its page cache is kept small.
        pub(crate) fn open() -> Result<Store, String> {
            let conn = Connection::open("").map_err(text)?;
            conn.execute_batch(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -2048;
                 CREATE TABLE tasks (lane INTEGER NOT NULL, seq INTEGER NOT NULL,
                   put INTEGER NOT NULL, task BLOB NOT NULL, PRIMARY KEY (lane, seq))
                   WITHOUT ROWID;",
            )
            .map_err(text)?;
            Ok(Store { conn, seq: 0 })
        }

        pub(crate) fn write(&mut self, lanes: &[&mut Overflow]) -> Result<(), String> {
            let tx = self.conn.transaction().map_err(text)?;
            {
                let mut insert = tx
                    .prepare_cached(
                        "INSERT INTO tasks (lane, seq, put, task) VALUES (?1, ?2, ?3, ?4)",
                    )
                    .map_err(text)?;
                for lane in lanes {
                    for (put, task) in &lane.outbox {
                        self.seq += 1;
                        let put = i64::try_from(*put).unwrap_or(i64::MAX);
                        insert
                            .execute(params![lane.id as i64, self.seq, put, task])
                            .map_err(text)?;
                    }
                }
            }
            tx.commit().map_err(text)
        }

        pub(crate) fn read(
            &mut self,
            lane: u64,
            max: usize,
        ) -> Result<Vec<(u64, Vec<u8>)>, String> {
            let tx = self.conn.transaction().map_err(text)?;
            let rows = {
                let mut select = tx
                    .prepare_cached(
                        "SELECT seq, put, task FROM tasks WHERE lane = ?1 ORDER BY seq LIMIT ?2",
                    )
                    .map_err(text)?;
                let rows = select
                    .query_map(params![lane as i64, max as i64], |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, i64>(1)?,
                            r.get::<_, Vec<u8>>(2)?,
                        ))
                    })
                    .map_err(text)?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(text)?;
                if let Some((last, ..)) = rows.last() {
                    tx.prepare_cached("DELETE FROM tasks WHERE lane = ?1 AND seq <= ?2")
                        .map_err(text)?
                        .execute(params![lane as i64, last])
                        .map_err(text)?;
                }
                rows
            };
            tx.commit().map_err(text)?;
            Ok(rows
                .into_iter()
                .map(|(_, put, task)| (u64::try_from(put).unwrap_or(0), task))
                .collect())
        }
    }
}

#[cfg(not(feature = "state"))]
#[derive(Debug)]
struct Store;

#[cfg(not(feature = "state"))]
impl Store {
    fn open() -> Result<Store, String> {
        Err("this build has no SQLite (the `state` feature): the queue stays in memory".into())
    }
    fn write(&mut self, _: &[&mut Overflow]) -> Result<(), String> {
        unreachable!("never opened")
    }
    fn read(&mut self, _: u64, _: usize) -> Result<Vec<(u64, Vec<u8>)>, String> {
        unreachable!("never opened")
    }
}
