//! linkpatrol: a link checker and site crawler built as a synchronous thread pool — N OS
//! threads, blocking I/O, one shared HTTP agent, no async runtime.
//!
//! It crawls a site from its start URLs (or a local folder), checks every link it finds —
//! recursing into pages of the start sites, checking external links without recursing — and
//! streams one [`Entry`] per (link, page) as results come in. A broken link is data (an
//! [`Outcome`]), never an [`Error`].
//!
//! # Check a site
//! ```no_run
//! use linkpatrol::{Checker, Config};
//!
//! let checker = Checker::new(Config::new().input_url("https://example.org/"))?;
//! let report = checker.run()?;
//! for entry in report.broken() {
//!     let page = entry.referrer.as_ref().map_or("(start)", |r| r.parent.as_str());
//!     println!("{} on {page}: {}", entry.result.url, entry.result.outcome);
//! }
//! # Ok::<(), linkpatrol::Error>(())
//! ```
//!
//! # Check a folder, streaming results
//! ```
//! use linkpatrol::{Checker, Config};
//!
//! let site = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site");
//! let checker = Checker::new(Config::new().input_path(site).threads(4))?;
//! let mut broken = 0;
//! let report = checker.run_with(|entry| {
//!     if entry.result.outcome.is_broken() {
//!         broken += 1;
//!     }
//! })?;
//! assert_eq!(broken, report.errors());
//! assert!(report.errors() > 0, "the example site has broken links on purpose");
//! # Ok::<(), linkpatrol::Error>(())
//! ```
//!
//! # Layout
//! Value types: [`outcome`], [`config`], [`error`], [`host_rules`], [`accept`] (valid
//! statuses), [`cookies`] (cookies.txt), [`basic_auth`]. Pure layers: [`extract`] (HTML,
//! sitemaps, Markdown, CSS, plain text → links), `filter` (scope and patterns), [`url_norm`] (cache keys,
//! credential masking), `charset` (decoding), `mail` (address syntax). I/O: `fetch` (ureq
//! agent with retries, files), `hosts` (per-host politeness and backoff), `robots` (robots.txt
//! per origin), `cache` (placeholder on enqueue, redirect waits). Orchestration: `queue`
//! (joinable queue, scheduled by host), `check` (the per-URL pipeline), [`Checker`] (threads, cancel, join),
//! [`progress`] (live numbers). [`report`] turns entries into text, CSV, JSON, NDJSON, JUnit,
//! SARIF, sitemap, failures, DOT and GML reports. [`plugins`]: the built-in plugins by name and
//! the engine side of the [`plugin`] hooks. The `linkpatrol` binary uses only this API.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(unreachable_pub, missing_debug_implementations)]

pub mod accept;
pub mod basic_auth;
pub mod cancel;
pub mod config;
pub mod cookies;
pub mod error;
pub mod extract;
pub mod outcome;
pub mod plugins;
pub mod progress;
pub mod report;
pub mod url_norm;

mod cache;
mod charset;
mod check;
mod checker;
mod dns;
mod fetch;
mod filter;
pub mod host_rules;
mod hosts;
mod link_site;
mod mail;
mod mail_mx;
mod queue;
mod robots;

#[doc(hidden)]
pub mod bench_support;

pub use accept::AcceptStatus;
pub use basic_auth::BasicAuth;
pub use cancel::CancelHandle;
pub use checker::{Checker, IDLE_INTERVAL, Report};
pub use config::{Config, Input};
pub use cookies::CookieJar;
pub use error::{Error, ErrorKind};
pub use host_rules::HostRule;
pub use hosts::HostStats;
pub use outcome::{CheckResult, Entry, FailKind, Hop, Outcome, Referrer, Warning};
pub use progress::{Progress, ProgressHandle};

/// The README's examples are compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The plugin interface (`linkpatrol-plugin-api`), re-exported.
pub use linkpatrol_plugin_api as plugin;
