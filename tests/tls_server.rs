//! A tiny HTTPS server on 127.0.0.1:0 (rustls, the self-signed test certificate in
//! tests/data/tls) answering every request with one HTML page: for the cert-expiry plugin, and
//! for certificate failures (verified, the certificate is refused).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

/// The server; dropping it stops accepting (connections in flight end on their own).
pub struct TlsServer {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl TlsServer {
    /// Serves `html` for every path.
    pub fn start(html: &str) -> TlsServer {
        let cert = include_bytes!("data/tls/localhost.cert.der").to_vec();
        let key = include_bytes!("data/tls/localhost.key.der").to_vec();
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
        let (flag, html) = (stop.clone(), html.to_owned());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (config, html) = (config.clone(), html.clone());
                thread::spawn(move || serve(stream, config, &html));
            }
        });
        TlsServer { port, stop }
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

/// Answers the requests of one connection (keep-alive) until it closes or fails.
fn serve(stream: TcpStream, config: Arc<ServerConfig>, html: &str) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(conn) = ServerConnection::new(config) else {
        return;
    };
    let mut tls = BufReader::new(StreamOwned::new(conn, stream));
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
        let body = if head.first().is_some_and(|l| l.starts_with("HEAD")) {
            ""
        } else {
            html
        };
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
            html.len()
        );
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
