//! HTTP(S) checks through one shared `ureq` agent.
//!
//! ureq's own redirect handling is off: each hop is a separate request that passes
//! [`HostGate::wait_for_host`] again and is recorded. 4xx/5xx are data, not errors. Pages to be
//! parsed are fetched with GET; links that are only checked use HEAD, and a HEAD answered with an
//! error status (429 aside), or that fails once the host was reached (a reset, an empty or
//! garbled answer, a timeout), is confirmed with a GET before any verdict: servers answer HEAD
//! wrongly (405, 501, even 404 from CDNs that route only GET) or drop it. Bodies are read up to a cap; a body small enough is read to its
//! end so the connection goes back to the pool, a larger one is dropped (closing is cheaper
//! than downloading it).
//!
//! Retries: a timeout or broken connection (before the response or in the middle of a body we
//! read), and a 502/503/504/429, are retried. The budget, `max_retries`, belongs to the URL (one
//! redirect hop), whatever the method: a HEAD answered 502/503/504 is retried as GET (the
//! server may mishandle HEAD), inside the same budget. 429 and 503 honour `Retry-After`
//! (seconds or an HTTP date) and slow the whole host down through the gate; otherwise the wait
//! is an exponential backoff with jitter. A 404 is never retried, nor a URL too long to send.
//!
//! Dead hosts: a request that fails at the DNS, connect or TLS level gives its host up (a timeout
//! does after a couple in a row, see `policy::host_table`); the host's other URLs then fail at
//! once with the same class and a message that says they were not requested and names the URL
//! that failed.
//!
//! Stale connections: a request that rode a pooled keep-alive connection and lost it before
//! any response came (the server closed it just as we reused it) is resent at once on a new
//! connection — not a retry of the budget, no backoff, but counted as a try (the tries
//! reported are the requests sent, whichever connection the lost one rode); at most once per URL (a connection reset while it was
//! being opened looks the same and gets that one resend too). A server that began to answer
//! (a byte came back) and then cut the connection, mid-headers, was not stale: that request is
//! a try like any other, so each method gets 1 + `max_retries` requests in all. Which connection a call used is
//! told by `connection`; the resend sets ureq's per-request `max_idle_age` to zero, which makes
//! the pool skip (and close) that host's idle connections and dial a new one, which then goes
//! back to the pool as usual.
//!
//! Headers: the user's global headers go to every host, except credentials (`Authorization`,
//! `Cookie`, `Proxy-Authorization`), which only go to the start sites' origins — so a redirect
//! to another origin never carries them. Host-rule headers go to matching hosts only.
//! Cookies that servers set during the run (`fetch::session_cookies`) go back where RFC 6265
//! sends them, in one `Cookie` header after the user's; a redirect to the same URL after a
//! cookie changed is not a loop (a consent wall), and `max_redirects` still bounds the chain.
//!
//! The module is split by job: `agent` (settings, pool, TLS, proxy), `socket` (the TCP
//! transport), `retry` (one request with its retries), `redirect` (the chain of one check) and
//! `response` (reading answers); `form` is the login's page exchange, outside the crawl.

mod agent;
mod form;
mod proxied_target;
mod redirect;
pub(crate) mod response;
mod retry;
mod socket;

use std::sync::Arc;

use ureq::Agent;
use url::Url;

pub(crate) use self::agent::{HttpSettings, parse_proxy, proxy_for};
pub(crate) use self::form::{FormMethod, PageAnswer};
pub(crate) use self::response::host_key;
use self::response::{drain, header, location, read_capped};
use self::retry::{Budget, Exchange};
use crate::config::ROBOTS_TXT_LIMIT;
use crate::fetch::session_cookies::SessionCookies;
use crate::fetch::{Chain, Fetched, Resume, Validators};
use crate::model::cancel::CancelHandle;
use crate::policy::host_gate::HostGate;

/// The HTTP side of a run: the agent plus the politeness gate every request passes.
#[derive(Debug)]
pub(crate) struct HttpFetcher {
    agent: Agent,
    gate: Arc<HostGate>,
    settings: HttpSettings,
    cancel: CancelHandle,
    /// The cookies servers set during the run, sent back where they match.
    cookies: Arc<SessionCookies>,
}

impl HttpFetcher {
    /// Closes every connection, so requests blocked in other threads return at once.
    pub(crate) fn interrupt(&self) {
        self.agent.clone().shutdown();
    }

    /// Checks `url`, following redirects by hand. With `want_body`, an HTML body is returned.
    /// `chain` is asked before each redirect hop is requested (see [`Chain`]); a hop checked
    /// on its own stops the fetch there (see [`Fetched::stopped_at`]). With `resume`, the first request of
    /// `url` may hand the task back instead of waiting for its host's slot
    /// ([`Fetched::deferred`], see [`Fetch::fetch_deferrable`](crate::fetch::Fetch)).
    pub(crate) fn fetch(
        &self,
        url: &Url,
        want_body: bool,
        chain: Chain<'_>,
        resume: Option<&Resume>,
    ) -> Fetched {
        self.fetch_with(url, want_body, None, chain, resume)
    }

    /// [`fetch`](Self::fetch), the first request made conditional on `validators` when given
    /// (a `304` is then an OK answer without a body).
    pub(crate) fn fetch_with(
        &self,
        url: &Url,
        want_body: bool,
        validators: Option<&Validators>,
        chain: Chain<'_>,
        resume: Option<&Resume>,
    ) -> Fetched {
        // Every path out of the chain must hand back the hops it claimed, so they get finished.
        let mut owned = Vec::new();
        let mut retries = resume.map_or(0, |r| r.retries);
        let mut warnings = resume.map_or_else(Vec::new, |r| r.warnings.clone());
        let mut f = self.fetch_chain(
            url,
            want_body,
            validators,
            chain,
            resume.map(|r| r.get),
            &mut owned,
            &mut retries,
            &mut warnings,
        );
        f.owned = owned;
        f.retries = retries;
        if f.deferred.is_some() {
            f.warnings = warnings;
            return f;
        }
        f.outcome = self.settings.extras.accept.judge(f.outcome);
        for w in warnings {
            if !f.warnings.iter().any(|x| x.tag == w.tag) {
                f.warnings.push(w);
            }
        }
        f
    }

    /// Fetches a robots.txt (following a few redirects). `None` when there is none to obey.
    pub(crate) fn fetch_robots(&self, url: &Url) -> Option<Vec<u8>> {
        self.fetch_small(url, ROBOTS_TXT_LIMIT)
    }

    /// Fetches a small resource with GET (following a few redirects), up to `limit` bytes.
    /// `None` unless it answered 200.
    pub(crate) fn fetch_small(&self, url: &Url, limit: u64) -> Option<Vec<u8>> {
        let mut current = url.clone();
        let (mut retries, mut warnings) = (0, Vec::new());
        for _ in 0..5 {
            let mut budget = Budget::default();
            let Exchange::Response(mut res, _permit) = self.exchange(
                &current,
                &mut false,
                &mut budget,
                &mut retries,
                &mut warnings,
            ) else {
                return None;
            };
            let status = res.status().as_u16();
            if (300..400).contains(&status) {
                let next = location(&res).and_then(|l| current.join(&l).ok())?;
                drain(res.body_mut());
                current = next;
                continue;
            }
            if status != 200 {
                drain(res.body_mut());
                return None;
            }
            let announced = header(&res, "content-length").and_then(|n| n.trim().parse().ok());
            return read_capped(res.body_mut(), limit, announced)
                .ok()
                .map(|(b, _)| b);
        }
        None
    }
}
