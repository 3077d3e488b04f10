//! The model: the values every other layer passes around and the embedder gets back — a
//! result and its entries, errors, the run's summary — plus the cancel handle every layer
//! watches. It depends on nothing else in the crate (see ARCHITECTURE.md).

pub(crate) mod cancel;
pub(crate) mod date;
pub(crate) mod error;
pub(crate) mod failure_class;
pub(crate) mod held_rows;
pub(crate) mod host_stats;
pub(crate) mod link_site;
pub(crate) mod outcome;
pub(crate) mod redact;
pub(crate) mod run_report;
pub(crate) mod stats;
pub(crate) mod url_fingerprint;
