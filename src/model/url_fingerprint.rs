//! A URL's 128-bit fingerprint, keyed at random per run: what a map holds instead of a copy of
//! the URL (the statistics' set of URLs counted, the state file writer's rows by key).

/// Makes fingerprints: two independent 64-bit hashes, each keyed at random when the maker is
/// made (SipHash-1-3 and foldhash), so a page or a file cannot choose URLs that collide. Two of
/// 10 million URLs share one with a probability below 10^-24.
#[derive(Debug, Default)]
pub(crate) struct UrlFingerprints(std::hash::RandomState, foldhash::quality::RandomState);

impl UrlFingerprints {
    /// The fingerprint of `url` (the same for the same text, from the same maker).
    pub(crate) fn of(&self, url: &str) -> u128 {
        use std::hash::BuildHasher;
        (u128::from(self.0.hash_one(url)) << 64) | u128::from(self.1.hash_one(url))
    }
}
