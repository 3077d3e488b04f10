//! Fuzz target: arbitrary string → `Url::parse` and `base.join`, checking `cache_key`'s contract.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use linkpatrol::internals::cache_key;
use url::Url;

static BASE: LazyLock<Url> =
    LazyLock::new(|| Url::parse("https://example.com/dir/page.html?q=1#top").unwrap());

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(url) = Url::parse(s) {
        check(&url);
    }
    // The same string as a link written on a page.
    if let Ok(url) = BASE.join(s) {
        check(&url);
    }
});

fn check(url: &Url) {
    let key = cache_key(url);
    // A serialised URL has `#` only as the fragment delimiter, and the key decodes no `%23`.
    assert!(!key.contains('#'), "key {key:?} of {url} has a fragment");
    if let Ok(reparsed) = Url::parse(&key) {
        assert_eq!(reparsed.fragment(), None, "key {key:?} of {url}");
        // Only where the url crate itself is a fixed point: url 2.5.8 does not re-parse some
        // file URLs it serialised to the same URL (README.md, "Known upstream").
        if round_trips(url) {
            assert_eq!(cache_key(&reparsed), key, "key of {url} is not idempotent");
        }
    }
    // The fragment never matters: none, empty, or another one.
    for fragment in [None, Some(""), Some("other"), Some("a#b c")] {
        let mut other = url.clone();
        other.set_fragment(fragment);
        assert_eq!(
            cache_key(&other),
            key,
            "{url} and {other} differ only in fragment"
        );
    }
}

/// `url` serialises to a string that parses back to the same serialisation.
fn round_trips(url: &Url) -> bool {
    Url::parse(url.as_str()).is_ok_and(|again| again.as_str() == url.as_str())
}
