//! The `cert-expiry` plugin: warns when an https server's certificate has expired or expires
//! within N days (default 30).
//!
//! Each `host:port` is looked at once per run, on the first https URL of that host: the
//! engine hands over the certificate the server presents ([`Services::peer_certificate`]) and
//! this crate reads its `notAfter` date with `x509-cert`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use linkpatrol_plugin_api::{Options, Plugin, Remark, ResponseView, Services};
use x509_cert::Certificate;
use x509_cert::der::{DateTime, Decode};

/// The plugin's name.
pub const NAME: &str = "cert-expiry";
/// One line for `--list-plugins`.
pub const DESCRIPTION: &str = "warn when an https certificate has expired or expires within N \
                               days (once per host); settings: days=N (default 30)";
/// The warning tag for a certificate that expires soon.
pub const TAG_EXPIRING: &str = "cert-expiring";
/// The warning tag for a certificate that has expired.
pub const TAG_EXPIRED: &str = "cert-expired";
/// Days of warning by default.
pub const DEFAULT_DAYS: u32 = 30;

const DAY: i64 = 86_400;

/// The `cert-expiry` plugin.
///
/// Concurrency: `seen` is locked only to test-and-insert a host, never across the certificate
/// fetch.
#[derive(Debug)]
pub struct CertExpiry {
    days: u32,
    seen: Mutex<HashSet<String>>,
    /// The current time in Unix seconds (a fixed clock in tests).
    now: fn() -> i64,
}

fn system_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The `notAfter` of a DER-encoded X.509 certificate; `None` when it is not one.
#[must_use]
pub fn not_after(der: &[u8]) -> Option<DateTime> {
    let cert = Certificate::from_der(der).ok()?;
    Some(cert.tbs_certificate().validity().not_after.to_date_time())
}

/// Seconds since the Unix epoch (the `der` crate's dates start there).
fn unix_seconds(t: &DateTime) -> i64 {
    i64::try_from(t.unix_duration().as_secs()).unwrap_or(i64::MAX)
}

/// `2036-11-28` (the crate's `Display` gives the full RFC 3339 time; the day is enough).
fn date(t: &DateTime) -> String {
    format!("{:04}-{:02}-{:02}", t.year(), t.month(), t.day())
}

impl CertExpiry {
    /// The plugin from its settings: `days=N`.
    ///
    /// # Errors
    /// A `days` that is not a whole number, or an unknown setting.
    pub fn from_options(options: &Options) -> Result<CertExpiry, String> {
        options.only(&["days"])?;
        Ok(CertExpiry {
            days: options.parse_or("days", DEFAULT_DAYS)?,
            seen: Mutex::new(HashSet::new()),
            now: system_now,
        })
    }

    /// The remark for a certificate valid until `not_after`, seen at `now` on `host`.
    fn judge(&self, host: &str, not_after: &DateTime, now: i64) -> Remark {
        let left = unix_seconds(not_after) - now;
        let until = date(not_after);
        if left <= 0 {
            Remark::warning(
                TAG_EXPIRED,
                format!("The certificate of {host} expired on {until}."),
            )
        } else if left < i64::from(self.days) * DAY {
            Remark::warning(
                TAG_EXPIRING,
                format!(
                    "The certificate of {host} expires on {until}, in {} days (warning at {}).",
                    left / DAY,
                    self.days
                ),
            )
        } else {
            Remark::Info(format!(
                "certificate of {host} valid until {until} ({} days)",
                left / DAY
            ))
        }
    }
}

impl Plugin for CertExpiry {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check_response(&self, response: &ResponseView<'_>, services: &dyn Services) -> Vec<Remark> {
        let url = response.final_url;
        if url.scheme() != "https" || response.status.is_none() {
            return Vec::new();
        }
        let host = format!(
            "{}:{}",
            url.host_str().unwrap_or_default(),
            url.port_or_known_default().unwrap_or(443)
        );
        let first = self
            .seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(host.clone());
        if !first {
            return Vec::new();
        }
        let remark = match services.peer_certificate(url) {
            Ok(der) => match not_after(&der) {
                Some(t) => self.judge(&host, &t, (self.now)()),
                None => Remark::Info(format!("cannot read the certificate of {host}")),
            },
            Err(e) => Remark::Info(format!("cannot get the certificate of {host}: {e}")),
        };
        vec![remark]
    }
}

#[cfg(test)]
mod tests;
