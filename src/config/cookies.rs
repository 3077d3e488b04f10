//! [`CookieJar`]: cookies read from a Netscape `cookies.txt` file (curl, wget and browser
//! extensions write it), sent with the requests they match by domain, path, secure flag and
//! expiry. Pure: the caller reads the file; matching takes the current time as an argument.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use url::Url;

/// One cookie of a cookies.txt line.
#[derive(Clone, PartialEq, Eq)]
struct Cookie {
    /// Lower-case domain without a leading dot.
    domain: String,
    /// Also sent to subdomains (the second field, `TRUE`).
    subdomains: bool,
    path: String,
    secure: bool,
    /// Unix seconds; 0 means a session cookie (never expires here).
    expires: u64,
    name: String,
    value: String,
}

/// The cookies of a run. Empty by default.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CookieJar {
    cookies: Vec<Cookie>,
}

impl fmt::Debug for CookieJar {
    /// Names and domains only: cookie values are credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.cookies
                    .iter()
                    .map(|c| format!("{}@{}{}", c.name, c.domain, c.path)),
            )
            .finish()
    }
}

impl CookieJar {
    /// Parses a Netscape cookies file: one cookie per line, seven tab-separated fields
    /// (domain, include-subdomains, path, secure, expiry, name, value). `#` lines and blank lines
    /// are skipped, except the `#HttpOnly_` prefix of a domain, which is kept as a cookie.
    ///
    /// # Errors
    /// `line N: what is wrong`.
    pub fn parse_netscape(text: &str) -> Result<Self, String> {
        let mut cookies = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            let line = line.strip_prefix("#HttpOnly_").unwrap_or(line);
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let n = i + 1;
            if f.len() != 7 {
                return Err(format!(
                    "line {n}: expected 7 tab-separated fields, found {}",
                    f.len()
                ));
            }
            let flag = |s: &str, what: &str| match s.to_ascii_uppercase().as_str() {
                "TRUE" => Ok(true),
                "FALSE" => Ok(false),
                _ => Err(format!("line {n}: {what} `{s}' is not TRUE or FALSE")),
            };
            let domain = f[0].trim_start_matches('.').to_ascii_lowercase();
            if domain.is_empty() {
                return Err(format!("line {n}: empty domain"));
            }
            let expires = f[4]
                .trim()
                .parse::<u64>()
                .map_err(|_| format!("line {n}: expiry `{}' is not a number", f[4]))?;
            cookies.push(Cookie {
                domain,
                subdomains: flag(f[1], "include-subdomains")?,
                path: if f[2].is_empty() { "/" } else { f[2] }.to_owned(),
                secure: flag(f[3], "secure")?,
                expires,
                name: f[5].to_owned(),
                value: f[6].to_owned(),
            });
        }
        Ok(CookieJar { cookies })
    }

    /// Each cookie as its file line gives it: domain (no leading dot), include-subdomains,
    /// path, secure, expiry (Unix seconds, 0 for a session cookie), name and value.
    pub(crate) fn lines(&self) -> impl Iterator<Item = (&str, bool, &str, bool, u64, &str, &str)> {
        self.cookies.iter().map(|c| {
            (
                c.domain.as_str(),
                c.subdomains,
                c.path.as_str(),
                c.secure,
                c.expires,
                c.name.as_str(),
                c.value.as_str(),
            )
        })
    }

    /// `true` when the jar has no cookie.
    pub fn is_empty(&self) -> bool {
        self.cookies.is_empty()
    }

    /// The `Cookie` header value for `url` at `now`, when a cookie matches.
    pub(crate) fn header_for(&self, url: &Url, now: SystemTime) -> Option<String> {
        let host = url.host_str()?.to_ascii_lowercase();
        let now = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let pairs: Vec<String> = self
            .cookies
            .iter()
            .filter(|c| {
                let domain_ok =
                    host == c.domain || (c.subdomains && host.ends_with(&format!(".{}", c.domain)));
                let secure_ok = !c.secure || url.scheme() == "https";
                let fresh = c.expires == 0 || c.expires > now;
                domain_ok && secure_ok && fresh && path_matches(url.path(), &c.path)
            })
            .map(|c| format!("{}={}", c.name, c.value))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }
}

impl crate::config::Config {
    /// A cookie jar kept between runs, in the Netscape cookies.txt format (lychee's
    /// `--cookie-jar`): read when the run starts (missing: empty; a symbolic link there, or a
    /// line that does not parse, is an error), its cookies sent as those servers set during
    /// the run are (by the rules of RFC 6265: a cookie goes only to its own host or domain),
    /// and every cookie alive at the end saved back to it, session cookies included, in a
    /// new file of mode 0600 renamed over the path (a link there is replaced, never
    /// followed). A jar that cannot be saved is a warning of the report. Defaults to `None`.
    pub fn cookie_jar(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.cookie_jar = Some(path.into());
        self
    }
}

/// RFC 6265 path-match: the same path, or a prefix ending at a `/`.
pub(crate) fn path_matches(request: &str, cookie: &str) -> bool {
    request == cookie
        || (request.starts_with(cookie)
            && (cookie.ends_with('/') || request[cookie.len()..].starts_with('/')))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const FILE: &str = "# Netscape HTTP Cookie File\n\
        \n\
        .example.test\tTRUE\t/\tFALSE\t0\tsession\ts1\n\
        example.test\tFALSE\t/docs\tFALSE\t2000000000\tdocs\td1\n\
        #HttpOnly_example.test\tFALSE\t/\tTRUE\t0\tsecure\tx1\n\
        example.test\tFALSE\t/\tFALSE\t1000\told\tgone\n";

    fn at(s: &str) -> Option<String> {
        let jar = CookieJar::parse_netscape(FILE).unwrap();
        let now = UNIX_EPOCH + Duration::from_secs(1_900_000_000);
        jar.header_for(&Url::parse(s).unwrap(), now)
    }

    #[test]
    fn domain_path_secure_and_expiry() {
        assert_eq!(at("http://example.test/").as_deref(), Some("session=s1"));
        assert_eq!(
            at("http://example.test/docs/a").as_deref(),
            Some("session=s1; docs=d1")
        );
        assert_eq!(
            at("http://example.test/docsx").as_deref(),
            Some("session=s1")
        );
        assert_eq!(
            at("https://example.test/").as_deref(),
            Some("session=s1; secure=x1")
        );
        assert_eq!(
            at("http://sub.example.test/docs").as_deref(),
            Some("session=s1")
        );
        assert_eq!(at("http://other.test/"), None);
        assert_eq!(at("http://notexample.test/"), None);
    }

    #[test]
    fn malformed_lines_are_named() {
        let e = CookieJar::parse_netscape("a\tb\n").unwrap_err();
        assert!(e.starts_with("line 1:"), "{e}");
        let e = CookieJar::parse_netscape("\nx.test\tMAYBE\t/\tFALSE\t0\tn\tv\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("MAYBE"), "{e}");
        let e = CookieJar::parse_netscape("x.test\tTRUE\t/\tFALSE\tsoon\tn\tv\n").unwrap_err();
        assert!(e.contains("soon"), "{e}");
    }

    #[test]
    fn debug_hides_values() {
        let jar = CookieJar::parse_netscape(FILE).unwrap();
        assert!(!format!("{jar:?}").contains("s1"));
    }
}
