//! Test support: loopback servers, a proxy, desktop tools and report readers.

/// The loopback HTTP/1.1 test server (std::net), started per test on 127.0.0.1:0.
pub mod server;

/// Helpers shared by the test modules.
pub mod util;

/// The host-aware scheduling scenario across 22 loopback hosts (also run by
/// benches/politeness.rs).
pub mod multi_host;

/// A loopback forward proxy (CONNECT tunnels and absolute-URI requests) that records what
/// passes through it.
pub mod proxy;

/// A loopback HTTPS server with the self-signed certificate of tests/data/tls.
pub mod tls_server;

/// Chromium and LibreOffice for the report tests: found on PATH, run with a deadline, or skipped loudly.
pub mod desktop_tools;
/// Readers and golden-file comparison for the report formats (DOT, GML, SARIF schema).
pub mod report_check;
/// The single-page-app fixture (tests/data/spa) for the `--render-js` tests.
pub mod spa;
