//! The leaf certificate a TLS server presents, for plugins (`Services::peer_certificate`).
//!
//! ureq 3 does not expose the peer certificate of a response, so this opens one short TLS
//! handshake of its own (rustls, already linked by ureq) and reads the certificate the server
//! sends. Any certificate is accepted here: whether it is trusted was already decided by the
//! check of the URL itself; this only reads it (for its expiry date).
//!
//! The read goes where the run's requests go: through the run's proxy when one is set (a
//! `CONNECT` tunnel, see `tunnel`), and it has one deadline, the run's `--timeout`, for all of
//! it: name lookup, connect, tunnel and handshake.

use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection};

use super::accept_any_cert::ReadOnly;
use super::tunnel::{Route, bare};
use crate::policy::address::AddressPolicy;

/// Reads the certificates servers present, the way the run connects.
#[derive(Debug, Clone, Default)]
pub(crate) struct CertReader {
    /// The whole read of one certificate ends within this (the run's `--timeout`).
    pub(crate) timeout: Duration,
    /// Where connections go: the run's proxy, if any.
    pub(crate) route: Route,
}

impl CertReader {
    /// A reader that connects as the run does: through `proxy` (not verifying an https proxy
    /// when `insecure`), sending `user_agent` with `CONNECT`, all within `timeout`; directly
    /// only to addresses `addresses` allows, but for the `host:port`s in `exempt`.
    pub(crate) fn new(
        timeout: Duration,
        proxy: Option<ureq::Proxy>,
        insecure: bool,
        user_agent: String,
        addresses: AddressPolicy,
        exempt: Vec<String>,
    ) -> CertReader {
        CertReader {
            timeout,
            route: Route {
                proxy,
                insecure,
                user_agent,
                addresses,
                exempt,
            },
        }
    }

    /// The DER bytes of the first certificate `host:port` presents (`host` as in a URL).
    pub(crate) fn leaf_certificate(&self, host: &str, port: u16) -> Result<Vec<u8>, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS set-up: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(ReadOnly(provider)))
            .with_no_client_auth();
        let name =
            ServerName::try_from(bare(host).to_owned()).map_err(|e| format!("{host}: {e}"))?;
        let mut conn = ClientConnection::new(Arc::new(config), name)
            .map_err(|e| format!("TLS set-up: {e}"))?;
        let mut stream = self.route.open(host, port, self.timeout)?;
        while conn.is_handshaking() {
            conn.complete_io(&mut stream)
                .map_err(|e| format!("TLS handshake with {host}:{port}: {e}"))?;
        }
        conn.peer_certificates()
            .and_then(|chain| chain.first())
            .map(|c| c.as_ref().to_vec())
            .ok_or_else(|| format!("{host}:{port} sent no certificate"))
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::thread;
    use std::time::Instant;

    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    use rustls::{ServerConfig, ServerConnection, StreamOwned};
    use ureq::Proxy;

    use super::*;

    const CERT: &[u8] = include_bytes!("../../tests/data/tls/localhost.cert.der");
    const KEY: &[u8] = include_bytes!("../../tests/data/tls/localhost.key.der");

    fn server_config() -> Arc<ServerConfig> {
        let config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_no_client_auth()
                .with_single_cert(
                    vec![CertificateDer::from(CERT.to_vec())],
                    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(KEY.to_vec())),
                )
                .unwrap();
        Arc::new(config)
    }

    fn reader(timeout: Duration, proxy: Option<&str>) -> CertReader {
        CertReader {
            timeout,
            route: Route {
                proxy: proxy.map(|p| Proxy::new(p).unwrap()),
                insecure: true,
                user_agent: "linkpatrol-test".into(),
                ..Route::default()
            },
        }
    }

    /// Reads a request head up to its blank line, byte by byte.
    fn head(stream: &mut impl Read) -> String {
        let mut head = Vec::new();
        let mut byte = [0];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
            head.push(byte[0]);
        }
        String::from_utf8_lossy(&head).into_owned()
    }

    #[test]
    fn a_server_that_sends_a_byte_now_and_then_is_cut_off_at_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        // The header of a 16 KiB TLS handshake record, then one byte of it every 1.5 s: each
        // read gets a byte well within a 2 s timeout per read. The thread ends on its own at
        // its first write after the client closed.
        thread::spawn(move || {
            let (mut sock, _) = listener.accept().unwrap();
            let mut sent = sock.write_all(&[0x16, 0x03, 0x03, 0x40, 0x00]);
            while sent.is_ok() {
                thread::sleep(Duration::from_millis(1500));
                sent = sock.write_all(&[0]);
            }
        });
        let t = Instant::now();
        let e = reader(Duration::from_secs(2), None)
            .leaf_certificate("127.0.0.1", port)
            .unwrap_err();
        let took = t.elapsed();
        assert!(took < Duration::from_secs(3), "took {took:?}");
        assert_eq!(
            e,
            format!("TLS handshake with 127.0.0.1:{port}: timed out (2s for the whole connection)")
        );
    }

    #[test]
    fn through_an_https_proxy_with_credentials_the_target_name_is_never_looked_up_here() {
        // The proxy speaks TLS, answers CONNECT, then plays the target itself: a second TLS
        // session inside the first. The target's name does not resolve: only the proxy
        // may look it up, and this one does not need to.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = format!(
            "https://u:pw@127.0.0.1:{}",
            listener.local_addr().unwrap().port()
        );
        let config = server_config();
        let served = thread::spawn(move || {
            let (sock, _) = listener.accept().unwrap();
            let outer = ServerConnection::new(config.clone()).unwrap();
            let mut outer = StreamOwned::new(outer, sock);
            let connect = head(&mut outer);
            outer
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .unwrap();
            let mut inner = ServerConnection::new(config).unwrap();
            while inner.is_handshaking() {
                if inner.complete_io(&mut outer).is_err() {
                    break;
                }
            }
            connect
        });
        let der = reader(Duration::from_secs(10), Some(&proxy))
            .leaf_certificate("target.invalid", 8443)
            .unwrap();
        assert_eq!(der, CERT);
        let connect = served.join().unwrap();
        assert!(
            connect.starts_with("CONNECT target.invalid:8443 HTTP/1.1\r\n"),
            "{connect}"
        );
        assert!(
            connect.contains("\r\nProxy-Authorization: Basic dTpwdw==\r\n"),
            "{connect}"
        );
        assert!(
            connect.contains("\r\nUser-Agent: linkpatrol-test\r\n"),
            "{connect}"
        );
    }

    #[test]
    fn a_proxy_that_refuses_the_tunnel_is_named_in_the_error_without_its_password() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let refuse = thread::spawn(move || {
            let (mut sock, _) = listener.accept().unwrap();
            let connect = head(&mut sock);
            let _ = sock.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
            connect
        });
        let proxy = format!("http://u:s3cret@127.0.0.1:{port}");
        let e = reader(Duration::from_secs(10), Some(&proxy))
            .leaf_certificate("[::1]", 443)
            .unwrap_err();
        assert_eq!(
            e,
            format!(
                "proxy 127.0.0.1:{port}: CONNECT [::1]:443: the proxy answered \
                 `HTTP/1.1 403 Forbidden'"
            )
        );
        assert!(
            refuse
                .join()
                .unwrap()
                .starts_with("CONNECT [::1]:443 HTTP/1.1\r\n")
        );
    }
}
