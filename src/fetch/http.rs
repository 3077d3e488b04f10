//! HTTP(S) checks through one shared `ureq` agent.
//!
//! ureq's own redirect handling is off: each hop is a separate request that passes
//! [`HostGate::wait_for_host`] again and is recorded. 4xx/5xx are data, not errors. Pages to be
//! parsed are fetched with GET; links that are only checked use HEAD, and fall back to GET when
//! the server refuses HEAD. Bodies are read up to a cap; a body small enough is read to its
//! end so the connection goes back to the pool, a larger one is dropped (closing is cheaper
//! than downloading it).

use std::collections::HashSet;
use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ureq::http::header::{CONTENT_LENGTH, CONTENT_TYPE, LAST_MODIFIED, LOCATION};
use ureq::{Agent, Body};
use url::Url;

use super::{Fetched, is_html};
use crate::cancel::CancelHandle;
use crate::hosts::HostGate;
use crate::outcome::{FailKind, Hop, Outcome, Warning};
use crate::url_norm::cache_key;

/// Bytes of a body we are not going to parse that are still read to keep the connection.
const DRAIN_LIMIT: u64 = 64 * 1024;

/// Settings of the shared agent.
#[derive(Debug, Clone)]
pub(crate) struct HttpSettings {
    pub(crate) timeout: Duration,
    pub(crate) user_agent: String,
    pub(crate) max_redirects: usize,
    pub(crate) max_body: u64,
    /// Idle connections kept per host; at least the number of threads that may use one host.
    pub(crate) idle_per_host: usize,
}

/// The HTTP side of a run: the agent plus the politeness gate every request passes.
#[derive(Debug)]
pub(crate) struct HttpFetcher {
    agent: Agent,
    gate: Arc<HostGate>,
    settings: HttpSettings,
    cancel: CancelHandle,
}

impl HttpFetcher {
    pub(crate) fn new(settings: HttpSettings, gate: Arc<HostGate>, cancel: CancelHandle) -> Self {
        let t = Some(settings.timeout);
        let agent: Agent = Agent::config_builder()
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
            .proxy(None)
            .build()
            .into();
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
    /// `claim` is asked before each redirect hop is requested: `false` means the hop's URL is
    /// known already, and the chain stops there (see [`Fetched::stopped_at`]).
    pub(crate) fn fetch(
        &self,
        url: &Url,
        want_body: bool,
        claim: &dyn Fn(&str) -> bool,
    ) -> Fetched {
        // Every path out of the chain must hand back the hops it claimed, so they get finished.
        let mut owned = Vec::new();
        let mut f = self.fetch_chain(url, want_body, claim, &mut owned);
        f.owned = owned;
        f
    }

    fn fetch_chain(
        &self,
        url: &Url,
        want_body: bool,
        claim: &dyn Fn(&str) -> bool,
        owned: &mut Vec<(String, usize)>,
    ) -> Fetched {
        let mut current = url.clone();
        let mut hops: Vec<Hop> = Vec::new();
        let mut seen: HashSet<String> = HashSet::from([cache_key(url)]);
        let mut use_head = !want_body;
        loop {
            let host = host_key(&current);
            let Some(permit) = self.gate.wait_for_host(&host) else {
                return self.interrupted(url, hops);
            };
            let sent = if use_head {
                self.agent.head(current.as_str()).call()
            } else {
                self.agent
                    .get(current.as_str())
                    .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
                    .call()
            };
            let mut res = match sent {
                Ok(r) => r,
                Err(e) => {
                    drop(permit);
                    if self.cancel.is_cancelled() {
                        return self.interrupted(url, hops);
                    }
                    let (kind, message) = classify(&e);
                    let mut f = Fetched::failed(&current, kind, message);
                    f.redirects = hops;
                    return f;
                }
            };
            let status = res.status().as_u16();
            if use_head && head_refused(status) {
                // Some servers answer HEAD wrongly; ask again with GET (same hop).
                drop(res);
                drop(permit);
                use_head = false;
                continue;
            }
            let location = res
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            if (300..400).contains(&status)
                && let Some(location) = location
            {
                drain(res.body_mut());
                drop(permit);
                hops.push(Hop {
                    url: current.clone(),
                    status,
                });
                let next = match current.join(location.trim()) {
                    Ok(n) => n,
                    Err(e) => {
                        return self.fail(
                            &current,
                            hops,
                            FailKind::BadRedirect,
                            format!("bad Location `{location}': {e}"),
                        );
                    }
                };
                if !matches!(next.scheme(), "http" | "https") {
                    return self.fail(
                        &current,
                        hops,
                        FailKind::BadRedirect,
                        format!("redirect to unsupported URL {next}"),
                    );
                }
                let key = cache_key(&next);
                if !seen.insert(key.clone()) {
                    return self.fail(
                        &next,
                        hops,
                        FailKind::RedirectLoop,
                        format!("redirect loop back to {next}"),
                    );
                }
                if hops.len() > self.settings.max_redirects {
                    return self.fail(
                        &next,
                        hops,
                        FailKind::TooManyRedirects,
                        format!("more than {} redirects", self.settings.max_redirects),
                    );
                }
                if !claim(&key) {
                    // Known already (queued, in progress or done): its own check gives the verdict.
                    let mut f = Fetched::bare(&next, Outcome::Ok { status: None });
                    f.warnings.push(redirected(&next));
                    f.redirects = hops;
                    f.stopped_at = Some(key);
                    return f;
                }
                owned.push((key, hops.len()));
                current = next;
                continue;
            }
            let mut f = Fetched::bare(&current, status_outcome(status));
            f.content_type = header(&res, CONTENT_TYPE.as_str()).map(|ct| media_type(&ct));
            f.modified = header(&res, LAST_MODIFIED.as_str());
            f.size = header(&res, CONTENT_LENGTH.as_str()).and_then(|n| n.trim().parse().ok());
            if !hops.is_empty() {
                f.warnings.push(redirected(&current));
            }
            f.redirects = hops;
            if use_head {
                return f;
            }
            if want_body && status < 300 && is_html(f.content_type.as_deref()) {
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

/// Statuses after which a HEAD is retried as GET: the server may not implement HEAD properly.
/// Not for 404/410 (gone either way) or 429 (slow down, do not double the load).
fn head_refused(status: u16) -> bool {
    status >= 400 && !matches!(status, 404 | 410 | 429)
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

fn header(res: &ureq::http::Response<Body>, name: &str) -> Option<String> {
    res.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
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
    body.as_reader().take(cap + 1).read_to_end(&mut buf)?;
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
