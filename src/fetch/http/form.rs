//! One page exchange outside the crawl, for the login before it (`engine/login.rs`): a GET of
//! the login page, or the form's submission (POST `application/x-www-form-urlencoded`, or GET
//! with the fields in the query), redirects followed by hand as browsers follow a form's:
//! 301/302/303 turn into a GET without the body, 307/308 repeat the request. A 307/308 repeats
//! a body (the password) only to the origin of the first URL (the form's action): one to any
//! other origin, plain `http` from `https` among them, ends the exchange unfollowed, its
//! Location in [`PageAnswer::withheld`].
//!
//! The request carries what a crawl request carries (the user's headers for the URL, its
//! credentials, the run's cookies) and stores the cookies each answer sets into the run's jar,
//! which is the point: the crawl then sends the session's cookies. The form's body holds the
//! password; it is never put in a message, and the messages here quote URLs only.

use std::time::SystemTime;

use ureq::http::header::SET_COOKIE;
use url::Url;

use super::HttpFetcher;
use super::response::{classify, drain, header, host_key, location, read_capped};
use crate::policy::host_gate::Turn;

/// How a form is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FormMethod {
    /// The fields in the query string (also the plain GET of a page).
    Get,
    /// The fields urlencoded in the body.
    Post,
}

/// `url` as a message may quote it: without its query, where a GET form puts the password.
fn shown(url: &Url) -> &str {
    &url[..url::Position::AfterPath]
}

/// The answer at the end of the redirects.
#[derive(Debug)]
pub(crate) struct PageAnswer {
    /// Its status.
    pub(crate) status: u16,
    /// Where it came from, after the redirects.
    pub(crate) url: Url,
    /// The body, capped at the run's `max_body_size`.
    pub(crate) body: Vec<u8>,
    /// The Location of a 307/308 that would have sent the body again to another origin than
    /// the first URL's: not followed, and `status` is that redirect's. `None` otherwise.
    pub(crate) withheld: Option<Url>,
}

impl HttpFetcher {
    /// The headers a crawl request to `url` carries, `Cookie` aside.
    fn plain_headers(&self, url: &Url, host: &str) -> Vec<(String, String)> {
        let mut headers: Vec<(String, String)> = self
            .headers_for(url, host)
            .filter(|(k, _)| !k.eq_ignore_ascii_case("cookie"))
            .cloned()
            .collect();
        for (k, v) in self.settings.extras.headers_for(url) {
            if k != "Cookie" {
                headers.push((k.to_owned(), v));
            }
        }
        headers
    }

    /// Waits for the host's turn for a request made outside the fetcher (see `Fetch::pace`).
    pub(crate) fn pace(&self, url: &Url) -> Result<(), String> {
        let host = host_key(url);
        match self.gate.permit_or_later(&host, false) {
            Turn::Now(mut permit) => {
                permit.answered();
                Ok(())
            }
            Turn::Cancelled => Err("interrupted".into()),
            Turn::Later(_) | Turn::Down(_) => Err("the host cannot be reached".into()),
        }
    }

    /// The one `Cookie` header of a request to `url`: the user's cookies, then the run's
    /// (RFC 6265 §5.4).
    pub(crate) fn cookie_header(&self, url: &Url, host: &str) -> Option<String> {
        let mut parts: Vec<String> = self
            .headers_for(url, host)
            .filter(|(k, _)| k.eq_ignore_ascii_case("cookie"))
            .map(|(_, v)| v.clone())
            .collect();
        parts.extend(
            self.settings
                .extras
                .headers_for(url)
                .into_iter()
                .filter(|(k, _)| *k == "Cookie")
                .map(|(_, v)| v),
        );
        parts.extend(self.cookies.header_for(url, SystemTime::now()));
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Sends `fields` to `url` with `method` (no fields: a plain GET) and follows the
    /// redirects. `Err`: why no answer came, quoting the URL only.
    pub(crate) fn exchange_page(
        &self,
        method: FormMethod,
        url: &Url,
        fields: &[(String, String)],
    ) -> Result<PageAnswer, String> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let mut current = url.clone();
        let mut post = method == FormMethod::Post;
        if !post && !fields.is_empty() {
            current.set_query(Some(&body));
        }
        for _ in 0..=self.settings.max_redirects {
            let host = host_key(&current);
            let mut permit = match self.gate.permit_or_later(&host, false) {
                Turn::Now(permit) => permit,
                Turn::Cancelled => return Err(format!("{}: interrupted", shown(&current))),
                Turn::Later(_) | Turn::Down(_) => {
                    return Err(format!("{}: the host cannot be reached", shown(&current)));
                }
            };
            let cookie = self.cookie_header(&current, &host);
            let result = if post {
                let mut req = self
                    .agent
                    .post(current.as_str())
                    .header("Content-Type", "application/x-www-form-urlencoded");
                for (k, v) in self.plain_headers(&current, &host) {
                    req = req.header(k, v);
                }
                if let Some(c) = &cookie {
                    req = req.header("Cookie", c.as_str());
                }
                req.send(body.as_bytes())
            } else {
                let mut req = self
                    .agent
                    .get(current.as_str())
                    .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8");
                for (k, v) in self.plain_headers(&current, &host) {
                    req = req.header(k, v);
                }
                if let Some(c) = &cookie {
                    req = req.header("Cookie", c.as_str());
                }
                req.call()
            };
            let mut res = result.map_err(|e| format!("{}: {}", shown(&current), classify(&e).1))?;
            permit.answered();
            let set_cookie = res.headers().get_all(SET_COOKIE);
            let set_cookie = set_cookie.iter().filter_map(|v| v.to_str().ok());
            self.cookies.store(&current, set_cookie, SystemTime::now());
            let status = res.status().as_u16();
            if matches!(status, 301 | 302 | 303 | 307 | 308)
                && let Some(next) = location(&res).and_then(|l| current.join(&l).ok())
            {
                drain(res.body_mut());
                // A browser resends a form only after 307 and 308; we only to the same origin.
                post &= matches!(status, 307 | 308);
                if post && next.origin() != url.origin() {
                    return Ok(PageAnswer {
                        status,
                        url: current,
                        body: Vec::new(),
                        withheld: Some(next),
                    });
                }
                current = next;
                continue;
            }
            let announced = header(&res, "content-length").and_then(|n| n.trim().parse().ok());
            let (body, _) = read_capped(res.body_mut(), self.settings.max_body, announced)
                .map_err(|e| format!("{}: {e}", shown(&current)))?;
            return Ok(PageAnswer {
                status,
                url: current,
                body,
                withheld: None,
            });
        }
        Err(format!(
            "{}: more than {} redirects",
            shown(url),
            self.settings.max_redirects
        ))
    }
}
