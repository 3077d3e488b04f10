//! The level a URL is reported at: its shortest link distance from a start URL, whatever the
//! thread count.
//!
//! A result is made when its URL is first claimed, with that claim's level: the level of the
//! page that found it first, plus one. Which page that is depends on the threads' timing (a
//! page three links deep may be parsed before a page one link deep that links to the same
//! URL), so the level a result is made with is not stable. The cache therefore records the
//! link graph as it is claimed — each page's links (`Rare::linked`, one level down, handed
//! over when its parse ends: `PageEdges`), each
//! redirect (`Rare::hops`, the same level), the content a redirect chain requested for another
//! key (`Rare::content`) — and the lowest level each key was claimed at (`Slot::least`: start
//! inputs 0, links handed over by another shard at their level). At the end of the run,
//! [`ResultCache::settled_levels`] runs a shortest-path search over that graph: a key's level
//! is the lowest of its own `least` and, over every edge to it, the level of the page (or
//! redirect) plus the edge's step.
//!
//! The graph's edges are the links of the pages the run parsed, and which pages those are does
//! not depend on timing either: a page is parsed once, at the lowest level any claim asks for,
//! and under `-r` a page first parsed too deep hands its links on again one level below (see
//! "Upgrades to parse" in `cache/mod.rs`). So a page first reached at depth 3 and later at
//! depth 1, with `-r 2`, is parsed at depth 1 and its links are checked, exactly as if it had
//! been reached at depth 1 first; its settled level is 1. A settled level is never above the
//! level a result was made with, and every start URL is 0.
//!
//! Cost: one entry number (4 bytes) per distinct link of a page, and a search over every key
//! at the end, with every shard locked, once no worker runs.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::shards::All;
use super::{Id, ResultCache, Slot, State};

impl ResultCache {
    /// For every checked URL whose result was made at another level than its shortest link
    /// distance from a start URL: its URL (as in its result) and that distance. Called once
    /// the run is over.
    pub(crate) fn settled_levels(&self) -> HashMap<String, usize> {
        let slots = self.slots.lock_all();
        let dist = shortest(&slots);
        let mut out: HashMap<String, usize> = HashMap::new();
        for (id, d) in slots.ids().zip(&dist) {
            let Some(d) = (*d != u32::MAX).then_some(*d as usize) else {
                continue;
            };
            if let State::Done(kept) = &slots.value(id).state
                && kept.level() != d
            {
                let url = kept.url(slots.key(id));
                // Two keys whose results name one URL: the nearer counts.
                let at = out.entry(url.to_owned()).or_insert(d);
                *at = (*at).min(d);
            }
        }
        out
    }
}

/// Lowers `to`'s distance to `d` when that is shorter, and queues it.
fn relax(
    slots: &All<'_, Slot>,
    dist: &mut [u32],
    heap: &mut BinaryHeap<Reverse<(u32, Id)>>,
    to: Id,
    d: u32,
) {
    let at = &mut dist[slots.dense(to)];
    if d < *at {
        *at = d;
        heap.push(Reverse((d, to)));
    }
}

/// Each key's shortest distance (`u32::MAX`: none known), in the map's dense order:
/// Dijkstra's search with steps of 0 (a redirect) and 1 (a link), from every key's `least`.
fn shortest(slots: &All<'_, Slot>) -> Vec<u32> {
    let n = slots.len();
    let mut dist = vec![u32::MAX; n];
    let mut heap = BinaryHeap::new();
    for (id, d) in slots.ids().zip(dist.iter_mut()) {
        if let Some(l) = slots.value(id).least.get() {
            *d = u32::try_from(l).unwrap_or(u32::MAX - 1);
            heap.push(Reverse((*d, id)));
        }
    }
    while let Some(Reverse((d, id))) = heap.pop() {
        if d > dist[slots.dense(id)] {
            continue;
        }
        let Some(rare) = slots.value(id).rare.as_deref() else {
            continue;
        };
        for &to in &rare.hops {
            relax(slots, &mut dist, &mut heap, to, d);
        }
        let next = d.saturating_add(1).min(u32::MAX - 1);
        let mut linked = |holder: &super::Rare| {
            for &to in &holder.linked {
                relax(slots, &mut dist, &mut heap, to, next);
            }
        };
        linked(rare);
        if let Some(owner) = rare.content
            && let Some(holder) = slots.value(owner).rare.as_deref()
        {
            linked(holder);
        }
    }
    dist
}

#[cfg(test)]
mod tests {
    use super::super::{Occurrence, ResultCache};
    use crate::model::outcome::{CheckResult, Outcome};

    fn occ() -> Occurrence {
        Occurrence::at_top_of("p".into(), "x")
    }

    fn claim(c: &ResultCache, key: &str, level: usize, from: Option<&str>) {
        let from = from.and_then(|k| c.edges_from(k));
        let _ = c.claim_at(key, occ, level, false, from.as_ref());
    }

    fn finish(c: &ResultCache, key: &str, level: usize) {
        let ok = Outcome::Ok { status: Some(200) };
        c.finish(key, CheckResult::immediate(key.into(), ok, level));
    }

    #[test]
    fn a_url_found_first_deep_is_reported_at_its_shortest_distance() {
        let c = ResultCache::default();
        // start -> a -> b -> x, and start -> c -> x; x first claimed from b (level 3).
        claim(&c, "start", 0, None);
        claim(&c, "a", 1, Some("start"));
        claim(&c, "c", 1, Some("start"));
        claim(&c, "b", 2, Some("a"));
        claim(&c, "x", 3, Some("b"));
        claim(&c, "x", 2, Some("c"));
        for (k, l) in [("start", 0), ("a", 1), ("c", 1), ("b", 2), ("x", 3)] {
            finish(&c, k, l);
        }
        let levels = c.settled_levels();
        assert_eq!(levels.get("x"), Some(&2));
        assert_eq!(levels.len(), 1, "{levels:?}");
    }

    #[test]
    fn a_page_whose_level_drops_lowers_the_links_it_claimed_before() {
        let c = ResultCache::default();
        // p first parsed at level 4 (its links claimed at 5); later found at level 1.
        claim(&c, "start", 0, None);
        claim(&c, "p", 4, None);
        claim(&c, "y", 5, Some("p"));
        claim(&c, "p", 1, Some("start"));
        // A redirect from y to z, requested by y's chain; z's links are held by y.
        claim(&c, "z", 9, None);
        c.redirect("y", "z", true);
        claim(&c, "w", 10, Some("y"));
        for (k, l) in [("start", 0), ("p", 4), ("y", 5), ("z", 9), ("w", 10)] {
            finish(&c, k, l);
        }
        let levels = c.settled_levels();
        assert_eq!(levels.get("p"), Some(&1));
        assert_eq!(levels.get("y"), Some(&2));
        assert_eq!(levels.get("z"), Some(&2));
        assert_eq!(levels.get("w"), Some(&3));
        assert!(!levels.contains_key("start"));
    }
}
