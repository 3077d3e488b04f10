//! The result cache: one check per URL, and every page that links to it remembered.
//!
//! A key is claimed (a `Pending` placeholder stored) **before** its URL is queued, under the
//! cache lock, so two pages that find the same link at the same moment cannot both queue it:
//! exactly one `claim` returns [`Claim::New`]. Every later claim only records its referrer.
//!
//! Each referrer is delivered exactly once: a claim that lands while the key is `Pending` is
//! stored in the placeholder and handed back by [`ResultCache::finish`]; a claim that lands
//! after `finish` gets the result back ([`Claim::Done`]) and its caller emits the entry. Both
//! happen under the same lock, so no referrer can fall between the two.
//!
//! The lock is held for map bookkeeping only, never across I/O.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::outcome::{CheckResult, Referrer};

/// One place a URL was linked from, waiting for the URL's result.
#[derive(Debug, Clone)]
pub(crate) struct Occurrence {
    /// The linking page, or `None` for a start URL.
    pub(crate) referrer: Option<Referrer>,
    /// The fragment the link carried.
    pub(crate) fragment: Option<String>,
}

#[derive(Debug)]
enum Slot {
    /// Queued or being checked; the occurrences found meanwhile.
    Pending(Vec<Occurrence>),
    /// Checked.
    Done(Arc<CheckResult>),
}

/// What a claim found.
#[derive(Debug)]
pub(crate) enum Claim {
    /// First sight of the key: a placeholder now holds it and the caller must queue the URL.
    New,
    /// Already queued or in progress; the occurrence was stored for `finish` to return.
    Pending,
    /// Already checked; the caller reports the occurrence with this result.
    Done(Arc<CheckResult>),
}

/// Map from cache key to placeholder or result.
#[derive(Debug, Default)]
pub(crate) struct ResultCache {
    /// Key → slot. Inserted by `claim` (only), turned `Done` by `finish` (only).
    slots: Mutex<HashMap<String, Slot>>,
}

impl ResultCache {
    /// Claims `key` for checking, recording `occurrence`. See [`Claim`].
    pub(crate) fn claim(&self, key: &str, occurrence: Occurrence) -> Claim {
        let mut slots = self.slots.lock();
        match slots.get_mut(key) {
            None => {
                slots.insert(key.to_owned(), Slot::Pending(vec![occurrence]));
                Claim::New
            }
            Some(Slot::Pending(occ)) => {
                occ.push(occurrence);
                Claim::Pending
            }
            Some(Slot::Done(r)) => Claim::Done(r.clone()),
        }
    }

    /// Claims `key` as another name of a URL being checked (a redirect target, a folder's
    /// `index.html`). Returns `true` when the caller now owns it and must `finish` it; `false`
    /// when it is already queued or checked under its own name.
    pub(crate) fn claim_alias(&self, key: &str) -> bool {
        let mut slots = self.slots.lock();
        if slots.contains_key(key) {
            return false;
        }
        slots.insert(key.to_owned(), Slot::Pending(Vec::new()));
        true
    }

    /// Stores the result of `key` and returns every occurrence recorded while it was pending.
    /// A key finished twice (a redirect alias) keeps its first result.
    pub(crate) fn finish(&self, key: &str, result: Arc<CheckResult>) -> Vec<Occurrence> {
        let mut slots = self.slots.lock();
        match slots.insert(key.to_owned(), Slot::Done(result)) {
            Some(Slot::Pending(occ)) => occ,
            Some(Slot::Done(first)) => {
                slots.insert(key.to_owned(), Slot::Done(first));
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// Number of keys claimed so far (checked plus pending): "N URLs" in the summary.
    pub(crate) fn len(&self) -> usize {
        self.slots.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;

    fn occ(parent: &str) -> Occurrence {
        Occurrence {
            referrer: Some(Referrer {
                parent: parent.into(),
                raw: "x".into(),
                line: Some(1),
                column: Some(1),
                name: String::new(),
                base: None,
            }),
            fragment: None,
        }
    }

    #[test]
    fn placeholder_then_result() {
        let c = ResultCache::default();
        assert!(matches!(c.claim("k", occ("a")), Claim::New));
        assert!(matches!(c.claim("k", occ("b")), Claim::Pending));
        let r = Arc::new(CheckResult::immediate(
            "k".into(),
            Outcome::Ok { status: None },
            0,
        ));
        let pending = c.finish("k", r);
        let parents: Vec<_> = pending
            .iter()
            .map(|o| o.referrer.as_ref().unwrap().parent.as_str())
            .collect();
        assert_eq!(parents, ["a", "b"]);
        assert!(matches!(c.claim("k", occ("c")), Claim::Done(_)));
        assert_eq!(c.len(), 1);
    }

    /// Many threads claim the same keys at once: each key is won exactly once.
    #[test]
    fn concurrent_claims_win_once() {
        let c = Arc::new(ResultCache::default());
        let wins = Arc::new(AtomicUsize::new(0));
        let barrier = Arc::new(Barrier::new(8));
        let hs: Vec<_> = (0..8)
            .map(|t| {
                let (c, wins, barrier) = (c.clone(), wins.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    for k in 0..500 {
                        if matches!(c.claim(&k.to_string(), occ(&t.to_string())), Claim::New) {
                            wins.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(wins.load(Ordering::SeqCst), 500);
        let r = Arc::new(CheckResult::immediate(
            "0".into(),
            Outcome::Ok { status: None },
            0,
        ));
        assert_eq!(c.finish("0", r).len(), 8, "every referrer kept");
    }
}
