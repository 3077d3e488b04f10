//! A connection of our own outside the shared agent (the certificate read for plugins), opened
//! as the run's requests open theirs: through the run's proxy with an HTTP `CONNECT` tunnel
//! when one is set, directly otherwise, and all of it within one deadline.
//!
//! The deadline covers the name lookup, the connect, the proxy's TLS and `CONNECT`, and every
//! later read and write on the connection ([`Deadline`]): a server or proxy that sends a byte
//! now and then cannot hold a worker past it, as it could with a timeout per read alone.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, StreamOwned};
use ureq::http::Uri;
use ureq::{Proxy, ProxyProtocol};

use super::accept_any_cert::ReadOnly;
use crate::policy::address::AddressPolicy;

/// Longest proxy answer to `CONNECT` read (status line and header fields).
const MAX_PROXY_HEAD: usize = 16 * 1024;
/// Characters of a refusal's status line shown in the error.
const MAX_SHOWN_STATUS_LINE: usize = 200;

/// A byte stream to the target: a socket, or a TLS session with an https proxy over one.
pub(crate) trait Stream: Read + Write + Send {}

impl<T: Read + Write + Send> Stream for T {}

/// A socket on which every read and write ends by one instant: before each, its timeout is
/// set to the time left, and once none is left it fails with `TimedOut`.
#[derive(Debug)]
struct Deadline {
    sock: TcpStream,
    until: Instant,
    /// The whole budget, for the error message.
    budget: Duration,
}

impl Deadline {
    /// Time left before the deadline; `TimedOut` when there is none.
    fn left(&self) -> io::Result<Duration> {
        left(self.until, self.budget)
    }

    /// A blocking call's timeout (`WouldBlock` on Unix, `TimedOut` elsewhere) as `TimedOut`.
    fn timed_out(&self, e: io::Error) -> io::Error {
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => timed_out(self.budget),
            _ => e,
        }
    }
}

impl Read for Deadline {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.sock.set_read_timeout(Some(self.left()?))?;
        self.sock.read(buf).map_err(|e| self.timed_out(e))
    }
}

impl Write for Deadline {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sock.set_write_timeout(Some(self.left()?))?;
        self.sock.write(buf).map_err(|e| self.timed_out(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sock.flush()
    }
}

/// The error of a deadline that passed.
fn timed_out(budget: Duration) -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        format!("timed out ({budget:?} for the whole connection)"),
    )
}

/// Time left before `until`; `TimedOut` when there is none.
fn left(until: Instant, budget: Duration) -> io::Result<Duration> {
    let left = until.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(timed_out(budget));
    }
    Ok(left)
}

/// How to open connections: the proxy and what it needs to know.
#[derive(Debug, Clone, Default)]
pub(crate) struct Route {
    /// The run's proxy ([`proxy_for`](crate::fetch::http::proxy_for)); `None` connects
    /// directly. Hosts its `NO_PROXY` list names are reached directly too.
    pub(crate) proxy: Option<Proxy>,
    /// Do not verify an https proxy's certificate (the run's `--insecure`, which ureq applies
    /// to the proxy too).
    pub(crate) insecure: bool,
    /// Sent with `CONNECT`, as ureq does.
    pub(crate) user_agent: String,
    /// The address classes not connected to directly, and the `host:port`s exempt (the start
    /// sites'), as the agent's resolver has them.
    pub(crate) addresses: AddressPolicy,
    pub(crate) exempt: Vec<String>,
}

impl Route {
    /// A connection to `host:port` (`host` as in a URL: an IPv6 address in brackets), opened
    /// within `budget`; the returned stream keeps that deadline for every read and write.
    pub(crate) fn open(
        &self,
        host: &str,
        port: u16,
        budget: Duration,
    ) -> Result<Box<dyn Stream>, String> {
        let until = Instant::now() + budget;
        let target = format!("https://{host}:{port}/").parse::<Uri>();
        let proxy = self
            .proxy
            .as_ref()
            .filter(|p| !target.is_ok_and(|t| p.is_no_proxy(&t)));
        let exempt = self
            .exempt
            .contains(&format!("{host}:{port}").to_ascii_lowercase());
        let policy = if exempt {
            self.addresses.for_start_site()
        } else {
            self.addresses
        };
        let policy = (!policy.is_open()).then_some(policy);
        let Some(proxy) = proxy else {
            return Ok(Box::new(connect(host, port, until, budget, policy)?));
        };
        // The proxy would connect wherever it is asked: the target is checked as a direct
        // connection's would be. A name this machine cannot resolve goes to the proxy.
        if let Some(policy) = policy
            && let Ok(addrs) = look_up(host, port, until, budget)
        {
            refuse(host, port, &addrs, policy)?;
        }
        let shown = format!("proxy {}:{}", proxy.host(), proxy.port());
        let sock = connect(proxy.host(), proxy.port(), until, budget, None)
            .map_err(|e| format!("{shown}: {e}"))?;
        let mut stream: Box<dyn Stream> = match proxy.protocol() {
            ProxyProtocol::Https => Box::new(
                self.proxy_tls(proxy.host(), sock)
                    .map_err(|e| format!("{shown}: TLS handshake: {e}"))?,
            ),
            _ => Box::new(sock),
        };
        self.connect_request(stream.as_mut(), proxy, host, port)
            .map_err(|e| format!("{shown}: CONNECT {host}:{port}: {e}"))?;
        Ok(stream)
    }

    /// A TLS session with an https proxy, verified as ureq verifies it (webpki roots, or not
    /// at all with `insecure`).
    fn proxy_tls(
        &self,
        proxy_host: &str,
        mut sock: Deadline,
    ) -> Result<StreamOwned<ClientConnection, Deadline>, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?;
        let config = if self.insecure {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(ReadOnly(provider)))
                .with_no_client_auth()
        } else {
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            builder.with_root_certificates(roots).with_no_client_auth()
        };
        let name = ServerName::try_from(bare(proxy_host).to_owned()).map_err(|e| e.to_string())?;
        let mut conn = ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
        while conn.is_handshaking() {
            conn.complete_io(&mut sock).map_err(|e| e.to_string())?;
        }
        Ok(StreamOwned::new(conn, sock))
    }

    /// Sends `CONNECT host:port` and reads the proxy's answer: a 2xx opens the tunnel.
    fn connect_request(
        &self,
        stream: &mut dyn Stream,
        proxy: &Proxy,
        host: &str,
        port: u16,
    ) -> Result<(), String> {
        let mut head = format!(
            "CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: {}\r\n",
            self.user_agent
        );
        if proxy.username().is_some() || proxy.password().is_some() {
            let credentials = format!(
                "{}:{}",
                proxy.username().unwrap_or_default(),
                proxy.password().unwrap_or_default()
            );
            head.push_str(&format!(
                "Proxy-Authorization: Basic {}\r\n",
                base64::Engine::encode(&base64::prelude::BASE64_STANDARD, credentials)
            ));
        }
        head.push_str("\r\n");
        stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.flush())
            .map_err(|e| e.to_string())?;
        let answer = read_head(stream).map_err(|e| e.to_string())?;
        let status_line = answer.lines().next().unwrap_or_default().trim();
        let status = status_line.split_ascii_whitespace().nth(1).unwrap_or("");
        if status_line.starts_with("HTTP/1.") && status.len() == 3 && status.starts_with('2') {
            return Ok(());
        }
        let shown: String = status_line.chars().take(MAX_SHOWN_STATUS_LINE).collect();
        Err(format!("the proxy answered `{shown}'"))
    }
}

/// Reads an HTTP response head up to its blank line, one byte at a time: nothing after it is
/// taken from the stream (the tunnel's first bytes are the target's).
fn read_head(stream: &mut dyn Stream) -> io::Result<String> {
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_PROXY_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the proxy's answer has no end",
            ));
        }
        if stream.read(&mut byte)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        head.push(byte[0]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// A host without the brackets of an IPv6 address.
pub(crate) fn bare(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}

/// The addresses of `host` (a literal is its own), looked up within the deadline.
fn look_up(
    host: &str,
    port: u16,
    until: Instant,
    budget: Duration,
) -> Result<Vec<SocketAddr>, String> {
    let at = format!("{host}:{port}");
    match bare(host).parse::<IpAddr>() {
        Ok(ip) => Ok(vec![SocketAddr::new(ip, port)]),
        Err(_) => {
            let (tx, rx) = mpsc::sync_channel(1);
            let name = (bare(host).to_owned(), port);
            thread::spawn(move || {
                let _ = tx.send(name.to_socket_addrs().map(Iterator::collect::<Vec<_>>));
            });
            let wait = left(until, budget).map_err(|e| format!("{at}: {e}"))?;
            match rx.recv_timeout(wait) {
                Ok(found) => found.map_err(|e| format!("{at}: {e}")),
                Err(_) => Err(format!("{at}: the name lookup {}", timed_out(budget))),
            }
        }
    }
}

/// The error that refuses `addrs` when `policy` refuses one of them.
fn refuse(
    host: &str,
    port: u16,
    addrs: &[SocketAddr],
    policy: AddressPolicy,
) -> Result<(), String> {
    match addrs.iter().find_map(|a| policy.refuses(a.ip())) {
        Some(class) => Err(format!(
            "{host}:{port} resolves to {}, not connected to",
            class.name()
        )),
        None => Ok(()),
    }
}

/// A TCP connection to `host:port` made by `until`: the name looked up on a thread of its own
/// (std's lookup cannot be cut short; the thread ends when the lookup does), then each of its
/// addresses tried in turn with the time left. With `policy`, a name with an address it
/// refuses is not connected to at all.
fn connect(
    host: &str,
    port: u16,
    until: Instant,
    budget: Duration,
    policy: Option<AddressPolicy>,
) -> Result<Deadline, String> {
    let at = format!("{host}:{port}");
    let addrs = look_up(host, port, until, budget)?;
    if let Some(policy) = policy {
        refuse(host, port, &addrs, policy)?;
    }
    let mut last = format!("{at}: no address");
    for addr in addrs {
        let wait = left(until, budget).map_err(|e| format!("{at}: {e}"))?;
        match TcpStream::connect_timeout(&addr, wait) {
            Ok(sock) => {
                return Ok(Deadline {
                    sock,
                    until,
                    budget,
                });
            }
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                last = format!("{addr}: {}", timed_out(budget));
            }
            Err(e) => last = format!("{addr}: {e}"),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_address_is_not_connected_to_unless_exempt() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let route = Route {
            addresses: AddressPolicy::ALL,
            ..Route::default()
        };
        let budget = Duration::from_secs(5);
        let e = route.open("127.0.0.1", port, budget).err().unwrap();
        assert!(e.contains("a loopback address, not connected to"), "{e}");
        assert!(listener.accept().is_err(), "no connection was made");
        // A start site's own host is exempt.
        let route = Route {
            exempt: vec![format!("127.0.0.1:{port}")],
            ..route
        };
        assert!(route.open("127.0.0.1", port, budget).is_ok());
    }

    #[test]
    fn a_proxy_is_not_asked_for_a_refused_address() {
        let proxy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        proxy.set_nonblocking(true).unwrap();
        let port = proxy.local_addr().unwrap().port();
        let route = Route {
            proxy: Some(Proxy::new(&format!("http://127.0.0.1:{port}")).unwrap()),
            addresses: AddressPolicy::ALL,
            ..Route::default()
        };
        let budget = Duration::from_secs(5);
        for (host, class) in [
            ("169.254.169.254", "a link-local address"),
            ("[fd00:ec2::254]", "a cloud metadata address"),
            ("10.0.0.1", "a private address"),
            ("localhost", "a loopback address"),
        ] {
            let e = route.open(host, 80, budget).err().unwrap();
            assert!(e.contains(class), "{host}: {e}");
        }
        assert!(proxy.accept().is_err(), "the proxy was never asked");
    }
}
