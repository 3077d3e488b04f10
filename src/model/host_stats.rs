//! [`HostStats`]: what the politeness gate counted for one host during a run.

use std::time::Duration;

/// Statistics of one host at the end of a run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HostStats {
    /// The host key (`host:port`).
    pub host: String,
    /// Requests made to it (every redirect hop, retry and robots.txt fetch counts).
    pub requests: u64,
    /// Wall time during which at least one of its requests waited for a politeness slot (the
    /// union of the waits, not their sum: never more than the run's wall time). Only the wait
    /// the host's interval or a pause imposes counts, not the wait for a free worker.
    pub waited: Duration,
    /// Requests that were retries of a failed or rate-limited one.
    pub retries: u64,
    /// 429 (Too Many Requests) and 503 answers.
    pub overloaded: u64,
    /// The minimum interval between requests at the end of the run.
    pub interval: Duration,
    /// Requests per second between the first and the last request (0 for one request).
    pub effective_rate: f64,
    /// The host was given up as unreachable (a DNS, connect or TLS failure, or repeated
    /// timeouts): the failure (`connect: Connection refused`). Its other URLs were not
    /// requested.
    pub unreachable: Option<String>,
}
