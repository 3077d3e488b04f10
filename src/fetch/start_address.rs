//! The address classes of a start site's host, looked up once before the run: whether every
//! start site is public decides the run's address policy, and a start URL that a checkout's
//! own config names may not lead into this machine's network.

use std::time::Duration;

use url::Url;

use crate::policy::address::{AddressClass, class};

/// The classes of the addresses `url`'s host is, or resolves to (empty: public). `localhost`
/// and its subdomains are loopback without a lookup. A name that does not resolve within
/// `timeout` counts as public: its requests fail anyway. The lookup runs on a thread of its
/// own, as std's cannot be cut short.
pub(crate) fn classes(url: &Url, timeout: Duration) -> Vec<AddressClass> {
    use std::net::ToSocketAddrs;
    match url.host() {
        Some(url::Host::Ipv4(ip)) => class(ip.into()).into_iter().collect(),
        Some(url::Host::Ipv6(ip)) => class(ip.into()).into_iter().collect(),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                return vec![AddressClass::Loopback];
            }
            let port = url.port_or_known_default().unwrap_or(80);
            let (tx, rx) = crossbeam_channel::bounded(1);
            let looked_up = std::thread::Builder::new()
                .name("linkpatrol-start-lookup".into())
                .spawn(move || {
                    let found: Vec<AddressClass> = (name.as_str(), port)
                        .to_socket_addrs()
                        .map(|addrs| addrs.filter_map(|a| class(a.ip())).collect())
                        .unwrap_or_default();
                    let _ = tx.send(found);
                });
            match looked_up {
                Ok(_) => rx.recv_timeout(timeout).unwrap_or_default(),
                Err(_) => Vec::new(),
            }
        }
        None => vec![AddressClass::Loopback],
    }
}

/// Why a start URL named by an untrusted config (a `linkpatrol.toml` in the current folder,
/// which may come from the repository being checked) may not be requested: its host is, or
/// resolves to, a link-local or cloud metadata address (never), or a loopback or private one
/// (unless the user's own `allow_private`). `None`: it may. Only http(s) URLs are judged.
pub fn refused_untrusted_start(
    url: &Url,
    allow_private: bool,
    timeout: Duration,
) -> Option<&'static str> {
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    classes(url, timeout)
        .into_iter()
        .find(|c| matches!(c, AddressClass::LinkLocal | AddressClass::Metadata) || !allow_private)
        .map(AddressClass::name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_untrusted_start_may_not_lead_into_this_machines_network() {
        let refused = |u: &str, allow| {
            refused_untrusted_start(&Url::parse(u).unwrap(), allow, Duration::from_secs(5))
        };
        for allow in [false, true] {
            assert_eq!(
                refused("http://169.254.169.254/latest/", allow),
                Some("a link-local address")
            );
            assert_eq!(
                refused("http://[fd00:ec2::254]/", allow),
                Some("a cloud metadata address")
            );
            assert_eq!(refused("http://192.0.2.1/", allow), None, "public");
            assert_eq!(
                refused("file:///etc/passwd", allow),
                None,
                "not judged here"
            );
        }
        assert_eq!(
            refused("http://127.1:6379/", false),
            Some("a loopback address")
        );
        assert_eq!(
            refused("http://localhost/", false),
            Some("a loopback address")
        );
        assert_eq!(
            refused("http://10.0.0.1/", false),
            Some("a private address")
        );
        assert_eq!(refused("http://10.0.0.1/", true), None);
        assert_eq!(refused("http://localhost/", true), None);
    }
}
