//! A finished result as a slot keeps it: the whole [`CheckResult`] (408 bytes behind its
//! `Arc`), or, for the common result that only fills a few fields (a file or page that is
//! fine, a link not checked by design), just those fields, about a third of that.
//!
//! The lean form is used only where the cache is told results will rarely be read again
//! ([`ResultCache::lean_when_quiet`](super::ResultCache::lean_when_quiet): only problems are
//! reported and no plugin looks at links), because a claim that needs the result back gets a
//! new `Arc` built from it (the entries of one URL then no longer share one). Where only
//! problems are reported, a claim of a result that is fine makes no row ([`Claim::Quiet`]
//! (super::Claim::Quiet)), so that happens only for an occurrence with warnings of its own.
//!
//! A lean result whose URL is its slot's key (most are: a file, a page) does not keep the URL
//! a second time; the slot's key is handed to every method that may need it.
//!
//! Invariant: `Kept::lean_or_full(r, _, key).full(key)` has exactly the fields of `r`.
//! [`Lean::of`] names every field of `CheckResult`, so a field added there fails to compile
//! here until it is decided whether the lean form can keep it.

use std::sync::Arc;
use std::time::Duration;

use url::Url;

use crate::model::outcome::{CheckResult, FailKind, Outcome};

/// A result as a `Done` slot keeps it.
#[derive(Debug)]
pub(super) enum Kept {
    /// Any result.
    Full(Arc<CheckResult>),
    /// A result that [`Lean::of`] could keep.
    Lean(Box<Lean>),
}

/// The outcomes a lean result can have.
#[derive(Debug)]
enum LeanOutcome {
    Ok(Option<u16>),
    Ignored(Box<str>),
}

/// The fields of a result with no redirect, warning, info, `Last-Modified`, retry, export or
/// state-file history: everything else is at its default.
#[derive(Debug)]
pub(super) struct Lean {
    /// `None`: the slot's key.
    url: Option<Box<str>>,
    outcome: LeanOutcome,
    content_type: Option<Box<str>>,
    size: Option<u64>,
    download_time: Option<Duration>,
    check_time: Duration,
    level: usize,
    links_found: usize,
    internal: bool,
}

impl Lean {
    /// The lean form of `r`, kept under `key`, when it has one.
    fn of(r: &CheckResult, key: &str) -> Option<Lean> {
        // Every field named: a new one must be decided on here.
        let CheckResult {
            url,
            real_url,
            redirects,
            outcome,
            warnings,
            infos,
            content_type,
            size,
            download_time,
            check_time,
            level,
            internal,
            links_found,
            modified,
            retries,
            exported_to,
            cached_from,
            broken_since,
            broken_runs,
            suggestion,
        } = r;
        let outcome = match outcome {
            Outcome::Ok { status } => LeanOutcome::Ok(*status),
            Outcome::Ignored { reason } => LeanOutcome::Ignored(reason.as_str().into()),
            Outcome::Broken { .. } | Outcome::Failed { .. } | Outcome::Blocked { .. } => {
                return None;
            }
        };
        let plain = real_url.is_none()
            && redirects.is_empty()
            && warnings.is_empty()
            && infos.is_empty()
            && modified.is_none()
            && *retries == 0
            && exported_to.is_none()
            && cached_from.is_none()
            && broken_since.is_none()
            && *broken_runs == 0
            && suggestion.is_none();
        plain.then(|| Lean {
            url: (url != key).then(|| url.as_str().into()),
            outcome,
            content_type: content_type.as_deref().map(Box::from),
            size: *size,
            download_time: *download_time,
            check_time: *check_time,
            level: *level,
            links_found: *links_found,
            internal: *internal,
        })
    }

    /// The result it was made from, kept under `key`.
    fn to_result(&self, key: &str) -> CheckResult {
        let outcome = match &self.outcome {
            LeanOutcome::Ok(status) => Outcome::Ok { status: *status },
            LeanOutcome::Ignored(reason) => Outcome::Ignored {
                reason: reason.to_string(),
            },
        };
        let url = self.url.as_deref().unwrap_or(key);
        let mut r = CheckResult::immediate(url.to_owned(), outcome, self.level);
        r.content_type = self.content_type.as_deref().map(str::to_owned);
        r.size = self.size;
        r.download_time = self.download_time;
        r.check_time = self.check_time;
        r.links_found = self.links_found;
        r.internal = self.internal;
        r
    }
}

impl Kept {
    /// `result`, to be kept under `key`: lean when `lean` is allowed and the result has a lean
    /// form.
    pub(super) fn lean_or_full(result: &Arc<CheckResult>, lean: bool, key: &str) -> Kept {
        match lean.then(|| Lean::of(result, key)).flatten() {
            Some(l) => Kept::Lean(Box::new(l)),
            None => Kept::Full(result.clone()),
        }
    }

    /// The whole result (built anew from a lean one), kept under `key`.
    pub(super) fn full(&self, key: &str) -> Arc<CheckResult> {
        match self {
            Kept::Full(r) => r.clone(),
            Kept::Lean(l) => Arc::new(l.to_result(key)),
        }
    }

    /// `CheckResult::real_url` (a lean result has none).
    pub(super) fn real_url(&self) -> Option<&Url> {
        match self {
            Kept::Full(r) => r.real_url.as_ref(),
            Kept::Lean(_) => None,
        }
    }

    /// `CheckResult::url`, kept under `key`.
    pub(super) fn url<'a>(&'a self, key: &'a str) -> &'a str {
        match self {
            Kept::Full(r) => &r.url,
            Kept::Lean(l) => l.url.as_deref().unwrap_or(key),
        }
    }

    /// `CheckResult::level`.
    pub(super) fn level(&self) -> usize {
        match self {
            Kept::Full(r) => r.level,
            Kept::Lean(l) => l.level,
        }
    }

    /// The outcome is fine (`Outcome::Ok`).
    pub(super) fn is_ok(&self) -> bool {
        match self {
            Kept::Full(r) => matches!(r.outcome, Outcome::Ok { .. }),
            Kept::Lean(l) => matches!(l.outcome, LeanOutcome::Ok(_)),
        }
    }

    /// `CheckResult::internal`.
    pub(super) fn internal(&self) -> bool {
        match self {
            Kept::Full(r) => r.internal,
            Kept::Lean(l) => l.internal,
        }
    }

    /// `CheckResult::content_type`.
    pub(super) fn content_type(&self) -> Option<&str> {
        match self {
            Kept::Full(r) => r.content_type.as_deref(),
            Kept::Lean(l) => l.content_type.as_deref(),
        }
    }

    /// The check was cut short by a cancel (never lean: a failure).
    pub(super) fn is_interrupted(&self) -> bool {
        matches!(self, Kept::Full(r) if matches!(
            r.outcome,
            Outcome::Failed {
                kind: FailKind::Interrupted,
                ..
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::model::outcome::{Hop, Warning};

    fn page() -> CheckResult {
        let mut r = CheckResult::immediate(
            "file:///site/a.html".into(),
            Outcome::Ok { status: None },
            3,
        );
        r.content_type = Some("text/html".into());
        r.size = Some(1234);
        r.download_time = Some(Duration::from_micros(17));
        r.check_time = Duration::from_nanos(123_456);
        r.internal = true;
        r.links_found = 42;
        r
    }

    /// The key of [`page`]'s result.
    const KEY: &str = "file:///site/a.html";

    fn kept(r: CheckResult) -> Kept {
        Kept::lean_or_full(&Arc::new(r), true, KEY)
    }

    #[test]
    fn a_lean_result_comes_back_with_every_field() {
        let ignored = CheckResult::immediate(
            "https://example.org/".into(),
            Outcome::Ignored {
                reason: "external".into(),
            },
            1,
        );
        for r in [page(), ignored] {
            let k = kept(r.clone());
            assert!(matches!(k, Kept::Lean(_)), "{r:?}");
            assert_eq!(format!("{:?}", k.full(KEY)), format!("{:?}", Arc::new(r)));
        }
        let Kept::Lean(l) = kept(page()) else {
            panic!("lean")
        };
        assert_eq!(l.url, None, "the URL is the key: not kept twice");
    }

    #[test]
    fn any_other_result_is_kept_whole() {
        let changes: [fn(&mut CheckResult); 11] = [
            |r| r.outcome = Outcome::Broken { status: 404 },
            |r| {
                r.outcome = Outcome::Failed {
                    kind: FailKind::Interrupted,
                    message: "m".into(),
                }
            },
            |r| r.real_url = Some(Url::parse("file:///site/b.html").unwrap()),
            |r| {
                r.redirects.push(Hop {
                    url: Url::parse("file:///x").unwrap(),
                    status: 301,
                })
            },
            |r| {
                r.warnings.push(Warning {
                    tag: "t",
                    message: "m".into(),
                })
            },
            |r| r.infos.push("i".into()),
            |r| r.modified = Some("yesterday".into()),
            |r| r.retries = 1,
            |r| r.exported_to = Some(2),
            |r| r.cached_from = Some(SystemTime::UNIX_EPOCH),
            |r| r.broken_runs = 1,
        ];
        for change in changes {
            let mut r = page();
            change(&mut r);
            let k = kept(r.clone());
            assert!(matches!(k, Kept::Full(_)), "{r:?}");
            assert_eq!(format!("{:?}", k.full(KEY)), format!("{r:?}"));
        }
        let mut since = page();
        since.broken_since = Some(SystemTime::UNIX_EPOCH);
        assert!(matches!(kept(since), Kept::Full(_)));
        let whole = Kept::lean_or_full(&Arc::new(page()), false, KEY);
        assert!(matches!(whole, Kept::Full(_)), "lean not allowed");
    }

    #[test]
    fn the_accessors_read_either_form() {
        for lean in [true, false] {
            let k = Kept::lean_or_full(&Arc::new(page()), lean, "other key");
            assert_eq!(k.url("other key"), "file:///site/a.html");
            assert!(k.is_ok() && k.internal() && !k.is_interrupted());
            assert_eq!(k.content_type(), Some("text/html"));
            assert_eq!(k.real_url(), None);
        }
    }
}
