//! The shared `ureq` agent: its settings, timeouts, connection pool, TLS and proxy.

use std::time::Duration;

use ureq::tls::TlsConfig;
use ureq::unversioned::transport::{ConnectProxyConnector, Connector, RustlsConnector};
use ureq::{Agent, Proxy, ProxyProtocol};

use super::HttpFetcher;
use super::proxied_target::ProxiedTargetCheck;
use super::socket::LeanTcpConnector;
use crate::config::host_rules::HostRules;
use crate::fetch::connection::NoteNewConnection;
use crate::fetch::request_extras::RequestExtras;
use crate::fetch::resolver::CachingResolver;
use crate::model::cancel::CancelHandle;
use crate::model::redact::redact;
use crate::policy::address::AddressPolicy;
use crate::policy::host_gate::HostGate;
use std::sync::Arc;

/// Settings of the shared agent.
#[derive(Debug, Clone)]
pub(crate) struct HttpSettings {
    pub(crate) timeout: Duration,
    pub(crate) user_agent: String,
    pub(crate) max_redirects: usize,
    pub(crate) max_body: u64,
    /// Idle connections kept per host; at least the number of threads that may use one host.
    pub(crate) idle_per_host: usize,
    pub(crate) max_retries: u32,
    pub(crate) retry_backoff: Duration,
    pub(crate) max_retry_wait: Duration,
    /// Headers for every request (credentials only to `start_origins`).
    pub(crate) headers: Vec<(String, String)>,
    /// Origins (`http://host:port`) of the start URLs.
    pub(crate) start_origins: Vec<String>,
    pub(crate) rules: HostRules,
    pub(crate) insecure: bool,
    /// Keep the final response's headers in `Fetched::headers` (plugins read them).
    pub(crate) keep_headers: bool,
    /// Cookies, basic auth, method and accepted statuses (`extras`).
    pub(crate) extras: RequestExtras,
    /// The proxy every request goes through (see [`proxy_for`]).
    pub(crate) proxy: Option<Proxy>,
    /// The address classes not connected to (the proxy and `start_hosts` excepted).
    pub(crate) addresses: AddressPolicy,
    /// The start sites' `host:port`s (lower case): always requested.
    pub(crate) start_hosts: Vec<String>,
}

impl HttpFetcher {
    pub(crate) fn new(settings: HttpSettings, gate: Arc<HostGate>, cancel: CancelHandle) -> Self {
        let t = Some(settings.timeout);
        let config = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(settings.user_agent.as_str())
            .timeout_resolve(t)
            .timeout_connect(t)
            .timeout_send_request(t)
            .timeout_recv_response(t)
            .timeout_recv_body(t)
            .max_idle_connections(settings.idle_per_host.max(16) * 4)
            .max_idle_connections_per_host(settings.idle_per_host)
            .max_idle_age(Duration::from_secs(30))
            .proxy(settings.proxy.clone())
            .tls_config(
                TlsConfig::builder()
                    .disable_verification(settings.insecure)
                    .build(),
            )
            .build();
        // ureq's default chain (CONNECT proxy, TCP, TLS) after the address check of a proxied
        // target (`proxied_target`), with our TCP transport, which saves
        // system calls per request (see `socket`), plus a last link that tells whether a call
        // opened a connection. Socks proxies are refused before they get here (`proxy_for`).
        let connector = ()
            .chain(ProxiedTargetCheck {
                open: settings.addresses.is_open(),
            })
            .chain(ConnectProxyConnector::default())
            .chain(LeanTcpConnector)
            .chain(RustlsConnector::default())
            .chain(NoteNewConnection);
        let proxies = settings
            .proxy
            .iter()
            .map(|p| format!("{}:{}", p.host(), p.port()).to_ascii_lowercase())
            .collect();
        let resolver =
            CachingResolver::with_policy(settings.addresses, settings.start_hosts.clone(), proxies);
        let agent = Agent::with_parts(config, connector, resolver);
        HttpFetcher {
            agent,
            gate,
            settings,
            cancel,
            cookies: Default::default(),
        }
    }

    /// This fetcher with `cookies` as the run's cookie store, shared with whoever saves them.
    pub(crate) fn with_cookies(
        mut self,
        cookies: Arc<crate::fetch::session_cookies::SessionCookies>,
    ) -> Self {
        self.cookies = cookies;
        self
    }
}

/// Parses an explicit proxy URL: an http(s) `CONNECT` proxy (ureq is built without socks).
pub(crate) fn parse_proxy(url: &str) -> Result<Proxy, String> {
    // `user:password@host` may come without a scheme: mask it all the same.
    let with_scheme = if url.contains("://") {
        url.to_owned()
    } else {
        format!("http://{url}")
    };
    let shown = redact(&with_scheme);
    let proxy = Proxy::new(url).map_err(|e| format!("proxy `{shown}': {e}"))?;
    match proxy.protocol() {
        ProxyProtocol::Http | ProxyProtocol::Https => Ok(proxy),
        _ => Err(format!(
            "proxy `{shown}': only http:// and https:// proxies are supported"
        )),
    }
}

/// The proxy of a run: the explicit one (already checked by `Checker::new`), else the
/// environment's when allowed (ureq reads `ALL_PROXY`/`HTTPS_PROXY`/`HTTP_PROXY` and
/// `NO_PROXY`); a socks proxy from the environment is ignored, as it cannot be used.
pub(crate) fn proxy_for(explicit: Option<&str>, from_env: bool) -> Option<Proxy> {
    match explicit {
        Some(url) => parse_proxy(url).ok(),
        None if from_env => Proxy::try_from_env()
            .filter(|p| matches!(p.protocol(), ProxyProtocol::Http | ProxyProtocol::Https)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls_are_checked_and_never_shown_with_their_password() {
        for ok in [
            "http://u:pw@127.0.0.1:3128",
            "https://proxy.test",
            "127.0.0.1:3128",
        ] {
            assert!(parse_proxy(ok).is_ok(), "{ok}");
        }
        for bad in [
            "socks5://u:s3cret@127.0.0.1:1",
            "u:s3cret@[::1",
            "http://u:s3cret@[::1",
        ] {
            let e = parse_proxy(bad).unwrap_err();
            assert!(!e.contains("s3cret") && e.contains("***"), "{e}");
        }
        assert!(proxy_for(Some("http://127.0.0.1:3128"), false).is_some());
        assert!(proxy_for(None, false).is_none());
    }
}
