//! Tells whether a request opened a new connection or rode a pooled (kept-alive) one.
//!
//! ureq 3 does not say which connection a failed call used, and a request that fails before
//! any response byte must be resent at once only when it rode a pooled connection (the server
//! may have closed it just as we reused it). ureq runs its connector chain only to open a new
//! connection, on the calling thread, so a last link in the chain that passes the transport
//! through and sets a thread-local flag answers the question: [`begin`] clears the flag right
//! before a call, [`opened_new`] reads it right after, on the same thread. The flag is private
//! to one thread and one call, so concurrent workers and two checkers in one process cannot
//! see each other's calls.
//!
//! A second flag says whether the server answered at all: the TCP transport notes every read
//! since [`begin`] ([`note_input`]), and [`answered`] is `true` once one brought a byte other
//! than the start of a TLS alert (a server closing a TLS connection says so first). A request
//! the server began to answer and then cut (mid-headers) did not ride a stale connection: it
//! is retried within its budget, not resent for free.
//!
//! The connector API lives in ureq's `unversioned` module (it may change in a minor release,
//! never in a patch one): `Cargo.toml` pins ureq to `~3.5`.

use std::cell::Cell;

use ureq::unversioned::transport::{ConnectionDetails, Connector, Transport};

thread_local! {
    /// Set when the connector chain produced a transport since the last [`begin`].
    static OPENED: Cell<bool> = const { Cell::new(false) };
    /// Set when a read since the last [`begin`] brought an answer (see [`note_input`]).
    static ANSWERED: Cell<bool> = const { Cell::new(false) };
}

/// The TLS record type of an alert (`close_notify` among them).
const TLS_ALERT: u8 = 21;

/// The last link of the agent's connector chain: passes the transport through, notes it.
#[derive(Debug, Default)]
pub(crate) struct NoteNewConnection;

impl<In: Transport> Connector<In> for NoteNewConnection {
    type Out = In;

    fn connect(
        &self,
        _details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<In>, ureq::Error> {
        if chained.is_some() {
            OPENED.with(|o| o.set(true));
        }
        Ok(chained)
    }
}

/// Call right before a request on this thread.
pub(crate) fn begin() {
    OPENED.with(|o| o.set(false));
    ANSWERED.with(|a| a.set(false));
}

/// The transport read bytes starting with `first` on this thread: an answer unless it is a
/// TLS alert (a closing server's `close_notify`). A plain HTTP answer starts with `H`, a TLS
/// one with an application-data record.
pub(crate) fn note_input(first: u8) {
    if first != TLS_ALERT {
        ANSWERED.with(|a| a.set(true));
    }
}

/// After a request on this thread: `true` when the server began to answer it (a byte came
/// back), even if the answer was then cut.
pub(crate) fn answered() -> bool {
    ANSWERED.with(Cell::get)
}

/// After a request on this thread: `true` when it opened a new connection (also through a
/// proxy), `false` when it reused a pooled one or never got as far as connecting.
pub(crate) fn opened_new() -> bool {
    OPENED.with(Cell::get)
}
