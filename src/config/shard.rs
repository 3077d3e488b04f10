//! [`Shard`]: one of N workers that split a check by host, and [`FoundLink`], a link another
//! shard found and handed over.
//!
//! Politeness is per host, so each host belongs to exactly one shard: the owner of a host is
//! a stable hash of its registrable domain (`www.example.co.uk` → `example.co.uk`, by the
//! public suffix list of the `psl` crate; an IP address or a name the list does not know is
//! its own domain), FNV-1a 64 over the lower-case bytes, modulo N. The same host has the same
//! owner in every process, on every machine, in every version of linkpatrol that uses this
//! function, so shards started apart agree without talking to each other.
//!
//! A sharded check is two phases (docs/src/sharding.md): in phase 1 each shard crawls the start
//! sites it owns and exports, instead of checking, every external link and every link to a
//! start site another shard owns (its result names the shard that checks it:
//! [`CheckResult::exported_to`]); in phase 2 each shard checks the exported links it owns,
//! from every shard's export, given as [`FoundLink`]s, so each becomes the row a single run
//! would have made of it. An external URL linked from several shards' pages is so requested
//! once, by its owner; only a link from one start site to another start site owned by
//! another shard is checked twice (by the crawl that owns it, and in phase 2).
//!
//! [`CheckResult::exported_to`]: crate::CheckResult::exported_to

use std::fmt;
use std::hash::Hasher;
use std::str::FromStr;

use url::Url;

use crate::model::error::{Error, ErrorKind};

/// Shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// Shard `index` of `count`.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidConfig`] unless `index < count`.
    pub fn new(index: usize, count: usize) -> Result<Shard, Error> {
        if index >= count {
            return Err(Error::new(
                ErrorKind::InvalidConfig,
                format!(
                    "shard {index}/{count}: the index must be below the count (0 to {count} - 1)"
                ),
            ));
        }
        Ok(Shard { index, count })
    }

    /// This shard's index (0-based).
    pub fn index(self) -> usize {
        self.index
    }

    /// The number of shards.
    pub fn count(self) -> usize {
        self.count
    }

    /// The shard (of `count`) that owns `host`.
    pub fn owner_of_host(host: &str, count: usize) -> usize {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let domain = registrable_domain(&host);
        let mut h = fnv::FnvHasher::default();
        h.write(domain.as_bytes());
        (h.finish() % count.max(1) as u64) as usize
    }

    /// The shard (of this shard's count) that owns `url`: its host's owner for http(s) URLs,
    /// `None` for every other URL (files, `mailto:`: checked by whichever shard finds them,
    /// without a request to any host).
    pub fn owner_of(self, url: &Url) -> Option<usize> {
        match url.scheme() {
            "http" | "https" => url.host_str().map(|h| {
                Shard::owner_of_host(h.trim_start_matches('[').trim_end_matches(']'), self.count)
            }),
            _ => None,
        }
    }

    /// `true` when this shard checks `url`: it owns its host, or the URL has none.
    pub fn owns(self, url: &Url) -> bool {
        self.owner_of(url).is_none_or(|o| o == self.index)
    }
}

/// The registrable domain of a lower-case host: the public suffix plus one label, else the
/// host itself (IP addresses, `localhost`, single labels).
fn registrable_domain(host: &str) -> &str {
    if host.parse::<std::net::IpAddr>().is_ok() {
        return host;
    }
    psl::domain_str(host).unwrap_or(host)
}

impl fmt::Display for Shard {
    /// `I/N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = Error;

    /// `I/N`, as `--shard` takes it.
    fn from_str(s: &str) -> Result<Shard, Error> {
        let bad = || {
            Error::new(
                ErrorKind::InvalidConfig,
                format!("`{s}' is not a shard I/N (0 <= I < N)"),
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i = i.trim().parse().map_err(|_| bad())?;
        let n = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n)
    }
}

/// A link found on a page by another run (a shard's phase-1 export), checked by this run as
/// if this run had found it there: its row has the page, place and text given here, and the
/// recursion level it was found at. It is checked, never recursed into.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FoundLink {
    /// The link, resolved (it may keep its `#fragment`).
    pub url: String,
    /// The page it is on.
    pub parent: String,
    /// The link as written.
    pub raw: String,
    /// 1-based line and column (characters) of the element, when known.
    pub line: Option<usize>,
    /// See `line`.
    pub column: Option<usize>,
    /// The link text or alt text.
    pub name: String,
    /// The page's `<base href>`, when it had one.
    pub base: Option<String>,
    /// The recursion level of the link (its page's level plus one).
    pub level: usize,
}

impl FoundLink {
    /// The link `url` written `raw` on page `parent`, at recursion `level`; no place, text or
    /// base yet (see the setters).
    pub fn new(
        url: impl Into<String>,
        parent: impl Into<String>,
        raw: impl Into<String>,
        level: usize,
    ) -> Self {
        FoundLink {
            url: url.into(),
            parent: parent.into(),
            raw: raw.into(),
            line: None,
            column: None,
            name: String::new(),
            base: None,
            level,
        }
    }

    /// Its place in the page.
    pub fn at(mut self, line: Option<usize>, column: Option<usize>) -> Self {
        self.line = line;
        self.column = column;
        self
    }

    /// Its link text.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The page's `<base href>`.
    pub fn base(mut self, base: Option<String>) -> Self {
        self.base = base;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_stable_and_group_a_registrable_domain() {
        // Fixed values: a change of hash would split shards started by two versions.
        assert_eq!(
            Shard::owner_of_host("example.org", 1000),
            Shard::owner_of_host("EXAMPLE.org.", 1000)
        );
        let a = Shard::owner_of_host("www.example.co.uk", 97);
        assert_eq!(a, Shard::owner_of_host("docs.example.co.uk", 97));
        assert_eq!(a, Shard::owner_of_host("example.co.uk", 97));
        // FNV-1a 64 of `example.co.uk` is 0xf499928389d0529b, 38 modulo 97.
        assert_eq!(a, 38);
        // IP addresses are their own domain: 127.0.0.10 and 127.0.0.11 may differ.
        let owners: std::collections::BTreeSet<usize> = (10..50)
            .map(|i| Shard::owner_of_host(&format!("127.0.0.{i}"), 4))
            .collect();
        assert_eq!(owners.len(), 4, "40 hosts spread over 4 shards");
    }

    #[test]
    fn shards_parse_and_own_urls() {
        let s: Shard = "1/3".parse().unwrap();
        assert_eq!(
            (s.index(), s.count(), s.to_string().as_str()),
            (1, 3, "1/3")
        );
        for bad in ["3/3", "1", "a/3", "1/0", "-1/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let file = Url::parse("file:///tmp/x.html").unwrap();
        let mail = Url::parse("mailto:a@example.org").unwrap();
        let web = Url::parse("https://www.example.org/x").unwrap();
        let owners: Vec<bool> = (0..3)
            .map(|i| Shard::new(i, 3).unwrap().owns(&web))
            .collect();
        assert_eq!(
            owners.iter().filter(|o| **o).count(),
            1,
            "exactly one owner"
        );
        assert!((0..3).all(|i| Shard::new(i, 3).unwrap().owns(&file)));
        assert!((0..3).all(|i| Shard::new(i, 3).unwrap().owns(&mail)));
    }
}
