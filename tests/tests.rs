//! The one integration-test binary: real HTTP over loopback sockets, the real CLI binary.

/// The loopback HTTP/1.1 test server (std::net), started per test on 127.0.0.1:0.
pub mod server;
