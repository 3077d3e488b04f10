//! Suggestions for broken links from a web archive: the Wayback Machine's availability API.
//! [`lookup_url`] is the request for one broken URL (`GET <archive-url>?url=<broken URL>`),
//! [`closest_snapshot`] reads its answer (`{"archived_snapshots": {"closest": {"available":
//! true, "url": …, "timestamp": …}}}`). No I/O here: the engine fetches through the run's
//! fetcher, so the archive's host gets the same politeness as any other.

use url::Url;

/// Most bytes of an answer read: the API answers with a few hundred.
pub(crate) const MAX_ANSWER: u64 = 64 * 1024;

/// The request that asks `endpoint` for the closest snapshot of `broken` (its other query
/// pairs are kept).
pub(crate) fn lookup_url(endpoint: &Url, broken: &str) -> Url {
    let mut url = endpoint.clone();
    url.query_pairs_mut().append_pair("url", broken);
    url
}

/// The closest available snapshot's URL in an availability answer, when there is one and it
/// is an http(s) URL.
pub(crate) fn closest_snapshot(body: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let closest = v.get("archived_snapshots")?.get("closest")?;
    if closest
        .get("available")
        .and_then(serde_json::Value::as_bool)
        != Some(true)
    {
        return None;
    }
    let url = Url::parse(closest.get("url")?.as_str()?).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lookup_carries_the_broken_url_and_the_answer_gives_the_snapshot() {
        let endpoint = Url::parse("http://127.0.0.1:9/wayback/available?k=v").unwrap();
        assert_eq!(
            lookup_url(&endpoint, "https://x.test/a?b=c&d").as_str(),
            "http://127.0.0.1:9/wayback/available?k=v&url=https%3A%2F%2Fx.test%2Fa%3Fb%3Dc%26d"
        );
        let found = br#"{"url": "x", "archived_snapshots": {"closest": {"status": "200",
            "available": true, "url": "http://web.archive.org/web/2020/https://x.test/a",
            "timestamp": "20200101000000"}}}"#;
        assert_eq!(
            closest_snapshot(found).as_deref(),
            Some("http://web.archive.org/web/2020/https://x.test/a")
        );
        for none in [
            &br#"{"archived_snapshots": {}}"#[..],
            br#"{"archived_snapshots": {"closest": {"available": false, "url": "http://a/"}}}"#,
            br#"{"archived_snapshots": {"closest": {"available": true, "url": "javascript:x"}}}"#,
            b"not json",
            b"",
        ] {
            assert_eq!(closest_snapshot(none), None);
        }
    }
}
