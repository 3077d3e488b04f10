//! `--detect-soft-404`: a page that answers 200 although it does not exist. Each origin
//! (`scheme://host:port`) gets one probe: a GET of a random path no site has. When it answers
//! 200 with HTML, the origin answers "not found" with 200, and a page of it whose title and
//! text say what the probe's answer says (`extract::page_text::same_page`) gets the `soft-404`
//! warning. A probe answered otherwise (404, as a correct server does, or any failure) clears
//! every page of the origin. Checks of such runs use GET for every http(s) link, since the
//! body is what is compared (no more requests than HEAD would take, bodies are read).
//!
//! Invariant: at most one probe per origin per run, whatever the threads. `probes` maps an
//! origin to a `OnceLock` holding its answer. The map's mutex is held only to find or insert
//! the entry, never across the probe; `OnceLock::get_or_init` runs the probe in the first
//! worker that asks, and any other worker asking for the same origin meanwhile (two pages of
//! one host finished at once) waits for that answer instead of probing again. A waiting worker
//! holds no host slot (its own fetch has returned), so the probe gets its slot as any request
//! does; a probe never asks for another probe, so the wait cannot go round in a circle.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use url::Url;

use crate::extract::page_text::{PageText, page_text, same_page};
use crate::model::outcome::Warning;
use crate::model::redact::redact;
use crate::policy::origin::origin_text;

/// The tag of the warning.
pub(crate) const TAG: &str = "soft-404";

/// What an origin answered for a page that does not exist, when it answered 200 with HTML.
#[derive(Debug)]
struct Probe {
    url: Url,
    text: PageText,
}

/// The probes of a run, one per origin (see the module doc for the invariant).
#[derive(Debug, Default)]
pub(crate) struct SoftNotFound {
    probes: Mutex<HashMap<String, Arc<OnceLock<Option<Probe>>>>>,
}

impl SoftNotFound {
    /// The entry of `origin`, inserted empty when new. The lock is held for this only.
    fn entry(&self, origin: &str) -> Arc<OnceLock<Option<Probe>>> {
        let mut probes = self.probes.lock().unwrap_or_else(|p| p.into_inner());
        probes.entry(origin.to_owned()).or_default().clone()
    }
}

/// A path no site has: random, so no cache or route can know it.
fn probe_path() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("/linkpatrol-soft-404-probe-{:016x}", h.finish())
}

impl SoftNotFound {
    /// The `soft-404` warning for the page at `url` (answered 200, `body` being its HTML)
    /// when it says what its origin answers for a page that does not exist. `fetch` asks the
    /// made-up URL it is given (only for the first page of an origin) and returns the body of
    /// a 200 HTML answer.
    pub(crate) fn warning_for(
        &self,
        url: &Url,
        body: &[u8],
        fetch: impl FnOnce(&Url) -> Option<Vec<u8>>,
    ) -> Option<Warning> {
        if !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        let entry = self.entry(&origin_text(url));
        let probe = entry
            .get_or_init(|| {
                let mut probe = url.clone();
                probe.set_path(&probe_path());
                probe.set_query(None);
                probe.set_fragment(None);
                let body = fetch(&probe)?;
                Some(Probe {
                    text: page_text(&body),
                    url: probe,
                })
            })
            .as_ref()?;
        if !same_page(&page_text(body), url, &probe.text, &probe.url) {
            return None;
        }
        Some(Warning {
            tag: TAG,
            message: format!(
                "The page answers 200 but says what this site answers for a page that does not \
                 exist ({}, asked for a made-up path): probably a missing page (a soft 404).",
                redact(probe.url.as_str())
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Barrier, Mutex};

    use super::*;

    const NOT_FOUND: &[u8] = b"<title>Oops</title><p>Nothing is here, sorry.</p>";

    #[test]
    fn pages_finished_at_once_share_one_probe_per_origin() {
        let soft = SoftNotFound::default();
        let probed = Mutex::new(Vec::new());
        let barrier = Barrier::new(8);
        std::thread::scope(|s| {
            for i in 0..8 {
                let (soft, probed, barrier) = (&soft, &probed, &barrier);
                s.spawn(move || {
                    let url = Url::parse(&format!("http://h{}.test/gone{i}", i % 2)).unwrap();
                    barrier.wait();
                    let w = soft.warning_for(&url, NOT_FOUND, |made_up| {
                        probed.lock().unwrap().push(made_up.clone());
                        Some(NOT_FOUND.to_vec())
                    });
                    assert_eq!(w.map(|w| w.tag), Some(TAG));
                });
            }
        });
        let probed = probed.into_inner().unwrap();
        let mut hosts: Vec<&str> = probed.iter().filter_map(Url::host_str).collect();
        hosts.sort_unstable();
        assert_eq!(hosts, ["h0.test", "h1.test"], "{probed:?}");
        assert!(
            probed
                .iter()
                .all(|u| u.path().starts_with("/linkpatrol-soft-404-probe-"))
        );
    }

    #[test]
    fn an_origin_that_answers_404_warns_about_nothing_and_is_asked_once() {
        let soft = SoftNotFound::default();
        let asked = AtomicUsize::new(0);
        for i in 0..3 {
            let url = Url::parse(&format!("https://h.test/p{i}")).unwrap();
            let w = soft.warning_for(&url, NOT_FOUND, |_| {
                asked.fetch_add(1, Ordering::SeqCst);
                None
            });
            assert_eq!(w, None);
        }
        assert_eq!(asked.load(Ordering::SeqCst), 1);
    }
}
