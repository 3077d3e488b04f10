//! Memory between runs: the SQLite state file behind `--cache`.
//!
//! The layer sits between `config` and `engine`: it uses only `model` and `config`, and the
//! engine uses it (see ARCHITECTURE.md). Its rules:
//! - **One writer.** Only the [`Writer`]'s thread writes. The thread that consumes the run's
//!   results (`Checker::run_with_idle`) hands each finished result and parsed page over to it
//!   each time it finds the result channel empty (a group commit), at the latest every 10 ms
//!   or 512 rows; the writer thread writes everything handed over since its last transaction
//!   in one transaction, as soon as the one before is written. Workers never touch SQLite,
//!   and the consumer never waits on it (unless 256 rows wait for the writer).
//! - **Reads up front.** [`open`] loads the fresh, reusable results and the broken history
//!   into a [`Remembered`] before the first worker starts; workers only read that map (no
//!   lock, no I/O). Measured against the other way, a read-only connection that serves
//!   each page's links when its task needs them: one scan of `pages` reads the 20k site's
//!   21,005 blobs in 0.04 s (the Rust documentation's 31,904 in 0.06 s), one query per page
//!   takes 7.5-9 µs (0.16 s and 0.28 s in all, spread over the workers; both timed with
//!   Python's `sqlite3` on the same files). Up front costs the compressed blobs' memory
//!   (22 MB and 53 MB) for the run; the other way would also need the file shared with a
//!   reader, where the exclusive lock now keeps a second run out.
//! - **Bad state never stops a check.** Whatever is wrong with the file ends in a one-line
//!   warning and a run without state; a corrupt file or one that is not SQLite is moved aside
//!   (renamed, never deleted) and a fresh one is made in its place.
//! - **The file is untrusted input** (a checkout can ship one, a CI cache restore one):
//!   `harden` opens only the user's own regular file, never through a symbolic link, with
//!   SQLite in defensive mode, views and triggers off and limits set; `schema::inspect`
//!   refuses any object our migrations do not make (moved aside); a load stops when the run
//!   is cancelled; times after now are expired; `--resume` needs every checked option on
//!   record. What the file holds is reused only under `Config::trust_state_file` (the
//!   default): a stored pass is a verdict without a request, so whoever wrote the file made
//!   it (SECURITY.md, "The state file").
//!
//! - **Resume.** Under `Config::resume`, the run continues *the interrupted run*: the latest
//!   row of `runs` when it has no normal end (`finished` NULL: killed or crashed; or
//!   `interrupted`: Ctrl-C). Every result that run wrote is loaded as reusable whatever its
//!   age or outcome (`Remembered::resumed`), the pages it parsed are marked
//!   (`StoredPage::resumed`) so the engine replays them without a request, and the
//!   [`Writer`] writes as that run (same id, its row unfinished again until the end). When
//!   the latest run ended normally, or there is none, `open` warns and the run is a plain
//!   `--cache` run.
//!
//! The SQLite parts need the `state` feature; without it `open` returns a warning.

mod date;
mod earlier_runs;
mod page_blob;

#[cfg(feature = "state")]
mod batch;
#[cfg(feature = "state")]
mod codec;
#[cfg(feature = "state")]
mod harden;
#[cfg(feature = "state")]
mod row_ids;
#[cfg(feature = "state")]
mod schema;
#[cfg(feature = "state")]
mod store;
#[cfg(feature = "state")]
mod writer;

#[cfg(feature = "state")]
pub(crate) use batch::Totals;
pub(crate) use earlier_runs::{Remembered, StoredPage, cached_from_info};
pub(crate) use page_blob::{Packer, PageLinks, StoredLink, unpack};
#[cfg(feature = "state")]
pub(crate) use store::open;
#[cfg(feature = "state")]
pub(crate) use writer::Writer;
