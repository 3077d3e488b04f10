//! The optional MX check of `mailto:` domains (off by default): a domain passes when it has an
//! MX record that is not a null MX (RFC 7505), or no MX but an A or AAAA record (the implicit MX
//! of RFC 5321). Each domain is looked up once per run.
//!
//! Concurrency: the verdict map's mutex is held only to find or add a domain's cell, never
//! across the lookup; the lookup runs inside the cell's `OnceLock`, so threads asking for the
//! same domain wait for the one lookup, and other domains are not held up.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;

use crate::fetch::dns::{self, Answer, RCODE, RData, TYPE};

/// A domain's verdict: `Err` says why mail cannot be delivered there.
type Verdict = Result<(), String>;

/// MX lookups through one resolver, with a verdict per domain.
#[derive(Debug)]
pub(crate) struct MxCheck {
    server: SocketAddr,
    timeout: Duration,
    verdicts: Mutex<HashMap<String, Arc<OnceLock<Verdict>>>>,
}

impl MxCheck {
    pub(crate) fn new(server: SocketAddr, timeout: Duration) -> Self {
        MxCheck {
            server,
            timeout,
            verdicts: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `domain` can receive mail (looked up once, then remembered).
    pub(crate) fn check_domain(&self, domain: &str) -> Verdict {
        let domain = domain.trim_end_matches('.').to_ascii_lowercase();
        // An internationalised domain is asked for in its ASCII (punycode) form.
        let domain = url::Url::parse(&format!("http://{domain}/"))
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or(domain);
        let cell = self
            .verdicts
            .lock()
            .entry(domain.clone())
            .or_default()
            .clone();
        cell.get_or_init(|| self.lookup(&domain)).clone()
    }

    fn lookup(&self, domain: &str) -> Verdict {
        let mx = dns::query(self.server, domain, TYPE::MX, self.timeout)?;
        verdict(domain, &mx, || {
            let mut records = Vec::new();
            for qtype in [TYPE::A, TYPE::AAAA] {
                records.extend(dns::query(self.server, domain, qtype, self.timeout)?.records);
            }
            Ok(records)
        })
    }
}

/// The verdict from the MX answer; `addresses` asks for the A and AAAA records when there is
/// no MX.
fn verdict(
    domain: &str,
    mx: &Answer,
    addresses: impl FnOnce() -> Result<Vec<RData<'static>>, String>,
) -> Verdict {
    match mx.rcode {
        RCODE::NoError => {}
        RCODE::NameError => return Err(format!("mail domain `{domain}' does not exist")),
        n => {
            return Err(format!(
                "DNS lookup of mail domain `{domain}' failed (response code {n:?})"
            ));
        }
    }
    let exchanges: Vec<_> = mx
        .records
        .iter()
        .filter_map(|r| match r {
            RData::MX(mx) => Some(mx),
            _ => None,
        })
        .collect();
    if !exchanges.is_empty() {
        // A null MX is preference 0 and the root name: the domain accepts no mail.
        let null =
            |mx: &&simple_dns::rdata::MX| mx.preference == 0 && mx.exchange.get_labels().is_empty();
        return if exchanges.iter().all(null) {
            Err(format!("mail domain `{domain}' accepts no mail (null MX)"))
        } else {
            Ok(())
        };
    }
    let found = addresses()?;
    if found
        .iter()
        .any(|r| matches!(r, RData::A(_) | RData::AAAA(_)))
    {
        Ok(())
    } else {
        Err(format!(
            "mail domain `{domain}' has no MX, A or AAAA record"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simple_dns::Name;
    use simple_dns::rdata::{A, MX};

    fn answer(rcode: RCODE, records: Vec<RData<'static>>) -> Answer {
        Answer { rcode, records }
    }

    fn mx(preference: u16, exchange: &'static str) -> RData<'static> {
        RData::MX(MX {
            preference,
            exchange: Name::new(exchange).unwrap(),
        })
    }

    #[test]
    fn verdicts() {
        let none = || Ok(Vec::new());
        let good = answer(RCODE::NoError, vec![mx(10, "mail.a.test")]);
        assert_eq!(verdict("a.test", &good, none), Ok(()));
        let null = answer(RCODE::NoError, vec![mx(0, ".")]);
        assert!(
            verdict("a.test", &null, none)
                .unwrap_err()
                .contains("null MX")
        );
        let root_but_preferred = answer(RCODE::NoError, vec![mx(0, "."), mx(5, "mx.a.test")]);
        assert_eq!(verdict("a.test", &root_but_preferred, none), Ok(()));
        let nx = answer(RCODE::NameError, vec![]);
        assert!(
            verdict("a.test", &nx, none)
                .unwrap_err()
                .contains("does not exist")
        );
        let empty = answer(RCODE::NoError, vec![]);
        assert!(
            verdict("a.test", &empty, none)
                .unwrap_err()
                .contains("no MX, A or AAAA")
        );
        let with_a = || {
            Ok(vec![RData::A(A {
                address: u32::from(std::net::Ipv4Addr::LOCALHOST),
            })])
        };
        assert_eq!(verdict("a.test", &empty, with_a), Ok(()));
        let servfail = answer(RCODE::ServerFailure, vec![]);
        assert!(
            verdict("a.test", &servfail, none)
                .unwrap_err()
                .contains("response code ServerFailure")
        );
    }
}
