//! linkpatrol
#![forbid(unsafe_code)]
mod cache;
pub mod cancel;
mod check;
mod checker;
pub mod config;
pub mod error;
pub mod extract;
mod fetch;
mod filter;
mod hosts;
mod mail;
pub mod outcome;
mod queue;
pub mod report;
pub mod url_norm;
pub use cancel::CancelHandle;
pub use checker::{Checker, Report};
pub use config::{Config, Input};
pub use error::{Error, ErrorKind};
pub use outcome::{CheckResult, Entry, FailKind, Outcome, Referrer, Warning};
