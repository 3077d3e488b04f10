//! The `cert-expiry` plugin: warns when an https server's certificate has expired or expires
//! within N days (default 30).
//!
//! Each `host:port` is looked at once per run, on the first https URL of that host: the
//! engine hands over the certificate the server presents ([`Services::peer_certificate`]) and
//! this crate reads its `notAfter` date.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod der;

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use linkpatrol_plugin_api::{Options, Plugin, Remark, ResponseView, Services};

pub use der::not_after;

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

/// `2036-11-28` for a Unix time.
fn date(unix: i64) -> String {
    // Inverse of days_from_civil (Howard Hinnant's civil_from_days).
    let z = unix.div_euclid(DAY) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
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
    fn judge(&self, host: &str, not_after: i64, now: i64) -> Remark {
        let left = not_after - now;
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
                Some(t) => self.judge(&host, t, (self.now)()),
                None => Remark::Info(format!("cannot read the certificate of {host}")),
            },
            Err(e) => Remark::Info(format!("cannot get the certificate of {host}: {e}")),
        };
        vec![remark]
    }
}

#[cfg(test)]
mod tests;
