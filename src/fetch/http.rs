//! HTTP(S) checks through one shared `ureq` agent.
//!
//! ureq's own redirect handling is off: each hop is a separate request that passes
//! [`HostGate::wait_for_host`] again and is recorded. 4xx/5xx are data, not errors. Pages to be
//! parsed are fetched with GET; links that are only checked use HEAD, and fall back to GET when
//! the server refuses HEAD. Bodies are read up to a cap; a body small enough is read to its
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
//! Stale connections: a request that rode a pooled keep-alive connection and lost it before
//! any response came (the server closed it just as we reused it) is resent at once on a new
//! connection — not a retry, no backoff; at most once per URL (a connection reset while it was
//! being opened looks the same and gets that one resend too). Which connection a call used is
//! told by `connection`; the resend sets ureq's per-request `max_idle_age` to zero, which makes
//! the pool skip (and close) that host's idle connections and dial a new one, which then goes
//! back to the pool as usual.
//!
//! Headers: the user's global headers go to every host, except credentials (`Authorization`,
//! `Cookie`, `Proxy-Authorization`), which only go to the start sites' origins — so a redirect
//! to another origin never carries them. Host-rule headers go to matching hosts only.

use std::collections::HashSet;
use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use ureq::http::Response;
use ureq::http::header::{CONTENT_LENGTH, CONTENT_TYPE, LAST_MODIFIED, LOCATION, RETRY_AFTER};
use ureq::tls::TlsConfig;
use ureq::unversioned::transport::{Connector, DefaultConnector};
use ureq::{Agent, Body, Proxy, ProxyProtocol};
use url::Url;

use super::connection::{self, NoteNewConnection};
use super::resolver::CachingResolver;
use super::{Fetched, is_parsed};
use crate::config::host_rules::HostRules;
use crate::fetch::request_extras::RequestExtras;
use crate::model::cancel::CancelHandle;
use crate::model::outcome::{FailKind, Hop, Outcome, Warning};
use crate::model::redact::redact;
use crate::policy::hosts::{HostGate, HostPermit};
use crate::policy::url_norm::cache_key;

/// Bytes of a body we are not going to parse that are still read to keep the connection.
const DRAIN_LIMIT: u64 = 64 * 1024;
/// Largest robots.txt read.
const ROBOTS_LIMIT: u64 = 512 * 1024;
/// Longest URL sent. Longer ones fail at once: ureq cannot write a request line that long
/// (its output buffer is 128 KiB), and no server would take it.
const MAX_REQUEST_URL: usize = 64 * 1024;
/// Headers that carry credentials: sent to the start sites only.
const CREDENTIAL_HEADERS: &[&str] = &["authorization", "cookie", "proxy-authorization"];

/// Settings of the shared agent.
#[derive(Debug, Clone)]
pub(crate) struct HttpSettings {
    pub(crate) timeout: Duration,
    pub(crate) user_agent: String,
    pub(crate) max_redirects: usize,
    pub(crate) max_body: u64,
    /// Idle connections kept per host; at least the number of threads that may use one host.
    pub(crate) idle_per_host: usize,
    pub(crate) max_retries: u32,
    pub(crate) retry_backoff: Duration,
    pub(crate) max_retry_wait: Duration,
    /// Headers for every request (credentials only to `start_origins`).
    pub(crate) headers: Vec<(String, String)>,
    /// Origins (`http://host:port`) of the start URLs.
    pub(crate) start_origins: Vec<String>,
    pub(crate) rules: HostRules,
    pub(crate) insecure: bool,
    /// Keep the final response's headers in `Fetched::headers` (plugins read them).
    pub(crate) keep_headers: bool,
    /// Cookies, basic auth, method and accepted statuses (`extras`).
    pub(crate) extras: RequestExtras,
    /// The proxy every request goes through (see [`proxy_for`]).
    pub(crate) proxy: Option<Proxy>,
}

/// The HTTP side of a run: the agent plus the politeness gate every request passes.
#[derive(Debug)]
pub(crate) struct HttpFetcher {
    agent: Agent,
    gate: Arc<HostGate>,
    settings: HttpSettings,
    cancel: CancelHandle,
}

/// The retry state of one URL (one redirect hop), shared by its HEAD, GET and body reads.
#[derive(Debug, Default)]
struct Budget {
    /// Retries spent (each counted and backed off).
    used: u32,
    /// A pooled connection went stale: this URL's requests now use new connections only.
    fresh: bool,
}

/// How one request (with its retries) ended.
enum Exchange<'a> {
    /// A response; the permit is held until the body is dealt with.
    Response(Response<Body>, HostPermit<'a>),
    /// No response: the failure class and message.
    Failed(FailKind, String),
    /// The run was cancelled.
    Interrupted,
}

impl HttpFetcher {
    pub(crate) fn new(settings: HttpSettings, gate: Arc<HostGate>, cancel: CancelHandle) -> Self {
        let t = Some(settings.timeout);
        let config = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(settings.user_agent.as_str())
            .timeout_resolve(t)
            .timeout_connect(t)
            .timeout_send_request(t)
            .timeout_recv_response(t)
            .timeout_recv_body(t)
            .max_idle_connections(settings.idle_per_host.max(16) * 4)
            .max_idle_connections_per_host(settings.idle_per_host)
            .max_idle_age(Duration::from_secs(30))
            .proxy(settings.proxy.clone())
            .tls_config(
                TlsConfig::builder()
                    .disable_verification(settings.insecure)
                    .build(),
            )
            .build();
        // The default chain plus a last link that tells whether a call opened a connection.
        let connector = DefaultConnector::new().chain(NoteNewConnection);
        let agent = Agent::with_parts(config, connector, CachingResolver::default());
        HttpFetcher {
            agent,
            gate,
            settings,
            cancel,
        }
    }

    /// Closes every connection, so requests blocked in other threads return at once.
    pub(crate) fn interrupt(&self) {
        self.agent.clone().shutdown();
    }

    /// Checks `url`, following redirects by hand. With `want_body`, an HTML body is returned.
    /// `claim` is asked before each redirect hop is requested: `true` means the caller claimed
    /// the hop's URL as another name of this check, to be requested now; `false` means the URL
    /// is checked on its own (known already, or just queued with its own decision), and the
    /// chain stops there (see [`Fetched::stopped_at`]).
    pub(crate) fn fetch(
        &self,
        url: &Url,
        want_body: bool,
        claim: &dyn Fn(&Url) -> bool,
    ) -> Fetched {
        // Every path out of the chain must hand back the hops it claimed, so they get finished.
        let mut owned = Vec::new();
        let mut retries = 0;
        let mut warnings = Vec::new();
        let mut f = self.fetch_chain(
            url,
            want_body,
            claim,
            &mut owned,
            &mut retries,
            &mut warnings,
        );
        f.owned = owned;
        f.retries = retries;
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
            return read_capped(res.body_mut(), ROBOTS_LIMIT)
                .ok()
                .map(|(b, _)| b);
        }
        None
    }

    /// The headers to send to `url`.
    fn headers_for<'a>(
        &'a self,
        url: &'a Url,
        host: &'a str,
    ) -> impl Iterator<Item = &'a (String, String)> + 'a {
        let own_site = self
            .settings
            .start_origins
            .iter()
            .any(|o| *o == url.origin().ascii_serialization());
        self.settings
            .headers
            .iter()
            .filter(move |(k, _)| {
                own_site || !CREDENTIAL_HEADERS.contains(&k.to_ascii_lowercase().as_str())
            })
            .chain(self.settings.rules.headers(host))
    }

    /// One request to `url`, retried after transient failures and overload answers, within
    /// the URL's `budget`. `head`: ask with HEAD; set to `false` when a 502/503/504 answer to a
    /// HEAD made the retries use GET.
    fn exchange(
        &self,
        url: &Url,
        head: &mut bool,
        budget: &mut Budget,
        retries: &mut u32,
        warnings: &mut Vec<Warning>,
    ) -> Exchange<'_> {
        let host = host_key(url);
        if url.as_str().len() > MAX_REQUEST_URL {
            let message = format!(
                "the URL is {} bytes long; at most {MAX_REQUEST_URL} are sent",
                url.as_str().len()
            );
            return Exchange::Failed(FailKind::InvalidUrl, message);
        }
        loop {
            let Some(permit) = self.gate.wait_for_host(&host) else {
                return Exchange::Interrupted;
            };
            let mut req = if *head {
                self.agent.head(url.as_str())
            } else {
                self.agent
                    .get(url.as_str())
                    .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
            };
            for (k, v) in self.headers_for(url, &host) {
                req = req.header(k.as_str(), v.as_str());
            }
            for (k, v) in self.settings.extras.headers_for(url) {
                req = req.header(k, v);
            }
            if budget.fresh {
                // No pooled connection is older than zero: ureq dials a new one.
                req = req.config().max_idle_age(Duration::ZERO).build();
            }
            connection::begin();
            let wait = match req.call() {
                Err(e) => {
                    drop(permit);
                    if self.cancel.is_cancelled() {
                        return Exchange::Interrupted;
                    }
                    if !budget.fresh && lost_before_response(&e) && !connection::opened_new() {
                        // A pooled connection the server had closed: resend now, on a new one.
                        budget.fresh = true;
                        continue;
                    }
                    let (kind, message) = classify(&e);
                    if !matches!(kind, FailKind::Timeout | FailKind::Io)
                        || budget.used >= self.settings.max_retries
                    {
                        return Exchange::Failed(kind, message);
                    }
                    Some(self.backoff(budget.used))
                }
                Ok(mut res) => {
                    let status = res.status().as_u16();
                    if status == 429 && !warnings.iter().any(|w| w.tag == "http-rate-limited") {
                        warnings.push(Warning {
                            tag: "http-rate-limited",
                            message: "the server answered 429 Too Many Requests; the host was slowed down".into(),
                        });
                    }
                    if !matches!(status, 429 | 502 | 503 | 504)
                        || budget.used >= self.settings.max_retries
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

    /// Spends one retry of `budget`.
    fn count_retry(&self, host: &str, budget: &mut Budget, retries: &mut u32) {
        budget.used += 1;
        *retries += 1;
        self.gate.note_retry(host);
    }

    /// The wait before retry `attempt + 1`: base × 2^attempt, plus up to 25 % jitter, capped.
    fn backoff(&self, attempt: u32) -> Duration {
        let base = self
            .settings
            .retry_backoff
            .saturating_mul(1 << attempt.min(16));
        let jitter = base.mul_f64(fastrand::f64() * 0.25);
        (base + jitter).min(self.settings.max_retry_wait)
    }

    fn fetch_chain(
        &self,
        url: &Url,
        want_body: bool,
        claim: &dyn Fn(&Url) -> bool,
        owned: &mut Vec<(String, usize)>,
        retries: &mut u32,
        warnings: &mut Vec<Warning>,
    ) -> Fetched {
        let mut current = url.clone();
        let mut hops: Vec<Hop> = Vec::new();
        let mut seen: HashSet<String> = HashSet::from([cache_key(url)]);
        let mut use_head = !want_body && !self.settings.extras.always_get;
        let mut budget = Budget::default();
        loop {
            let exchange = self.exchange(&current, &mut use_head, &mut budget, retries, warnings);
            let (mut res, permit) = match exchange {
                Exchange::Response(res, permit) => (res, permit),
                Exchange::Interrupted => return self.interrupted(url, hops),
                Exchange::Failed(kind, message) => return self.fail(&current, hops, kind, message),
            };
            let status = res.status().as_u16();
            if use_head && head_refused(status) {
                // Some servers answer HEAD wrongly; ask again with GET (same hop).
                drop(res);
                drop(permit);
                use_head = false;
                continue;
            }
            let location = location(&res);
            if (300..400).contains(&status) && (location.is_some() || must_locate(status)) {
                drain(res.body_mut());
                drop(permit);
                hops.push(Hop {
                    url: current.clone(),
                    status,
                });
                let Some(location) = location else {
                    let message = format!("{} without a Location header", status_text(status));
                    return self.fail(&current, hops, FailKind::BadRedirect, message);
                };
                let next = match current.join(&location) {
                    Ok(n) => n,
                    Err(e) => {
                        let message = format!("bad Location `{location}': {e}");
                        return self.fail(&current, hops, FailKind::BadRedirect, message);
                    }
                };
                if !matches!(next.scheme(), "http" | "https") {
                    let message = format!("redirect to unsupported URL {next}");
                    return self.fail(&current, hops, FailKind::BadRedirect, message);
                }
                let key = cache_key(&next);
                if !seen.insert(key.clone()) {
                    let message = format!("redirect loop back to {next}");
                    return self.fail(&next, hops, FailKind::RedirectLoop, message);
                }
                if hops.len() > self.settings.max_redirects {
                    let message = format!("more than {} redirects", self.settings.max_redirects);
                    return self.fail(&next, hops, FailKind::TooManyRedirects, message);
                }
                if !claim(&next) {
                    // Checked on its own (queued, in progress or done): that gives the verdict.
                    let mut f = Fetched::bare(&next, Outcome::Ok { status: None });
                    f.warnings.push(redirected(&next));
                    f.redirects = hops;
                    f.stopped_at = Some(key);
                    return f;
                }
                owned.push((key, hops.len()));
                current = next;
                budget = Budget::default();
                continue;
            }
            let mut f = Fetched::bare(&current, status_outcome(status));
            let content_type = header(&res, CONTENT_TYPE.as_str());
            f.content_type = content_type.as_deref().map(media_type);
            f.charset = content_type.as_deref().and_then(charset_param);
            f.modified = header(&res, LAST_MODIFIED.as_str());
            if self.settings.keep_headers {
                f.headers = all_headers(&res);
            }
            f.size = header(&res, CONTENT_LENGTH.as_str()).and_then(|n| n.trim().parse().ok());
            if !hops.is_empty() {
                f.warnings.push(redirected(&current));
            }
            f.redirects = hops;
            if use_head {
                return f;
            }
            if want_body && status < 300 && is_parsed(&current, f.content_type.as_deref()) {
                let t = Instant::now();
                match read_capped(res.body_mut(), self.settings.max_body) {
                    Ok((body, truncated)) => {
                        f.size = Some(body.len() as u64);
                        if truncated {
                            f.warnings.push(Warning {
                                tag: "content-too-large",
                                message: format!(
                                    "only the first {} bytes were parsed",
                                    self.settings.max_body
                                ),
                            });
                        }
                        f.body = Some(body);
                    }
                    Err(e) => {
                        drop(permit);
                        if self.cancel.is_cancelled() {
                            return self.interrupted(url, f.redirects);
                        }
                        let (kind, message) = classify_io(&e);
                        if matches!(kind, FailKind::Timeout | FailKind::Io)
                            && budget.used < self.settings.max_retries
                        {
                            // Cut off mid-body: a retry like one cut off before the headers.
                            drop(res);
                            let wait = self.backoff(budget.used);
                            if self.cancel.sleep_until(Instant::now() + wait) {
                                return self.interrupted(url, f.redirects);
                            }
                            self.count_retry(&host_key(&current), &mut budget, retries);
                            hops = f.redirects;
                            continue;
                        }
                        f.outcome = Outcome::Failed {
                            kind,
                            message: format!("reading the body: {message}"),
                        };
                        return f;
                    }
                }
                f.download_time = Some(t.elapsed());
            } else {
                drain(res.body_mut());
            }
            return f;
        }
    }

    fn fail(&self, at: &Url, hops: Vec<Hop>, kind: FailKind, message: String) -> Fetched {
        let mut f = Fetched::failed(at, kind, message);
        f.redirects = hops;
        f
    }

    fn interrupted(&self, url: &Url, hops: Vec<Hop>) -> Fetched {
        self.fail(
            url,
            hops,
            FailKind::Interrupted,
            "the run was cancelled".into(),
        )
    }
}

/// Parses an explicit proxy URL: an http(s) `CONNECT` proxy (ureq is built without socks).
pub(crate) fn parse_proxy(url: &str) -> Result<Proxy, String> {
    // `user:password@host` may come without a scheme: mask it all the same.
    let with_scheme = if url.contains("://") {
        url.to_owned()
    } else {
        format!("http://{url}")
    };
    let shown = redact(&with_scheme);
    let proxy = Proxy::new(url).map_err(|e| format!("proxy `{shown}': {e}"))?;
    match proxy.protocol() {
        ProxyProtocol::Http | ProxyProtocol::Https => Ok(proxy),
        _ => Err(format!(
            "proxy `{shown}': only http:// and https:// proxies are supported"
        )),
    }
}

/// The proxy of a run: the explicit one (already checked by `Checker::new`), else the
/// environment's when allowed (ureq reads `ALL_PROXY`/`HTTPS_PROXY`/`HTTP_PROXY` and
/// `NO_PROXY`); a socks proxy from the environment is ignored, as it cannot be used.
pub(crate) fn proxy_for(explicit: Option<&str>, from_env: bool) -> Option<Proxy> {
    match explicit {
        Some(url) => parse_proxy(url).ok(),
        None if from_env => Proxy::try_from_env()
            .filter(|p| matches!(p.protocol(), ProxyProtocol::Http | ProxyProtocol::Https)),
        None => None,
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

/// The `charset` parameter of a Content-Type value.
fn charset_param(ct: &str) -> Option<String> {
    ct.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_owned())
    })
}

fn redirected(to: &Url) -> Warning {
    Warning {
        tag: "http-redirected",
        message: format!("Redirected to `{to}'."),
    }
}

/// The politeness key of a URL: `host:port`.
pub(crate) fn host_key(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// Statuses after which a HEAD is asked again as GET: the server may not implement HEAD
/// properly. Not for 404/410 (gone either way), nor for 429 and 502/503/504 (overload: those
/// are retried, as GET, inside the URL's retry budget — never once more on top of it).
fn head_refused(status: u16) -> bool {
    status >= 400 && !matches!(status, 404 | 410 | 429 | 502 | 503 | 504)
}

fn status_outcome(status: u16) -> Outcome {
    if status >= 400 {
        Outcome::Broken { status }
    } else {
        Outcome::Ok {
            status: Some(status),
        }
    }
}

/// Statuses that only make sense with a `Location` to go to (300 Multiple Choices and
/// 304 Not Modified need none).
fn must_locate(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// `301 Moved Permanently`.
fn status_text(status: u16) -> String {
    let reason = ureq::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason());
    format!("{status} {}", reason.unwrap_or(""))
        .trim_end()
        .to_owned()
}

/// The `Location` header, read as bytes: servers send raw UTF-8 (and sometimes Latin-1)
/// although the field should be ASCII. Valid UTF-8 is kept (joining it to the URL
/// percent-encodes it, and a non-ASCII host goes through IDNA); any other byte above 0x7F is
/// percent-encoded as is. `None` when the header is missing or blank.
fn location(res: &Response<Body>) -> Option<String> {
    location_text(res.headers().get(LOCATION)?.as_bytes())
}

/// See [`location`].
fn location_text(raw: &[u8]) -> Option<String> {
    let text = match std::str::from_utf8(raw) {
        Ok(s) => s.to_owned(),
        Err(_) => raw
            .iter()
            .map(|&b| {
                if b.is_ascii() {
                    char::from(b).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect(),
    };
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn header(res: &Response<Body>, name: &str) -> Option<String> {
    res.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Every header of a response whose value is text, names lower-case, in the order sent.
fn all_headers(res: &Response<Body>) -> Vec<(String, String)> {
    res.headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect()
}

/// `text/HTML; charset=utf-8` → `text/html`.
fn media_type(ct: &str) -> String {
    ct.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Reads up to `cap` bytes. Returns the bytes and whether the body was longer.
fn read_capped(body: &mut Body, cap: u64) -> std::io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::new();
    body.as_reader()
        .take(cap.saturating_add(1))
        .read_to_end(&mut buf)?;
    let truncated = buf.len() as u64 > cap;
    buf.truncate(cap as usize);
    Ok((buf, truncated))
}

/// Reads and discards a small body so the connection can be reused; gives up on a large one
/// (the connection is then closed when the response drops).
fn drain(body: &mut Body) {
    let _ = std::io::copy(
        &mut body.as_reader().take(DRAIN_LIMIT),
        &mut std::io::sink(),
    );
}

/// `true` when the connection was lost before a response arrived: the server closed or reset
/// it (what a kept-alive connection closed at the moment of its reuse looks like).
fn lost_before_response(e: &ureq::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(e, ureq::Error::Io(io) if matches!(
        io.kind(),
        K::UnexpectedEof | K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe
    ))
}

/// Maps a ureq error to a failure class and message.
fn classify(e: &ureq::Error) -> (FailKind, String) {
    let kind = match e {
        ureq::Error::Timeout(_) => FailKind::Timeout,
        ureq::Error::Io(io) => return classify_io(io),
        ureq::Error::HostNotFound => FailKind::Dns,
        ureq::Error::ConnectionFailed => FailKind::Connect,
        ureq::Error::BadUri(_) => FailKind::InvalidUrl,
        ureq::Error::Protocol(_) => FailKind::Protocol,
        ureq::Error::Tls(_) => FailKind::Tls,
        _ => {
            let s = e.to_string();
            if s.contains("tls") || s.contains("certificate") {
                FailKind::Tls
            } else {
                FailKind::Io
            }
        }
    };
    (kind, e.to_string())
}

fn classify_io(e: &std::io::Error) -> (FailKind, String) {
    use std::io::ErrorKind as K;
    let msg = e.to_string();
    let kind = match e.kind() {
        K::TimedOut | K::WouldBlock => FailKind::Timeout,
        K::ConnectionRefused => FailKind::Connect,
        _ if msg.contains("lookup address") || msg.contains("Name or service") => FailKind::Dns,
        _ if msg.contains("timeout") => FailKind::Timeout,
        _ => FailKind::Io,
    };
    (kind, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_bytes_become_a_joinable_string() {
        let base = Url::parse("http://h.test/a/").unwrap();
        let join = |raw: &[u8]| base.join(&location_text(raw).unwrap()).unwrap().to_string();
        assert_eq!(join("/café".as_bytes()), "http://h.test/caf%C3%A9");
        assert_eq!(join(b"/caf\xe9?q=\xe9"), "http://h.test/caf%E9?q=%E9");
        assert_eq!(join(" next ".as_bytes()), "http://h.test/a/next");
        assert_eq!(
            join("http://bücher.test/x".as_bytes()),
            "http://xn--bcher-kva.test/x"
        );
        assert_eq!(location_text(b""), None);
        assert_eq!(location_text(b"  "), None);
    }

    #[test]
    fn proxy_urls_are_checked_and_never_shown_with_their_password() {
        for ok in [
            "http://u:pw@127.0.0.1:3128",
            "https://proxy.test",
            "127.0.0.1:3128",
        ] {
            assert!(parse_proxy(ok).is_ok(), "{ok}");
        }
        for bad in [
            "socks5://u:s3cret@127.0.0.1:1",
            "u:s3cret@[::1",
            "http://u:s3cret@[::1",
        ] {
            let e = parse_proxy(bad).unwrap_err();
            assert!(!e.contains("s3cret") && e.contains("***"), "{e}");
        }
        assert!(proxy_for(Some("http://127.0.0.1:3128"), false).is_some());
        assert!(proxy_for(None, false).is_none());
    }

    #[test]
    fn only_real_redirects_need_a_location() {
        assert!(must_locate(301) && must_locate(308));
        assert!(!must_locate(300) && !must_locate(304));
        assert_eq!(status_text(301), "301 Moved Permanently");
    }
}
