//! [`SessionCookies`]: the cookies servers set during a run (`Set-Cookie`), kept by the RFC 6265
//! storage model and sent back on later requests and redirect hops, as a browser does. News
//! sites and consent walls set a cookie and redirect to the same URL, expecting it back; without
//! it the chain is a redirect loop no browser sees.
//!
//! Rules (RFC 6265 §5.2–5.4, with RFC 6265bis where it is stricter):
//! - A cookie without `Domain` is host-only: sent to the host that set it and no other. A
//!   `Domain` must domain-match the host that set it and must not be a public suffix (the
//!   `psl` list), so `a.co.uk` cannot set a cookie for every `.co.uk` site; an IP address sets
//!   host-only cookies only. Cookies ignore the port, as in browsers.
//! - `Path` (else the default path: the request path up to its last `/`), `Secure` (sent over
//!   https only; a `Secure` cookie set over plain http is ignored), `Max-Age` (before
//!   `Expires`; zero or less deletes it) and `Expires` (an HTTP date).
//! - A cookie replaces the one with the same name, domain and path.
//!
//! Everything comes from servers and is untrusted: a line too long is ignored, and at most
//! [`MAX_PER_DOMAIN`] cookies per domain and [`MAX_COOKIES`] in all are kept (the oldest go).
//! Values never appear in `Debug` output: they are credentials.

use std::fmt;
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;
use url::Url;

use crate::config::cookies::path_matches;

/// Longest `Set-Cookie` value read (browsers cap a cookie at 4096 bytes).
const MAX_LINE: usize = 8 * 1024;
/// Cookies kept per domain.
const MAX_PER_DOMAIN: usize = 50;
/// Cookies kept in all.
const MAX_COOKIES: usize = 3000;

#[derive(Clone)]
struct Cookie {
    name: String,
    value: String,
    /// Lower-case host (host-only) or domain, without a leading dot.
    domain: String,
    host_only: bool,
    path: String,
    secure: bool,
    /// `None`: a session cookie, kept for the whole run.
    expires: Option<SystemTime>,
    /// Order of creation, for the `Cookie` header's order and for eviction.
    created: u64,
}

#[derive(Default)]
struct Jar {
    cookies: Vec<Cookie>,
    next: u64,
}

/// The cookies set during one run. Shared by every worker; each call holds the lock briefly
/// and never across a request.
#[derive(Default)]
pub(crate) struct SessionCookies {
    jar: Mutex<Jar>,
}

impl fmt::Debug for SessionCookies {
    /// Names and domains only: cookie values are credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let jar = self.jar.lock();
        f.debug_list()
            .entries(
                jar.cookies
                    .iter()
                    .map(|c| format!("{}@{}{}", c.name, c.domain, c.path)),
            )
            .finish()
    }
}

impl SessionCookies {
    /// Stores the cookies of `set_cookie` (the `Set-Cookie` values of a response to `url`) at
    /// `now`. Returns `true` when the jar changed (a cookie added, replaced with another value or
    /// deleted).
    pub(crate) fn store<'a>(
        &self,
        url: &Url,
        set_cookie: impl IntoIterator<Item = &'a str>,
        now: SystemTime,
    ) -> bool {
        let Some(host) = url.host_str().map(str::to_ascii_lowercase) else {
            return false;
        };
        let secure_url = url.scheme() == "https";
        let mut changed = false;
        for line in set_cookie {
            let Some(c) = parse(line, &host, url.path(), secure_url, now) else {
                continue;
            };
            let mut jar = self.jar.lock();
            changed |= jar.put(c, now);
        }
        changed
    }

    /// The `Cookie` header value for a request to `url` at `now`, when a cookie matches:
    /// longer paths first, then older cookies first (RFC 6265 §5.4).
    pub(crate) fn header_for(&self, url: &Url, now: SystemTime) -> Option<String> {
        let host = url.host_str()?.to_ascii_lowercase();
        let secure_url = url.scheme() == "https";
        let jar = self.jar.lock();
        if jar.cookies.is_empty() {
            return None;
        }
        let mut matching: Vec<&Cookie> = jar
            .cookies
            .iter()
            .filter(|c| {
                let domain_ok = if c.host_only {
                    host == c.domain
                } else {
                    domain_matches(&host, &c.domain)
                };
                domain_ok
                    && (!c.secure || secure_url)
                    && c.expires.is_none_or(|e| e > now)
                    && path_matches(url.path(), &c.path)
            })
            .collect();
        if matching.is_empty() {
            return None;
        }
        matching.sort_by(|a, b| {
            b.path
                .len()
                .cmp(&a.path.len())
                .then(a.created.cmp(&b.created))
        });
        let pairs: Vec<String> = matching
            .iter()
            .map(|c| format!("{}={}", c.name, c.value))
            .collect();
        Some(pairs.join("; "))
    }
}

impl SessionCookies {
    /// Adds the cookies of a jar file read at the start of a run (see
    /// [`Config::cookie_jar`](crate::Config::cookie_jar)), at `now`. A line for a domain and
    /// its subdomains counts as such only when the domain may carry cookies for them (not a
    /// public suffix, not an IP address); otherwise it goes to that one host. Expired lines
    /// are dropped; the caps of a run hold.
    pub(crate) fn seed(&self, jar: &crate::config::cookies::CookieJar, now: SystemTime) {
        let mut kept = self.jar.lock();
        for (domain, subdomains, path, secure, expires, name, value) in jar.lines() {
            if name.is_empty() || has_controls(name) || has_controls(value) {
                continue;
            }
            let c = Cookie {
                name: name.to_owned(),
                value: value.to_owned(),
                domain: domain.to_owned(),
                host_only: !(subdomains && is_registrable(domain)),
                path: path.to_owned(),
                secure,
                expires: (expires != 0)
                    .then(|| SystemTime::UNIX_EPOCH + Duration::from_secs(expires)),
                created: 0,
            };
            kept.put(c, now);
        }
    }

    /// The cookies alive at `now` as a Netscape cookies.txt file (a session cookie has the
    /// expiry 0), oldest first.
    pub(crate) fn netscape(&self, now: SystemTime) -> String {
        let jar = self.jar.lock();
        let mut out = String::from("# Netscape HTTP Cookie File\n# Written by linkpatrol.\n");
        // A line break or tab in a field would split the file's line.
        let plain = |c: &&Cookie| !has_controls(&c.domain) && !has_controls(&c.path);
        let alive = |c: &&Cookie| c.expires.is_none_or(|e| e > now);
        for c in jar.cookies.iter().filter(plain).filter(alive) {
            let expires = c
                .expires
                .and_then(|e| e.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs().max(1));
            let flag = |b: bool| if b { "TRUE" } else { "FALSE" };
            let domain = if c.host_only {
                c.domain.clone()
            } else {
                format!(".{}", c.domain)
            };
            out.push_str(&format!(
                "{domain}\t{}\t{}\t{}\t{expires}\t{}\t{}\n",
                flag(!c.host_only),
                c.path,
                flag(c.secure),
                c.name,
                c.value
            ));
        }
        out
    }
}

impl Jar {
    /// Adds, replaces or deletes (an expired cookie) `c`. `true` when something changed.
    fn put(&mut self, mut c: Cookie, now: SystemTime) -> bool {
        self.cookies.retain(|k| k.expires.is_none_or(|e| e > now));
        let same = self
            .cookies
            .iter()
            .position(|k| k.name == c.name && k.domain == c.domain && k.path == c.path);
        let expired = c.expires.is_some_and(|e| e <= now);
        if let Some(i) = same {
            let old = &self.cookies[i];
            if expired {
                self.cookies.remove(i);
                return true;
            }
            let changed = old.value != c.value || old.host_only != c.host_only;
            // The old creation time is kept (RFC 6265 §5.3 step 11.3).
            c.created = old.created;
            self.cookies[i] = c;
            return changed;
        }
        if expired {
            return false;
        }
        c.created = self.next;
        self.next += 1;
        let in_domain = self.cookies.iter().filter(|k| k.domain == c.domain).count();
        if in_domain >= MAX_PER_DOMAIN {
            if let Some(i) = self.cookies.iter().position(|k| k.domain == c.domain) {
                self.cookies.remove(i);
            }
        } else if self.cookies.len() >= MAX_COOKIES {
            self.cookies.remove(0);
        }
        self.cookies.push(c);
        true
    }
}

/// `host` domain-matches `domain`: equal, or a name ending in `.domain` (not an IP address).
fn domain_matches(host: &str, domain: &str) -> bool {
    host == domain
        || (host.len() > domain.len()
            && host.ends_with(domain)
            && host.as_bytes()[host.len() - domain.len() - 1] == b'.'
            && host.parse::<std::net::IpAddr>().is_err()
            && !host.starts_with('['))
}

/// One `Set-Cookie` value from `host` (request path `path`), or `None` when it is to be
/// ignored.
fn parse(line: &str, host: &str, path: &str, secure_url: bool, now: SystemTime) -> Option<Cookie> {
    if line.len() > MAX_LINE {
        return None;
    }
    let mut parts = line.split(';');
    let (name, value) = parts.next()?.split_once('=')?;
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() || has_controls(name) || has_controls(value) {
        return None;
    }
    let mut domain: Option<String> = None;
    let mut cookie_path: Option<String> = None;
    let mut secure = false;
    let mut max_age: Option<i64> = None;
    let mut expires: Option<SystemTime> = None;
    for attr in parts {
        let (key, val) = attr.split_once('=').unwrap_or((attr, ""));
        let (key, val) = (key.trim(), val.trim());
        if key.eq_ignore_ascii_case("domain") {
            let d = val.trim_start_matches('.').to_ascii_lowercase();
            if !d.is_empty() {
                domain = Some(d);
            }
        } else if key.eq_ignore_ascii_case("path") {
            cookie_path = val.starts_with('/').then(|| val.to_owned());
        } else if key.eq_ignore_ascii_case("secure") {
            secure = true;
        } else if key.eq_ignore_ascii_case("max-age") {
            if let Ok(n) = val.parse::<i64>() {
                max_age = Some(n);
            }
        } else if key.eq_ignore_ascii_case("expires")
            && let Ok(t) = httpdate::parse_http_date(val)
        {
            expires = Some(t);
        }
    }
    if secure && !secure_url {
        return None;
    }
    let expires = match max_age {
        Some(n) if n <= 0 => Some(SystemTime::UNIX_EPOCH),
        Some(n) => Some(now + Duration::from_secs(n.unsigned_abs().min(400 * 86_400))),
        None => expires,
    };
    let (domain, host_only) = match domain {
        None => (host.to_owned(), true),
        Some(d) if d == host => (d, !is_registrable(host)),
        Some(d) => {
            if !domain_matches(host, &d) || !is_registrable(&d) {
                return None;
            }
            (d, false)
        }
    };
    let path = cookie_path.unwrap_or_else(|| default_path(path));
    Some(Cookie {
        name: name.to_owned(),
        value: value.to_owned(),
        domain,
        host_only,
        path,
        secure,
        expires,
        created: 0,
    })
}

/// `true` when `domain` may carry cookies for its subdomains: a name under a public suffix,
/// not the suffix itself, and not an IP address.
fn is_registrable(domain: &str) -> bool {
    if domain.parse::<std::net::IpAddr>().is_ok() || domain.starts_with('[') {
        return false;
    }
    match psl::suffix_str(domain) {
        Some(suffix) => suffix != domain,
        None => false,
    }
}

/// RFC 6265 §5.1.4: the request path up to (not including) its last `/`, or `/`.
fn default_path(path: &str) -> String {
    match path.rfind('/') {
        Some(0) | None => "/".to_owned(),
        Some(i) => path[..i].to_owned(),
    }
}

fn has_controls(s: &str) -> bool {
    s.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn jar_with(at: &str, lines: &[&str]) -> SessionCookies {
        let jar = SessionCookies::default();
        jar.store(&url(at), lines.iter().copied(), SystemTime::now());
        jar
    }

    fn sent(jar: &SessionCookies, to: &str) -> Option<String> {
        jar.header_for(&url(to), SystemTime::now())
    }

    #[test]
    fn a_host_only_cookie_goes_to_its_host_only() {
        let jar = jar_with("http://www.example.com/a/b", &["sid=1"]);
        assert_eq!(
            sent(&jar, "http://www.example.com/a/c").as_deref(),
            Some("sid=1")
        );
        assert_eq!(
            sent(&jar, "http://www.example.com:8080/a/x").as_deref(),
            Some("sid=1")
        );
        assert_eq!(
            sent(&jar, "http://www.example.com/other"),
            None,
            "default path /a"
        );
        assert_eq!(sent(&jar, "http://example.com/a/c"), None);
        assert_eq!(sent(&jar, "http://sub.www.example.com/a/c"), None);
        assert_eq!(sent(&jar, "http://evil.test/a/c"), None);
    }

    #[test]
    fn a_domain_cookie_goes_to_the_domain_and_its_subdomains() {
        let jar = jar_with(
            "https://www.example.com/",
            &["c=2; Domain=.Example.com; Path=/"],
        );
        assert_eq!(sent(&jar, "http://example.com/x").as_deref(), Some("c=2"));
        assert_eq!(
            sent(&jar, "http://a.b.example.com/").as_deref(),
            Some("c=2")
        );
        assert_eq!(sent(&jar, "http://notexample.com/"), None);
        assert_eq!(sent(&jar, "http://example.com.evil.test/"), None);
    }

    #[test]
    fn a_cookie_for_another_site_or_a_public_suffix_is_ignored() {
        for line in [
            "c=1; Domain=other.test",
            "c=1; Domain=com",
            "c=1; Domain=co.uk",
            "c=1; Domain=ample.com",
        ] {
            let jar = jar_with("http://www.example.com/", &[line]);
            assert!(format!("{jar:?}") == "[]", "{line}: {jar:?}");
        }
        // A public suffix setting a cookie for itself gets a host-only one.
        let jar = jar_with("http://github.io/", &["c=1; Domain=github.io"]);
        assert_eq!(sent(&jar, "http://github.io/").as_deref(), Some("c=1"));
        assert_eq!(sent(&jar, "http://someone.github.io/"), None);
        // An IP address: host-only.
        let jar = jar_with("http://127.0.0.1:9/", &["c=1; Domain=0.0.1"]);
        assert_eq!(sent(&jar, "http://127.0.0.1/"), None);
        let jar = jar_with("http://127.0.0.1:9/", &["c=1"]);
        assert_eq!(sent(&jar, "http://127.0.0.2:9/"), None);
        assert_eq!(sent(&jar, "http://127.0.0.1:10/").as_deref(), Some("c=1"));
    }

    #[test]
    fn secure_expiry_replacement_and_order() {
        let jar = SessionCookies::default();
        let now = SystemTime::now();
        let at = url("https://example.com/docs/page");
        assert!(jar.store(&at, ["a=1; Path=/", "b=2; Path=/docs; Secure"], now));
        assert_eq!(
            jar.header_for(&url("https://example.com/docs/x"), now)
                .as_deref(),
            Some("b=2; a=1")
        );
        assert_eq!(
            jar.header_for(&url("http://example.com/docs/x"), now)
                .as_deref(),
            Some("a=1")
        );
        assert!(
            !jar.store(&at, ["a=1; Path=/"], now),
            "same value: no change"
        );
        assert!(jar.store(&at, ["a=3; Path=/"], now));
        assert!(jar.store(&at, ["b=; Path=/docs; Max-Age=0"], now));
        assert_eq!(
            jar.header_for(&url("https://example.com/docs/x"), now)
                .as_deref(),
            Some("a=3")
        );
        let old = "c=1; Expires=Thu, 01 Jan 1970 00:00:10 GMT";
        assert!(!jar.store(&at, [old], now));
        // A Secure cookie from plain http is ignored.
        assert!(!jar.store(&url("http://example.com/"), ["s=1; Secure"], now));
        let later = now + Duration::from_secs(120);
        jar.store(&at, ["t=1; Path=/; Max-Age=60"], now);
        assert_eq!(
            jar.header_for(&url("https://example.com/"), later)
                .as_deref(),
            Some("a=3")
        );
    }

    #[test]
    fn bad_lines_are_ignored_and_values_stay_out_of_debug() {
        let jar = jar_with(
            "http://example.com/",
            &[
                "novalue",
                "=x",
                "a\u{1}=b",
                &format!("big={}", "x".repeat(10_000)),
                "ok=secret",
            ],
        );
        assert_eq!(
            sent(&jar, "http://example.com/").as_deref(),
            Some("ok=secret")
        );
        assert!(!format!("{jar:?}").contains("secret"));
    }

    #[test]
    fn a_domain_keeps_a_bounded_number_of_cookies() {
        let jar = SessionCookies::default();
        let at = url("http://example.com/");
        let lines: Vec<String> = (0..200).map(|i| format!("c{i}=v")).collect();
        jar.store(&at, lines.iter().map(String::as_str), SystemTime::now());
        let header = sent(&jar, "http://example.com/").unwrap();
        assert_eq!(header.split("; ").count(), MAX_PER_DOMAIN);
        assert!(header.ends_with("c199=v"), "the newest are kept");
    }

    #[test]
    fn a_saved_jar_reads_back_the_same_and_a_suffix_goes_to_its_host_only() {
        let now = SystemTime::now();
        let jar = jar_with(
            "https://www.example.com/docs/x",
            &[
                "a=1; Path=/",
                "b=2; Domain=example.com; Max-Age=60",
                "c=3; Secure",
            ],
        );
        let text = jar.netscape(now);
        let again = SessionCookies::default();
        again.seed(
            &crate::config::cookies::CookieJar::parse_netscape(&text).unwrap(),
            now,
        );
        assert_eq!(again.netscape(now), text);
        for to in [
            "https://www.example.com/docs/y",
            "http://a.example.com/",
            "http://evil.test/",
        ] {
            assert_eq!(sent(&again, to), sent(&jar, to), "{to}");
        }
        // A line for every `.co.uk` site: kept for the host `co.uk` only.
        let line = ".co.uk\tTRUE\t/\tFALSE\t0\tx\t1\n";
        let seeded = SessionCookies::default();
        seeded.seed(
            &crate::config::cookies::CookieJar::parse_netscape(line).unwrap(),
            now,
        );
        assert_eq!(sent(&seeded, "http://bank.co.uk/"), None);
        assert_eq!(sent(&seeded, "http://co.uk/").as_deref(), Some("x=1"));
    }
}
