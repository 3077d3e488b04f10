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
//! # Read the results as an iterator
//! [`Checker::spawn`] starts the run and returns a [`CheckRun`]: an iterator over its entries
//! on the caller's thread, which can also wait with a limit ([`CheckRun::next_within`]) and
//! cancel; [`CheckRun::finish`] returns the report.
//! ```
//! use linkpatrol::{Checker, Config};
//!
//! let site = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/site");
//! let checker = Checker::new(Config::new().input_path(site).keep_entries(false))?;
//! let mut run = checker.spawn()?;
//! let pages: std::collections::BTreeSet<String> = run
//!     .by_ref()
//!     .filter_map(|entry| entry.referrer.map(|r| r.parent))
//!     .collect();
//! assert!(run.finish()?.errors() > 0);
//! assert!(pages.len() > 1);
//! # Ok::<(), linkpatrol::Error>(())
//! ```
//!
//! # The API
//! Every type has one path: the run and its results at the root, the report formats in
//! [`report`], the link extractors in [`extract`], the built-in plugins in [`plugins`] and the
//! plugin interface in [`plugin`]. How the crate is built inside — layers, the flow of one URL,
//! the invariants — is in ARCHITECTURE.md at the top of the repository.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(unreachable_pub, missing_debug_implementations)]

// The layers (alphabetical here; their order is in ARCHITECTURE.md and tests/layers.rs).
mod config;
mod engine;
pub mod extract;
mod fetch;
#[cfg(feature = "inputs")]
mod inputs;
mod model;
#[cfg(feature = "options")]
pub mod options;
mod policy;
pub mod report;
mod state;

#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals;

pub use config::accept::AcceptStatus;
pub use config::accept::DEFAULT_ACCEPT;
pub use config::basic_auth::BasicAuth;
pub use config::cookies::CookieJar;
pub use config::host_rules::HostRule;
pub use config::login::{
    DEFAULT_LOGIN_PASSWORD_FIELD, DEFAULT_LOGIN_USER_FIELD, DEFAULT_LOGOUT_PATTERN, FormLogin,
};
pub use config::remap::Remap;
pub use config::setting_syntax::{
    PluginSpec, parse_dns_server, parse_header, parse_pattern_number, parse_plugin_spec,
};
pub use config::shard::{FoundLink, Shard};
pub use config::state::{DEFAULT_FAIL_AFTER_RUNS, DEFAULT_MAX_CACHE_AGE, DEFAULT_STATE_FILE};
pub use config::{
    Config, DEFAULT_ABORT_TIMEOUT, DEFAULT_ARCHIVE_URL, DEFAULT_HOST_CONCURRENCY,
    DEFAULT_INDEX_FILES, DEFAULT_MAX_BODY_SIZE, DEFAULT_MAX_MEMORY, DEFAULT_MAX_REDIRECTS,
    DEFAULT_MAX_REQUESTS_PER_SECOND, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_WAIT, DEFAULT_MAX_URLS,
    DEFAULT_RETRY_BACKOFF, DEFAULT_THREADS, DEFAULT_TIMEOUT, DEFAULT_USER_AGENT, Input,
    MARKDOWN_EXTENSIONS, MAX_DURATION, resolver_from_resolv_conf,
};
pub use engine::check_run::{CheckRun, IDLE_INTERVAL, Step};
pub use engine::checker::Checker;
pub use engine::progress::{Progress, ProgressHandle};
pub use fetch::start_address::refused_untrusted_start;
#[cfg(feature = "inputs")]
pub use inputs::{Inputs, LOCAL_PATTERN_BUDGET, Notice, Resolved, SourceMap};

/// Reading a file a checked-out repository supplies (an ignore file, a config, a book's
/// sources): only a regular file, inside its folder once symbolic links are resolved, up to a
/// stated size.
#[cfg(feature = "inputs")]
pub mod checkout_file {
    pub use crate::inputs::checkout_file::{Refused, check, read, read_prefix};
}
pub use model::cancel::CancelHandle;
pub use model::error::{Error, ErrorKind};
pub use model::failure_class::FailureClass;
pub use model::held_rows::HeldRows;
pub use model::host_stats::HostStats;
pub use model::outcome::{CheckResult, Entry, FailKind, Hop, Outcome, Referrer, Warning};
pub use model::redact::redact_text;
pub use model::run_report::{Report, ShardRun, Tolerated};
pub use model::stats::{Skipped, Statistics};

/// The built-in plugins, by name: each is its own crate under `plugins/`, compiled in by its
/// cargo feature (`plugin-anchors`, `plugin-regex`, …, all on by default).
pub mod plugins {
    pub use crate::config::plugins::{PluginInfo, builtin, builtins, release_builtins};
}

/// The README's examples are compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The plugin interface (`linkpatrol-plugin-api`), re-exported.
pub use linkpatrol_plugin_api as plugin;
