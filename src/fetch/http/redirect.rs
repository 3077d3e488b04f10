//! The redirect chain of one check, followed by hand: each hop claimed (or handed to the URL's
//! own check), requested through the retry loop, and its body read when it is to be parsed.

use std::collections::HashSet;
use std::time::Instant;

use ureq::http::header::{CONTENT_LENGTH, CONTENT_TYPE, ETAG, LAST_MODIFIED};
use url::Url;

use super::HttpFetcher;
use super::response::{
    Sniffed, all_headers, charset_param, classify_io, drain, final_outcome, head_refused, header,
    host_key, location, login_redirect, media_type, must_locate, no_sniff, read_capped,
    read_sniffed, redirected, status_text,
};
use super::retry::{Budget, Exchange};
use crate::extract::format::is_parsed;
use crate::extract::sniff::is_unknown;
use crate::fetch::{Chain, Fetched, Validators};
use crate::model::outcome::{FailKind, Hop, Outcome, Warning};
use crate::policy::url_cap;
use crate::policy::url_norm::cache_key;

impl HttpFetcher {
    /// `resume`: `Some(get)` when the first request may hand the task back
    /// ([`Fetched::deferred`]), asking with GET when `get`; `retries` then holds the retries
    /// the task spent already. (Nine arguments: the chain's outputs are three `&mut`s its
    /// caller merges, as before deferral existed.)
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fetch_chain(
        &self,
        url: &Url,
        want_body: bool,
        validators: Option<&Validators>,
        chain: Chain<'_>,
        resume: Option<bool>,
        owned: &mut Vec<(String, usize)>,
        retries: &mut u32,
        warnings: &mut Vec<Warning>,
    ) -> Fetched {
        let mut current = url.clone();
        let mut hops: Vec<Hop> = Vec::new();
        // The keys of the chain so far, to stop a loop: built at the first redirect (most
        // checks have none).
        let mut seen: Option<HashSet<String>> = None;
        let mut use_head = !want_body && !self.always_get(url) && resume != Some(true);
        // Only the first hop is conditional: the validators are the start URL's.
        let mut budget = Budget::first_hop(*retries, resume.is_some(), validators.cloned());
        budget.probe = chain.probe;
        loop {
            let exchange = self.exchange(&current, &mut use_head, &mut budget, retries, warnings);
            // Only the URL's first request may hand the task back: a continuation (GET after
            // a refused HEAD, a redirect hop) would repeat what went before.
            budget.may_defer = false;
            let (mut res, permit) = match exchange {
                Exchange::Response(res, permit) => (res, permit),
                Exchange::Deferred(due) => {
                    debug_assert!(hops.is_empty(), "only the first hop is deferred");
                    let mut f = Fetched::bare(url, Outcome::Ok { status: None });
                    f.deferred = Some((due, !use_head));
                    return f;
                }
                Exchange::Interrupted => return self.interrupted(url, hops),
                Exchange::Refused(reason) => {
                    let mut f = Fetched::bare(&current, Outcome::Ignored { reason });
                    f.redirects = hops;
                    return f;
                }
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
                if url_cap::is_too_long(&next) {
                    let message = url_cap::message(&next, "the redirect target");
                    return self.fail(&current, hops, FailKind::UrlTooLong, message);
                }
                let key = cache_key(&next);
                if budget.cookies_changed {
                    // A server that set a cookie and sends us back (a consent wall, a session
                    // check) expects a different answer now: the chain so far is no loop.
                    // `max_redirects` still bounds it.
                    seen = Some(HashSet::new());
                }
                let seen = seen.get_or_insert_with(|| HashSet::from([cache_key(url)]));
                if !seen.insert(key.clone()) {
                    let message = format!("redirect loop back to {next}");
                    return self.fail(&next, hops, FailKind::RedirectLoop, message);
                }
                // One budget for the whole chain, also the hops before a hand-over.
                if chain.before + hops.len() > self.settings.max_redirects {
                    let message = format!("more than {} redirects", self.settings.max_redirects);
                    return self.fail(&next, hops, FailKind::TooManyRedirects, message);
                }
                // A hop back into this chain (past the loop check: a cookie changed) is this
                // check's own URL, claimed already.
                let own = key == cache_key(url) || owned.iter().any(|(k, _)| *k == key);
                if !own && !(chain.claim)(&next, chain.before + hops.len()) {
                    // Checked on its own (queued, in progress or done): that gives the verdict.
                    let mut f = Fetched::bare(&next, Outcome::Ok { status: None });
                    f.warnings.push(redirected(&next));
                    f.warnings.extend(login_redirect(url, &next));
                    f.redirects = hops;
                    f.stopped_at = Some(key);
                    return f;
                }
                if !own {
                    owned.push((key, hops.len()));
                }
                // A hop to a host whose HEAD is not trusted is asked with GET.
                use_head &= !self.always_get(&next);
                current = next;
                budget = Budget::default();
                continue;
            }
            let mut wall = Vec::new();
            let mut f = Fetched::bare(&current, final_outcome(&current, status, &res, &mut wall));
            f.warnings.extend(wall);
            let content_type = header(&res, CONTENT_TYPE.as_str());
            f.content_type = content_type.as_deref().map(media_type);
            f.charset = content_type.as_deref().and_then(charset_param);
            f.modified = header(&res, LAST_MODIFIED.as_str());
            f.etag = header(&res, ETAG.as_str());
            if self.settings.keep_headers {
                f.headers = all_headers(&res);
            }
            f.size = header(&res, CONTENT_LENGTH.as_str()).and_then(|n| n.trim().parse().ok());
            if !hops.is_empty() {
                f.warnings.push(redirected(&current));
                f.warnings.extend(login_redirect(url, &current));
            }
            f.redirects = hops;
            if use_head {
                return f;
            }
            // Without a usable type, a browser sniffs the body: so do we (`extract::sniff`).
            let sniffing = want_body && status < 300 && is_unknown(f.content_type.as_deref());
            if sniffing
                || want_body && status < 300 && is_parsed(&current, f.content_type.as_deref())
            {
                let t = Instant::now();
                let read = if sniffing {
                    let scriptable = !no_sniff(&res);
                    match read_sniffed(res.body_mut(), self.settings.max_body, f.size, scriptable) {
                        Ok(Sniffed::Read(media_type, body, truncated)) => {
                            f.content_type = Some(media_type.to_owned());
                            f.sniffed = true;
                            Ok(Some((body, truncated)))
                        }
                        Ok(Sniffed::Not) => Ok(None),
                        Err(e) => Err(e),
                    }
                } else {
                    read_capped(res.body_mut(), self.settings.max_body, f.size).map(Some)
                };
                match read {
                    // Drained: not a type we read.
                    Ok(None) => return f,
                    Ok(Some((body, truncated))) => {
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

    /// `true` when checked links on `url`'s host are asked with GET only: `--method get`, or a
    /// host rule for the hosts whose HEAD answers otherwise than GET.
    fn always_get(&self, url: &Url) -> bool {
        let default = self.settings.extras.always_get;
        let rules = &self.settings.rules;
        // No `host:port` to build for a run without host rules.
        if rules.is_empty() {
            return default;
        }
        rules.always_get(&host_key(url), default)
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
