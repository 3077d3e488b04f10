//! The configuration the whole-crawl benches share (`crawl`, `state`): 8 threads against an
//! in-process loopback server, politeness and robots.txt off, no entries kept.

use linkpatrol::Config;

/// A crawl from `start` as the benches run it; `only_problems` as the report wants.
pub fn fast_crawl(start: String, only_problems: bool) -> Config {
    Config::new()
        .input_url(start)
        .threads(8)
        .max_requests_per_second(0.0)
        .host_concurrency(0)
        .robots(false)
        .keep_entries(false)
        .only_problems(only_problems)
}
