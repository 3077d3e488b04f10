//! The leaf certificate a TLS server presents, for plugins (`Services::peer_certificate`).
//!
//! ureq 3 does not expose the peer certificate of a response, so this opens one short TLS
//! handshake of its own (rustls, already linked by ureq) and reads the certificate the server
//! sends. Any certificate is accepted here: whether it is trusted was already decided by the
//! check of the URL itself; this only reads it (for its expiry date).

use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme};

/// Accepts every certificate chain, still checking the handshake signatures.
#[derive(Debug)]
struct ReadOnly(Arc<CryptoProvider>);

impl ServerCertVerifier for ReadOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The DER bytes of the first certificate `host:port` presents. Each network step is bounded
/// by `timeout`.
pub(crate) fn leaf_certificate(
    host: &str,
    port: u16,
    timeout: Duration,
) -> Result<Vec<u8>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS set-up: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(ReadOnly(provider)))
        .with_no_client_auth();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let name = ServerName::try_from(bare.to_owned()).map_err(|e| format!("{host}: {e}"))?;
    let mut conn =
        ClientConnection::new(Arc::new(config), name).map_err(|e| format!("TLS set-up: {e}"))?;
    let addr = (bare, port)
        .to_socket_addrs()
        .map_err(|e| format!("{host}:{port}: {e}"))?
        .next()
        .ok_or_else(|| format!("{host}:{port}: no address"))?;
    let mut sock =
        TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("{addr}: {e}"))?;
    let io_err = |e: io::Error| format!("TLS handshake with {host}:{port}: {e}");
    sock.set_read_timeout(Some(timeout)).map_err(io_err)?;
    sock.set_write_timeout(Some(timeout)).map_err(io_err)?;
    while conn.is_handshaking() {
        conn.complete_io(&mut sock).map_err(io_err)?;
    }
    conn.peer_certificates()
        .and_then(|chain| chain.first())
        .map(|c| c.as_ref().to_vec())
        .ok_or_else(|| format!("{host}:{port} sent no certificate"))
}
