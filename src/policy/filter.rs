//! Which links are checked, which are recursed into, and which are only listed.
//!
//! Internal means the same scheme, host and port as a start URL (for `file:` starts: inside the
//! start folder). Internal pages are fetched and parsed; external links are checked, never
//! recursed (or, when they would go over the network, skipped with `check_external(false)`: a
//! local `file:` link is always checked, whichever folder it points to, since checking it needs
//! no request; the file scope of `fetch::file` decides what of it is read). Schemes that cannot
//! be checked are listed as ignored, not as errors. Pure: no I/O.

use std::collections::HashSet;

use regex::Regex;
use url::{Position, Url};

use crate::model::stats::SkipReason;
use crate::policy::mail::percent_decode;
use crate::policy::origin::origin_text;

/// The scope one start input opens.
#[derive(Debug, Clone)]
enum Scope {
    /// `scheme://host:port`.
    Origin(String),
    /// A `file:` URL prefix (the start folder, with a trailing slash).
    FilePrefix(String),
}

/// What to do with one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Fetch it. `recurse`: parse it for more links (when it turns out to be HTML).
    Check { internal: bool, recurse: bool },
    /// A `mailto:` link: checked for syntax only (no network).
    Mail,
    /// Not checked: why (counted in the summary), and the reason as reported.
    Ignore(SkipReason, String),
}

/// The scope and the user's patterns.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    scopes: Vec<Scope>,
    include: Vec<Regex>,
    exclude: Vec<Regex>,
    /// Patterns of an ignore file (`.linkpatrolignore`): as `exclude`, counted apart.
    ignore_file: Vec<Regex>,
    no_follow: Vec<Regex>,
    /// Links that end a login session (`FormLogin::logout_pattern`): never requested.
    logout: Option<Regex>,
    recursion_level: Option<usize>,
    check_external: bool,
    /// The start URLs (without fragment) that `exclude` matches: counted apart, as pages left
    /// out, whether a start or a link claims them first.
    excluded_starts: HashSet<String>,
}

/// Schemes that are listed as ignored rather than checked.
const IGNORED_SCHEMES: &[&str] = &[
    "javascript",
    "data",
    "tel",
    "sms",
    "ftp",
    "ftps",
    "sftp",
    "irc",
    "ircs",
    "news",
    "nntp",
    "git",
    "ssh",
    "telnet",
    "ldap",
    "magnet",
    "callto",
    "skype",
    "xmpp",
    "geo",
    "about",
    "blob",
    "chrome",
    "urn",
    "webcal",
    "feed",
];

impl Filter {
    pub(crate) fn new(
        include: Vec<Regex>,
        exclude: Vec<Regex>,
        no_follow: Vec<Regex>,
        recursion_level: Option<usize>,
        check_external: bool,
    ) -> Self {
        Filter {
            scopes: Vec::new(),
            include,
            exclude,
            ignore_file: Vec::new(),
            no_follow,
            logout: None,
            recursion_level,
            check_external,
            excluded_starts: HashSet::new(),
        }
    }

    /// Adds the patterns of an ignore file.
    pub(crate) fn ignore_file(&mut self, patterns: Vec<Regex>) {
        self.ignore_file = patterns;
    }

    /// Ignores the links matching `pattern`: they would end the login session.
    pub(crate) fn logout(&mut self, pattern: Regex) {
        self.logout = Some(pattern);
    }

    /// Makes everything at or below `start` internal.
    pub(crate) fn add_start(&mut self, start: &Url) {
        let whole = &start[..Position::AfterQuery];
        if self.exclude.iter().any(|r| r.is_match(start.as_str())) {
            self.excluded_starts.insert(whole.to_owned());
        }
        let scope = if start.scheme() == "file" {
            let s = start.as_str();
            let dir = if s.ends_with('/') {
                s
            } else {
                &s[..s.rfind('/').map_or(s.len(), |i| i + 1)]
            };
            Scope::FilePrefix(dir.to_owned())
        } else {
            Scope::Origin(start.origin().ascii_serialization())
        };
        self.scopes.push(scope);
    }

    /// `true` when a link's level can change whether it is parsed (`-r` is set).
    pub(crate) fn has_depth_limit(&self) -> bool {
        self.recursion_level.is_some()
    }

    /// `true` when `url` is inside a start's scope.
    pub(crate) fn is_internal(&self, url: &Url) -> bool {
        self.scopes.iter().any(|s| match s {
            Scope::Origin(o) => url.scheme() != "file" && origin_text(url) == o.as_str(),
            Scope::FilePrefix(p) => url.as_str().starts_with(p.as_str()),
        })
    }

    /// Decides about a link found at recursion `level` (start URLs are level 0 and `seed`).
    /// `from_web`: the link was found on an http(s) page.
    pub(crate) fn decide(&self, url: &Url, level: usize, seed: bool, from_web: bool) -> Decision {
        match url.scheme() {
            "http" | "https" => {}
            "file" if from_web => {
                return Decision::Ignore(
                    SkipReason::Scheme,
                    "a file: link on a web page is not opened".into(),
                );
            }
            "file" | "mailto" => {}
            s @ ("ftp" | "ftps" | "sftp") => {
                return Decision::Ignore(
                    SkipReason::Scheme,
                    format!("{s}: is not supported: the link is listed, not checked"),
                );
            }
            s if IGNORED_SCHEMES.contains(&s) => {
                return Decision::Ignore(SkipReason::Scheme, format!("{s}: URLs are not checked"));
            }
            s => return Decision::Ignore(SkipReason::Scheme, format!("unknown scheme {s}:")),
        }
        let s = url.as_str();
        if self.exclude.iter().any(|r| r.is_match(s)) {
            // A start page left out is named on its own: its links are never seen.
            let why = if self.excluded_starts.contains(&url[..Position::AfterQuery]) {
                SkipReason::ExcludedStart
            } else {
                SkipReason::Excluded
            };
            return Decision::Ignore(why, "matches an --exclude pattern".into());
        }
        if self.logout.as_ref().is_some_and(|r| ends_session(r, url)) {
            return Decision::Ignore(
                SkipReason::Excluded,
                "would end the login session (--login-logout-pattern): not requested".into(),
            );
        }
        if self.ignore_file.iter().any(|r| r.is_match(s)) {
            return Decision::Ignore(SkipReason::IgnoreFile, "matches .linkpatrolignore".into());
        }
        // Exclude patterns and the ignore file apply to every scheme; a mail address is
        // checked for its syntax (and MX), with no scope or recursion of its own.
        if url.scheme() == "mailto" {
            return Decision::Mail;
        }
        if !seed && !self.include.is_empty() && !self.include.iter().any(|r| r.is_match(s)) {
            return Decision::Ignore(
                SkipReason::NotIncluded,
                "matches no --include pattern".into(),
            );
        }
        let internal = seed || self.is_internal(url);
        // Internal-only stops network requests; a local file is checked wherever it is.
        if !internal && !self.check_external && url.scheme() != "file" {
            return Decision::Ignore(
                SkipReason::OutsideScope,
                "external link (checking internal links only)".into(),
            );
        }
        let recurse = internal
            && self.recursion_level.is_none_or(|max| level < max)
            && !self.no_follow.iter().any(|r| r.is_match(s));
        Decision::Check { internal, recurse }
    }
}

/// `true` when the logout pattern matches `url`, as written or with its path and query
/// percent-decoded: `/Log%4Fut` and `/session%2Fdestroy` end a session as `/LogOut` does.
fn ends_session(logout: &Regex, url: &Url) -> bool {
    if logout.is_match(url.as_str()) {
        return true;
    }
    let rest = &url[Position::BeforePath..Position::AfterQuery];
    rest.contains('%')
        && logout.is_match(&format!(
            "{}{}",
            &url[..Position::BeforePath],
            percent_decode(rest)
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter() -> Filter {
        let mut f = Filter::new(
            vec![],
            vec![Regex::new("/private/").unwrap()],
            vec![Regex::new("/archive/").unwrap()],
            Some(2),
            true,
        );
        f.add_start(&Url::parse("http://site.test:8080/docs/").unwrap());
        f
    }

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn internal_is_same_origin() {
        let f = filter();
        assert_eq!(
            f.decide(&u("http://site.test:8080/x"), 1, false, true),
            Decision::Check {
                internal: true,
                recurse: true
            }
        );
        assert_eq!(
            f.decide(&u("http://site.test:9090/x"), 1, false, true),
            Decision::Check {
                internal: false,
                recurse: false
            }
        );
        assert_eq!(
            f.decide(&u("https://site.test:8080/x"), 1, false, true),
            Decision::Check {
                internal: false,
                recurse: false
            }
        );
    }

    #[test]
    fn recursion_level_and_no_follow() {
        let f = filter();
        assert_eq!(
            f.decide(&u("http://site.test:8080/x"), 2, false, true),
            Decision::Check {
                internal: true,
                recurse: false
            }
        );
        assert_eq!(
            f.decide(&u("http://site.test:8080/archive/x"), 1, false, true),
            Decision::Check {
                internal: true,
                recurse: false
            }
        );
    }

    #[test]
    fn schemes_and_excludes() {
        let f = filter();
        assert!(matches!(
            f.decide(&u("javascript:void(0)"), 1, false, true),
            Decision::Ignore(..)
        ));
        assert!(matches!(
            f.decide(&u("tel:+1555"), 1, false, true),
            Decision::Ignore(..)
        ));
        assert_eq!(
            f.decide(&u("mailto:a@b.test"), 1, false, true),
            Decision::Mail
        );
        // Exclude patterns apply to mail addresses too.
        let mail = Filter::new(
            vec![],
            vec![Regex::new("^mailto:").unwrap()],
            vec![],
            None,
            true,
        );
        assert!(matches!(
            mail.decide(&u("mailto:a@b.test"), 1, false, true),
            Decision::Ignore(SkipReason::Excluded, _)
        ));
        let mut ignored = Filter::new(vec![], vec![], vec![], None, true);
        ignored.ignore_file(vec![Regex::new("@b\\.test$").unwrap()]);
        assert!(matches!(
            ignored.decide(&u("mailto:a@b.test"), 1, false, true),
            Decision::Ignore(SkipReason::IgnoreFile, _)
        ));
        assert_eq!(
            ignored.decide(&u("mailto:a@c.test"), 1, false, true),
            Decision::Mail
        );
        assert!(matches!(
            f.decide(&u("file:///etc/passwd"), 1, false, true),
            Decision::Ignore(..)
        ));
        assert!(matches!(
            f.decide(&u("http://site.test:8080/private/x"), 1, false, true),
            Decision::Ignore(..)
        ));
    }

    #[test]
    fn ftp_is_listed_as_unsupported_and_tel_as_not_checked() {
        let f = filter();
        let reason = |s: &str| match f.decide(&u(s), 1, false, true) {
            Decision::Ignore(_, r) => r,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            reason("ftp://files.test/a.zip"),
            "ftp: is not supported: the link is listed, not checked"
        );
        assert_eq!(reason("tel:+1555"), "tel: URLs are not checked");
        assert_eq!(reason("data:text/plain,x"), "data: URLs are not checked");
    }

    #[test]
    fn external_skipped_when_internal_only() {
        let mut f = Filter::new(vec![], vec![], vec![], None, false);
        f.add_start(&u("http://a.test/"));
        assert!(matches!(
            f.decide(&u("http://b.test/"), 1, false, true),
            Decision::Ignore(..)
        ));
        assert!(matches!(
            f.decide(&u("http://a.test/p"), 1, false, true),
            Decision::Check { .. }
        ));
    }

    #[test]
    fn local_files_outside_the_start_folder_are_checked_when_internal_only() {
        let mut f = Filter::new(vec![], vec![], vec![], None, false);
        f.add_start(&u("file:///repo/docs/links.md"));
        assert_eq!(
            f.decide(&u("file:///repo/NOPE.md"), 1, false, false),
            Decision::Check {
                internal: false,
                recurse: false
            }
        );
        assert!(matches!(
            f.decide(&u("https://example.org/"), 1, false, false),
            Decision::Ignore(SkipReason::OutsideScope, _)
        ));
    }

    #[test]
    fn file_scope_is_the_start_folder() {
        let mut f = Filter::new(vec![], vec![], vec![], None, true);
        f.add_start(&u("file:///site/index.html"));
        assert!(f.is_internal(&u("file:///site/sub/a.html")));
        assert!(!f.is_internal(&u("file:///other/a.html")));
    }

    #[test]
    fn the_default_logout_pattern_matches_decoded_paths() {
        let logout = Regex::new(crate::config::login::DEFAULT_LOGOUT_PATTERN).unwrap();
        for yes in [
            "http://a.test/logout",
            "http://a.test/users/sign_out",
            "http://a.test/log_out",
            "http://a.test/Account/LogOff",
            "http://a.test/signoff",
            "http://a.test/session/destroy",
            "http://a.test/session%2Fend",
            "http://a.test/Log%4Fut",
            "http://a.test/wp-login.php?action=log%6fut",
        ] {
            assert!(ends_session(&logout, &u(yes)), "{yes}");
        }
        for no in [
            "http://a.test/login",
            "http://a.test/users/sign_in",
            "http://a.test/session/new",
            "http://a.test/%ZZlog",
        ] {
            assert!(!ends_session(&logout, &u(no)), "{no}");
        }
    }
}
