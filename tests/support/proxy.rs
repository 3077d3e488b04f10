//! A tiny loopback forward proxy for the tests: `TestProxy::start()` binds `127.0.0.1:0` and
//! serves each client connection on its own thread. `CONNECT host:port` (what ureq sends for
//! every proxied request, plain `http` included) opens a TCP connection to the target and
//! tunnels bytes both ways; a request with an absolute URI (`GET http://host:port/path`) is
//! forwarded once in origin form with `Connection: close`. Every request head the proxy
//! receives is recorded (method, target, lower-cased headers), so a test can tell what went
//! through it. Dropping the proxy stops the accept loop and shuts down every open socket, so no
//! thread outlives it for long. Only loopback targets are expected: the tests never name
//! another host.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// How long the proxy waits to connect to a target.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// One request head the proxy received.
#[derive(Clone, Debug)]
pub struct ProxyRequest {
    /// `CONNECT`, `GET`, …
    pub method: String,
    /// `host:port` for CONNECT, the absolute URI otherwise.
    pub target: String,
    /// Header fields, names lower-cased.
    pub headers: Vec<(String, String)>,
}

impl ProxyRequest {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Shared {
    log: Mutex<Vec<ProxyRequest>>,
    /// Clones of every socket opened, so `Drop` can shut them down; `None` once stopping.
    open: Mutex<Option<Vec<TcpStream>>>,
    /// Answer every request with 403 and connect nowhere.
    refuse: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Remembers `s` for shutdown; `false` when the proxy is stopping.
    fn track(&self, s: &TcpStream) -> bool {
        match (lock(&self.open).as_mut(), s.try_clone()) {
            (Some(open), Ok(clone)) => {
                open.push(clone);
                true
            }
            _ => false,
        }
    }
}

/// A running proxy; dropping it shuts it down.
pub struct TestProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl TestProxy {
    /// Listens on `127.0.0.1:<free port>`.
    pub fn start() -> TestProxy {
        TestProxy::listen(false)
    }

    /// Listens on `127.0.0.1:<free port>`, records every request and refuses it (403).
    pub fn refusing() -> TestProxy {
        TestProxy::listen(true)
    }

    fn listen(refuse: bool) -> TestProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("TestProxy: bind");
        let addr = listener.local_addr().expect("TestProxy: local_addr");
        let shared = Arc::new(Shared {
            log: Mutex::new(Vec::new()),
            open: Mutex::new(Some(Vec::new())),
            refuse,
        });
        let accept_shared = shared.clone();
        let accept = thread::Builder::new()
            .name(format!("test-proxy-{addr}"))
            .spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { continue };
                    if !accept_shared.track(&stream) {
                        return;
                    }
                    let conn_shared = accept_shared.clone();
                    let _ = thread::Builder::new()
                        .name("test-proxy-conn".into())
                        .spawn(move || serve(stream, &conn_shared));
                }
            })
            .expect("TestProxy: spawn");
        TestProxy {
            addr,
            shared,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request head received, in arrival order.
    pub fn requests(&self) -> Vec<ProxyRequest> {
        lock(&self.shared.log).clone()
    }

    /// The targets asked for (`host:port` or absolute URIs), in arrival order.
    pub fn targets(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.target).collect()
    }
}

impl Drop for TestProxy {
    fn drop(&mut self) {
        let open = lock(&self.shared.open).take().unwrap_or_default();
        for s in &open {
            let _ = s.shutdown(Shutdown::Both);
        }
        // Wake the accept loop: it sees the proxy stopping and returns.
        if TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)).is_ok()
            && let Some(accept) = self.accept.take()
        {
            let _ = accept.join();
        }
    }
}

/// Reads a request head: the request line and the header fields.
fn read_head(reader: &mut BufReader<TcpStream>) -> Option<ProxyRequest> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_ascii_whitespace();
    let (method, target) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    Some(ProxyRequest {
        method,
        target,
        headers,
    })
}

fn serve(client: TcpStream, shared: &Shared) {
    let Ok(read_half) = client.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let Some(req) = read_head(&mut reader) else {
        return;
    };
    lock(&shared.log).push(req.clone());
    let mut client = client;
    if shared.refuse {
        let _ = client.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
    } else if req.method == "CONNECT" {
        tunnel(&req.target, reader, client, shared);
    } else if let Err(e) = forward(&req, &mut client, shared) {
        let _ = write!(
            client,
            "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        eprintln!("test proxy: {} {}: {e}", req.method, req.target);
    }
}

fn connect(target: &str, shared: &Shared) -> io::Result<TcpStream> {
    let addr: SocketAddr = target
        .parse()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{target}: {e}")))?;
    let upstream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)?;
    if !shared.track(&upstream) {
        return Err(io::Error::other("stopping"));
    }
    Ok(upstream)
}

/// `CONNECT host:port`: answer 200, then copy bytes both ways until either side closes.
fn tunnel(target: &str, mut reader: BufReader<TcpStream>, mut client: TcpStream, shared: &Shared) {
    let mut upstream = match connect(target, shared) {
        Ok(u) => u,
        Err(_) => {
            let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
            return;
        }
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .is_err()
    {
        return;
    }
    // Bytes the client sent right after its CONNECT head are in the reader's buffer.
    let early = reader.buffer().to_vec();
    reader.consume(early.len());
    if upstream.write_all(&early).is_err() {
        return;
    }
    let (Ok(mut up_read), Ok(mut client_write)) = (upstream.try_clone(), client.try_clone()) else {
        return;
    };
    let back = thread::spawn(move || {
        let _ = io::copy(&mut up_read, &mut client_write);
        let _ = client_write.shutdown(Shutdown::Write);
    });
    let _ = io::copy(&mut reader, &mut upstream);
    let _ = upstream.shutdown(Shutdown::Write);
    let _ = back.join();
}

/// `GET http://host:port/path`: one request in origin form, the answer copied back.
fn forward(req: &ProxyRequest, client: &mut TcpStream, shared: &Shared) -> io::Result<()> {
    let rest = req
        .target
        .strip_prefix("http://")
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not an http:// URI"))?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut upstream = connect(authority, shared)?;
    let mut head = format!(
        "{} {} HTTP/1.1\r\n",
        req.method,
        if path.is_empty() { "/" } else { path }
    );
    for (k, v) in &req.headers {
        if !k.starts_with("proxy-") && k != "connection" {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str("connection: close\r\n\r\n");
    upstream.write_all(head.as_bytes())?;
    let mut answer = Vec::new();
    upstream.read_to_end(&mut answer)?;
    client.write_all(&answer)?;
    client.shutdown(Shutdown::Write)
}
