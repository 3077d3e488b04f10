//! The full host-aware scheduling scenarios (about 50 s in all): one site linking to 22
//! loopback hosts, one of them answering 429 with a `Retry-After` of 2 s, then 25 s, crawled
//! with default politeness by 16 workers. Prints each run's wall time against the ideal (the
//! busiest host's own schedule) and the requests sent inside the 429 pause. The scenario is
//! `tests/support/multi_host.rs`, which `tests/scheduling.rs` asserts on in the suite.
//!
//! `cargo bench --bench politeness`. Measured on the shared 2-core machine (debug build, when
//! it was an ignored test):
//! - FIFO `get` + sleeping gate: 2 s → 423.7 s for an ideal of 12.1 s (35.0x), 25 s → 446.7 s
//!   for 34.7 s (12.9x). Slots reserved before the 429 were not paused: 15 requests went out
//!   inside the pause, each got a 429, and each 429 doubled the interval, up to 30 s.
//! - Host-aware queue: 2 s → 12.14 s for 12.10 s (1.00x), 25 s → 34.77 s for 34.70 s
//!   (1.00x); no request inside the pause.
//!
//! A wall time bounded by politeness, not by CPU: one run per scenario, no criterion sampling.

mod support {
    #[path = "../../tests/support/server.rs"]
    #[allow(dead_code, unreachable_pub)]
    pub mod server;

    #[path = "../../tests/support/multi_host.rs"]
    #[allow(dead_code)]
    pub mod multi_host;
}

use support::multi_host::{Scenario, crawl, print};

fn main() {
    // `cargo bench --no-run` builds this; `cargo test --benches` runs it with `--bench` absent:
    // skip the 50 s unless benchmarking.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    for retry_after in [2, 25] {
        let s = Scenario {
            heavy: 120,
            limited: 20,
            retry_after,
            light: 2,
            threads: 16,
        };
        let m = crawl(s);
        print("full", s, &m);
    }
}
