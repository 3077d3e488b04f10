//! One request with its retries: the politeness slot, headers, stale pooled connections,
//! `Retry-After`, backoff with jitter, and the per-URL retry budget.

use std::time::{Duration, Instant, SystemTime};

use ureq::Body;
use ureq::http::Response;
use ureq::http::header::{RETRY_AFTER, SET_COOKIE};
use url::Url;

use super::HttpFetcher;
use super::response::{
    bot_wall, classify, drain, head_failed, header, host_key, lost_before_response, proxy_failure,
};
use crate::fetch::resolver::RefusedAddress;
use crate::fetch::{Validators, connection};
use crate::model::outcome::{FailKind, Warning};
use crate::policy::host_gate::{HostPermit, Turn};
use crate::policy::host_table::HostDown;
use crate::policy::origin::origin_text;
use crate::policy::url_cap;

/// The retry state of one URL (one redirect hop), shared by its HEAD, GET and body reads.
#[derive(Debug, Default)]
pub(super) struct Budget {
    /// Retries spent (each counted and backed off).
    pub(super) used: u32,
    /// A pooled connection went stale: this URL's requests now use new connections only.
    fresh: bool,
    /// Sent with each GET of this hop as `If-None-Match` / `If-Modified-Since`.
    validators: Option<Validators>,
    /// The task may be handed back to the queue instead of waiting for the host's slot
    /// ([`Exchange::Deferred`]): set for the first request of a task's URL, and kept for
    /// the retry after a 429 or 503 (the host's pause); cleared by anything else.
    pub(super) may_defer: bool,
    /// A response to this hop set, changed or deleted a cookie: asking the same URL again is
    /// not a loop.
    pub(super) cookies_changed: bool,
    /// Only a try (`Chain::probe`): a failure gives no host up.
    pub(super) probe: bool,
}

impl Budget {
    /// The budget of a URL's first hop: `used` retries spent in earlier tries of its task,
    /// whether it may be handed back, and the validators its GET is conditional on.
    pub(super) fn first_hop(used: u32, may_defer: bool, validators: Option<Validators>) -> Self {
        Budget {
            used,
            fresh: false,
            validators,
            may_defer,
            cookies_changed: false,
            probe: false,
        }
    }
}

/// How one request (with its retries) ended.
pub(super) enum Exchange<'a> {
    /// A response; the permit is held until the body is dealt with.
    Response(Response<Body>, HostPermit<'a>),
    /// No response: the failure class and message.
    Failed(FailKind, String),
    /// The run was cancelled.
    Interrupted,
    /// The host's address is one the run does not connect to (`AddressPolicy`): why.
    Refused(String),
    /// The host's next slot is this far ahead and the budget allowed handing the task back:
    /// no request was made and nothing is held.
    Deferred(Instant),
}

impl HttpFetcher {
    /// The headers to send to `url`.
    pub(super) fn headers_for<'a>(
        &'a self,
        url: &'a Url,
        host: &'a str,
    ) -> impl Iterator<Item = &'a (String, String)> + 'a {
        // Asked only when there are headers to send (most runs have none).
        let own_site = !self.settings.headers.is_empty() && {
            let origin = origin_text(url);
            self.settings.start_origins.iter().any(|o| *o == origin)
        };
        self.settings
            .headers
            .iter()
            // Any header may be a secret (`X-Api-Key`, `PRIVATE-TOKEN`): all go to the start
            // sites only; a host rule sends one elsewhere.
            .filter(move |_| own_site)
            .chain(self.settings.rules.headers(host))
    }

    /// One request to `url`, retried after transient failures and overload answers, within
    /// the URL's `budget`. `head`: ask with HEAD; set to `false` when a 502/503/504 answer to a
    /// HEAD made the retries use GET.
    pub(super) fn exchange(
        &self,
        url: &Url,
        head: &mut bool,
        budget: &mut Budget,
        retries: &mut u32,
        warnings: &mut Vec<Warning>,
    ) -> Exchange<'_> {
        let host = host_key(url);
        // Links and redirects over the cap never get here; a URL made from one (a web archive
        // lookup) may.
        if url_cap::is_too_long(url) {
            return Exchange::Failed(FailKind::UrlTooLong, url_cap::message(url, "the URL"));
        }
        loop {
            let mut permit = match self.gate.permit_or_later(&host, budget.may_defer) {
                Turn::Now(permit) => permit,
                Turn::Later(due) => return Exchange::Deferred(due),
                Turn::Cancelled => return Exchange::Interrupted,
                Turn::Down(down) => {
                    let message = format!(
                        "{} (not requested: host {host} unreachable, as for URL {})",
                        down.message, down.url
                    );
                    return Exchange::Failed(down.kind, message);
                }
            };
            let mut req = if *head {
                self.agent.head(url.as_str())
            } else {
                self.agent
                    .get(url.as_str())
                    .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
            };
            // One `Cookie` header (RFC 6265 §5.4): the user's cookies, then the run's.
            let mut cookie: Option<String> = None;
            let mut add_cookie = |v: &str| match &mut cookie {
                Some(c) => {
                    c.push_str("; ");
                    c.push_str(v);
                }
                None => cookie = Some(v.to_owned()),
            };
            for (k, v) in self.headers_for(url, &host) {
                if k.eq_ignore_ascii_case("cookie") {
                    add_cookie(v);
                } else {
                    req = req.header(k.as_str(), v.as_str());
                }
            }
            for (k, v) in self.settings.extras.headers_for(url) {
                if k == "Cookie" {
                    add_cookie(&v);
                } else {
                    req = req.header(k, v);
                }
            }
            if let Some(v) = self.cookies.header_for(url, SystemTime::now()) {
                add_cookie(&v);
            }
            if let Some(c) = cookie {
                req = req.header("Cookie", c);
            }
            if let Some(v) = budget.validators.as_ref().filter(|_| !*head) {
                if let Some(etag) = &v.etag {
                    req = req.header("If-None-Match", etag.as_str());
                }
                if let Some(since) = &v.last_modified {
                    req = req.header("If-Modified-Since", since.as_str());
                }
            }
            if budget.fresh {
                // No pooled connection is older than zero: ureq dials a new one.
                req = req.config().max_idle_age(Duration::ZERO).build();
            }
            connection::begin();
            let wait = match req.call() {
                Err(e) => {
                    if self.cancel.is_cancelled() {
                        return Exchange::Interrupted;
                    }
                    if let Some(why) = RefusedAddress::of(&e) {
                        return Exchange::Refused(why.to_owned());
                    }
                    if !budget.fresh
                        && lost_before_response(&e)
                        && !connection::opened_new()
                        && !connection::answered()
                    {
                        // A pooled connection the server had closed: resend now, on a new one.
                        // A server that began to answer and then cut the connection was not
                        // stale: that is a failure, retried within the budget. The resend is
                        // a try all the same (not of the budget): whether a lost request rode
                        // a pooled connection depends on timing, and the tries reported must
                        // not.
                        drop(permit);
                        budget.fresh = true;
                        *retries += 1;
                        self.gate.note_retry(&host);
                        continue;
                    }
                    budget.may_defer = false;
                    let (kind, message) = classify(&e);
                    if *head && head_failed(kind) {
                        // Some servers fail HEAD alone (drop it, answer nothing or garbage,
                        // hang): ask once with GET, now and outside the budget, before any
                        // verdict, as after an error status (`head_refused`).
                        drop(permit);
                        *head = false;
                        continue;
                    }
                    if !matches!(kind, FailKind::Timeout | FailKind::Io)
                        || budget.used >= self.settings.max_retries
                    {
                        let proxy = self.settings.proxy.as_ref();
                        let message = proxy_failure(proxy, url, kind, message);
                        // Before the slot is freed: a host given up starts no other request
                        // in between (its first task may be what holds the others back).
                        if !budget.probe {
                            self.note_failure(&host, url, kind, &message);
                        }
                        drop(permit);
                        return Exchange::Failed(kind, message);
                    }
                    drop(permit);
                    Some(self.backoff(budget.used))
                }
                Ok(mut res) => {
                    permit.answered();
                    let set_cookie = res.headers().get_all(SET_COOKIE);
                    let set_cookie = set_cookie.iter().filter_map(|v| v.to_str().ok());
                    budget.cookies_changed |=
                        self.cookies.store(url, set_cookie, SystemTime::now());
                    let status = res.status().as_u16();
                    if status == 429 && !warnings.iter().any(|w| w.tag == "http-rate-limited") {
                        warnings.push(Warning {
                            tag: "http-rate-limited",
                            message: "the server answered 429 Too Many Requests; the host was slowed down".into(),
                        });
                    }
                    if !matches!(status, 429 | 502 | 503 | 504)
                        || budget.used >= self.settings.max_retries
                        || bot_wall(url, status, &res).is_some()
                    {
                        return Exchange::Response(res, permit);
                    }
                    let asked = retry_after(&res);
                    let wait = asked.unwrap_or_else(|| self.backoff(budget.used));
                    if wait > self.settings.max_retry_wait {
                        warnings.push(Warning {
                            tag: "http-retry-after-too-long",
                            message: format!(
                                "the server asked to retry after {} s, more than the {} s allowed",
                                wait.as_secs(),
                                self.settings.max_retry_wait.as_secs()
                            ),
                        });
                        return Exchange::Response(res, permit);
                    }
                    drain(res.body_mut());
                    drop(res);
                    if status != 429 {
                        // A gateway or server in trouble may also mishandle HEAD: retry as GET.
                        *head = false;
                    }
                    // The host's pause may hand the task back; a backoff sleep may not.
                    budget.may_defer &= matches!(status, 429 | 503);
                    let wait = if matches!(status, 429 | 503) {
                        // The whole host waits: the next slot of every thread bound there moves.
                        self.gate
                            .back_off(&host, Instant::now() + wait, status == 429);
                        None
                    } else {
                        Some(wait)
                    };
                    // Freed only now, so no new task of the host starts before the pause.
                    drop(permit);
                    wait
                }
            };
            if let Some(wait) = wait
                && self.cancel.sleep_until(Instant::now() + wait)
            {
                return Exchange::Interrupted;
            }
            self.count_retry(&host, budget, retries);
        }
    }

    /// A request to `host` failed for good: a DNS, connect or TLS failure gives the host up at
    /// once (every other URL of it would fail the same way), a timeout counts towards giving
    /// it up (see `policy::host_table`, "Dead hosts").
    fn note_failure(&self, host: &str, url: &Url, kind: FailKind, message: &str) {
        let down = || HostDown {
            kind,
            message: message.to_owned(),
            url: url.as_str().to_owned(),
        };
        match kind {
            FailKind::Dns | FailKind::Connect | FailKind::Tls => self.gate.host_down(host, down()),
            FailKind::Timeout => self.gate.timed_out(host, down()),
            _ => {}
        }
    }

    /// Spends one retry of `budget`.
    pub(super) fn count_retry(&self, host: &str, budget: &mut Budget, retries: &mut u32) {
        budget.used += 1;
        *retries += 1;
        self.gate.note_retry(host);
    }

    /// The wait before retry `attempt + 1`: base × 2^attempt, plus up to 25 % jitter, capped.
    pub(super) fn backoff(&self, attempt: u32) -> Duration {
        let base = self
            .settings
            .retry_backoff
            .saturating_mul(1 << attempt.min(16));
        let jitter = base.mul_f64(fastrand::f64() * 0.25);
        (base + jitter).min(self.settings.max_retry_wait)
    }
}

/// `Retry-After` as a wait from now: delay-seconds or an HTTP date (a date in the past is 0).
fn retry_after(res: &Response<Body>) -> Option<Duration> {
    let v = header(res, RETRY_AFTER.as_str())?;
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}
