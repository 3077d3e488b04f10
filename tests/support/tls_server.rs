//! A tiny HTTPS server on 127.0.0.1:0 (rustls, the self-signed test certificate in
//! tests/data/tls) answering every request with one HTML page: for the cert-expiry plugin, and
//! for certificate failures (verified, the certificate is refused). Or one whose answers a
//! closure gives, by method and target (an https login page). Or one that serves its first
//! connection only and, on every later one, sends the start of a TLS record one byte at a
//! time, every 1.5 s. Or one that speaks plain HTTP and HTTPS on the same port, told apart by
//! the first byte a client sends (an `http:` URL and its `https:` twin).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

/// One request as the server read it.
#[derive(Clone, Debug)]
pub struct TlsRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target, query included.
    pub target: String,
    /// The body (read when `Content-Length` is given).
    pub body: Vec<u8>,
    /// Read over TLS (not plain HTTP, on a server that speaks both).
    pub tls: bool,
}

/// An answer: the status, header fields beside `Content-Length`, the HTML body.
pub type TlsReply = (u16, Vec<(String, String)>, String);

/// What answers each request.
type Handler = dyn Fn(&TlsRequest) -> TlsReply + Send + Sync;

/// The server; dropping it stops accepting (connections in flight end on their own).
pub struct TlsServer {
    port: u16,
    stop: Arc<AtomicBool>,
    /// Connections accepted so far.
    accepted: Arc<AtomicUsize>,
    /// Every request read, in arrival order.
    log: Arc<Mutex<Vec<TlsRequest>>>,
}

/// The gap between two bytes of a dripping connection.
pub const DRIP_EVERY: Duration = Duration::from_millis(1500);

impl TlsServer {
    /// Serves `html` for every path.
    pub fn start(html: &str) -> TlsServer {
        TlsServer::start_with(page(html), Mode::Tls)
    }

    /// Serves `html` for every path, over TLS and over plain HTTP on the same port.
    pub fn start_dual(html: &str) -> TlsServer {
        TlsServer::start_with(page(html), Mode::Dual)
    }

    /// Answers each request with what `handler` says.
    pub fn start_answering(
        handler: impl Fn(&TlsRequest) -> TlsReply + Send + Sync + 'static,
    ) -> TlsServer {
        TlsServer::start_with(Arc::new(handler), Mode::Tls)
    }

    /// Serves `html` on its first connection; every later one gets a TLS record header, then
    /// one byte every [`DRIP_EVERY`] until the client goes away.
    pub fn start_dripping_after_first(html: &str) -> TlsServer {
        TlsServer::start_with(page(html), Mode::DripAfterFirst)
    }

    fn start_with(handler: Arc<Handler>, mode: Mode) -> TlsServer {
        let cert = include_bytes!("../data/tls/localhost.cert.der").to_vec();
        let key = include_bytes!("../data/tls/localhost.key.der").to_vec();
        let config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_no_client_auth()
                .with_single_cert(
                    vec![CertificateDer::from(cert)],
                    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key)),
                )
                .unwrap();
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let accepted = Arc::new(AtomicUsize::new(0));
        let log = Arc::new(Mutex::new(Vec::new()));
        let (flag, count, requests) = (stop.clone(), accepted.clone(), log.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let first = count.fetch_add(1, Ordering::SeqCst) == 0;
                let (config, handler, log) = (config.clone(), handler.clone(), requests.clone());
                match mode {
                    Mode::DripAfterFirst if !first => thread::spawn(move || drip_to(stream)),
                    Mode::Dual => {
                        thread::spawn(move || serve_either(stream, config, &*handler, &log))
                    }
                    _ => thread::spawn(move || serve(stream, config, &*handler, &log)),
                };
            }
        });
        TlsServer {
            port,
            stop,
            accepted,
            log,
        }
    }

    /// Every request read so far.
    pub fn requests(&self) -> Vec<TlsRequest> {
        self.log.lock().unwrap().clone()
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `https://127.0.0.1:PORT/path`.
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// What a server speaks.
#[derive(Clone, Copy)]
enum Mode {
    Tls,
    /// TLS on the first connection, a stalled handshake on every later one.
    DripAfterFirst,
    /// TLS or plain HTTP, by the first byte of each connection.
    Dual,
}

/// Serves one connection over TLS when its first byte opens a handshake record (`0x16`),
/// else as plain HTTP.
fn serve_either(
    stream: TcpStream,
    config: Arc<ServerConfig>,
    handler: &Handler,
    log: &Mutex<Vec<TlsRequest>>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut first = [0u8; 1];
    match stream.peek(&mut first) {
        Ok(1) if first[0] == 0x16 => serve(stream, config, handler, log),
        Ok(1) => answer(BufReader::new(stream), false, handler, log),
        _ => {}
    }
}

/// The header of a 16 KiB handshake record, then its bytes one by one, every [`DRIP_EVERY`],
/// until a write fails (the client closed the connection).
fn drip_to(mut stream: TcpStream) {
    let mut sent = stream.write_all(&[0x16, 0x03, 0x03, 0x40, 0x00]);
    while sent.is_ok() {
        thread::sleep(DRIP_EVERY);
        sent = stream.write_all(&[0]);
    }
}

/// A handler that answers `html` with 200 to everything.
fn page(html: &str) -> Arc<Handler> {
    let html = html.to_owned();
    Arc::new(move |_: &TlsRequest| (200, Vec::new(), html.clone()))
}

/// Answers the requests of one connection (keep-alive) until it closes or fails.
fn serve(
    stream: TcpStream,
    config: Arc<ServerConfig>,
    handler: &Handler,
    log: &Mutex<Vec<TlsRequest>>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(conn) = ServerConnection::new(config) else {
        return;
    };
    answer(
        BufReader::new(StreamOwned::new(conn, stream)),
        true,
        handler,
        log,
    );
}

/// Answers the requests read from `tls` (TLS or, when `tls` is false, plain) until it closes.
fn answer<S: Read + Write>(
    mut tls: BufReader<S>,
    over_tls: bool,
    handler: &Handler,
    log: &Mutex<Vec<TlsRequest>>,
) {
    loop {
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            match tls.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if line == "\r\n" => break,
                Ok(_) => head.push(line),
            }
        }
        let mut words = head.first().map_or("", |l| l.as_str()).split_whitespace();
        let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let length = head.iter().find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        });
        let mut body = vec![0; length.unwrap_or(0).min(1 << 20)];
        if tls.read_exact(&mut body).is_err() {
            return;
        }
        let request = TlsRequest {
            method: method.to_owned(),
            target: target.to_owned(),
            body,
            tls: over_tls,
        };
        let (status, headers, html) = handler(&request);
        log.lock().unwrap().push(request);
        let mut response = format!("HTTP/1.1 {status} Status\r\nContent-Type: text/html\r\n");
        for (name, value) in headers {
            response.push_str(&format!("{name}: {value}\r\n"));
        }
        let body = if method == "HEAD" { "" } else { &html };
        response.push_str(&format!("Content-Length: {}\r\n\r\n{body}", html.len()));
        let out = tls.get_mut();
        if out
            .write_all(response.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}
