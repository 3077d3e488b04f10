//! Fuzz target: the crawler's path — extract links, resolve them on the page's base, key them.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use linkpatrol::extract::extract_html;
use linkpatrol::internals::cache_key;
use url::Url;

static PAGE: LazyLock<Url> =
    LazyLock::new(|| Url::parse("https://example.com/dir/page.html?q=1").unwrap());

fuzz_target!(|data: &[u8]| {
    let doc = extract_html(data);
    // As `engine::page_links::Run::queue_children` does: `<base href>` resolved on the page, else the page.
    let base = doc
        .base
        .as_deref()
        .and_then(|b| PAGE.join(b.trim()).ok())
        .unwrap_or_else(|| PAGE.clone());
    for link in &doc.links {
        let Ok(url) = base.join(&link.value) else {
            continue;
        };
        let key = cache_key(&url);
        assert!(!key.contains('#'), "key {key:?} of {url} has a fragment");
        // Only where the url crate itself is a fixed point (see url_norm.rs).
        if let Ok(reparsed) = Url::parse(&key)
            && Url::parse(url.as_str()).is_ok_and(|again| again.as_str() == url.as_str())
        {
            assert_eq!(cache_key(&reparsed), key, "key of {url} is not idempotent");
        }
        let mut bare = url.clone();
        bare.set_fragment(None);
        assert_eq!(cache_key(&bare), key, "fragment changed the key of {url}");
    }
});
