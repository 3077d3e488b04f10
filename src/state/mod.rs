//! Memory between runs: the SQLite state file behind `--cache`.
//!
//! The layer sits between `config` and `engine`: it uses only `model` and `config`, and the
//! engine uses it (see ARCHITECTURE.md). Its rules:
//! - **One writer.** Only the [`Writer`]'s thread writes. The thread that consumes the run's
//!   results (the `CheckRun`) hands each finished result and parsed page over to it
//!   each time it finds the result channel empty (a group commit), at the latest every 10 ms
//!   or 512 rows; the writer thread writes everything handed over since its last transaction
//!   in one transaction, as soon as the one before is written. Workers never touch SQLite,
//!   and the consumer never waits on it (unless 256 rows wait for the writer).
//! - **Reads up front.** [`open`] loads the fresh, reusable results and the broken history
//!   into a [`Remembered`] before the first worker starts; workers only read that map (no
//!   lock, no I/O). One scan is quicker than a query per page, and the exclusive lock keeps a
//!   second run out; it costs the compressed pages' memory for the run (benches/RESULTS.md,
//!   "State loaded up front").
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
