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
    /// `host:port` → when it was looked up and its addresses. Locked only to read or store an
    /// entry, never across a lookup: two threads may look a new name up at once, and the later
    /// answer is kept.
    names: Mutex<HashMap<String, (Instant, ResolvedSocketAddrs)>>,
}

impl CachingResolver {
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
                Ok(found)
            };
        }
        let Some(key) = uri.authority().map(|a| {
            let port = a.port_u16().map_or_else(
                || uri.scheme_str().unwrap_or("").to_owned(),
                |p| p.to_string(),
            );
            format!("{}:{port}", a.host())
        }) else {
            return self.inner.resolve(uri, config, timeout);
        };
        if let Some((at, addrs)) = self.names.lock().get(&key)
            && at.elapsed() < TTL
        {
            return Ok(addrs.clone());
        }
        let addrs = self.inner.resolve(uri, config, timeout)?;
        self.names
            .lock()
            .insert(key, (Instant::now(), addrs.clone()));
        Ok(addrs)
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
}
