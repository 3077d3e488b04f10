//! The certificate read in a build without the cert-expiry plugin: no TLS code of its own is
//! linked, and a plugin that asks for a certificate is told why there is none.

use std::time::Duration;

use crate::policy::address::AddressPolicy;

/// Reads no certificate (this build has no `plugin-cert-expiry` feature).
#[derive(Debug, Clone, Default)]
pub(crate) struct CertReader;

impl CertReader {
    /// The same signature as the reader of a build with the plugin; the settings are unused.
    pub(crate) fn new(
        _timeout: Duration,
        _proxy: Option<ureq::Proxy>,
        _insecure: bool,
        _user_agent: String,
        _addresses: AddressPolicy,
        _exempt: Vec<String>,
    ) -> CertReader {
        CertReader
    }

    /// Always an error: this build reads no certificates.
    pub(crate) fn leaf_certificate(&self, host: &str, port: u16) -> Result<Vec<u8>, String> {
        Err(format!(
            "{host}:{port}: this build reads no certificates (no `plugin-cert-expiry` feature)"
        ))
    }
}
