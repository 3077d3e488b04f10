//! Name resolution for the shared agent: IP literals without a lookup, host names looked up
//! once and remembered for a while.
//!
//! ureq resolves the host before every request, pooled connection or not, and its default
//! resolver runs each lookup on a new thread when a resolve timeout is set (so the lookup can
//! be abandoned). For a crawl that is a thread spawned and torn down per request: on a 20,000
//! page loopback crawl, 24,921 `clone3` calls for 42 connections, with the TLB shootdowns of
//! each thread's stack unmapping. Here a literal address is answered at once and a
//! name's addresses are kept for [`TTL`]; a lookup still goes to ureq's resolver, with its
//! timeout, and a failed one is not remembered.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::policy::address::AddressPolicy;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// How long the addresses of a host name are used before it is looked up again.
const TTL: Duration = Duration::from_secs(60);

/// ureq's resolver behind a cache of host name lookups (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct CachingResolver {
    inner: DefaultResolver,
    /// The address classes not connected to, and the `host:port`s of the start sites, which
    /// are requested on loopback and private addresses (`AddressPolicy::for_start_site`).
    policy: AddressPolicy,
    exempt: Vec<String>,
    /// The run's proxy (`host:port`), which the user chose: never refused.
    proxies: Vec<String>,
    /// `host:port` → when it was looked up and its addresses. Locked only to read or store an
    /// entry, never across a lookup: two threads may look a new name up at once, and the later
    /// answer is kept.
    names: Mutex<HashMap<String, (Instant, ResolvedSocketAddrs)>>,
}

/// The error a refused address gives (inside `ureq::Error::Io`): the reason a report shows.
#[derive(Debug)]
pub(crate) struct RefusedAddress(pub(crate) String);

impl std::fmt::Display for RefusedAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RefusedAddress {}

impl RefusedAddress {
    /// The reason, when `e` is a refused address.
    pub(crate) fn of(e: &ureq::Error) -> Option<&str> {
        match e {
            ureq::Error::Io(io) => io
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<RefusedAddress>())
                .map(|r| r.0.as_str()),
            _ => None,
        }
    }
}

impl CachingResolver {
    /// A resolver that refuses the addresses `policy` leaves out, less loopback and private
    /// ones for the `exempt` `host:port`s (the start sites'), and none for the `proxies`
    /// (lower case, the port always given).
    pub(crate) fn with_policy(
        policy: AddressPolicy,
        exempt: Vec<String>,
        proxies: Vec<String>,
    ) -> Self {
        CachingResolver {
            policy,
            exempt,
            proxies,
            ..CachingResolver::default()
        }
    }

    /// `addrs`, or the error that refuses them: one refused address refuses the name (a
    /// name may not hide a private address behind a public one).
    fn checked(
        &self,
        uri: &Uri,
        addrs: ResolvedSocketAddrs,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        if self.policy.is_open() {
            return Ok(addrs);
        }
        let mut policy = self.policy;
        if let Some(a) = uri.authority() {
            let port = a.port_u16().or_else(|| match uri.scheme_str()? {
                "http" => Some(80),
                "https" => Some(443),
                _ => None,
            });
            let key = format!("{}:{}", a.host(), port.unwrap_or(0)).to_ascii_lowercase();
            if self.proxies.contains(&key) {
                return Ok(addrs);
            }
            if self.exempt.contains(&key) {
                policy = policy.for_start_site();
            }
        }
        match addrs.iter().find_map(|a| policy.refuses(a.ip())) {
            None => Ok(addrs),
            Some(class) => Err(ureq::Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                RefusedAddress(format!(
                    "{} resolves to {}, not requested (see --allow-private)",
                    uri.host().unwrap_or(""),
                    class.name()
                )),
            ))),
        }
    }
    /// The address of `uri` when its host is an IP literal (`127.0.0.1`, `[::1]`).
    fn literal(uri: &Uri) -> Option<SocketAddr> {
        let host = uri.host()?;
        let ip: IpAddr = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
            .parse()
            .ok()?;
        let port = uri.port_u16().or_else(|| match uri.scheme_str()? {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        })?;
        Some(SocketAddr::new(ip, port))
    }
}

impl Resolver for CachingResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        if let Some(addr) = Self::literal(uri) {
            let mut found = self.empty();
            for a in config.ip_family().keep_wanted(std::iter::once(addr)) {
                found.push(a);
            }
            return if found.is_empty() {
                Err(ureq::Error::HostNotFound)
            } else {
                self.checked(uri, found)
            };
        }
        let Some(key) = uri.authority().map(|a| {
            let port = a.port_u16().map_or_else(
                || uri.scheme_str().unwrap_or("").to_owned(),
                |p| p.to_string(),
            );
            format!("{}:{port}", a.host())
        }) else {
            let addrs = self.inner.resolve(uri, config, timeout)?;
            return self.checked(uri, addrs);
        };
        if let Some((at, addrs)) = self.names.lock().get(&key)
            && at.elapsed() < TTL
        {
            return self.checked(uri, addrs.clone());
        }
        let addrs = self.inner.resolve(uri, config, timeout)?;
        self.names
            .lock()
            .insert(key, (Instant::now(), addrs.clone()));
        self.checked(uri, addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    #[test]
    fn literals_need_no_lookup() {
        let at = |s: &str| CachingResolver::literal(&uri(s));
        assert_eq!(
            at("http://127.0.0.1:8080/x"),
            Some("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            at("http://127.0.0.2/"),
            Some("127.0.0.2:80".parse().unwrap())
        );
        assert_eq!(at("https://[::1]/"), Some("[::1]:443".parse().unwrap()));
        assert_eq!(at("http://localhost:80/"), None);
    }

    #[test]
    fn a_literal_resolves_to_itself_and_a_name_is_remembered() {
        let r = CachingResolver::default();
        let config = Config::default();
        let got = r
            .resolve(&uri("http://127.0.0.1:9/"), &config, NextTimeout::default())
            .unwrap();
        assert_eq!(&got[..], &["127.0.0.1:9".parse::<SocketAddr>().unwrap()]);
        assert!(r.names.lock().is_empty());
        // `localhost` is in /etc/hosts: no DNS server is asked.
        let first = r
            .resolve(&uri("http://localhost:9/"), &config, NextTimeout::default())
            .unwrap();
        let kept = r.names.lock().get("localhost:9").map(|(_, a)| a.clone());
        assert_eq!(kept.as_deref(), Some(&first[..]));
    }

    #[test]
    fn a_refused_class_is_refused_by_address_and_a_start_host_is_exempt() {
        let r = CachingResolver::with_policy(
            AddressPolicy::ALL,
            vec!["127.0.0.1:8080".into()],
            Vec::new(),
        );
        let config = Config::default();
        let refused = |u: &str| {
            let e = r
                .resolve(&uri(u), &config, NextTimeout::default())
                .unwrap_err();
            RefusedAddress::of(&e).map(str::to_owned)
        };
        let why = refused("http://169.254.169.254/latest/meta-data/").unwrap();
        assert!(why.contains("a link-local address"), "{why}");
        assert!(
            refused("http://[::ffff:10.0.0.1]/")
                .unwrap()
                .contains("private")
        );
        // A name is judged by what it resolves to (`localhost`: /etc/hosts, no DNS server).
        assert!(refused("http://localhost:9/").unwrap().contains("loopback"));
        assert!(refused("http://127.0.0.1:9/").is_some());
        assert!(
            r.resolve(
                &uri("http://127.0.0.1:8080/x"),
                &config,
                NextTimeout::default()
            )
            .is_ok()
        );
        assert!(
            r.resolve(&uri("http://192.0.2.1/"), &config, NextTimeout::default())
                .is_ok()
        );
    }

    #[test]
    fn a_start_host_on_a_metadata_address_is_refused_but_a_proxy_never() {
        let r = CachingResolver::with_policy(
            AddressPolicy::ALL,
            vec!["169.254.169.254:80".into(), "[fd00:ec2::254]:80".into()],
            vec!["169.254.0.9:3128".into()],
        );
        let config = Config::default();
        let resolve = |u: &str| r.resolve(&uri(u), &config, NextTimeout::default());
        for start in ["http://169.254.169.254/", "http://[fd00:ec2::254]/"] {
            let e = resolve(start).unwrap_err();
            assert!(RefusedAddress::of(&e).is_some(), "{start}: {e}");
        }
        assert!(resolve("http://169.254.0.9:3128/").is_ok());
    }
}
