//! The result cache: one check per URL, and every page that links to it remembered.
//!
//! A key is claimed (a `Pending` placeholder stored) **before** its URL is queued, under the
//! lock of the key's shard, so two pages that find the same link at the same moment cannot both queue it:
//! exactly one `claim` returns [`Claim::New`]. Every later claim only records its referrer.
//!
//! Each referrer is delivered exactly once: a claim that lands while the key is not done is
//! stored in the slot and handed back when the key is finished; a claim that lands after that
//! gets the result back ([`Claim::Done`]) and its caller emits the entry. Both happen under the
//! same lock, so no referrer can fall between the two.
//!
//! # Redirects into known URLs
//! A redirect chain that reaches a URL already claimed — or one whose own check would differ
//! from the redirecting URL's (another scope or recursion decision, filtered out, disallowed
//! by robots.txt), which is then claimed and queued on its own — stops there instead of
//! requesting it: the redirecting URL is [`defer`](ResultCache::defer)red on that target (its slot is
//! `Waiting`, and a partial result is parked in the target's slot). When the target finishes,
//! every URL waiting on it is finished too, with the target's verdict behind its own redirect
//! hops. A wait that would close a cycle (A waits on B, B redirects back to A) is finished at
//! once as a redirect loop, so no slot can wait forever on a finished run.
//!
//! # Upgrades to parse
//! The first claim of a key fixes its task's decision, but a later claim may want more: the
//! URL was first found through a `rel=nofollow` link (or on a robots-nofollow page) or beyond
//! `-r`, so it was queued with `recurse = false`, and now it is found through a followed link
//! at a level that recurses. So that the pages crawled do not depend on which link was
//! claimed first, such a claim [`upgrade`](ResultCache::upgrade)s the key, and the page is
//! parsed once, at the lowest level any claim wants:
//! - still queued: its task asks with GET instead of HEAD and parses at that level;
//! - in flight, or checked without a parse (only HEAD): one parse job — a parse-only task, one
//!   GET, no result of its own and no report row (the URL's verdict stands and was reported);
//! - parsed already at a deeper level, under `-r`: not requested again; the links it kept are
//!   handed back ([`Upgrade::Relevel`]) and each is upgraded one level below it.
//!
//! A redirect (`Waiting`, or done with a `real_url`) passes the upgrade to the URL whose
//! content it is. Each job or relevel is handed out once, under a lock, to the one caller
//! that then carries it out **before** the `task_done` of the task it is working on (it found
//! the link, or it just finished the key): the queue's unfinished count cannot reach zero
//! while a parse job is still to be put (see `queue`).
//!
//! # Who changes what (each under the lock of the slot's shard)
//! - `state`: `Pending` by `claim`/`claim_alias` (insert), `Waiting` by `defer`, `Done` by
//!   `finish`/`defer`/`abandon_waiting` (through `finish_chain`), never back.
//! - `occurrences`: pushed by `claim` while not done; taken when the key is finished.
//! - `dependents` (in the slot's boxed `rare` part): pushed by `defer` on the target; taken
//!   when the target is finished.
//! - `want` (lowest level a claim wants parsed that no parse took yet): lowered by `upgrade`
//!   when the parse is still to come; read by `wants_parse` (the task's GET); taken by
//!   `take_parse` (the parse), `serve_want` (the worker after finishing the key) and
//!   `set_links`.
//! - `parsed` (level parsed at, or promised to a parse job): set by `take_parse` (the one
//!   worker that parses) or by the `upgrade`/`serve_want` that hands out the parse job;
//!   lowered only by `take_parse` (a job that runs after a lower want) and by a relevel.
//! - `least` (lowest level a claim came with): lowered by `claim_at`. `linked` (in `rare`,
//!   keys the page's links claimed): gathered by `claim_at` in the parsing worker's
//!   `PageEdges`, set by `add_edges` when that is dropped (the parse is over, before its
//!   task's `task_done`); `hops` and `content` (in `rare`) by `redirect`. Read once, at the
//!   end, by `settled_levels` (`cache/levels.rs`: the level a URL is reported at).
//! - `links` (in `rare`; followed in-scope links, kept only under `-r`): set by `set_links`, by
//!   the worker that parsed the page, before it finishes the key (a parse job: right after its
//!   parse).
//!
//! A lock is held for map bookkeeping only, never across I/O.
//!
//! # Shards
//! The map is split by key hash into shards, each with its own lock (`cache/shards.rs`), so
//! claims of different URLs — nearly all of a run's calls — seldom wait on each other. A thread
//! holds one shard's lock at a time; only the end-of-run reads (`counts`, `settled_levels`)
//! take all of them, in order. A call about one key (`claim_at`, `claim_alias`, `wants_parse`,
//! the finish of a key nothing waits on) is one step under one lock, as it was under a single
//! lock. The calls that span keys go one slot at a time, and stay exact because:
//! - `finish` moves a slot to `Done` and takes its dependents in one step; each dependent is
//!   `Waiting`, in that one list only, so the finisher alone finishes it.
//! - `defer` and `abandon_waiting` hold `waits`, so no other wait begins while `defer` walks
//!   a chain for a loop: a chain that reaches the deferring key (pending, owned by its
//!   caller) cannot end under the walk, and one that does not cannot come to. The key is made
//!   `Waiting` before it joins the target's dependents, under the target's lock, where a
//!   target finished meanwhile is seen and the key finished at once.
//! - An upgrade walks redirects one slot at a time: a step moves on only from what cannot
//!   change back (`Waiting` only becomes `Done`, and `Done` is final), and the last slot is
//!   read and changed under its lock.
//! - `take_parse`, `set_links` and `serve_want` take a want under one lock and act on it under
//!   another: an upgrade landing between finds the key pending and wants it again, and the
//!   worker serves that want after its finish, as if it had come a moment later.
//! - The cap and the budget count keys in atomics (`keys`, `key_bytes`): a claim reserves its
//!   key below the cap before it inserts it, so `--max-urls` holds exactly.
//!
//! # Layout
//! A crawl keeps a slot for every URL it found, so a slot is kept small: the map is
//! an arena of (key, slot) entries found through a table of (hash, entry number) pairs
//! (`cache/slots.rs`), so the table's empty buckets cost 8 bytes, not a slot; the occurrence
//! that claimed a key waits inline in its slot, in the compact form of `cache/stored.rs`;
//! `dependents` and `links`, which few slots have, are boxed; levels take 4 bytes; a
//! `Waiting` slot names its target by entry number (keys are never removed, so the number
//! stands for the key); where only problems are reported, a `Done` slot keeps a result that is
//! fine in the lean form of `cache/lean.rs` (about 130 bytes, without a second copy of its URL
//! when that is the key, instead of 408 and the URL), rebuilt for the rare claim that needs it
//! whole.

mod lean;
mod levels;
mod shards;
mod slots;
mod stored;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::Mutex;

use crate::engine::memory::{CACHE_BYTES_PER_KEY, MemoryBudget};
use crate::model::link_site::LinkSite;
use crate::model::outcome::{CheckResult, FailKind, Outcome};
use crate::policy::url_norm::cache_key;
use url::Url;

use lean::Kept;
use shards::{Id, Shard, Shards};
use stored::{Stored, StoredList};

/// One place a URL was linked from, waiting for the URL's result.
#[derive(Debug, Clone)]
pub(crate) struct Occurrence {
    /// The linking page, or `None` for a start URL.
    pub(crate) site: Option<LinkSite>,
    /// The fragment the link carried.
    pub(crate) fragment: Option<String>,
}

impl Occurrence {
    /// A link written as `raw` at line 1, column 1 of `parent`, with no label, base, fragment or
    /// warning: the occurrence the cache benches and tests claim with.
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn at_top_of(parent: Arc<str>, raw: &str) -> Self {
        Occurrence {
            site: Some(LinkSite {
                parent,
                raw: raw.to_owned(),
                line: Some(1),
                column: Some(1),
                name: String::new(),
                base: None,
                warnings: Vec::new(),
                remapped_from: None,
                rendered: false,
            }),
            fragment: None,
        }
    }

    fn stored(self) -> Stored {
        Stored::new(self.site, self.fragment)
    }

    fn from_stored(stored: Stored) -> Occurrence {
        let (site, fragment) = stored.into_parts();
        Occurrence { site, fragment }
    }
}

/// A finished result and the occurrences to report with it (the first one is not `cached`).
pub(crate) type Emission = (Arc<CheckResult>, Waiting);

/// The occurrences a key's result is reported with, in claim order, in the form its slot kept
/// them: each is rebuilt by the caller, after the lock is released (see [`WaitingLink`]).
#[derive(Debug, Default)]
pub(crate) struct Waiting(Vec<Stored>);

impl Waiting {
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each of them, in claim order.
    pub(crate) fn into_links(self) -> impl Iterator<Item = WaitingLink> {
        self.0.into_iter().map(WaitingLink)
    }

    /// All of them, rebuilt.
    #[cfg(test)]
    fn into_occurrences(self) -> Vec<Occurrence> {
        self.into_links().map(WaitingLink::occurrence).collect()
    }
}

/// One occurrence of a [`Waiting`] list, as its slot kept it.
#[derive(Debug)]
pub(crate) struct WaitingLink(Stored);

impl WaitingLink {
    /// A link site with no warnings of its own, base or remap: where only problems are
    /// reported and no plugin looks at links, a result that is neither broken nor warned about
    /// only counts it, so it need not be rebuilt (most of the links a large check delivers).
    pub(crate) fn is_plain(&self) -> bool {
        matches!(self.0, Stored::Plain(_))
    }

    /// The occurrence, rebuilt.
    pub(crate) fn occurrence(self) -> Occurrence {
        Occurrence::from_stored(self.0)
    }
}

#[derive(Debug)]
enum State {
    /// Queued or being checked.
    Pending,
    /// A redirect whose target (this entry, claimed before the wait began) is being checked.
    Waiting(Id),
    /// Checked: the result, whole or in its lean form (`cache/lean.rs`).
    Done(Kept),
}

/// A recursion level in 4 bytes, or none. A level is a depth of pages followed, so one above
/// `u32::MAX - 1` cannot occur; it would be kept as `u32::MAX - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Level(u32);

impl Level {
    const NONE: Level = Level(u32::MAX);

    fn of(level: usize) -> Level {
        Level(u32::try_from(level).map_or(u32::MAX - 1, |l| l.min(u32::MAX - 1)))
    }

    fn get(self) -> Option<usize> {
        (self != Level::NONE).then_some(self.0 as usize)
    }

    /// The lower of this level (if any) and `level`.
    fn lowered_to(self, level: usize) -> Level {
        Level::of(self.get().map_or(level, |l| l.min(level)))
    }

    fn take(&mut self) -> Option<usize> {
        std::mem::replace(self, Level::NONE).get()
    }
}

/// What few slots hold: redirects waiting on the key, a parsed page's kept links, and the
/// key's edges in the link graph that settles levels (see `cache/levels.rs`).
#[derive(Debug, Default)]
struct Rare {
    /// Redirecting URLs waiting for this one: their keys and partial results.
    dependents: Vec<(String, CheckResult)>,
    /// The followed in-scope links found when it was parsed, kept under a recursion limit.
    links: Option<Arc<[Url]>>,
    /// Every key a link on this page claimed (one level down), each once: set by `add_edges`.
    linked: Vec<Id>,
    /// Keys this URL redirects to (the same level), pushed by `redirect`.
    hops: Vec<Id>,
    /// A redirect hop requested by the chain of another key: that key, which holds the links
    /// of their one content.
    content: Option<Id>,
}

/// The slot of a page whose links are being claimed: each claim records an edge of the link
/// graph from it (see `cache/levels.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PageId(Id);

/// The edges of the link graph from one page while its links are claimed: each claim pushes
/// the key it claimed, outside the page's slot, and when this is dropped (the parse is over)
/// they go to the slot, each key once, in a list of exactly their size. (Pushed into the slot
/// one by one, they were a third repeats and a third spare capacity.) Made by
/// [`ResultCache::edges_from`] for one parse and dropped when it returns, inside the task that
/// parses, so every edge is in before the run ends and `settled_levels` reads them.
#[derive(Debug)]
pub(crate) struct PageEdges<'c> {
    cache: &'c ResultCache,
    page: PageId,
    /// Written only by the thread parsing the page, under a shard's lock or not.
    to: std::cell::RefCell<Vec<Id>>,
}

impl PageEdges<'_> {
    /// Records the edge to `to` (none to the page itself, nor the one just recorded again).
    fn push(&self, to: Id) {
        let mut edges = self.to.borrow_mut();
        if to != self.page.0 && edges.last() != Some(&to) {
            edges.push(to);
        }
    }
}

impl Drop for PageEdges<'_> {
    fn drop(&mut self) {
        let to = std::mem::take(self.to.get_mut());
        self.cache.add_edges(self.page, to);
    }
}

#[derive(Debug)]
struct Slot {
    state: State,
    /// Occurrences found while not done; emptied when the slot is finished.
    occurrences: StoredList,
    /// Lowest level at which a claim wants this URL parsed and no parse took it yet (see
    /// "Upgrades to parse").
    want: Level,
    /// The level this URL's content was parsed at, or will be by a parse job handed out.
    parsed: Level,
    /// The lowest level a claim of this key came with (start inputs: 0); lowered by
    /// `claim_at`. Where the link graph has a shorter path, `cache/levels.rs` finds it.
    least: Level,
    /// `dependents` and `links`, boxed: most slots have neither.
    rare: Option<Box<Rare>>,
    /// Done, neither broken nor warned about: an occurrence without warnings of its own makes
    /// no report row when only problems are reported (see [`Claim::Quiet`]). Kept here so such
    /// a claim touches neither the result nor its reference count.
    quiet: bool,
    /// Done, and no upgrade can change anything: not a page we would parse (an image, a broken
    /// or external URL) and not redirected to another key. Kept so that a claim of such a URL —
    /// most links of a site, found again and again — skips the filter decision and the second
    /// lookup of an upgrade, and `parsable`'s parse of the URL under the lock.
    ///
    /// `quiet` and `settled` are written once, by `finish_chain` under the shard's lock in the
    /// same step that makes the state `Done`, and never change after: a `Done` result is final,
    /// so a claim that reads them under the lock can never see a stale answer.
    settled: bool,
    /// Done without a row: finished with no occurrence (a redirect hop no link had named
    /// yet). The first claim after that gets [`Claim::Done`] with `first` set, never
    /// [`Claim::Quiet`], so the URL's first row is counted ("URLs checked" counts the rows'
    /// URLs); it clears the flag. Written under the shard's lock.
    unrowed: bool,
}

/// What an upgrade asks its caller to do (see "Upgrades to parse").
#[derive(Debug, PartialEq)]
pub(crate) enum Upgrade {
    /// Queue a parse-only task for this key, at this level.
    Parse(String, usize),
    /// The page was parsed at a deeper level: upgrade each of its links, found at this level
    /// plus one now.
    Relevel(Arc<[Url]>, usize),
}

impl Slot {
    fn new(occurrences: StoredList) -> Slot {
        Slot {
            state: State::Pending,
            occurrences,
            want: Level::NONE,
            parsed: Level::NONE,
            least: Level::NONE,
            rare: None,
            quiet: false,
            settled: false,
            unrowed: false,
        }
    }

    fn rare(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    fn links(&self) -> Option<&Arc<[Url]>> {
        self.rare.as_ref().and_then(|r| r.links.as_ref())
    }

    fn take_dependents(&mut self) -> Vec<(String, CheckResult)> {
        self.rare
            .as_mut()
            .map(|r| std::mem::take(&mut r.dependents))
            .unwrap_or_default()
    }
}

/// What a claim found. `O` is the occurrence, or, from [`claim_at`](ResultCache::claim_at),
/// what builds it: handed back unbuilt where the claim does not keep it.
#[derive(Debug)]
pub(crate) enum Claim<O = Occurrence> {
    /// First sight of the key: a placeholder now holds it and the caller must queue the URL.
    New,
    /// Already queued or in progress; the occurrence was stored for `finish` to return.
    Pending,
    /// Already checked; the caller reports the occurrence (handed back, not stored) with this
    /// result. `true`: the URL's first row (it was finished without one, as a redirect hop).
    Done(Arc<CheckResult>, O, bool),
    /// Already checked, neither broken nor warned about, and the caller said such a result
    /// needs no row for this occurrence: it only counts it. The occurrence is handed back to be
    /// dropped outside the lock.
    Quiet(O),
    /// Not claimed: the key is new and the cache already holds its cap of keys
    /// (`--max-urls`). Nothing was stored; the caller counts the link and drops the occurrence
    /// (handed back to be dropped outside the lock). So past the limit a run's memory stays
    /// bounded by the limit, however many links it finds.
    OverLimit(O),
}

/// Map from cache key to placeholder or result.
#[derive(Debug, Default)]
pub(crate) struct ResultCache {
    /// Key → slot, in shards by key hash (`cache/shards.rs`). Inserted by `claim`/
    /// `claim_alias` (and by a finish of a key never claimed), finished by `finish`/`defer`;
    /// never removed.
    slots: Shards<Slot>,
    /// Keys in the map. A claim reserves its key here (below `cap`) before it inserts it, so
    /// the cap holds exactly across shards; every other insert counts its key after it.
    keys: AtomicUsize,
    /// Bytes of the keys in the map, raised with `keys` when there is a budget to report to.
    key_bytes: AtomicUsize,
    /// Held by `defer` and `abandon_waiting`, the only calls that make a slot wait on another
    /// (or orphan a wait): while one walks a chain of waits, no other wait can begin, so a
    /// loop cannot close unseen (see "Shards").
    waits: Mutex<()>,
    /// Most keys a claim inserts (`--max-urls`; `None`: no limit). Set once at construction.
    /// `claim_alias` ignores it: its hops are bounded by the tasks checked times the redirect
    /// limit.
    cap: Option<usize>,
    /// Results are kept in their lean form where they have one (see `cache/lean.rs`): set
    /// once, by [`lean_when_quiet`](Self::lean_when_quiet), before the first claim.
    lean: bool,
    /// The run's memory budget: a claim of a new key that would take the run past it is
    /// refused like one over the cap. Set once, by [`within`](Self::within).
    budget: Option<Arc<MemoryBudget>>,
    /// Set by [`stop_new_keys`](Self::stop_new_keys) (a cancel), never cleared: from then on
    /// a claim of a new key is refused like one over the cap, so a cancelled run discovers
    /// nothing more while its URLs in flight finish. Relaxed: a claim that misses the store
    /// by a moment adds one key, which the cancel leaves unchecked like any queued one.
    stopped: AtomicBool,
}

/// One step of an upgrade's walk along redirects (see [`ResultCache::upgrade`]).
enum Step {
    /// The walk ended here, with this to do.
    End(Option<Upgrade>),
    /// A redirect waiting on this entry.
    To(Id),
    /// A redirect, checked, whose content is this key's.
    ToKey(String),
}

impl ResultCache {
    /// An empty cache whose claims insert at most `cap` keys; a new key beyond that is
    /// [`Claim::OverLimit`].
    pub(crate) fn with_cap(cap: Option<usize>) -> Self {
        ResultCache {
            cap,
            ..ResultCache::default()
        }
    }

    /// Accounts the cache's keys and slots in `budget`, and refuses a new key past it.
    pub(crate) fn within(mut self, budget: Arc<MemoryBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The bytes the cache holds, as the memory budget counts them.
    fn bytes(&self) -> usize {
        self.keys.load(Ordering::Relaxed) * CACHE_BYTES_PER_KEY
            + self.key_bytes.load(Ordering::Relaxed)
    }

    /// Reserves room for a claimed key of `len` bytes: `false` when the cap, the memory budget
    /// or a cancel refuses it.
    fn reserve(&self, len: usize) -> bool {
        if self.stopped_new_keys()
            || self
                .budget
                .as_ref()
                .is_some_and(|b| b.refuses_new_key(self.bytes(), len))
        {
            return false;
        }
        let cap = self.cap.unwrap_or(usize::MAX);
        let reserved = self
            .keys
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < cap).then_some(n + 1)
            })
            .is_ok();
        if reserved {
            self.add_key_bytes(len);
        }
        reserved
    }

    /// Counts a key of `len` bytes inserted without a reservation.
    fn count(&self, len: usize) {
        self.keys.fetch_add(1, Ordering::Relaxed);
        self.add_key_bytes(len);
    }

    /// Adds a new key's bytes to the budget's figure (only the budget reads them).
    fn add_key_bytes(&self, len: usize) {
        if let Some(budget) = &self.budget {
            self.key_bytes.fetch_add(len, Ordering::Relaxed);
            budget.set_cache(self.bytes());
        }
    }

    /// Refuses every later claim of a new key ([`Claim::OverLimit`]): the run was cancelled
    /// and stops discovering URLs. Keys already claimed still take their occurrences.
    pub(crate) fn stop_new_keys(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }

    /// `true` once [`stop_new_keys`](Self::stop_new_keys) was called.
    pub(crate) fn stopped_new_keys(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    /// Keeps results that are fine in their lean form (`cache/lean.rs`) when `quiet`: only
    /// problems are reported and no plugin looks at links, so claims of such results are
    /// [`Claim::Quiet`] and need no result back, except for an occurrence with warnings of its
    /// own, which gets one built anew. Saves about 280 bytes per URL.
    pub(crate) fn lean_when_quiet(mut self, quiet: bool) -> Self {
        self.lean = quiet;
        self
    }

    /// Claims `key` for checking, recording `occurrence`. See [`Claim`].
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn claim(&self, key: &str, occurrence: Occurrence) -> Claim {
        match self.claim_at(key, || occurrence, usize::MAX, false, None).0 {
            Claim::New => Claim::New,
            Claim::Pending => Claim::Pending,
            Claim::Done(r, occurrence, first) => Claim::Done(r, occurrence(), first),
            Claim::Quiet(occurrence) => Claim::Quiet(occurrence()),
            Claim::OverLimit(occurrence) => Claim::OverLimit(occurrence()),
        }
    }

    /// [`claim`](Self::claim), also telling (in the same lock) whether a parse of `key` at
    /// `level` or lower is taken care of already: parsed or handed out at most that deep
    /// (`parsed`), or wanted that deep by an earlier claim (`want`). An
    /// [`upgrade`](Self::upgrade) at `level` would then change nothing, so a caller that gets
    /// `true` skips it — the common case of a link found again, spared a filter decision and a
    /// second lookup (see "Upgrades to parse"). `quiet_ok`: a result that is done and neither
    /// broken nor warned about needs no row for this occurrence ([`Claim::Quiet`]).
    ///
    /// `occurrence` builds the occurrence: called, under the lock, only when the claim stores
    /// it (`New`, `Pending`); handed back unbuilt otherwise, so that a link counted as `Quiet`
    /// (most links of a crawl where only problems are reported) never builds one, and the
    /// caller of `Done` builds it outside the lock.
    ///
    /// `from`: the page the link is on; the claim records the edge from it to `key`, and
    /// `level` as the lowest the key was claimed at, for the levels settled at the end
    /// ([`settled_levels`](Self::settled_levels)).
    pub(crate) fn claim_at<F: FnOnce() -> Occurrence>(
        &self,
        key: &str,
        occurrence: F,
        level: usize,
        quiet_ok: bool,
        from: Option<&PageEdges<'_>>,
    ) -> (Claim<F>, bool) {
        let k = self.slots.hashed(key);
        let mut shard = self.slots.lock_key(&k);
        match shard.lookup(&k) {
            Err(vacant) => {
                // The shard's own limit (of entry numbers) counts as a cap too.
                if !shard.has_room() || !self.reserve(key.len()) {
                    return (Claim::OverLimit(occurrence), true);
                }
                let mut first = StoredList::default();
                first.push(occurrence().stored());
                let mut slot = Slot::new(first);
                if level != usize::MAX {
                    slot.least = Level::of(level);
                }
                if let (Some(id), Some(from)) = (shard.insert(vacant, &k, slot), from) {
                    from.push(id);
                }
                (Claim::New, false)
            }
            Ok(id) => {
                if let Some(from) = from {
                    from.push(id);
                }
                let slot = shard.value_mut(id);
                if level != usize::MAX {
                    slot.least = slot.least.lowered_to(level);
                }
                let covered = slot.settled
                    || slot.parsed.get().is_some_and(|p| p <= level)
                    || slot.want.get().is_some_and(|w| w <= level);
                let first = slot.unrowed;
                let claim = match &slot.state {
                    State::Done(_) if quiet_ok && slot.quiet && !first => Claim::Quiet(occurrence),
                    State::Done(r) => Claim::Done(r.full(key), occurrence, first),
                    _ => {
                        slot.occurrences.push(occurrence().stored());
                        Claim::Pending
                    }
                };
                if matches!(claim, Claim::Done(..)) {
                    slot.unrowed = false;
                }
                (claim, covered)
            }
        }
    }

    /// Claims `key` as another name of a URL being checked (a redirect hop, a folder's
    /// `index.html`). Returns `true` when the caller now owns it and must finish it; `false`
    /// when it is already claimed under its own name. The caller makes a hop an alias only
    /// when the hop's own check would be the same check (same scope, recursion, filter and
    /// robots.txt verdict; see `Run::claim_hop` in `engine/admit.rs`); otherwise it claims the key here and
    /// queues it as a task of its own, and the redirecting URL [`defer`](Self::defer)s on it.
    pub(crate) fn claim_alias(&self, key: &str) -> bool {
        let k = self.slots.hashed(key);
        let mut shard = self.slots.lock_key(&k);
        match shard.lookup(&k) {
            Ok(_) => false,
            // `false` too when the shard is full: then the hop is not claimed.
            Err(vacant) => {
                let inserted = shard
                    .insert(vacant, &k, Slot::new(StoredList::default()))
                    .is_some();
                if inserted {
                    self.count(key.len());
                }
                inserted
            }
        }
    }

    /// The edges from `key`'s slot, the page whose links are about to be claimed (see
    /// [`PageEdges`]); `None` when the key has no slot.
    pub(crate) fn edges_from(&self, key: &str) -> Option<PageEdges<'_>> {
        let page = PageId(self.slots.find(key)?);
        Some(PageEdges {
            cache: self,
            page,
            to: std::cell::RefCell::new(Vec::new()),
        })
    }

    /// Hands the edges claimed from `page` over to its slot (see [`PageEdges`]): sorted and
    /// each kept once outside the lock, appended under it (a page parsed again adds its edges
    /// anew).
    fn add_edges(&self, page: PageId, mut to: Vec<Id>) {
        if to.is_empty() {
            return;
        }
        to.sort_unstable();
        to.dedup();
        let mut shard = self.slots.lock_id(page.0);
        let linked = &mut shard.value_mut(page.0).rare().linked;
        if linked.is_empty() {
            // A copy of exactly their size: the gathering list grew by doubling.
            *linked = to.as_slice().to_vec();
        } else {
            linked.extend_from_slice(&to);
        }
        drop(shard);
    }

    /// Records that `from` redirects to `to` (both claimed): `to` is as near a start URL as
    /// `from`. `owned`: `to` is requested by `from`'s chain, so `from` holds the links of
    /// their content (see `cache/levels.rs`).
    pub(crate) fn redirect(&self, from: &str, to: &str, owned: bool) {
        let (Some(f), Some(t)) = (self.slots.find(from), self.slots.find(to)) else {
            return;
        };
        if f == t {
            return;
        }
        self.slots.lock_id(f).value_mut(f).rare().hops.push(t);
        if owned {
            self.slots.lock_id(t).value_mut(t).rare().content = Some(f);
        }
    }

    /// A claim of `key` (made already) wants it parsed at `level`. Returns a parse job — the
    /// key whose content must be parsed and the level — when the caller must queue a
    /// parse-only task for it (it was checked without being parsed); `None` when the pending
    /// task will take it, or nothing is to be parsed.
    pub(crate) fn upgrade(&self, key: &str, level: usize) -> Option<Upgrade> {
        let id = self.slots.find(key)?;
        self.upgrade_from(id, level)
    }

    /// Follows redirects from `at` to the URL whose content it is, one shard's lock at a time,
    /// then records the want there (pending), hands out a parse job (done, parsable, never
    /// parsed), or drops it. Each step reads one slot under its lock, and a step that moves on
    /// reads only what cannot change back: a `Waiting` slot only becomes `Done`, and a `Done`
    /// result is final. The last step decides and changes its slot under one lock.
    fn upgrade_from(&self, mut at: Id, level: usize) -> Option<Upgrade> {
        // A chain is at most as long as the map; the bound also guards against a redirect cycle.
        for _ in 0..=self.len() {
            let step = upgrade_step(&mut self.slots.lock_id(at), at, level, true);
            match step {
                Step::End(up) => return up,
                Step::To(next) => at = next,
                Step::ToKey(key) => match self.slots.find(&key) {
                    Some(next) => at = next,
                    // Its content's key was never claimed: the redirect's slot takes it.
                    None => {
                        let Step::End(up) =
                            upgrade_step(&mut self.slots.lock_id(at), at, level, false)
                        else {
                            unreachable!("a step that does not follow ends");
                        };
                        return up;
                    }
                },
            }
        }
        None
    }

    /// `true` when a later claim wants the pending `key` parsed: its task asks with GET.
    pub(crate) fn wants_parse(&self, key: &str) -> bool {
        let k = self.slots.hashed(key);
        self.slots
            .lock_key(&k)
            .get(&k)
            .is_some_and(|s| s.want != Level::NONE)
    }

    /// Called by the worker about to parse the content of `keys` (the task's key, and the
    /// redirect hops it owns): the level to parse at — the lowest of `own` (the task's level,
    /// when its decision was to parse) and every level a claim wants — or `None` when no one
    /// wants it parsed. Marks the keys parsed.
    ///
    /// Each key's want is taken, then each key is marked, one lock at a time: an upgrade that
    /// lands between the two finds the key pending and wants it again, which the worker serves
    /// after its finish (`serve_want`), as it would had the upgrade come after the parse.
    pub(crate) fn take_parse(&self, keys: &[&str], own: Option<usize>) -> Option<usize> {
        let mut level = own;
        for key in keys {
            let k = self.slots.hashed(key);
            if let Some(want) = self
                .slots
                .lock_key(&k)
                .get_mut(&k)
                .and_then(|s| s.want.take())
            {
                level = Some(level.map_or(want, |l| l.min(want)));
            }
        }
        let level = level?;
        for key in keys {
            let k = self.slots.hashed(key);
            if let Some(slot) = self.slots.lock_key(&k).get_mut(&k) {
                slot.parsed = slot.parsed.lowered_to(level);
            }
        }
        Some(level)
    }

    /// Called by the worker that parsed the content of `keys` under a recursion limit, with
    /// the page's followed in-scope links, before it finishes the keys (a parse job: after
    /// its parse). A lower level wanted meanwhile of a key already finished is returned.
    pub(crate) fn set_links(&self, keys: &[&str], links: Vec<Url>) -> Vec<Upgrade> {
        let links: Arc<[Url]> = links.into();
        let mut out = Vec::new();
        for key in keys {
            let k = self.slots.hashed(key);
            let wanted = {
                let mut shard = self.slots.lock_key(&k);
                let Some(id) = shard.find(&k) else {
                    continue;
                };
                let slot = shard.value_mut(id);
                slot.rare().links = Some(links.clone());
                if matches!(slot.state, State::Pending) {
                    continue; // `serve_want` looks after the finish
                }
                slot.want.take().map(|level| (id, level))
            };
            if let Some((id, level)) = wanted {
                out.extend(self.upgrade_from(id, level));
            }
        }
        out
    }

    /// Called by the worker after it finished (or deferred) `key`: a want that arrived while
    /// the key was pending and that its task did not serve (it used HEAD, or did not parse)
    /// becomes an upgrade now. Returns a parse job as [`upgrade`](Self::upgrade) does.
    pub(crate) fn serve_want(&self, key: &str) -> Option<Upgrade> {
        let k = self.slots.hashed(key);
        let (id, level) = {
            let mut shard = self.slots.lock_key(&k);
            let id = shard.find(&k)?;
            let slot = shard.value_mut(id);
            if matches!(slot.state, State::Pending) {
                return None;
            }
            (id, slot.want.take()?)
        };
        self.upgrade_from(id, level)
    }

    /// Stores the result of `key`. Returns what to report: this result with the occurrences
    /// recorded while it was pending, and the same for every redirect that waited on it.
    /// A key finished twice keeps its first result.
    pub(crate) fn finish(&self, key: &str, result: CheckResult) -> Vec<Emission> {
        let mut out = Vec::new();
        self.finish_chain(key.to_owned(), result, &mut out);
        out
    }

    /// Finishes `key` with `result`, then every redirect that waited on it with its verdict,
    /// each under its own shard's lock. A waiting key's slot is `Waiting` and in one
    /// dependents list only, taken with the target's finish, so only this call finishes it.
    fn finish_chain(&self, key: String, result: CheckResult, out: &mut Vec<Emission>) {
        let mut work = vec![(key, result)];
        while let Some((key, result)) = work.pop() {
            // Every reported result passes here once: the one place credentials are masked.
            let result = Arc::new(result.without_credentials());
            let kept = Kept::lean_or_full(&result, self.lean, &key);
            let settled = !parsable(&kept, &key)
                && result.real_url.as_ref().is_none_or(|u| cache_key(u) == key);
            let k = self.slots.hashed(&key);
            let mut shard = self.slots.lock_key(&k);
            let id = match shard.lookup(&k) {
                Ok(id) => id,
                Err(vacant) => match shard.insert(vacant, &k, Slot::new(StoredList::default())) {
                    Some(id) => {
                        self.count(key.len());
                        id
                    }
                    None => {
                        // A key never claimed, and its shard is full: reported, not kept.
                        drop(shard);
                        out.push((result, Waiting::default()));
                        continue;
                    }
                },
            };
            let slot = shard.value_mut(id);
            if matches!(slot.state, State::Done(_)) {
                continue;
            }
            slot.quiet = !result.outcome.is_broken() && result.warnings.is_empty();
            slot.settled = settled;
            slot.state = State::Done(kept);
            // Rebuilt by the caller, outside the lock.
            let occurrences = Waiting(slot.occurrences.take());
            slot.unrowed = occurrences.is_empty();
            let dependents = slot.take_dependents();
            drop(shard);
            for (dkey, partial) in dependents {
                work.push((dkey, compose(partial, &result)));
            }
            out.push((result, occurrences));
        }
    }

    /// Finishes `key` later, with the verdict of `target` behind its own redirect hops (see the
    /// module docs). Returns what can be reported now (when `target` is done already, or the
    /// wait would close a loop).
    pub(crate) fn defer(&self, key: &str, partial: CheckResult, target: &str) -> Vec<Emission> {
        let _waits = self.waits.lock();
        let mut out = Vec::new();
        let Some(target_id) = self.slots.find(target) else {
            let mut failed = partial;
            failed.outcome = Outcome::Failed {
                kind: FailKind::Internal,
                message: format!("redirect target {target} was never claimed"),
            };
            self.finish_chain(key.to_owned(), failed, &mut out);
            return out;
        };
        if let Some(done) = self.result_of(target_id, target) {
            self.finish_chain(key.to_owned(), compose(partial, &done), &mut out);
        } else if self.waits_on(target_id, key) {
            let mut looped = partial;
            looped.outcome = Outcome::Failed {
                kind: FailKind::RedirectLoop,
                message: format!("redirect loop through {target}"),
            };
            self.finish_chain(key.to_owned(), looped, &mut out);
        } else {
            // `key` waits first, so that the target's finish, which may come at any moment
            // once the wait is in its list, finds a slot that is not done.
            let k = self.slots.hashed(key);
            if let Some(slot) = self.slots.lock_key(&k).get_mut(&k) {
                slot.state = State::Waiting(target_id);
            }
            let mut shard = self.slots.lock_id(target_id);
            let t = shard.value_mut(target_id);
            if let State::Done(r) = &t.state {
                // Finished since it was looked at: the wait ends at once.
                let done = r.full(target);
                drop(shard);
                self.finish_chain(key.to_owned(), compose(partial, &done), &mut out);
            } else {
                t.rare().dependents.push((key.to_owned(), partial));
            }
        }
        out
    }

    /// The result of entry `id` (of `key`), when it is done.
    fn result_of(&self, id: Id, key: &str) -> Option<Arc<CheckResult>> {
        match &self.slots.lock_id(id).value(id).state {
            State::Done(r) => Some(r.full(key)),
            _ => None,
        }
    }

    /// `true` when `from` is `key` or waits (through a chain of redirects) on `key`. Called
    /// with `waits` held: no wait begins meanwhile, and a chain that reaches `key` (pending,
    /// owned by the caller) cannot end under the walk, so what it finds holds.
    fn waits_on(&self, from: Id, key: &str) -> bool {
        let mut at = from;
        // A chain is at most as long as the map; the bound also guards against a bug looping here.
        for _ in 0..=self.len() {
            let shard = self.slots.lock_id(at);
            if shard.key(at) == key {
                return true;
            }
            match shard.value(at).state {
                State::Waiting(next) => at = next,
                _ => return false,
            }
        }
        true
    }

    /// Number of keys claimed so far (checked plus pending): "N URLs" in the summary.
    pub(crate) fn len(&self) -> usize {
        self.keys.load(Ordering::Relaxed)
    }

    /// For a run that was cancelled: finishes every redirect still waiting on a URL that was
    /// never checked (dropped from the queue, or interrupted), as not checked, so it is reported
    /// instead of vanishing. Returns what to report.
    pub(crate) fn abandon_waiting(&self) -> Vec<Emission> {
        let _waits = self.waits.lock();
        let mut orphans: Vec<(String, String, CheckResult)> = Vec::new();
        for mut shard in self.slots.each() {
            for (target, s) in shard.iter_mut() {
                if matches!(s.state, State::Pending) {
                    orphans.extend(
                        s.take_dependents()
                            .into_iter()
                            .map(|(key, partial)| (target.to_owned(), key, partial)),
                    );
                }
            }
        }
        let mut out = Vec::new();
        for (target, key, mut partial) in orphans {
            partial.outcome = Outcome::Ignored {
                reason: format!(
                    "not checked: the run was interrupted before its redirect target {target} \
                     was checked"
                ),
            };
            // Redirects waiting on this one get the same verdict (see `finish_chain`).
            self.finish_chain(key, partial, &mut out);
        }
        out
    }

    /// Keys claimed, and of those the ones never checked: still pending (queued when the run
    /// was cancelled, refused by the shut queue, or in flight) or finished as interrupted.
    /// Read with every shard locked, so `claimed - unchecked` is exactly the URLs with a
    /// verdict.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let all = self.slots.lock_all();
        let unchecked = all
            .values()
            .filter(|s| match &s.state {
                State::Done(r) => r.is_interrupted(),
                State::Pending | State::Waiting(_) => true,
            })
            .count();
        (all.len(), unchecked)
    }
}

/// One step of [`ResultCache::upgrade_from`] at `at`, under its shard's lock. `follow`: a
/// checked redirect moves on to its content's key (otherwise it ends here).
fn upgrade_step(shard: &mut Shard<'_, Slot>, at: Id, level: usize, follow: bool) -> Step {
    match &shard.value(at).state {
        State::Waiting(target) => return Step::To(*target),
        State::Done(r) if follow => {
            if let Some(key) = r.real_url().map(cache_key).filter(|k| *k != shard.key(at)) {
                return Step::ToKey(key);
            }
        }
        _ => {}
    }
    // Read before the slot is borrowed to change: a lean result's URL may be its key.
    let can_parse = match (&shard.value(at).state, shard.value(at).parsed.get()) {
        (State::Done(r), None) => parsable(r, shard.key(at)),
        _ => false,
    };
    let slot = shard.value_mut(at);
    match (&slot.state, slot.parsed.get()) {
        (State::Done(_), None) => {
            if !can_parse {
                return Step::End(None);
            }
            slot.parsed = Level::of(level);
            return Step::End(Some(Upgrade::Parse(shard.key(at).to_owned(), level)));
        }
        (State::Done(_), Some(p)) if level < p => {
            if let Some(links) = slot.links().cloned() {
                slot.parsed = Level::of(level);
                return Step::End(Some(Upgrade::Relevel(links, level)));
            }
        }
        (State::Done(_), Some(_)) => return Step::End(None),
        _ => {}
    }
    // Pending, or parsed (or a parse job out) deeper and its links not known yet: the
    // parse still to come, or `set_links`, takes the lowest.
    slot.want = slot.want.lowered_to(level);
    Step::End(None)
}

/// `true` for a result whose content a parse would read: fetched fine, inside the crawl's
/// scope, of a type that is parsed. `key`: the slot's.
/// Called under the shard's lock for every result that settles: the URL is looked at
/// (parsed, when the result has no `real_url`) only for the one type that needs it, gzip.
fn parsable(r: &Kept, key: &str) -> bool {
    use crate::extract::format::{is_parsed, is_parsed_at};
    let content_type = r.content_type();
    r.is_ok()
        && r.internal()
        && match r.real_url() {
            Some(at) => is_parsed(at, content_type),
            None => is_parsed_at(r.url(key), content_type),
        }
}

/// The result of a redirecting URL whose chain ended in the already-checked `target`.
fn compose(mut partial: CheckResult, target: &CheckResult) -> CheckResult {
    partial.outcome = target.outcome.clone();
    partial.real_url = target
        .real_url
        .clone()
        .or_else(|| url::Url::parse(&target.url).ok());
    partial.redirects.extend(target.redirects.iter().cloned());
    partial.content_type = target.content_type.clone();
    partial.size = target.size;
    partial.modified = target.modified.clone();
    for w in &target.warnings {
        if !partial.warnings.iter().any(|p| p.tag == w.tag) {
            partial.warnings.push(w.clone());
        }
    }
    partial
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::outcome::{Hop, Warning};
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;

    fn occ(parent: &str) -> Occurrence {
        Occurrence::at_top_of(parent.into(), "x")
    }

    fn ok(url: &str) -> CheckResult {
        CheckResult::immediate(url.into(), Outcome::Ok { status: Some(200) }, 0)
    }

    fn parents(e: &mut Emission) -> Vec<String> {
        std::mem::take(&mut e.1)
            .into_occurrences()
            .into_iter()
            .map(|o| o.site.unwrap().parent.to_string())
            .collect()
    }

    #[test]
    fn placeholder_then_result() {
        let c = ResultCache::default();
        assert!(matches!(c.claim("k", occ("a")), Claim::New));
        assert!(matches!(c.claim("k", occ("b")), Claim::Pending));
        let mut done = c.finish("k", ok("k"));
        assert_eq!(done.len(), 1);
        assert_eq!(parents(&mut done[0]), ["a", "b"]);
        assert!(matches!(c.claim("k", occ("c")), Claim::Done(..)));
        assert!(
            c.finish("k", ok("again")).is_empty(),
            "the first result stays"
        );
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn only_a_quiet_done_result_is_claimed_quietly() {
        let c = ResultCache::default();
        let quiet = |c: &ResultCache, key| {
            matches!(
                c.claim_at(key, || occ("p"), 0, true, None).0,
                Claim::Quiet(_)
            )
        };
        assert!(matches!(
            c.claim_at("good", || occ("a"), 0, true, None).0,
            Claim::New
        ));
        assert!(!quiet(&c, "good"), "pending: the occurrence is kept");
        c.finish("good", ok("good"));
        assert!(quiet(&c, "good"));
        assert!(
            matches!(
                c.claim_at("good", || occ("p"), 0, false, None).0,
                Claim::Done(..)
            ),
            "a caller that needs the result gets it"
        );
        let mut warned = ok("warned");
        warned.warnings.push(Warning {
            tag: "url-too-long",
            message: String::new(),
        });
        let broken = CheckResult::immediate(
            "broken".into(),
            Outcome::Failed {
                kind: FailKind::InvalidUrl,
                message: String::new(),
            },
            0,
        );
        for (key, result) in [("warned", warned), ("broken", broken)] {
            c.claim(key, occ("a"));
            c.finish(key, result);
            assert!(!quiet(&c, key), "{key} makes a row");
        }
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
        assert_eq!(c.finish("0", ok("0"))[0].1.len(), 8, "every referrer kept");
    }

    /// Claims from many threads across every shard: the cap holds exactly.
    #[test]
    fn concurrent_claims_of_new_keys_stop_at_the_cap() {
        for threads in [1, 8] {
            let c = Arc::new(ResultCache::with_cap(Some(1_000)));
            let barrier = Arc::new(Barrier::new(threads));
            let hs: Vec<_> = (0..threads)
                .map(|t| {
                    let (c, barrier) = (c.clone(), barrier.clone());
                    thread::spawn(move || {
                        barrier.wait();
                        (0..4_000)
                            .skip(t)
                            .step_by(threads)
                            .filter(|k| {
                                matches!(c.claim(&format!("http://t/{k}"), occ("p")), Claim::New)
                            })
                            .count()
                    })
                })
                .collect();
            let won: usize = hs.into_iter().map(|h| h.join().unwrap()).sum();
            assert_eq!((won, c.len()), (1_000, 1_000), "{threads} threads");
            assert_eq!(c.counts(), (1_000, 1_000));
        }
    }

    /// Two redirects deferred on each other at the same moment, and a redirect deferred on a
    /// target finishing at that moment: every key ends done and is reported once, whichever
    /// thread gets there first.
    #[test]
    fn waits_begun_at_the_same_moment_never_leave_a_key_waiting() {
        for round in 0..500 {
            let c = Arc::new(ResultCache::default());
            for key in ["http://a/", "http://b/", "http://t/"] {
                c.claim(key, occ("p"));
            }
            let barrier = Arc::new(Barrier::new(3));
            let run = |f: fn(&ResultCache) -> Vec<Emission>| {
                let (c, barrier) = (c.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    f(&c).len()
                })
            };
            let hs = [
                run(|c| c.defer("http://a/", redirecting("http://a/", "b"), "http://b/")),
                run(|c| c.defer("http://b/", redirecting("http://b/", "a"), "http://a/")),
                run(|c| c.finish("http://t/", ok("http://t/"))),
            ];
            let reported: usize = hs.into_iter().map(|h| h.join().unwrap()).sum();
            assert_eq!(reported, 3, "round {round}");
            assert_eq!(c.counts(), (3, 0), "round {round}");

            let c = Arc::new(ResultCache::default());
            c.claim("http://t/", occ("p"));
            c.claim("http://old/", occ("p"));
            let (c1, c2) = (c.clone(), c.clone());
            let barrier = Arc::new(Barrier::new(2));
            let b2 = barrier.clone();
            let defer = thread::spawn(move || {
                barrier.wait();
                c1.defer("http://old/", redirecting("http://old/", "t"), "http://t/")
                    .len()
            });
            let finish = thread::spawn(move || {
                b2.wait();
                c2.finish("http://t/", ok("http://t/")).len()
            });
            let reported = defer.join().unwrap() + finish.join().unwrap();
            assert_eq!(reported, 2, "round {round}");
            assert_eq!(c.counts(), (2, 0), "round {round}");
        }
    }

    fn redirecting(url: &str, to: &str) -> CheckResult {
        let mut r = ok(url);
        r.redirects.push(Hop {
            url: url::Url::parse(url).unwrap(),
            status: 301,
        });
        r.warnings.push(Warning {
            tag: "http-redirected",
            message: format!("to {to}"),
        });
        r
    }

    #[test]
    fn a_redirect_into_a_pending_url_waits_for_its_verdict() {
        let c = ResultCache::default();
        c.claim("http://t/target", occ("p1"));
        c.claim("http://t/old", occ("p2"));
        assert!(
            c.defer(
                "http://t/old",
                redirecting("http://t/old", "target"),
                "http://t/target"
            )
            .is_empty()
        );
        assert!(matches!(c.claim("http://t/old", occ("p3")), Claim::Pending));
        let gone =
            CheckResult::immediate("http://t/target".into(), Outcome::Broken { status: 404 }, 1);
        let out = c.finish("http://t/target", gone);
        assert_eq!(out.len(), 2);
        let mut out = out;
        let old = out.iter_mut().find(|e| e.0.url == "http://t/old").unwrap();
        assert_eq!(old.0.outcome, Outcome::Broken { status: 404 });
        assert_eq!(old.0.redirects.len(), 1);
        assert_eq!(old.0.real_url.as_ref().unwrap().as_str(), "http://t/target");
        assert_eq!(parents(old), ["p2", "p3"]);
    }

    #[test]
    fn a_redirect_into_a_done_url_finishes_at_once() {
        let c = ResultCache::default();
        c.claim("http://t/target", occ("p1"));
        c.finish("http://t/target", ok("http://t/target"));
        c.claim("http://t/old", occ("p2"));
        let out = c.defer(
            "http://t/old",
            redirecting("http://t/old", "target"),
            "http://t/target",
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0.outcome, Outcome::Ok { status: Some(200) });
    }

    #[test]
    fn after_a_cancel_redirects_waiting_on_unchecked_targets_are_reported() {
        let c = ResultCache::default();
        c.claim("http://t/target", occ("p1"));
        c.claim("http://t/old", occ("p2"));
        c.claim("http://t/older", occ("p3"));
        c.defer(
            "http://t/old",
            redirecting("http://t/old", "target"),
            "http://t/target",
        );
        c.defer(
            "http://t/older",
            redirecting("http://t/older", "old"),
            "http://t/old",
        );
        assert_eq!(c.counts(), (3, 3), "nothing has a verdict yet");
        let out = c.abandon_waiting();
        assert_eq!(out.len(), 2, "old, and older through it");
        for (r, occurrences) in &out {
            assert!(r.outcome.is_ignored(), "{:?}", r.outcome);
            assert_eq!(occurrences.len(), 1);
        }
        assert_eq!(c.counts(), (3, 1), "only the target is unchecked");
        assert!(c.abandon_waiting().is_empty(), "once");
    }

    fn html(url: &str) -> CheckResult {
        let mut r = ok(url);
        r.internal = true;
        r.content_type = Some("text/html".into());
        r
    }

    /// A later claim that wants a parse: taken by the pending task, or made a parse job once
    /// (never twice) when the key was checked without a parse; the lowest level wins.
    #[test]
    fn a_claim_tells_when_an_upgrade_at_its_level_would_change_nothing() {
        let c = ResultCache::default();
        let covered = |level| c.claim_at("http://t/p", || occ("p"), level, false, None).1;
        assert!(!covered(0), "new");
        assert!(!covered(5), "pending, nothing wanted or parsed");
        assert_eq!(c.upgrade("http://t/p", 3), None);
        assert!(covered(3) && covered(4), "wanted at 3");
        assert!(!covered(2), "a lower level still upgrades");
        assert_eq!(c.take_parse(&["http://t/p"], Some(1)), Some(1));
        c.finish("http://t/p", html("http://t/p"));
        assert!(covered(1) && covered(7), "parsed at 1");
        assert!(!covered(0));
        // done without a parse: not covered, and the upgrade hands out the job
        c.claim("http://t/d", occ("p"));
        c.finish("http://t/d", html("http://t/d"));
        assert!(!c.claim_at("http://t/d", || occ("q"), 2, false, None).1);
        assert!(matches!(
            c.upgrade("http://t/d", 2),
            Some(Upgrade::Parse(..))
        ));
        assert!(
            c.claim_at("http://t/d", || occ("r"), 2, false, None).1,
            "the job covers it"
        );
        // done and never to be parsed (an image, a broken page): covered at every level
        c.claim("http://t/i.png", occ("p"));
        c.finish("http://t/i.png", ok("http://t/i.png"));
        assert!(c.claim_at("http://t/i.png", || occ("q"), 0, false, None).1);
        assert_eq!(
            c.upgrade("http://t/i.png", 0),
            None,
            "as an upgrade would say"
        );
        // ... but a redirect to another key is not: its target may still be parsed
        c.claim("http://t/r", occ("p"));
        let mut moved = redirecting("http://t/r", "target");
        moved.real_url = Some(url::Url::parse("http://t/target").unwrap());
        c.finish("http://t/r", moved);
        assert!(!c.claim_at("http://t/r", || occ("q"), 0, false, None).1);
    }

    #[test]
    fn a_later_claim_upgrades_a_page_to_parse_once() {
        let c = ResultCache::default();
        // queued without a parse, then wanted at level 3 and 2: the task parses at 2
        c.claim("http://t/q", occ("p1"));
        assert!(!c.wants_parse("http://t/q"));
        assert_eq!(c.upgrade("http://t/q", 3), None);
        assert_eq!(c.upgrade("http://t/q", 2), None);
        assert!(c.wants_parse("http://t/q"));
        assert_eq!(c.take_parse(&["http://t/q"], None), Some(2));
        c.finish("http://t/q", html("http://t/q"));
        assert_eq!(c.serve_want("http://t/q"), None, "served by the task");
        assert_eq!(
            c.upgrade("http://t/q", 2),
            None,
            "parsed already at that level"
        );

        // checked with HEAD, wanted while in flight: a job once the task finished
        c.claim("http://t/h", occ("p1"));
        assert_eq!(c.upgrade("http://t/h", 2), None);
        c.finish("http://t/h", html("http://t/h"));
        assert_eq!(
            c.serve_want("http://t/h"),
            Some(Upgrade::Parse("http://t/h".into(), 2))
        );
        assert_eq!(c.upgrade("http://t/h", 2), None, "one job only");
        // a lower level before the job ran: the job's parse takes it
        assert_eq!(c.upgrade("http://t/h", 1), None);
        assert_eq!(c.take_parse(&["http://t/h"], Some(2)), Some(1));

        // done without a parse: the first upgrade gets the job, later ones do not
        c.claim("http://t/d", occ("p1"));
        c.finish("http://t/d", html("http://t/d"));
        assert_eq!(
            c.upgrade("http://t/d", 4),
            Some(Upgrade::Parse("http://t/d".into(), 4))
        );
        assert_eq!(c.upgrade("http://t/d", 4), None);

        // nothing to parse: broken, not HTML, or outside the scope
        c.claim("http://t/x", occ("p1"));
        c.finish(
            "http://t/x",
            CheckResult::immediate("http://t/x".into(), Outcome::Broken { status: 404 }, 1),
        );
        assert_eq!(c.upgrade("http://t/x", 1), None);
        c.claim("http://t/img", occ("p1"));
        let mut img = html("http://t/img");
        img.content_type = Some("image/png".into());
        c.finish("http://t/img", img);
        assert_eq!(c.upgrade("http://t/img", 1), None);
    }

    /// A page parsed deeper than a later claim hands back its links, once per lower level; a
    /// lower level that comes while a parse job runs is handed back when its links are set.
    #[test]
    fn a_page_parsed_deeper_hands_back_its_links() {
        let c = ResultCache::default();
        let link = Url::parse("http://t/child").unwrap();
        c.claim("http://t/p", occ("p1"));
        assert_eq!(c.take_parse(&["http://t/p"], Some(3)), Some(3));
        assert_eq!(
            c.upgrade("http://t/p", 2),
            None,
            "pending: after the finish"
        );
        assert!(c.set_links(&["http://t/p"], vec![link.clone()]).is_empty());
        c.finish("http://t/p", html("http://t/p"));
        let Some(Upgrade::Relevel(links, 2)) = c.serve_want("http://t/p") else {
            panic!("expected the links at level 2");
        };
        assert_eq!(&*links, std::slice::from_ref(&link));
        assert_eq!(c.upgrade("http://t/p", 2), None, "once per level");
        assert!(matches!(
            c.upgrade("http://t/p", 1),
            Some(Upgrade::Relevel(_, 1))
        ));

        // a parse job at level 4; level 2 wanted while it runs
        c.claim("http://t/j", occ("p1"));
        c.finish("http://t/j", html("http://t/j"));
        assert!(matches!(
            c.upgrade("http://t/j", 4),
            Some(Upgrade::Parse(_, 4))
        ));
        assert_eq!(c.take_parse(&["http://t/j"], Some(4)), Some(4));
        assert_eq!(c.upgrade("http://t/j", 2), None, "links not known yet");
        let out = c.set_links(&["http://t/j"], vec![link]);
        assert!(matches!(out[..], [Upgrade::Relevel(_, 2)]), "{out:?}");
    }

    /// A redirect passes the upgrade on to the URL whose content it is.
    #[test]
    fn an_upgrade_of_a_redirect_goes_to_its_target() {
        let c = ResultCache::default();
        c.claim("http://t/target", occ("p1"));
        c.claim("http://t/old", occ("p2"));
        c.defer(
            "http://t/old",
            redirecting("http://t/old", "target"),
            "http://t/target",
        );
        // waiting: the pending target's task takes it
        assert_eq!(c.upgrade("http://t/old", 2), None);
        assert!(c.wants_parse("http://t/target"));
        // target checked without a parse: the job is the target's
        c.finish("http://t/target", html("http://t/target"));
        assert_eq!(
            c.serve_want("http://t/target"),
            Some(Upgrade::Parse("http://t/target".into(), 2))
        );
        assert_eq!(c.upgrade("http://t/old", 1), None, "one job only");
    }

    #[test]
    fn waiting_in_a_cycle_is_a_redirect_loop() {
        let c = ResultCache::default();
        c.claim("a", occ("p"));
        c.claim("b", occ("p"));
        assert!(c.defer("a", redirecting("http://t/a", "b"), "b").is_empty());
        let out = c.defer("b", redirecting("http://t/b", "a"), "a");
        // b loops back to a: b fails as a loop, and a (waiting on b) gets b's verdict
        assert_eq!(out.len(), 2);
        for (r, _) in &out {
            assert!(
                matches!(
                    r.outcome,
                    Outcome::Failed {
                        kind: FailKind::RedirectLoop,
                        ..
                    }
                ),
                "{r:?}"
            );
        }
    }
}
