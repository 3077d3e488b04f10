//! A small std-only HTTP/1.1 keep-alive server for linkpatrol's integration tests.
//!
//! `TestServer::start(routes)` binds `127.0.0.1:0` (or another loopback address with
//! `start_on`), accepts on its own thread and serves every connection on its own thread,
//! answering many requests per connection until the client closes or asks for
//! `Connection: close`. Each request is recorded (method, target, lower-cased headers, body,
//! arrival time, peer address, connection number) so tests can assert on what the crawler sent
//! and whether it reused connections, and the end of each response (`TestServer::ends`: whole,
//! or cut short by the client going away), so tests can order events without a clock. `Routes` maps exact paths to a `Reply` and falls back to
//! closures (`Routes::dynamic`) and finally to a small HTML 404. A `Reply` is a real behaviour on
//! the socket: a page, any status with headers, a redirect, a 429, a delay, a hang, a dropped
//! connection, a huge or slow body, or raw bytes. Every response head (and a small body) goes out
//! in one `write_all` on a `TCP_NODELAY` socket, which avoids the 40 ms Nagle/delayed-ACK stall
//! per keep-alive request. Dropping the server stops the accept loop, wakes delayed and hanging
//! handlers, shuts down every open connection and returns within about half a second. This
//! module must be declared `pub mod server;` in a `pub` module of the test crate: `pub` items in a private
//! module of a test binary still trigger `dead_code` warnings.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Longest request line or header line accepted, in bytes.
const MAX_LINE: u64 = 16 * 1024;
/// Most header lines accepted in one request.
const MAX_HEADERS: usize = 200;
/// Largest request body accepted (`Content-Length`), in bytes.
const MAX_BODY: usize = 64 << 20;
/// Size of each write for `Reply::huge`.
const HUGE_CHUNK: usize = 64 * 1024;
/// How long `Drop` waits for connection threads to finish.
const DROP_GRACE: Duration = Duration::from_millis(500);
/// How long `Drop` waits for the self-connection that unblocks `accept`.
const WAKE_TIMEOUT: Duration = Duration::from_millis(200);

/// One request as the server received it.
#[derive(Clone, Debug)]
pub struct Request {
    /// Method as sent, e.g. `GET` or `HEAD`.
    pub method: String,
    /// Request target including the query, e.g. `/a/b?x=1`.
    pub path: String,
    /// Protocol version as sent, e.g. `HTTP/1.1`.
    pub version: String,
    /// Header fields in arrival order; names lower-cased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// Request body (read only when `Content-Length` is present).
    pub body: Vec<u8>,
    /// When the request line arrived.
    pub at: Instant,
    /// Client address; the same port on two requests means the connection was reused.
    pub peer: SocketAddr,
    /// Sequence number of the connection (0 for the first connection accepted).
    pub conn: usize,
    /// Position of this request on its connection (0 for the first).
    pub nth_on_conn: usize,
}

impl Request {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The target without its query string.
    pub fn path_only(&self) -> &str {
        self.path.split_once('?').map_or(&self.path, |(p, _)| p)
    }

    /// The query string (after `?`), if any.
    pub fn query(&self) -> Option<&str> {
        self.path.split_once('?').map(|(_, q)| q)
    }

    fn wants_keep_alive(&self) -> bool {
        let connection = self.header("connection").unwrap_or("");
        let has = |token: &str| {
            connection
                .split(',')
                .any(|t| t.trim().eq_ignore_ascii_case(token))
        };
        let keep = if self.version == "HTTP/1.0" {
            has("keep-alive")
        } else {
            !has("close")
        };
        // Chunked request bodies are not decoded, so the stream cannot be resynchronised.
        keep && self.header("transfer-encoding").is_none()
    }
}

/// How one response ended, in the order responses ended (`TestServer::ends`).
#[derive(Clone, Debug)]
pub struct End {
    /// Request target of the request answered, including the query.
    pub path: String,
    /// Sequence number of the connection.
    pub conn: usize,
    /// When the response ended.
    pub at: Instant,
    /// Body bytes written (0 for a `HEAD`, a hang or a dropped connection).
    pub body_sent: usize,
    /// The whole response was written; false when a write failed (the client went away) or
    /// the server stopped first.
    pub whole: bool,
}

/// What the server does with one request.
#[derive(Clone, Debug)]
enum Kind {
    /// A normal response with this body.
    Bytes(Arc<[u8]>),
    /// `len` filler bytes, written in chunks.
    Huge(usize),
    /// The body written one byte per `interval`.
    Slow(Arc<[u8]>, Duration),
    /// These bytes verbatim, then close.
    Raw(Arc<[u8]>),
    /// Never answer until the server is dropped.
    Hang,
    /// Close the connection without writing anything.
    DropConnection,
}

/// A response behaviour. Build one with a constructor, then adjust it with the builder methods.
#[derive(Clone, Debug)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    kind: Kind,
    delay: Duration,
    refuse_head: bool,
    close: bool,
}

impl Reply {
    fn with_kind(status: u16, kind: Kind) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            kind,
            delay: Duration::ZERO,
            refuse_head: false,
            close: false,
        }
    }

    /// `200 OK`, `text/html; charset=utf-8`, this body.
    pub fn html(body: impl Into<String>) -> Reply {
        Reply::status(200)
            .content_type("text/html; charset=utf-8")
            .body(body.into())
    }

    /// This status with an empty body and no `Content-Type`.
    pub fn status(code: u16) -> Reply {
        Reply::with_kind(code, Kind::Bytes(Arc::from(&[][..])))
    }

    /// `404 Not Found` with a small HTML body (the default for unknown paths).
    pub fn not_found() -> Reply {
        Reply::status(404)
            .content_type("text/html; charset=utf-8")
            .body("<!doctype html><title>404 Not Found</title><h1>404 Not Found</h1>\n")
    }

    /// A redirect (`301`, `302`, `303`, `307` or `308`) to `location`, empty body.
    pub fn redirect(code: u16, location: &str) -> Reply {
        Reply::status(code).header("Location", location)
    }

    /// `429 Too Many Requests` with `Retry-After: retry_after` (seconds or an HTTP date).
    pub fn too_many_requests(retry_after: &str) -> Reply {
        Reply::status(429).header("Retry-After", retry_after)
    }

    /// `200` with a body of `len` filler bytes (`xxx…\n` lines), written in 64 KiB chunks with
    /// `Content-Length: len`. HTML content type.
    pub fn huge(len: usize) -> Reply {
        Reply::with_kind(200, Kind::Huge(len)).content_type("text/html; charset=utf-8")
    }

    /// `200` HTML page whose body is written one byte per `interval` after the head.
    pub fn slow_body(body: impl Into<Vec<u8>>, interval: Duration) -> Reply {
        Reply::with_kind(200, Kind::Slow(Arc::from(body.into()), interval))
            .content_type("text/html; charset=utf-8")
    }

    /// Write exactly these bytes (status line, headers, body: nothing is added), then close.
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Reply {
        Reply::with_kind(0, Kind::Raw(Arc::from(bytes.into())))
    }

    /// Read the request, then never answer until the server is dropped.
    pub fn hang() -> Reply {
        Reply::with_kind(0, Kind::Hang)
    }

    /// Read the request, then close the connection without sending a byte.
    pub fn drop_connection() -> Reply {
        Reply::with_kind(0, Kind::DropConnection)
    }

    /// Replace the status code.
    pub fn with_status(mut self, code: u16) -> Reply {
        self.status = code;
        self
    }

    /// Replace the body (keeps the slow pacing of `slow_body`; otherwise a plain body).
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Reply {
        let bytes: Arc<[u8]> = Arc::from(body.into());
        self.kind = match self.kind {
            Kind::Slow(_, interval) => Kind::Slow(bytes, interval),
            _ => Kind::Bytes(bytes),
        };
        self
    }

    /// Set (replace) the `Content-Type` header.
    pub fn content_type(mut self, value: &str) -> Reply {
        self.headers
            .retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
        self.header("Content-Type", value)
    }

    /// Add a header (repeats allowed). Setting `Content-Length` yourself disables the automatic
    /// one and closes the connection after the response; `Connection: close` also closes it.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Wait `delay` after reading the request before answering (cut short by server drop).
    pub fn delayed(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    /// Answer `HEAD` with `405 Method Not Allowed` (`Allow: GET`); other methods as usual.
    pub fn refuse_head(mut self) -> Reply {
        self.refuse_head = true;
        self
    }

    /// Send `Connection: close` and close the connection after this response.
    pub fn close(mut self) -> Reply {
        self.close = true;
        self
    }

    fn has_header(&self, name: &str) -> bool {
        self.headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(name))
    }

    fn says_close(&self) -> bool {
        self.headers.iter().any(|(k, v)| {
            k.eq_ignore_ascii_case("connection")
                && v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close"))
        })
    }
}

/// A closure route: `Some(reply)` answers the request, `None` passes it on.
pub type Handler = dyn Fn(&Request) -> Option<Reply> + Send + Sync;

enum Route {
    Fixed(Reply),
    /// The n-th request gets the n-th reply; the last one repeats.
    Sequence(AtomicUsize, Vec<Reply>),
}

/// The site served by a `TestServer`.
///
/// Lookup order: exact routes (first by the full target including the query, then by the path
/// without the query), then `dynamic` closures in the order added, then the fallback (a small
/// HTML 404 unless replaced). Adding an exact route for a path again replaces it.
pub struct Routes {
    exact: HashMap<String, Route>,
    dynamic: Vec<Box<Handler>>,
    fallback: Reply,
    /// Close a kept-alive connection, unanswered, when a second request arrives on it.
    drop_reused: bool,
}

impl Default for Routes {
    fn default() -> Routes {
        Routes::new()
    }
}

impl Routes {
    /// No routes: everything is a 404.
    pub fn new() -> Routes {
        Routes {
            exact: HashMap::new(),
            dynamic: Vec::new(),
            fallback: Reply::not_found(),
            drop_reused: false,
        }
    }

    /// Answer only the first request of each connection: a request that arrives on a reused
    /// (kept-alive) connection is read, logged and answered by closing the connection without a
    /// byte — what a server whose keep-alive timeout fires just as the client reuses the
    /// connection does.
    pub fn drop_reused_connections(mut self) -> Routes {
        self.drop_reused = true;
        self
    }

    /// `path` serves this HTML with `200`.
    pub fn page(self, path: &str, html: &str) -> Routes {
        self.reply(path, Reply::html(html))
    }

    /// `path` gets `reply`.
    pub fn reply(mut self, path: &str, reply: Reply) -> Routes {
        self.exact.insert(path.to_owned(), Route::Fixed(reply));
        self
    }

    /// The n-th request to `path` (any method) gets `replies[n]`; the last reply repeats.
    /// Useful for retry tests, e.g. `[Reply::too_many_requests("1"), Reply::html("ok")]`.
    pub fn sequence(mut self, path: &str, replies: Vec<Reply>) -> Routes {
        assert!(
            !replies.is_empty(),
            "Routes::sequence needs at least one reply"
        );
        let route = Route::Sequence(AtomicUsize::new(0), replies);
        self.exact.insert(path.to_owned(), route);
        self
    }

    /// A closure consulted (in the order added) for requests no exact route matched.
    pub fn dynamic(
        mut self,
        handler: impl Fn(&Request) -> Option<Reply> + Send + Sync + 'static,
    ) -> Routes {
        self.dynamic.push(Box::new(handler));
        self
    }

    /// The reply for requests nothing else matched (default: `Reply::not_found()`).
    pub fn fallback(mut self, reply: Reply) -> Routes {
        self.fallback = reply;
        self
    }

    fn resolve(&self, req: &Request) -> Reply {
        let exact = self
            .exact
            .get(&req.path)
            .or_else(|| self.exact.get(req.path_only()));
        match exact {
            Some(Route::Fixed(reply)) => reply.clone(),
            Some(Route::Sequence(next, replies)) => {
                let n = next.fetch_add(1, Ordering::SeqCst);
                replies[n.min(replies.len() - 1)].clone()
            }
            None => self
                .dynamic
                .iter()
                .find_map(|handler| handler(req))
                .unwrap_or_else(|| self.fallback.clone()),
        }
    }
}

struct State {
    stopping: bool,
    accepted: usize,
    /// A clone of every open connection, so `Drop` can shut them down.
    open: HashMap<usize, TcpStream>,
    log: Vec<Request>,
    ends: Vec<End>,
}

struct Shared {
    routes: Routes,
    state: Mutex<State>,
    /// Notified when `stopping` becomes true (wakes delays, hangs and slow bodies).
    stop: Condvar,
    /// Notified when the log grows or a connection closes.
    changed: Condvar,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Waits up to `timeout`; true if the server is stopping.
    fn wait_stopping(&self, timeout: Duration) -> bool {
        let state = lock(&self.state);
        let (state, _) = self
            .stop
            .wait_timeout_while(state, timeout, |s| !s.stopping)
            .unwrap_or_else(PoisonError::into_inner);
        state.stopping
    }

    fn wait_until_stopping(&self) {
        let state = lock(&self.state);
        let _state = self
            .stop
            .wait_while(state, |s| !s.stopping)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// A running test server; dropping it shuts it down.
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Serve `routes` on `127.0.0.1:<free port>`.
    pub fn start(routes: Routes) -> TestServer {
        TestServer::start_on("127.0.0.1", routes)
    }

    /// Serve `routes` on `ip:<free port>`, e.g. `127.0.0.2` for a second host.
    pub fn start_on(ip: &str, routes: Routes) -> TestServer {
        let ip: IpAddr = ip
            .parse()
            .unwrap_or_else(|e| panic!("TestServer: bad IP address {ip:?}: {e}"));
        let listener = TcpListener::bind((ip, 0))
            .unwrap_or_else(|e| panic!("TestServer: cannot bind {ip}:0: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("TestServer: local_addr: {e}"));
        let shared = Arc::new(Shared {
            routes,
            state: Mutex::new(State {
                stopping: false,
                accepted: 0,
                open: HashMap::new(),
                log: Vec::new(),
                ends: Vec::new(),
            }),
            stop: Condvar::new(),
            changed: Condvar::new(),
        });
        let accept_shared = Arc::clone(&shared);
        let accept = thread::Builder::new()
            .name(format!("test-server-accept-{addr}"))
            .spawn(move || accept_loop(&listener, &accept_shared))
            .unwrap_or_else(|e| panic!("TestServer: cannot spawn accept thread: {e}"));
        TestServer {
            addr,
            shared,
            accept: Some(accept),
        }
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://IP:PORT` (no trailing slash).
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://IP:PORT/path`; a missing leading `/` is added.
    pub fn url(&self, path: &str) -> String {
        let slash = if path.starts_with('/') { "" } else { "/" };
        format!("http://{}{slash}{path}", self.addr)
    }

    /// A copy of the request log, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.state).log.clone()
    }

    /// How each response ended so far, in the order they ended.
    pub fn ends(&self) -> Vec<End> {
        lock(&self.shared.state).ends.clone()
    }

    /// Number of `GET` and `HEAD` requests whose target (with query) equals `path`.
    pub fn count(&self, path: &str) -> usize {
        self.count_method("GET", path) + self.count_method("HEAD", path)
    }

    /// Number of `method` requests whose target (with query) equals `path`.
    pub fn count_method(&self, method: &str, path: &str) -> usize {
        lock(&self.shared.state)
            .log
            .iter()
            .filter(|r| r.method == method && r.path == path)
            .count()
    }

    /// Number of connections accepted so far.
    pub fn connections(&self) -> usize {
        lock(&self.shared.state).accepted
    }

    /// Empty the request log (connection numbering continues).
    pub fn clear_requests(&self) {
        lock(&self.shared.state).log.clear();
    }

    /// Block until at least `n` requests are logged; false if `timeout` passed first.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let state = lock(&self.shared.state);
        let (state, _) = self
            .shared
            .changed
            .wait_timeout_while(state, timeout, |s| s.log.len() < n)
            .unwrap_or_else(PoisonError::into_inner);
        state.log.len() >= n
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        lock(&self.shared.state).stopping = true;
        self.shared.stop.notify_all();
        // Unblock `accept` with one connection; join only if it got through, so a full backlog
        // cannot make Drop hang.
        if TcpStream::connect_timeout(&self.addr, WAKE_TIMEOUT).is_ok()
            && let Some(accept) = self.accept.take()
        {
            let _ = accept.join();
        }
        let mut state = lock(&self.shared.state);
        for stream in state.open.values() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        let deadline = Instant::now() + DROP_GRACE;
        while !state.open.is_empty() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    loop {
        let accepted = listener.accept();
        let mut state = lock(&shared.state);
        if state.stopping {
            return;
        }
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(_) => {
                drop(state);
                // e.g. EMFILE: back off briefly instead of spinning.
                thread::sleep(Duration::from_millis(5));
                continue;
            }
        };
        let Ok(clone) = stream.try_clone() else {
            continue;
        };
        let conn = state.accepted;
        state.accepted += 1;
        state.open.insert(conn, clone);
        drop(state);
        let conn_shared = Arc::clone(shared);
        let spawned = thread::Builder::new()
            .name(format!("test-server-conn-{conn}"))
            .spawn(move || {
                let _guard = OpenGuard {
                    shared: &conn_shared,
                    conn,
                };
                serve_connection(stream, peer, conn, &conn_shared);
            });
        if spawned.is_err() {
            lock(&shared.state).open.remove(&conn);
        }
    }
}

/// Removes a connection from the open set when its thread ends (even by panic).
struct OpenGuard<'a> {
    shared: &'a Shared,
    conn: usize,
}

impl Drop for OpenGuard<'_> {
    fn drop(&mut self) {
        lock(&self.shared.state).open.remove(&self.conn);
        self.shared.changed.notify_all();
    }
}

enum Next {
    KeepAlive,
    Close,
}

fn serve_connection(stream: TcpStream, peer: SocketAddr, conn: usize, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    for nth_on_conn in 0.. {
        let req = match read_request(&mut reader, peer, conn, nth_on_conn) {
            Ok(Some(req)) => req,
            Ok(None) => break,
            Err(BadRequest) => {
                let _ = writer.write_all(&response_head(400, &[], Some(0), true));
                break;
            }
        };
        let keep_alive = req.wants_keep_alive();
        lock(&shared.state).log.push(req.clone());
        shared.changed.notify_all();
        if shared.routes.drop_reused && nth_on_conn > 0 {
            break;
        }
        let reply = shared.routes.resolve(&req);
        let mut body_sent = 0;
        let next = respond(
            &mut writer,
            &req,
            &reply,
            keep_alive,
            shared,
            &mut body_sent,
        );
        let whole = next.is_ok()
            && !matches!(reply.kind, Kind::Hang | Kind::DropConnection)
            && !lock(&shared.state).stopping;
        let end = End {
            path: req.path.clone(),
            conn,
            at: Instant::now(),
            body_sent,
            whole,
        };
        lock(&shared.state).ends.push(end);
        shared.changed.notify_all();
        match next {
            Ok(Next::KeepAlive) => {}
            Ok(Next::Close) | Err(_) => break,
        }
    }
    let _ = writer.flush();
    let _ = writer.shutdown(Shutdown::Write);
}

struct BadRequest;

/// Reads one line (with its `\n`) into `buf`; `Ok(0)` at end of stream.
fn read_line(reader: &mut BufReader<TcpStream>, buf: &mut Vec<u8>) -> io::Result<usize> {
    buf.clear();
    reader.by_ref().take(MAX_LINE).read_until(b'\n', buf)
}

/// `Ok(None)` when the connection ended (or failed) before a complete request.
fn read_request(
    reader: &mut BufReader<TcpStream>,
    peer: SocketAddr,
    conn: usize,
    nth_on_conn: usize,
) -> Result<Option<Request>, BadRequest> {
    let mut buf = Vec::new();
    // Skip empty lines between requests (RFC 9112 §2.2).
    let line = loop {
        match read_line(reader, &mut buf) {
            Ok(0) | Err(_) => return Ok(None),
            Ok(_) if !buf.ends_with(b"\n") => return Err(BadRequest),
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf).trim().to_owned();
        if !line.is_empty() {
            break line;
        }
    };
    let at = Instant::now();
    let mut parts = line.split_ascii_whitespace();
    let (Some(method), Some(path), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(BadRequest);
    };
    if !version.starts_with("HTTP/") {
        return Err(BadRequest);
    }
    let mut headers = Vec::new();
    loop {
        match read_line(reader, &mut buf) {
            Ok(0) | Err(_) => return Ok(None),
            Ok(_) if !buf.ends_with(b"\n") => return Err(BadRequest),
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        if headers.len() == MAX_HEADERS {
            return Err(BadRequest);
        }
        let (name, value) = text.split_once(':').ok_or(BadRequest)?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut req = Request {
        method: method.to_owned(),
        path: path.to_owned(),
        version: version.to_owned(),
        headers,
        body: Vec::new(),
        at,
        peer,
        conn,
        nth_on_conn,
    };
    if let Some(len) = req.header("content-length") {
        let len: usize = len.parse().map_err(|_| BadRequest)?;
        if len > MAX_BODY {
            return Err(BadRequest);
        }
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return Ok(None);
        }
        req.body = body;
    }
    Ok(Some(req))
}

fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        206 => "Partial Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

fn response_head(
    status: u16,
    headers: &[(String, String)],
    content_length: Option<usize>,
    close: bool,
) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    if let Some(len) = content_length {
        let _ = write!(head, "Content-Length: {len}\r\n");
    }
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// Filler for `Reply::huge`: 63 `x` and a newline, repeated (64 divides the chunk size).
fn filler_chunk() -> Vec<u8> {
    (0..HUGE_CHUNK)
        .map(|i| if i % 64 == 63 { b'\n' } else { b'x' })
        .collect()
}

fn respond(
    w: &mut TcpStream,
    req: &Request,
    reply: &Reply,
    client_keep_alive: bool,
    shared: &Shared,
    body_sent: &mut usize,
) -> io::Result<Next> {
    if !reply.delay.is_zero() && shared.wait_stopping(reply.delay) {
        return Ok(Next::Close);
    }
    match &reply.kind {
        Kind::Hang => {
            shared.wait_until_stopping();
            return Ok(Next::Close);
        }
        Kind::DropConnection => return Ok(Next::Close),
        Kind::Raw(bytes) => {
            w.write_all(bytes)?;
            return Ok(Next::Close);
        }
        Kind::Bytes(_) | Kind::Huge(_) | Kind::Slow(..) => {}
    }
    let is_head = req.method == "HEAD";
    if reply.refuse_head && is_head {
        let allow = [("Allow".to_owned(), "GET".to_owned())];
        w.write_all(&response_head(405, &allow, Some(0), !client_keep_alive))?;
        return Ok(if client_keep_alive {
            Next::KeepAlive
        } else {
            Next::Close
        });
    }
    let status = reply.status;
    let user_length = reply.has_header("content-length");
    let user_close = reply.says_close();
    let close = !client_keep_alive || reply.close || user_length || user_close;
    let bodiless = (100..200).contains(&status) || status == 204 || status == 304;
    let len = match &reply.kind {
        Kind::Bytes(bytes) | Kind::Slow(bytes, _) => bytes.len(),
        Kind::Huge(len) => *len,
        Kind::Raw(_) | Kind::Hang | Kind::DropConnection => 0,
    };
    let content_length = (!user_length && !bodiless).then_some(len);
    let send_body = !is_head && !bodiless;
    let mut out = response_head(status, &reply.headers, content_length, close && !user_close);
    match &reply.kind {
        Kind::Bytes(bytes) => {
            if send_body {
                out.extend_from_slice(bytes);
            }
            w.write_all(&out)?;
            if send_body {
                *body_sent = bytes.len();
            }
        }
        Kind::Huge(len) if send_body => {
            let chunk = filler_chunk();
            let first = (*len).min(HUGE_CHUNK);
            out.extend_from_slice(&chunk[..first]);
            w.write_all(&out)?;
            *body_sent = first;
            let mut left = len - first;
            while left > 0 {
                let n = left.min(HUGE_CHUNK);
                w.write_all(&chunk[..n])?;
                *body_sent += n;
                left -= n;
            }
        }
        Kind::Slow(bytes, interval) if send_body => {
            w.write_all(&out)?;
            for byte in bytes.iter() {
                if shared.wait_stopping(*interval) {
                    return Ok(Next::Close);
                }
                w.write_all(&[*byte])?;
                *body_sent += 1;
            }
        }
        _ => w.write_all(&out)?,
    }
    Ok(if close { Next::Close } else { Next::KeepAlive })
}
