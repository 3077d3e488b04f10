//! One result as a row of the `results` table and back. Only what a reused result needs is
//! stored; a row this build cannot read back (an unknown failure kind or warning tag) is
//! simply not reused.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use url::Url;

use crate::model::outcome::{CheckResult, FailKind, Hop, Outcome, Warning};
use crate::state::earlier_runs::is_history_info;

/// Seconds since the epoch (0 before it).
pub(crate) fn unix(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The time `secs` after the epoch (negative: the epoch).
pub(crate) fn from_unix(secs: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).unwrap_or(0))
}

/// The columns of a stored result besides `key`, `run_id` and `checked_at`.
#[derive(Debug, Default)]
pub(crate) struct Row {
    pub(crate) url: String,
    pub(crate) outcome: &'static str,
    pub(crate) status: Option<u16>,
    pub(crate) fail_kind: Option<&'static str>,
    pub(crate) message: Option<String>,
    pub(crate) real_url: Option<String>,
    /// One hop a line: `301 http://…`.
    pub(crate) redirects: Option<String>,
    /// One warning a line: `tag<TAB>message` (line breaks in a message become spaces).
    pub(crate) warnings: Option<String>,
    pub(crate) content_type: Option<String>,
    pub(crate) size: Option<i64>,
    pub(crate) modified: Option<String>,
    pub(crate) internal: bool,
    pub(crate) broken_since: Option<i64>,
    pub(crate) broken_runs: u32,
    /// One info a line (line breaks in an info become spaces), without the history lines a
    /// reuse adds again (`broken since`, `cached from`).
    pub(crate) infos: Option<String>,
    /// Requests that were retries.
    pub(crate) retries: u32,
}

/// Whether a stored row may name `kind`: not `Interrupted`, `Internal` and `UrlTooLong` (never
/// stored: the last is decided without a request, under a shortened URL), nor `Fragment`, a
/// verdict on one link and not on its URL (a row naming it is checked again).
fn stored_kind(kind: &FailKind) -> bool {
    !matches!(
        kind,
        FailKind::Interrupted | FailKind::Internal | FailKind::Fragment | FailKind::UrlTooLong
    )
}

/// The warning tags a reused result may carry: those the engine itself sets on a result.
const TAGS: [&str; 11] = [
    "http-redirected",
    "soft-404",
    "login-redirect",
    "http-empty-content",
    "http-rate-limited",
    "http-retry-after-too-long",
    "content-too-large",
    "url-content-type-unparseable",
    "url-too-long",
    "file-no-index",
    "document-unreadable",
];

/// The row for `result`, or `None` for a result not worth keeping (ignored, blocked by bot
/// protection, interrupted, an internal error, a URL too long to request, a page checked after
/// the login session was lost: its verdict is the login page's).
pub(crate) fn encode(result: &CheckResult) -> Option<Row> {
    if result.warnings.iter().any(|w| {
        matches!(
            w.tag,
            "session-lost" | "timeout-accepted" | "http-has-https"
        )
    }) {
        return None;
    }
    let (outcome, status, fail_kind, message) = match &result.outcome {
        Outcome::Ok { status } => ("ok", *status, None, None),
        Outcome::Broken { status } => ("broken", Some(*status), None, None),
        Outcome::Failed { kind, message } => {
            if matches!(
                kind,
                FailKind::Interrupted | FailKind::Internal | FailKind::UrlTooLong
            ) {
                return None;
            }
            ("failed", None, Some(kind.as_str()), Some(message.clone()))
        }
        // Not kept: the wall may be gone next run, and a browser may pass it today.
        Outcome::Ignored { .. } | Outcome::Blocked { .. } => return None,
    };
    let lines = |v: Vec<String>| (!v.is_empty()).then(|| v.join("\n"));
    let one_line = |s: &str| s.replace(['\n', '\r', '\t'], " ");
    Some(Row {
        url: result.url.clone(),
        outcome,
        status,
        fail_kind,
        message,
        real_url: result.real_url.as_ref().map(Url::to_string),
        redirects: lines(
            result
                .redirects
                .iter()
                .map(|h| format!("{} {}", h.status, h.url))
                .collect(),
        ),
        warnings: lines(
            result
                .warnings
                .iter()
                .map(|w| format!("{}\t{}", w.tag, one_line(&w.message)))
                .collect(),
        ),
        content_type: result.content_type.clone(),
        size: result.size.and_then(|s| i64::try_from(s).ok()),
        modified: result.modified.clone(),
        internal: result.internal,
        broken_since: result.broken_since.map(unix),
        broken_runs: result.broken_runs,
        infos: lines(
            result
                .infos
                .iter()
                .filter(|i| !is_history_info(i))
                .map(|i| one_line(i))
                .collect(),
        ),
        retries: result.retries,
    })
}

/// The result a row stands for, or `None` when the row holds something this build does not
/// know (it is then checked again, never misread).
pub(crate) fn decode(row: Row) -> Option<CheckResult> {
    let outcome = match row.outcome {
        "ok" => Outcome::Ok { status: row.status },
        "broken" => Outcome::Broken {
            status: row.status?,
        },
        "failed" => {
            let name = row.fail_kind?;
            let kind = FailKind::from_name(name).filter(stored_kind)?;
            Outcome::Failed {
                kind,
                message: row.message.unwrap_or_default(),
            }
        }
        _ => return None,
    };
    let mut result = CheckResult::immediate(row.url, outcome, 0);
    result.real_url = match row.real_url {
        Some(u) => Some(Url::parse(&u).ok()?),
        None => None,
    };
    for line in row.redirects.iter().flat_map(|r| r.lines()) {
        let (status, url) = line.split_once(' ')?;
        result.redirects.push(Hop {
            url: Url::parse(url).ok()?,
            status: status.parse().ok()?,
        });
    }
    for line in row.warnings.iter().flat_map(|r| r.lines()) {
        let (tag, message) = line.split_once('\t')?;
        let tag = TAGS.into_iter().find(|t| *t == tag)?;
        result.warnings.push(Warning {
            tag,
            message: message.to_owned(),
        });
    }
    result.content_type = row.content_type;
    result.size = row.size.and_then(|s| u64::try_from(s).ok());
    result.modified = row.modified;
    result.internal = row.internal;
    result.broken_since = row.broken_since.map(from_unix);
    result.broken_runs = row.broken_runs;
    result.infos = row
        .infos
        .iter()
        .flat_map(|i| i.lines())
        .map(str::to_owned)
        .collect();
    result.retries = row.retries;
    Some(result)
}

/// The static name of an outcome column value read from the file (`None`: unknown).
pub(crate) fn outcome_name(s: &str) -> Option<&'static str> {
    ["ok", "broken", "failed"].into_iter().find(|n| *n == s)
}

/// The static name of a failure kind read from the file (`None`: unknown).
pub(crate) fn kind_name(s: &str) -> Option<&'static str> {
    FailKind::from_name(s)
        .filter(stored_kind)
        .map(FailKind::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirected_result_survives_the_round_trip() {
        let mut r = CheckResult::immediate(
            "http://a.test/old".into(),
            Outcome::Ok { status: Some(200) },
            2,
        );
        r.real_url = Some(Url::parse("http://a.test/new").unwrap());
        r.redirects.push(Hop {
            url: Url::parse("http://a.test/old").unwrap(),
            status: 301,
        });
        r.warnings.push(Warning {
            tag: "http-redirected",
            message: "moved\nto new".into(),
        });
        r.content_type = Some("text/html".into());
        r.retries = 2;
        r.infos = vec![
            "checked after 3 tries".into(),
            "broken since 2026-12-01 19:05 UTC (2 runs)".into(),
            "cached from 2026-12-01 19:05 UTC".into(),
            "a plugin's\nremark".into(),
        ];
        let back = decode(encode(&r).unwrap()).unwrap();
        // The history lines are made again by whoever reuses the result.
        assert_eq!(back.infos, ["checked after 3 tries", "a plugin's remark"]);
        assert_eq!(back.retries, 2);
        assert_eq!(back.real_url, r.real_url);
        assert_eq!(back.redirects, r.redirects);
        assert_eq!(back.warnings[0].message, "moved to new");
        assert_eq!(back.content_type.as_deref(), Some("text/html"));
        assert_eq!(back.outcome, r.outcome);
    }

    #[test]
    fn unknown_tags_and_kinds_are_not_reused() {
        let row = Row {
            url: "http://a.test/".into(),
            outcome: "ok",
            warnings: Some("made-up\tx".into()),
            ..Row::default()
        };
        assert!(decode(row).is_none());
        assert_eq!(kind_name("no-such-kind"), None);
        for kind in FailKind::ALL {
            let stored = kind_name(kind.as_str()).is_some();
            let never = matches!(
                kind,
                FailKind::Interrupted
                    | FailKind::Internal
                    | FailKind::Fragment
                    | FailKind::UrlTooLong
            );
            assert_eq!(stored, !never, "{kind:?}");
        }
        let ignored =
            CheckResult::immediate("x".into(), Outcome::Ignored { reason: "r".into() }, 0);
        assert!(encode(&ignored).is_none());
    }
}
