//! The agent's TCP transport: ureq's own, less the system calls it adds to every request.
//!
//! On a pooled keep-alive connection ureq's `TcpTransport` spends ten system calls on a request
//! that needs two (one `send`, one `recv` for a small page), measured with `strace -c` on the
//! 20k-page bench crawl:
//! - its liveness probe (`is_open`) makes the socket non-blocking, reads one byte and makes it
//!   blocking again (three calls), and the pool runs it twice per request: when the connection
//!   goes back to the pool and when it is taken out (there under the pool's one lock);
//! - it sets the socket's read or write timeout before every read and write, because the time
//!   left in the phase (send the request, receive the response, receive the body) differs by
//!   microseconds from one call to the next.
//!
//! [`LeanTcpTransport`] keeps ureq's behaviour with fewer calls:
//! - it probes with a single `recv(MSG_PEEK | MSG_DONTWAIT)` (elsewhere than on Unix, ureq's
//!   three calls), and only when the connection is taken from the pool: a connection that was
//!   just read to the end of a response is open, and whatever the server sends or closes after
//!   that is seen by the probe at the take, which covers both;
//! - it sets a timeout only when the time left, rounded up to [`TIMEOUT_GRAIN`], changes, so a
//!   read or write may wait up to that much past its deadline.
//!
//! [`LeanTcpConnector`] opens the socket as ureq's `TcpConnector` does: each resolved address
//! in turn, the connect timeout split between them (the first gets half, the next a quarter,
//! and so on, never under 10 ms), moving on only after an error that concerns that address
//! alone; `TCP_NODELAY` as configured; the socket registered for `Agent::shutdown`.
//!
//! Why it stays: ureq's connector API is `unversioned` (it may change in a minor release, so
//! `Cargo.toml` pins ureq to `~3.5`), and the saving is a third of a crawl's system calls. What
//! would retire it: a ureq release whose `TcpTransport` probes a pooled connection once, with
//! one peek, and sets a socket timeout only when it changes; then this file goes and the pin
//! with it (`connection.rs` still needs the connector chain, as a pass-through).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, Either, LazyBuffers, NextTimeout, ShutdownHandle,
    Transport,
};
use ureq::{Error, Timeout};

/// Timeouts are set on the socket rounded up to this: the one set stays while the time left
/// rounds to the same value (every phase of a quick request starts with the whole timeout).
pub(crate) const TIMEOUT_GRAIN: Duration = Duration::from_millis(10);

/// The least connect timeout an address gets when the budget is split between several.
const MIN_PER_ADDRESS: Duration = Duration::from_millis(10);

/// Opens plain TCP connections for the agent (first in the chain after the proxy connector;
/// TLS wraps what it returns). A transport opened by an earlier link is passed on untouched.
#[derive(Debug, Default)]
pub(crate) struct LeanTcpConnector;

impl<In: Transport> Connector<In> for LeanTcpConnector {
    type Out = Either<In, LeanTcpTransport>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, Error> {
        if let Some(transport) = chained {
            return Ok(Some(Either::A(transport)));
        }
        let stream = connect_any(&details.addrs[..], details.timeout)?;
        if details.config.no_delay() {
            stream.set_nodelay(true)?;
        }
        let stream = Arc::new(stream);
        let handle: Weak<dyn ShutdownHandle> = Arc::downgrade(&stream) as _;
        (details.register_shutdown)(handle)?;
        let buffers = LazyBuffers::new(
            details.config.input_buffer_size(),
            details.config.output_buffer_size(),
        );
        Ok(Some(Either::B(LeanTcpTransport {
            stream,
            buffers,
            read_timeout: None,
            write_timeout: None,
            just_used: false,
        })))
    }
}

/// Connects to the first of `addrs` that accepts, within `timeout` in all.
fn connect_any(addrs: &[SocketAddr], timeout: NextTimeout) -> Result<TcpStream, Error> {
    let start = Instant::now();
    let budget = socket_timeout(timeout);
    // Shares of the budget: 1/2, 1/4, … of it scaled so that they add up to the whole.
    let total_weight = 2.0 * (1.0 - 0.5_f64.powi(addrs.len() as i32));
    let mut weight = 1.0_f64;
    let mut last_err = None;
    for addr in addrs {
        let per_addr = budget.map(|b| b.mul_f64(weight / total_weight).max(MIN_PER_ADDRESS));
        let attempt = match per_addr {
            Some(t) => TcpStream::connect_timeout(addr, t),
            None => TcpStream::connect(addr),
        };
        match attempt {
            Ok(stream) => return Ok(stream),
            Err(e) if is_timeout(&e) => {
                if budget.is_some_and(|b| start.elapsed() > b) {
                    return Err(Error::Timeout(timeout.reason));
                }
                last_err = Some(Error::Timeout(Timeout::Connect));
            }
            Err(e) if concerns_address_only(&e) => last_err = Some(Error::Io(e)),
            Err(e) => return Err(Error::Io(e)),
        }
        weight /= 2.0;
    }
    Err(last_err.unwrap_or_else(|| {
        Error::Io(io::Error::new(
            io::ErrorKind::ConnectionRefused,
            "Connection refused",
        ))
    }))
}

/// A failed connect that says nothing of the host's other addresses (refused, or no route to
/// this one: an IPv6 address on a machine without IPv6).
fn concerns_address_only(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::NetworkDown
            | io::ErrorKind::AddrNotAvailable
    )
}

/// A socket timeout expired (`EAGAIN` from a read or write with a timeout set).
fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

/// The socket timeout for `timeout`: `None` when nothing limits the call; an expired one as
/// one second, as ureq does (its callers fail an expired budget before any I/O).
fn socket_timeout(timeout: NextTimeout) -> Option<Duration> {
    timeout.not_zero().map(|d| *d)
}

/// `left` rounded up to a whole number of [`TIMEOUT_GRAIN`]s.
pub(crate) fn grained(left: Duration) -> Duration {
    let grain = TIMEOUT_GRAIN.as_nanos();
    let grains = left.as_nanos().div_ceil(grain);
    u64::try_from(grains.saturating_mul(grain))
        .map(Duration::from_nanos)
        .unwrap_or(Duration::MAX)
}

/// A plain TCP connection of the agent (see the module docs).
pub(crate) struct LeanTcpTransport {
    /// Shared (weakly) with the agent's shutdown handle, which may shut it down from another
    /// thread while a call blocks on it.
    stream: Arc<TcpStream>,
    buffers: LazyBuffers,
    /// The timeouts set on the socket now (`None`: none).
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    /// Set by every read and write, cleared by `is_open`: the connection was just used, so it
    /// is open without asking the socket.
    just_used: bool,
}

impl std::fmt::Debug for LeanTcpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeanTcpTransport")
            .field("peer", &self.stream.peer_addr().ok())
            .finish()
    }
}

/// Sets a socket timeout with `set` unless `current` already holds `wanted`.
fn keep_timeout(
    stream: &TcpStream,
    current: &mut Option<Duration>,
    wanted: Option<Duration>,
    set: fn(&TcpStream, Option<Duration>) -> io::Result<()>,
) -> io::Result<()> {
    if *current != wanted {
        set(stream, wanted)?;
        *current = wanted;
    }
    Ok(())
}

impl Transport for LeanTcpTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), Error> {
        let timeout = timeout.for_write();
        if timeout.after.is_zero() {
            return Err(Error::Timeout(timeout.reason));
        }
        let wanted = socket_timeout(timeout).map(grained);
        keep_timeout(
            &self.stream,
            &mut self.write_timeout,
            wanted,
            TcpStream::set_write_timeout,
        )?;
        self.just_used = true;
        let output = &self.buffers.output()[..amount];
        match (&*self.stream).write_all(output) {
            Ok(()) => Ok(()),
            Err(e) if is_timeout(&e) => Err(Error::Timeout(timeout.reason)),
            Err(e) => Err(Error::Io(e)),
        }
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, Error> {
        let timeout = timeout.for_read();
        if timeout.after.is_zero() {
            return Err(Error::Timeout(timeout.reason));
        }
        let budget = socket_timeout(timeout);
        keep_timeout(
            &self.stream,
            &mut self.read_timeout,
            budget.map(grained),
            TcpStream::set_read_timeout,
        )?;
        self.just_used = true;
        let started = Instant::now();
        let input = self.buffers.input_append_buf();
        let amount = loop {
            match (&*self.stream).read(input) {
                // A signal: read again in what is left of the budget (Linux does not restart a
                // socket read that has a timeout).
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    let Some(budget) = budget else {
                        return Err(Error::Io(e));
                    };
                    let left = budget.saturating_sub(started.elapsed());
                    if left.is_zero() {
                        return Err(Error::Timeout(timeout.reason));
                    }
                    let left = Some(grained(left));
                    keep_timeout(
                        &self.stream,
                        &mut self.read_timeout,
                        left,
                        TcpStream::set_read_timeout,
                    )?;
                }
                Err(e) if is_timeout(&e) => return Err(Error::Timeout(timeout.reason)),
                Err(e) => return Err(Error::Io(e)),
                Ok(n) => break n,
            }
        };
        if let Some(&first) = input.first().filter(|_| amount > 0) {
            crate::fetch::connection::note_input(first);
        }
        self.buffers.input_appended(amount);
        Ok(amount > 0)
    }

    fn is_open(&mut self) -> bool {
        if std::mem::take(&mut self.just_used) {
            // Going back to the pool right after its response: the take probes it.
            return true;
        }
        probe(&self.stream)
    }
}

/// `true` when nothing waits on the socket: no byte (a server sends none unasked), no end of
/// stream, no error.
#[cfg(unix)]
fn probe(stream: &TcpStream) -> bool {
    use std::mem::MaybeUninit;
    let socket = socket2::SockRef::from(stream);
    let mut byte = [MaybeUninit::<u8>::uninit()];
    loop {
        match socket.recv_with_flags(&mut byte, libc::MSG_PEEK | libc::MSG_DONTWAIT) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return e.kind() == io::ErrorKind::WouldBlock,
            // A byte nobody asked for, or the end of the stream.
            Ok(_) => return false,
        }
    }
}

/// `true` when nothing waits on the socket (ureq's way: a non-blocking read of one byte).
#[cfg(not(unix))]
fn probe(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut byte = [0u8];
    let open = matches!(stream.peek(&mut byte), Err(e) if e.kind() == io::ErrorKind::WouldBlock);
    open && stream.set_nonblocking(false).is_ok()
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    #[test]
    fn timeouts_round_up_to_the_grain() {
        let ms = Duration::from_millis;
        assert_eq!(grained(ms(10_000)), ms(10_000));
        assert_eq!(grained(ms(10_000) - Duration::from_nanos(1)), ms(10_000));
        assert_eq!(grained(ms(9_991)), ms(10_000));
        assert_eq!(grained(ms(9_990)), ms(9_990));
        assert_eq!(grained(Duration::from_nanos(1)), TIMEOUT_GRAIN);
        assert_eq!(grained(Duration::MAX), Duration::MAX);
    }

    #[test]
    fn the_probe_sees_unasked_bytes_and_a_closed_stream() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        assert!(probe(&client), "an idle connection is open");
        server.write_all(b"x").unwrap();
        // The byte is on its way over loopback: wait for it without consuming it.
        let mut peeked = [0u8];
        client.peek(&mut peeked).unwrap();
        assert!(!probe(&client), "a byte nobody asked for");
        assert_eq!((&client).read(&mut peeked).unwrap(), 1, "the probe left it");
        drop(server);
        client.peek(&mut peeked).unwrap();
        assert!(!probe(&client), "the server closed it");
    }

    #[test]
    fn a_refused_connection_reports_the_refusal() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let err = connect_any(&[addr], NextTimeout::default()).unwrap_err();
        assert!(
            matches!(&err, Error::Io(e) if e.kind() == io::ErrorKind::ConnectionRefused),
            "{err:?}"
        );
        let err = connect_any(&[], NextTimeout::default()).unwrap_err();
        assert!(matches!(&err, Error::Io(e) if e.kind() == io::ErrorKind::ConnectionRefused));
    }
}
