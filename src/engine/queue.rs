//! The joinable work queue, host-aware: URLs to check, grouped in one ready queue (lane) per
//! host, plus the count of tasks that are queued or in progress.
//!
//! [`HostLaneQueue::get`] hands out a task only when its host may start a request: its slot is due
//! (politeness interval, pauses after a 429/503, `Crawl-delay`) and the host is under its
//! in-flight cap. Otherwise the worker waits on the condvar only until the earliest time a
//! lane becomes due, or until a put, a freed slot or a finished task wakes it — never for one
//! host while another host's task is ready. The slot of the task's first request is reserved
//! in the same step (see `policy::host_gate` for how that request uses it and for later
//! requests).
//! Items put without a host (files, in-memory documents) go first, in FIFO order.
//!
//! # Who changes what
//! One lock ([`HostLaneQueue::state`]) guards everything below; it is never held while sleeping or
//! fetching (a gate sleep releases it with `MutexGuard::unlocked`). This is the invariant that
//! keeps one host from stalling the others: every host shares this lock, so whoever holds it
//! only does bookkeeping. A host given up (`policy::host_table`, "Dead hosts") changes only
//! bookkeeping too: its lane becomes due at once, its tasks are handed out with no slot, and
//! `acquire_slot` refuses their requests ([`Grant::Down`]) before reserving or sleeping (a
//! sleeper that was already waiting for a slot of that host gives its slot back when it wakes).
//! - `local`, `lanes`, `queued`: raised by `put`, lowered by `get` and by `shutdown`.
//! - `timeline`: rewritten by `State::schedule` for one host after every change to that
//!   host's lane or politeness state (put into an empty lane, get, a slot reserved, confirmed,
//!   released or given back, a task finished, a pause, a `Crawl-delay`).
//! - `hosts`: slots and caps, changed by `get` (reserve), the gate (`acquire`, `release`,
//!   `update`) and `task_done` (give back an unused slot, count the host's finished task).
//! - `assigned`: set by `get` for the calling thread, emptied of its slot by that thread's
//!   first request to the host, removed by that thread's `task_done` (or its next `get`).
//! - `unfinished_tasks`: raised by `put`, lowered by `task_done` and `shutdown`.
//! - `wake`: set by `schedule` when a lane became the earliest; whoever changed the host
//!   then wakes one getter, since getters wait only until the earliest due time they saw.
//!
//! # Spilled tasks
//!
//! With a memory share (`spilling`), the items of a lane past the share wait on disk
//! (`queue_spill`); `queued` and `unfinished_tasks` count them all the time, so join, abort
//! and the termination invariant below do not change. The one exception to "bookkeeping only"
//! under the lock: writing the outboxes as one batch (every 256 KiB of spilled items) and
//! reading a lane's next 64 items back. Both are SQLite calls on a private file, with no
//! fsync (the file dies with the run), measured in `benches/RESULTS.md`.
//!
//! # Termination invariant
//!
//! `unfinished_tasks` counts every item that was `put` and has not yet been marked with
//! [`HostLaneQueue::task_done`] — wherever it waits (a lane that is not due, a host at its cap) or
//! whatever it does (asleep for a redirect's slot). A worker calls `task_done` for an item only
//! **after** it has put every child that item produced (including the parse jobs its links
//! or its result triggered, see `cache`). So while any item is in progress the
//! count is at least 1, and it reaches 0 only when no item is queued and none is being worked
//! on — at which point no new work can appear. Scheduling never drops or duplicates an item:
//! every item put is in exactly one lane (or `local`) until one `get` takes it out.
//! [`HostLaneQueue::join`] waits for exactly that moment.
//!
//! No item is stranded either: a lane is off the timeline only while its host is at its cap or
//! its first task runs, and every slot held and every first task belongs to a running task or
//! request, which ends (a permit drops; `task_done` gives back an unused slot) and reschedules
//! the lane. A lane that is on the timeline is due at a finite instant.
//!
//! # Deferred tasks
//!
//! A worker never sleeps long for one host. When the first request of a task's URL would have
//! to wait for its host's slot — the page after the host's robots.txt under a `Crawl-delay`,
//! or the retry after a 429/503 pause — the gate gives the slot back
//! (`Politeness::acquire` with `defer`) and the worker puts the task back in its host's lane
//! (`Run::work`), with what the try learned (`Task::resume`: retries spent, warnings). The
//! lane is scheduled by the host's slots, so `get` hands the task out again when the host is
//! due, and meanwhile the worker takes other hosts' work. The invariant above holds: the
//! worker puts the task back **before** the `task_done` of its first try, so
//! `unfinished_tasks` counts the deferred task all the time it waits and never reaches 0
//! while one does; `join(timeout)` therefore waits for it, and `shutdown` discards it like
//! any queued item (a put after shutdown is refused: the URL stays pending, unchecked). A
//! task is deferred only before its URL's first request and at its host's pauses, with its
//! retries carried over, so it cannot be handed back forever. Other waits — a redirect hop,
//! the GET after a refused HEAD, a robots.txt retry, a backoff after a broken connection —
//! still sleep in the worker: they are short or rare, and repeating them would redo work.
//!
//! # Shutdown
//!
//! [`HostLaneQueue::shutdown`] (abort, Ctrl-C) clears the queued items, lowers `unfinished_tasks` by
//! their number, wakes every waiter, and makes every later `put` a refused no-op. Refusal is
//! decided under the same lock as the flag, so no `put` can slip in after shutdown. Items in
//! progress still end with their `task_done`, so `join` then waits only for work in flight.
//!
//! The queue is unbounded on purpose: workers are also producers, and a bounded frontier
//! would deadlock when every worker blocks putting children into a full queue.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::fmt;
use std::sync::Arc;
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use foldhash::fast::RandomState;
use parking_lot::{Condvar, Mutex, MutexGuard};

use super::memory::MemoryBudget;
use super::queue_spill::{Overflow, Spill, SpillCodec};
use crate::config::host_rules::HostRules;
use crate::model::cancel::CancelHandle;
use crate::model::host_stats::HostStats;
use crate::policy::host_gate::{Grant, Politeness};
use crate::policy::host_table::{HostTable, Slot};

/// How often a request waiting for a host's in-flight cap looks at the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(100);

/// One host's queued items.
#[derive(Debug)]
struct Lane<T> {
    /// Items in put order, each with the instant it was put.
    items: VecDeque<(T, Instant)>,
    /// This lane's key in `State::timeline`, when it is there.
    entry: Option<(Instant, u64)>,
    /// Its tasks after `items`, on disk or in the outbox (see `queue_spill`).
    over: Overflow,
}

/// A task handed out for a host: the host, and the slot reserved for the task's first request
/// until that request takes it.
#[derive(Debug)]
struct Assignment {
    host: String,
    slot: Option<Slot>,
}

/// The fields guarded by [`HostLaneQueue::state`] (see the module docs for who changes each).
#[derive(Debug)]
struct State<T> {
    /// Items without a host, FIFO.
    local: VecDeque<T>,
    /// The items without a host after `local`, on disk or in the outbox.
    local_over: Overflow,
    /// Writes items past `share` to disk; `None` when the queue never spills.
    spill: Option<Spill<T>>,
    /// Bytes of items kept in memory (`items` of every lane, `local`) before a lane spills.
    share: usize,
    /// Bytes of the items in memory (not the spill's outbox), as the codec counts them.
    mem_bytes: usize,
    /// Where `mem_bytes` is published for the run's memory budget.
    budget: Option<Arc<MemoryBudget>>,
    /// Host key → its items. A lane is removed when it runs empty. foldhash, seeded per map,
    /// as in `HostTable`.
    lanes: HashMap<String, Lane<T>, RandomState>,
    /// (when its next task may start, tie-break sequence, host) for every non-empty lane whose
    /// host has room: the earliest first.
    timeline: BTreeSet<(Instant, u64, String)>,
    /// Source of tie-break sequence numbers: lanes due at the same instant go in the order
    /// they were scheduled.
    seq: u64,
    /// Items in `local` and `lanes`, in memory or spilled.
    queued: usize,
    /// Items put and not yet `task_done`: queued plus in progress.
    unfinished_tasks: usize,
    /// Set once by `shutdown` or `close`; never cleared. When set, `put` refuses items.
    shut: bool,
    /// Set once by `close` or `shutdown`; `get` returns `None` once the queue is empty.
    closed: bool,
    /// Politeness state of every host.
    hosts: HostTable,
    /// Worker thread → the task it is working on, when that task has a host.
    assigned: HashMap<ThreadId, Assignment>,
    /// Set by `schedule` when a lane became the timeline's first: a getter waiting for a later
    /// instant (or for nothing) must look again. Cleared by whoever wakes it.
    wake: bool,
}

impl<T> State<T> {
    /// Puts `host`'s lane on the timeline at the instant its next task may start, or leaves it
    /// off (empty, at its cap, or its first task still running).
    fn schedule(&mut self, host: &str, now: Instant) {
        let Some(lane) = self.lanes.get_mut(host) else {
            return;
        };
        if let Some((at, seq)) = lane.entry.take() {
            self.timeline.remove(&(at, seq, host.to_owned()));
        }
        if lane.items.is_empty() {
            // A lane refills as its last item in memory is taken: it has none elsewhere.
            debug_assert_eq!(lane.over.len(), 0, "a lane with spilled items ran empty");
            self.lanes.remove(host);
            return;
        }
        if let Some(at) = self.hosts.task_start(host, now) {
            self.seq += 1;
            lane.entry = Some((at, self.seq));
            let key = (at, self.seq, host.to_owned());
            self.wake |= self.timeline.first().is_none_or(|first| key < *first);
            self.timeline.insert(key);
        }
    }

    /// Adds an item (with `host`, or to `local`). A lane that has items elsewhere, or whose
    /// item would take the queue's memory past its share while the lane has one in memory,
    /// writes it to its overflow instead (see `queue_spill`).
    fn push(&mut self, host: Option<String>, item: T, now: impl FnOnce() -> Instant) {
        let size = self.spill.as_ref().map_or(0, |s| s.size(&item));
        let over_share = self.mem_bytes + size > self.share;
        let mut flush = false;
        match host {
            None => {
                let spilled = match self.spill.as_mut() {
                    Some(spill)
                        if !self.local.is_empty() && (over_share || self.local_over.len() > 0) =>
                    {
                        let at = spill.base();
                        spill.push(&mut self.local_over, item, at)
                    }
                    _ => Err(item),
                };
                match spilled {
                    Ok(full) => flush = full,
                    Err(item) => {
                        self.local.push_back(item);
                        self.mem_bytes += size;
                    }
                }
            }
            Some(host) => {
                let now = now();
                let lane = match self.lanes.get_mut(&host) {
                    Some(lane) => lane,
                    None => {
                        let id = self.spill.as_mut().map_or(0, Spill::lane_id);
                        let over = Overflow {
                            id,
                            ..Overflow::default()
                        };
                        let lane = Lane {
                            items: VecDeque::new(),
                            entry: None,
                            over,
                        };
                        self.lanes.entry(host.clone()).or_insert(lane)
                    }
                };
                let spilled = match self.spill.as_mut() {
                    Some(spill)
                        if !lane.items.is_empty() && (over_share || lane.over.len() > 0) =>
                    {
                        spill.push(&mut lane.over, item, now)
                    }
                    _ => Err(item),
                };
                match spilled {
                    Ok(full) => flush = full,
                    Err(item) => {
                        lane.items.push_back((item, now));
                        self.mem_bytes += size;
                        if lane.items.len() == 1 {
                            self.schedule(&host, now);
                        }
                    }
                }
            }
        }
        if flush {
            self.flush();
        }
        self.queued += 1;
        self.unfinished_tasks += 1;
        self.publish();
    }

    /// Writes every lane's outbox to disk as one batch.
    fn flush(&mut self) {
        if let Some(spill) = self.spill.as_mut() {
            let lanes = self.lanes.values_mut().map(|l| &mut l.over);
            spill.flush(lanes.chain(std::iter::once(&mut self.local_over)));
        }
    }

    /// Tells the run's budget what the queue holds in memory.
    fn publish(&self) {
        if let Some(budget) = &self.budget {
            let outbox = self.spill.as_ref().map_or(0, |s| s.outbox_bytes);
            budget.set_queue(self.mem_bytes + outbox);
        }
    }

    /// Counts an item taken out of memory, and takes the items that could not be read back
    /// from the counts (they were lost with the spill file; see `Spill::lost`).
    fn taken(&mut self, size: usize, lost_before: usize) {
        self.queued -= 1;
        self.mem_bytes -= size;
        let lost = self.spill.as_ref().map_or(0, |s| s.lost) - lost_before;
        self.queued -= lost;
        self.unfinished_tasks -= lost;
        self.publish();
    }

    /// The next item without a host, refilling `local` from its overflow when it runs empty.
    fn pop_local(&mut self) -> Option<T> {
        let item = self.local.pop_front()?;
        let (mut size, mut lost) = (0, 0);
        if let Some(spill) = self.spill.as_mut() {
            size = spill.size(&item);
            lost = spill.lost;
            if self.local.is_empty() && self.local_over.len() > 0 {
                let back = spill.refill(&mut self.local_over, &mut self.mem_bytes);
                self.local.extend(back.into_iter().map(|(item, _)| item));
            }
        }
        self.taken(size, lost);
        Some(item)
    }

    /// One scheduling decision at `now`: the next item that may start (a host-less one, else
    /// the one of the lane due earliest), with the slot reserved for its first request; or
    /// when to look again (`None`: only after a put or a freed slot).
    fn take(&mut self, now: Instant) -> Result<(T, Option<Assignment>), Option<Instant>> {
        if let Some(item) = self.pop_local() {
            return Ok((item, None));
        }
        loop {
            let Some((at, _, host)) = self.timeline.first().cloned() else {
                return Err(None);
            };
            if at > now {
                return Err(Some(at));
            }
            let fresh = self.hosts.task_start(&host, now) == Some(at);
            // Every change to a host reschedules its lane, so entries are never stale; should
            // one be, it is rescheduled rather than misfire.
            debug_assert!(fresh, "stale timeline entry for {host}");
            if !fresh {
                self.schedule(&host, now);
                continue;
            }
            let lane = self.lanes.get_mut(&host).expect("a scheduled lane exists");
            let (item, put_at) = lane.items.pop_front().expect("a scheduled lane has items");
            let (mut size, mut lost) = (0, 0);
            if let Some(spill) = self.spill.as_mut() {
                size = spill.size(&item);
                lost = spill.lost;
                if lane.items.is_empty() && lane.over.len() > 0 {
                    lane.items
                        .extend(spill.refill(&mut lane.over, &mut self.mem_bytes));
                }
            }
            self.taken(size, lost);
            // A host given up gets no slot: its task fails without a request.
            let slot =
                (self.hosts.down(&host).is_none()).then(|| self.hosts.reserve(&host, now, put_at));
            self.hosts.task_started(&host, now);
            self.schedule(&host, now);
            let assignment = Assignment { host, slot };
            return Ok((item, Some(assignment)));
        }
    }

    /// `true` when `take(now)` would hand out an item.
    fn ready(&self, now: Instant) -> bool {
        !self.local.is_empty() || self.timeline.first().is_some_and(|(at, ..)| *at <= now)
    }

    /// Ends a task's assignment: gives back its slot if no request used it, and lets the
    /// host's next task start.
    fn finish(&mut self, a: Assignment, now: Instant) {
        if let Some(slot) = a.slot {
            self.hosts.give_back(&a.host, slot, now);
        }
        self.hosts.task_finished(&a.host, now);
        self.schedule(&a.host, now);
    }
}

/// Removes the calling thread's assignment. The empty check keeps host-less queues (and the
/// queue bench) off the thread-id lookup.
fn take_assignment(assigned: &mut HashMap<ThreadId, Assignment>) -> Option<Assignment> {
    if assigned.is_empty() {
        None
    } else {
        assigned.remove(&thread::current().id())
    }
}

/// An unbounded, joinable, host-aware queue shared by the worker threads.
#[derive(Debug)]
pub(crate) struct HostLaneQueue<T> {
    /// One lock for the items, the host table, the task count and the flags.
    state: Mutex<State<T>>,
    /// Wakes `get`: an item was put, a slot freed, a task finished, or the queue closed. A
    /// getter that takes an item while more are ready wakes the next one.
    ready: Condvar,
    /// Signalled when `unfinished_tasks` reaches 0 or the queue shuts down (wakes `join`).
    all_done: Condvar,
    /// Signalled when a host's slot is freed (wakes requests waiting for its cap).
    room: Condvar,
    /// Wakes gate sleeps early when the run is cancelled.
    cancel: CancelHandle,
}

impl<T> Default for HostLaneQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> HostLaneQueue<T> {
    /// An empty, open queue without politeness limits.
    pub(crate) fn new() -> Self {
        let hosts = HostTable::new(0.0, 0, HostRules::default(), false);
        Self::with_hosts(hosts, CancelHandle::new())
    }

    /// An empty, open queue scheduling by `hosts`; `cancel` wakes its gate sleeps.
    pub(crate) fn with_hosts(hosts: HostTable, cancel: CancelHandle) -> Self {
        HostLaneQueue {
            state: Mutex::new(State {
                local: VecDeque::new(),
                local_over: Overflow::default(),
                spill: None,
                share: usize::MAX,
                mem_bytes: 0,
                budget: None,
                lanes: HashMap::default(),
                timeline: BTreeSet::new(),
                seq: 0,
                queued: 0,
                unfinished_tasks: 0,
                shut: false,
                closed: false,
                hosts,
                assigned: HashMap::new(),
                wake: false,
            }),
            ready: Condvar::new(),
            all_done: Condvar::new(),
            room: Condvar::new(),
            cancel,
        }
    }

    /// Keeps at most `budget`'s queue share of items in memory, and writes the rest of each
    /// lane to disk through `codec` (see `queue_spill`). Without a share nothing spills.
    pub(crate) fn spilling(self, codec: SpillCodec<T>, budget: Arc<MemoryBudget>) -> Self {
        {
            let mut st = self.state.lock();
            if let Some(share) = budget.queue_share() {
                st.share = share;
                st.spill = Some(Spill::new(codec));
            }
            st.budget = Some(budget);
        }
        self
    }

    /// Items written to disk over the run, items lost reading them back, and the spill
    /// file's first error.
    pub(crate) fn spill_report(&self) -> (usize, usize, Option<String>) {
        let st = self.state.lock();
        st.spill
            .as_ref()
            .map_or((0, 0, None), |s| (s.spilled, s.lost, s.error.clone()))
    }

    /// Adds an item without a host and counts it as unfinished. Returns `false`, dropping the
    /// item, after [`shutdown`](Self::shutdown).
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn put(&self, item: T) -> bool {
        self.put_for(None, item)
    }

    /// Adds an item whose first request goes to `host` (`None`: no request), counted as
    /// unfinished. Returns `false`, dropping the item, after [`shutdown`](Self::shutdown).
    pub(crate) fn put_for(&self, host: Option<String>, item: T) -> bool {
        let mut st = self.state.lock();
        if st.shut {
            return false;
        }
        st.push(host, item, Instant::now);
        st.wake = false;
        drop(st);
        self.ready.notify_one();
        true
    }

    /// Takes the next item whose host may start a request, blocking until there is one.
    /// Returns `None` once the queue is closed (or shut down) and empty: the worker should then
    /// exit. The calling thread must call `task_done` for it before its next `get`.
    pub(crate) fn get(&self) -> Option<T> {
        let mut st = self.state.lock();
        if let Some(a) = take_assignment(&mut st.assigned) {
            // The previous task of this thread was not marked done here: end its assignment.
            st.finish(a, Instant::now());
        }
        loop {
            if let Some(item) = st.pop_local() {
                // Host-less items go first, without reading the clock.
                return Some(item);
            }
            let now = Instant::now();
            match st.take(now) {
                Ok((item, assignment)) => {
                    if let Some(a) = assignment {
                        st.assigned.insert(thread::current().id(), a);
                    }
                    let more = std::mem::take(&mut st.wake) | st.ready(now);
                    drop(st);
                    if more {
                        self.ready.notify_one();
                    }
                    return Some(item);
                }
                Err(_) if st.closed && st.queued == 0 => return None,
                Err(Some(at)) => {
                    self.ready.wait_until(&mut st, at);
                }
                Err(None) => self.ready.wait(&mut st),
            }
        }
    }

    /// Marks one item taken with `get` as finished. Call it only after every child of the item
    /// was put (see the module docs), on the thread that took it.
    pub(crate) fn task_done(&self) {
        let mut st = self.state.lock();
        // The caller has put all its children already, so reaching 0 here means the crawl is over.
        st.unfinished_tasks = st
            .unfinished_tasks
            .checked_sub(1)
            .expect("task_done called more often than put");
        let assignment = take_assignment(&mut st.assigned);
        let host_freed = assignment.is_some();
        if let Some(a) = assignment {
            st.finish(a, Instant::now());
        }
        let idle = st.unfinished_tasks == 0;
        st.wake = false;
        drop(st);
        if idle {
            self.all_done.notify_all();
        }
        if host_freed {
            self.freed();
        }
    }

    /// Waits until every put item is done. Returns `true` when the count reached 0, `false`
    /// when `timeout` passed first. `None` waits without limit.
    pub(crate) fn join(&self, timeout: Option<Duration>) -> bool {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = self.state.lock();
        while st.unfinished_tasks > 0 {
            match deadline {
                Some(d) => {
                    if self.all_done.wait_until(&mut st, d).timed_out() {
                        return st.unfinished_tasks == 0;
                    }
                }
                None => self.all_done.wait(&mut st),
            }
        }
        true
    }

    /// Waits until every put item is done or the queue was shut down, whichever comes first,
    /// or until `deadline`. Returns `true` when the deadline came first.
    pub(crate) fn wait_idle_or_shutdown(&self, deadline: Option<Instant>) -> bool {
        let mut st = self.state.lock();
        while st.unfinished_tasks > 0 && !st.shut {
            match deadline {
                Some(d) => {
                    if self.all_done.wait_until(&mut st, d).timed_out() {
                        return st.unfinished_tasks > 0 && !st.shut;
                    }
                }
                None => self.all_done.wait(&mut st),
            }
        }
        false
    }

    /// Stops the queue: discards queued items (returned to the caller so they can be counted),
    /// refuses later puts, and wakes every waiter. Idempotent.
    pub(crate) fn shutdown(&self) -> Vec<T> {
        let mut st = self.state.lock();
        let mut dropped: Vec<T> = st.local.drain(..).collect();
        let mut spilled = std::mem::take(&mut st.local_over).len();
        for (_, lane) in st.lanes.drain() {
            spilled += lane.over.len();
            dropped.extend(lane.items.into_iter().map(|(item, _)| item));
        }
        if let Some(spill) = st.spill.as_mut() {
            spill.clear();
        }
        st.mem_bytes = 0;
        st.publish();
        st.timeline.clear();
        st.queued = 0;
        st.unfinished_tasks -= dropped.len() + spilled;
        st.shut = true;
        st.closed = true;
        drop(st);
        self.ready.notify_all();
        self.all_done.notify_all();
        self.room.notify_all();
        dropped
    }

    /// Lets idle workers exit: once empty, `get` returns `None`. Used after `join` succeeded.
    pub(crate) fn close(&self) {
        let mut st = self.state.lock();
        st.closed = true;
        st.shut = true;
        drop(st);
        self.ready.notify_all();
    }

    /// Items waiting and items put but not yet done, read together.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let st = self.state.lock();
        (st.queued, st.unfinished_tasks)
    }

    /// Number of items put and not yet done.
    pub(crate) fn unfinished(&self) -> usize {
        self.state.lock().unfinished_tasks
    }

    /// Wakes a getter when `schedule` made a lane the timeline's first (see `State::wake`).
    fn wake_getter(&self, st: &mut MutexGuard<'_, State<T>>) {
        if std::mem::take(&mut st.wake) {
            self.ready.notify_one();
        }
    }

    /// Wakes whoever may use a freed slot.
    fn freed(&self) {
        self.room.notify_all();
        self.ready.notify_one();
    }
}

/// The gate's side of the queue: requests reserve, sleep for and free their hosts' slots under
/// the same lock that schedules the tasks.
impl<T: Send + fmt::Debug> Politeness for HostLaneQueue<T> {
    fn acquire(&self, host: &str, defer: bool) -> Grant {
        self.acquire_slot(host, defer)
    }

    fn release(&self, host: &str, answered: bool) {
        let mut st = self.state.lock();
        let now = Instant::now();
        st.hosts.release(host, answered, now);
        st.schedule(host, now);
        st.wake = false;
        drop(st);
        self.freed();
    }

    fn update(&self, host: &str, change: &mut dyn FnMut(&mut HostTable, Instant)) {
        let mut st = self.state.lock();
        let now = Instant::now();
        change(&mut st.hosts, now);
        st.schedule(host, now);
        self.wake_getter(&mut st);
    }

    fn stats(&self) -> Vec<HostStats> {
        self.state.lock().hosts.stats()
    }
}

impl<T> HostLaneQueue<T> {
    /// A request slot of `host`: [`Grant::Now`] when the request may start now (counted in
    /// flight), [`Grant::Cancelled`] when the run was cancelled (nothing held). A slot not due
    /// yet is slept for with no lock held — or, with `defer`, given back at once:
    /// [`Grant::Later`]. A host given up (before or during the wait) gets [`Grant::Down`],
    /// its slot given back.
    fn acquire_slot(&self, host: &str, defer: bool) -> Grant {
        let me = thread::current().id();
        let mut st = self.state.lock();
        // The first request of this thread's task to its host uses the slot `get` reserved.
        let mut slot = st
            .assigned
            .get_mut(&me)
            .filter(|a| a.host == host)
            .and_then(|a| a.slot.take());
        loop {
            let now = Instant::now();
            if self.cancel.is_cancelled() {
                if slot.is_some() {
                    st.hosts.release(host, false, now);
                    st.schedule(host, now);
                    st.wake = false;
                    drop(st);
                    self.freed();
                }
                return Grant::Cancelled;
            }
            if let Some(down) = st.hosts.down(host).cloned() {
                if let Some(s) = slot {
                    st.hosts.give_back(host, s, now);
                    st.schedule(host, now);
                    st.wake = false;
                    drop(st);
                    self.freed();
                }
                return Grant::Down(down);
            }
            let s = match slot {
                Some(s) => s,
                None => {
                    if !st.hosts.has_room(host, now) {
                        // New tasks of the host wait until this request got its room. The
                        // condvar releases the lock while waiting; woken by a freed slot. The
                        // timeout only bounds how late a cancel is noticed here.
                        st.hosts.waiting(host, now, true);
                        st.schedule(host, now);
                        self.room.wait_for(&mut st, CANCEL_POLL);
                        let now = Instant::now();
                        st.hosts.waiting(host, now, false);
                        st.schedule(host, now);
                        self.wake_getter(&mut st);
                        continue;
                    }
                    let s = st.hosts.reserve(host, now, now);
                    st.schedule(host, now);
                    slot = Some(s);
                    s
                }
            };
            if s.due <= now {
                match st.hosts.confirm(host, s, now) {
                    Ok(()) => {
                        self.wake_getter(&mut st);
                        return Grant::Now;
                    }
                    Err(later) => {
                        // A pause or a longer Crawl-delay came after the reservation.
                        slot = Some(later);
                        st.schedule(host, now);
                        continue;
                    }
                }
            }
            if defer {
                // The task goes back to the queue (see "Deferred tasks"): the slot and its start
                // time return to the host, whose lane is due at that time again.
                st.hosts.give_back(host, s, now);
                st.schedule(host, now);
                st.wake = false;
                drop(st);
                self.freed();
                return Grant::Later(s.due);
            }
            // The sleep happens with no lock held; a cancel ends it early.
            self.wake_getter(&mut st);
            MutexGuard::unlocked(&mut st, || self.cancel.sleep_until(s.due));
        }
    }
}

/// Scheduling decisions at made-up instants, for the tests: the same code paths as `put`,
/// `get` and `task_done`, minus waiting and the per-thread bookkeeping.
#[cfg(test)]
impl<T> HostLaneQueue<T> {
    fn put_at(&self, host: &str, item: T, now: Instant) {
        self.state.lock().push(Some(host.to_owned()), item, || now);
    }

    fn take_at(&self, now: Instant) -> Result<(T, Option<Assignment>), Option<Instant>> {
        self.state.lock().take(now)
    }

    fn finish_at(&self, a: Assignment, now: Instant) {
        let mut st = self.state.lock();
        st.unfinished_tasks -= 1;
        st.finish(a, now);
    }

    fn change_at(&self, host: &str, now: Instant, change: impl FnOnce(&mut HostTable)) {
        let mut st = self.state.lock();
        change(&mut st.hosts);
        st.schedule(host, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;

    const MS: Duration = Duration::from_millis(1);

    fn polite(per_second: f64, in_flight: usize, probe_first: bool) -> HostLaneQueue<&'static str> {
        let hosts = HostTable::new(per_second, in_flight, HostRules::default(), probe_first);
        HostLaneQueue::with_hosts(hosts.seeded(1), CancelHandle::new())
    }

    /// The item `take_at(now)` hands out, with its assignment.
    fn take(q: &HostLaneQueue<&'static str>, now: Instant) -> (&'static str, Assignment) {
        let (item, a) = q
            .take_at(now)
            .unwrap_or_else(|e| panic!("nothing due: {e:?}"));
        (item, a.expect("a hosted item"))
    }

    #[test]
    fn a_due_host_goes_first_and_a_busy_one_waits_for_its_slot() {
        let t0 = Instant::now();
        let q = polite(10.0, 0, false);
        for item in ["a1", "a2", "a3"] {
            q.put_at("a:80", item, t0);
        }
        q.put_at("b:80", "b1", t0);
        assert_eq!(take(&q, t0).0, "a1");
        // a's next slot is 100 ms away: b's task goes ahead although it was put later
        assert_eq!(take(&q, t0).0, "b1");
        assert_eq!(q.take_at(t0 + 50 * MS).err(), Some(Some(t0 + 100 * MS)));
        let (a2, slot) = take(&q, t0 + 100 * MS);
        assert_eq!((a2, slot.slot.map(|s| s.due)), ("a2", Some(t0 + 100 * MS)));
        assert_eq!(q.take_at(t0 + 100 * MS).err(), Some(Some(t0 + 200 * MS)));
        assert_eq!(take(&q, t0 + 250 * MS).0, "a3");
        assert_eq!(q.take_at(t0 + 250 * MS).err(), Some(None), "nothing left");
        assert_eq!(q.counts(), (0, 4));
    }

    #[test]
    fn a_host_at_its_cap_waits_for_a_freed_slot_while_others_go_on() {
        let t0 = Instant::now();
        let q = polite(0.0, 1, false);
        q.put_at("a:80", "a1", t0);
        q.put_at("a:80", "a2", t0);
        q.put_at("b:80", "b1", t0);
        let (_, a1) = take(&q, t0);
        assert_eq!(take(&q, t0).0, "b1");
        assert_eq!(q.take_at(t0).err(), Some(None), "a is at its cap of 1");
        // a1 made its request (the permit drops) and finished
        q.release("a:80", true);
        assert_eq!(take(&q, t0).0, "a2");
        q.finish_at(a1, t0);
    }

    #[test]
    fn a_host_given_up_hands_out_its_tasks_at_once_without_slots() {
        use crate::model::outcome::FailKind;
        use crate::policy::host_table::HostDown;
        let t0 = Instant::now();
        let q = polite(1.0, 1, false);
        for item in ["a1", "a2", "a3"] {
            q.put_at("a:80", item, t0);
        }
        q.put_at("b:80", "b1", t0);
        let (_, a1) = take(&q, t0);
        assert_eq!(take(&q, t0).0, "b1");
        assert_eq!(
            q.take_at(t0).err(),
            Some(None),
            "a is at its cap, next slot in 1 s"
        );
        // a1's request was refused: the host is given up while a1 still holds its slot
        let down = HostDown {
            kind: FailKind::Connect,
            message: "refused".into(),
            url: "http://a/1".into(),
        };
        q.change_at("a:80", t0, |t| t.mark_down("a:80", down.clone(), t0));
        let (a2, slot) = take(&q, t0);
        assert_eq!(
            (a2, slot.slot),
            ("a2", None),
            "due now, cap and interval aside"
        );
        let (a3, slot) = take(&q, t0);
        assert_eq!((a3, slot.slot), ("a3", None));
        // A request of a2's (no reservation) is refused by the gate without waiting.
        assert_eq!(q.acquire("a:80", false), Grant::Down(down));
        q.finish_at(a1, t0);
        assert_eq!(
            q.state.lock().hosts.stats()[0].unreachable.as_deref(),
            Some("connect: refused")
        );
    }

    #[test]
    fn an_unused_reservation_is_returned_when_the_task_finishes() {
        let t0 = Instant::now();
        let q = polite(10.0, 1, false);
        q.put_at("a:80", "a1", t0);
        q.put_at("a:80", "a2", t0);
        let (_, a1) = take(&q, t0);
        assert_eq!(q.take_at(t0).err(), Some(None), "a1 holds a's only slot");
        // a1 needed no request (robots.txt disallowed it): its slot and start time come back
        q.finish_at(a1, t0 + 10 * MS);
        let (a2, a) = take(&q, t0 + 10 * MS);
        assert_eq!((a2, a.slot.map(|s| s.due)), ("a2", Some(t0 + 10 * MS)));
    }

    #[test]
    fn retry_after_pauses_that_host_and_its_reserved_slot_only() {
        let t0 = Instant::now();
        let q = polite(10.0, 0, false);
        q.put_at("a:80", "a1", t0);
        q.put_at("a:80", "a2", t0);
        q.put_at("b:80", "b1", t0);
        let (_, a1) = take(&q, t0);
        let reserved = a1.slot.unwrap();
        // a's first answer is a 429 asking for 2 s
        q.change_at("a:80", t0, |h| h.back_off("a:80", t0 + 2000 * MS, true, t0));
        assert_eq!(take(&q, t0).0, "b1", "another host is not paused");
        let resume = match q.take_at(t0 + 1000 * MS) {
            Err(Some(at)) => at,
            other => panic!("a2 must wait for the pause: {other:?}"),
        };
        assert!(
            resume >= t0 + 2000 * MS && resume <= t0 + 2125 * MS,
            "jitter ≤ 1/16"
        );
        // the slot reserved before the 429 is void too: its request waits for the pause
        let mut st = q.state.lock();
        let retry = st.hosts.confirm("a:80", reserved, t0).unwrap_err();
        assert_eq!(retry.due, resume);
    }

    #[test]
    fn a_hosts_first_task_runs_alone_until_it_is_done() {
        let t0 = Instant::now();
        let q = polite(0.0, 0, true);
        for item in ["a1", "a2", "a3"] {
            q.put_at("a:80", item, t0);
        }
        q.put_at("b:80", "b1", t0);
        let (_, a1) = take(&q, t0);
        // a1 fetches a's robots.txt: no other worker is handed a task of a meanwhile
        assert_eq!(take(&q, t0).0, "b1");
        assert_eq!(q.take_at(t0).err(), Some(None));
        q.finish_at(a1, t0);
        assert_eq!(take(&q, t0).0, "a2");
        assert_eq!(
            take(&q, t0).0,
            "a3",
            "after the first, tasks run side by side"
        );
    }

    /// Blocking `get` with real time: a getter waits for a host's slot, and a put for another
    /// host wakes it at once (bounds far from the 10 s slot, no sleeps).
    #[test]
    fn a_waiting_getter_takes_other_work_as_soon_as_it_is_put() {
        let q = Arc::new(polite(0.1, 0, false)); // one request per 10 s
        q.put_for(Some("slow:80".into()), "s1");
        q.put_for(Some("slow:80".into()), "s2");
        assert_eq!(q.get(), Some("s1"));
        // s1's request uses the slot reserved at `get`, without waiting
        assert_eq!(q.acquire("slow:80", false), Grant::Now);
        q.release("slow:80", true);
        q.task_done();
        let getter = {
            let q = q.clone();
            thread::spawn(move || {
                let t = Instant::now();
                let item = q.get();
                q.task_done();
                (item, t.elapsed())
            })
        };
        q.put_for(Some("fast:80".into()), "f1");
        let (item, waited) = getter.join().unwrap();
        assert_eq!(item, Some("f1"));
        assert!(waited < Duration::from_secs(5), "{waited:?}");
        assert_eq!(q.counts(), (1, 1), "s2 still waits for its slot");
        assert_eq!(q.shutdown(), vec!["s2"]);
    }

    /// A request whose slot is not due hands its task back instead of sleeping: the slot and
    /// its start time return to the host, the task waits in its lane, counted as unfinished,
    /// and the lane is due when that slot was.
    #[test]
    fn a_deferred_request_gives_its_slot_back_and_its_task_waits_in_the_lane() {
        let q = polite(0.1, 0, false); // one request per 10 s
        q.put_for(Some("slow:80".into()), "s1");
        assert_eq!(q.get(), Some("s1"));
        // robots.txt uses the slot `get` reserved
        assert_eq!(q.acquire("slow:80", true), Grant::Now);
        q.release("slow:80", true);
        let t = Instant::now();
        let Grant::Later(due) = q.acquire("slow:80", true) else {
            panic!("deferred")
        };
        assert!(t.elapsed() < Duration::from_secs(5), "no sleep");
        assert!(
            due >= t + Duration::from_secs(9),
            "the page's slot is 10 s away"
        );
        // the worker puts the task back before its task_done: the queue never looks idle
        q.put_for(Some("slow:80".into()), "s1");
        q.task_done();
        assert_eq!(q.counts(), (1, 1));
        assert!(!q.join(Some(Duration::ZERO)));
        assert_eq!(q.take_at(due - MS).err(), Some(Some(due)));
        let (item, a) = take(&q, due);
        assert_eq!((item, a.slot.map(|s| s.due)), ("s1", Some(due)));
        // a cancelled run holds nothing either
        q.cancel.cancel();
        assert_eq!(q.acquire("other:80", true), Grant::Cancelled);
    }

    /// A getter waits on the condvar until the earliest due time, and not less.
    #[test]
    fn a_getter_wakes_for_the_earliest_due_time() {
        let q = polite(5.0, 0, false); // 200 ms apart
        q.put_for(Some("a:80".into()), "a1");
        q.put_for(Some("a:80".into()), "a2");
        let t = Instant::now();
        assert_eq!(q.get(), Some("a1"));
        assert_eq!(q.acquire("a:80", false), Grant::Now);
        q.release("a:80", true);
        q.task_done();
        assert_eq!(q.get(), Some("a2"));
        q.task_done();
        let e = t.elapsed();
        assert!(
            e >= Duration::from_millis(190) && e < Duration::from_secs(5),
            "{e:?}"
        );
        assert!(q.join(Some(Duration::ZERO)));
    }

    #[test]
    fn fifo_and_join() {
        let q = HostLaneQueue::new();
        assert!(q.join(Some(Duration::ZERO)), "empty queue is joined");
        q.put(1);
        q.put(2);
        assert_eq!(q.unfinished(), 2);
        assert_eq!(q.get(), Some(1));
        assert_eq!(q.get(), Some(2));
        q.task_done();
        assert!(!q.join(Some(Duration::from_millis(1))));
        q.task_done();
        assert!(q.join(Some(Duration::ZERO)));
    }

    /// Many threads that are both consumers and producers: each item n > 0 puts two children
    /// n-1 before its task_done. The total processed must be exact and join must not return early.
    #[test]
    fn producers_and_consumers_tree() {
        for threads in [1, 4, 16] {
            let q = Arc::new(HostLaneQueue::new());
            let processed = Arc::new(AtomicUsize::new(0));
            let depth = 10u32; // 2^11 - 1 nodes
            q.put(depth);
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    let (q, processed) = (q.clone(), processed.clone());
                    thread::spawn(move || {
                        while let Some(n) = q.get() {
                            if n > 0 {
                                q.put(n - 1);
                                q.put(n - 1);
                            }
                            processed.fetch_add(1, Ordering::SeqCst);
                            q.task_done();
                        }
                    })
                })
                .collect();
            assert!(q.join(Some(Duration::from_secs(30))));
            // join returned: every node was processed, none can still be in flight.
            assert_eq!(processed.load(Ordering::SeqCst), (1 << (depth + 1)) - 1);
            q.close();
            for w in workers {
                w.join().unwrap();
            }
        }
    }

    /// The same tree with every item on one of three hosts, a cap of 2 in flight per host and
    /// each host's first task running alone; every other item makes its request.
    #[test]
    fn a_tree_over_capped_hosts_is_processed_exactly_once() {
        for threads in [1, 4, 16] {
            let hosts = HostTable::new(0.0, 2, HostRules::default(), true);
            let q = Arc::new(HostLaneQueue::with_hosts(hosts, CancelHandle::new()));
            let host = |n: u32| Some(format!("h{}:80", n % 3));
            let processed = Arc::new(AtomicUsize::new(0));
            let depth = 8u32;
            q.put_for(host(depth), depth);
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    let (q, processed) = (q.clone(), processed.clone());
                    thread::spawn(move || {
                        while let Some(n) = q.get() {
                            if n % 2 == 0 {
                                assert_eq!(
                                    q.acquire(host(n).as_deref().unwrap(), false),
                                    Grant::Now
                                );
                                q.release(host(n).as_deref().unwrap(), true);
                            }
                            if n > 0 {
                                q.put_for(host(n - 1), n - 1);
                                q.put_for(host(n - 1), n - 1);
                            }
                            processed.fetch_add(1, Ordering::SeqCst);
                            q.task_done();
                        }
                    })
                })
                .collect();
            assert!(q.join(Some(Duration::from_secs(30))));
            assert_eq!(processed.load(Ordering::SeqCst), (1 << (depth + 1)) - 1);
            q.close();
            for w in workers {
                w.join().unwrap();
            }
        }
    }

    #[test]
    fn join_timeout_returns_on_time() {
        let q = HostLaneQueue::new();
        q.put(());
        let t = Instant::now();
        assert!(!q.join(Some(Duration::from_millis(100))));
        let e = t.elapsed();
        assert!(e >= Duration::from_millis(100), "{e:?}");
        assert!(e < Duration::from_secs(2), "{e:?}");
    }

    #[test]
    fn shutdown_wakes_every_waiter_and_refuses_puts() {
        let q = Arc::new(HostLaneQueue::<u32>::new());
        q.put(7);
        assert_eq!(q.get(), Some(7)); // one item in progress
        q.put(8); // one queued
        let getters: Vec<_> = (0..4)
            .map(|_| {
                let q = q.clone();
                thread::spawn(move || q.get())
            })
            .collect();
        let joiner = {
            let q = q.clone();
            thread::spawn(move || q.join(None))
        };
        let dropped = q.shutdown();
        // one getter may have taken item 8 before shutdown; the rest see None
        let got: Vec<_> = getters.into_iter().map(|g| g.join().unwrap()).collect();
        assert_eq!(got.iter().flatten().count() + dropped.len(), 1);
        assert!(!q.put(9), "put after shutdown is refused");
        for _ in got.iter().flatten() {
            q.task_done();
        }
        q.task_done(); // the in-progress item 7 finishes
        assert!(joiner.join().unwrap());
        assert_eq!(q.unfinished(), 0);
    }
}
