//! The result cache's map split by key hash into shards, each behind its own lock, so that
//! workers claiming different URLs rarely wait on each other.
//!
//! A key lives in one shard for good. Its [`Id`] names the shard in its low bits and the
//! entry's number in that shard above them, so an id found under one shard's lock stands for
//! its key everywhere (keys are never removed).
//!
//! Lock order: a thread holds at most one shard's lock at a time, except through
//! [`Shards::lock_all`], which takes every shard's in index order and is used only once no
//! worker runs (the counts and levels at the end). So no two threads can wait on each other.

use std::hash::BuildHasher;

use crossbeam_utils::CachePadded;
use foldhash::fast::RandomState;
use parking_lot::{Mutex, MutexGuard};

use super::slots::{Local, Slots, Vacant};

/// Bits of an [`Id`] that name its shard.
const SHARD_BITS: u32 = 4;

/// Number of shards: enough that 32 workers on a few cores seldom meet on one.
const SHARDS: usize = 1 << SHARD_BITS;

/// A key's number in the whole map: its shard in the low [`SHARD_BITS`] bits, its entry's
/// number in the shard above them.
pub(super) type Id = u32;

/// Most entries a shard holds: its numbers leave room for the shard's in an [`Id`].
const MAX_LOCAL: usize = (u32::MAX >> SHARD_BITS) as usize;

fn shard_of(id: Id) -> usize {
    (id as usize) & (SHARDS - 1)
}

fn local_of(id: Id) -> Local {
    id >> SHARD_BITS
}

fn id_of(shard: usize, local: Local) -> Id {
    (local << SHARD_BITS) | shard as u32
}

/// A key with its hash, computed once: the shard the key lives in, and the folded hash that
/// shard's table uses.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hashed<'k> {
    key: &'k str,
    shard: usize,
    folded: u32,
}

/// Key → value in [`SHARDS`] locked parts.
#[derive(Debug)]
pub(super) struct Shards<V> {
    /// Each on its own cache line: a lock taken on one shard does not slow the next.
    shards: Box<[CachePadded<Mutex<Slots<V>>>]>,
    /// A fast hash with a random seed per map (see `Cargo.toml`).
    hasher: RandomState,
}

impl<V> Default for Shards<V> {
    fn default() -> Self {
        Shards {
            shards: (0..SHARDS)
                .map(|_| CachePadded::new(Mutex::new(Slots::with_max(MAX_LOCAL))))
                .collect(),
            hasher: RandomState::default(),
        }
    }
}

impl<V> Shards<V> {
    /// `key` with its hash. The top bits pick the shard; the table's hash is folded from all
    /// 64 bits, so both halves count.
    pub(super) fn hashed<'k>(&self, key: &'k str) -> Hashed<'k> {
        let h = self.hasher.hash_one(key);
        Hashed {
            key,
            shard: (h >> (64 - SHARD_BITS)) as usize,
            folded: (h ^ (h >> 32)) as u32,
        }
    }

    /// The shard `key` lives in, locked.
    pub(super) fn lock_key(&self, key: &Hashed<'_>) -> Shard<'_, V> {
        self.lock(key.shard)
    }

    /// The shard of `id`, locked.
    pub(super) fn lock_id(&self, id: Id) -> Shard<'_, V> {
        self.lock(shard_of(id))
    }

    fn lock(&self, index: usize) -> Shard<'_, V> {
        Shard {
            index,
            slots: self.shards[index].lock(),
        }
    }

    /// The id of `key`, found under its shard's lock (released on return).
    pub(super) fn find(&self, key: &str) -> Option<Id> {
        let key = self.hashed(key);
        self.lock_key(&key).find(&key)
    }

    /// Each shard in turn, locked while the caller holds it: only one at a time.
    pub(super) fn each(&self) -> impl Iterator<Item = Shard<'_, V>> {
        (0..SHARDS).map(|index| self.lock(index))
    }

    /// Every shard, locked in index order: the whole map at one moment.
    pub(super) fn lock_all(&self) -> All<'_, V> {
        let shards: Vec<_> = self.shards.iter().map(|s| s.lock()).collect();
        let mut offsets = Vec::with_capacity(SHARDS);
        let mut len = 0;
        for s in &shards {
            offsets.push(len);
            len += s.len();
        }
        All {
            shards,
            offsets,
            len,
        }
    }
}

/// One shard, locked.
pub(super) struct Shard<'a, V> {
    index: usize,
    slots: MutexGuard<'a, Slots<V>>,
}

impl<V> Shard<'_, V> {
    /// An entry's number in this shard. An id of another shard is a bug that would read the
    /// wrong entry, so it stops here.
    fn local(&self, id: Id) -> Local {
        assert_eq!(shard_of(id), self.index, "an id of another shard");
        local_of(id)
    }

    /// The entry of `key` (which lives in this shard), or where to insert it.
    pub(super) fn lookup(&self, key: &Hashed<'_>) -> Result<Id, Vacant> {
        debug_assert_eq!(key.shard, self.index);
        self.slots
            .lookup(key.folded, key.key)
            .map(|local| id_of(self.index, local))
    }

    /// The entry of `key`.
    pub(super) fn find(&self, key: &Hashed<'_>) -> Option<Id> {
        self.lookup(key).ok()
    }

    /// `false` once the shard holds as many entries as an [`Id`] can number.
    pub(super) fn has_room(&self) -> bool {
        self.slots.has_room()
    }

    /// Adds `key` with `value` (see [`Slots::insert`]).
    pub(super) fn insert(&mut self, vacant: Vacant, key: &Hashed<'_>, value: V) -> Option<Id> {
        let local = self.slots.insert(vacant, key.key, value)?;
        Some(id_of(self.index, local))
    }

    /// The key of entry `id`.
    pub(super) fn key(&self, id: Id) -> &str {
        self.slots.key(self.local(id))
    }

    /// The value of entry `id`.
    pub(super) fn value(&self, id: Id) -> &V {
        self.slots.value(self.local(id))
    }

    /// The value of entry `id`, to change.
    pub(super) fn value_mut(&mut self, id: Id) -> &mut V {
        let local = self.local(id);
        self.slots.value_mut(local)
    }

    /// The value of `key`.
    pub(super) fn get(&self, key: &Hashed<'_>) -> Option<&V> {
        self.find(key).map(|id| self.value(id))
    }

    /// The value of `key`, to change.
    pub(super) fn get_mut(&mut self, key: &Hashed<'_>) -> Option<&mut V> {
        self.find(key).map(|id| self.value_mut(id))
    }

    /// Every entry of the shard, its value to change.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut V)> {
        self.slots.iter_mut()
    }
}

/// Every shard locked: the whole map, with a dense number (`0..len`) for each id, for
/// arrays over every key.
pub(super) struct All<'a, V> {
    shards: Vec<MutexGuard<'a, Slots<V>>>,
    /// The dense number of each shard's first entry.
    offsets: Vec<usize>,
    len: usize,
}

impl<V> All<'_, V> {
    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Every id, in dense order: the `n`th is the one whose [`dense`](Self::dense) is `n`.
    pub(super) fn ids(&self) -> impl Iterator<Item = Id> + '_ {
        self.shards
            .iter()
            .enumerate()
            .flat_map(|(shard, s)| (0..s.len() as Local).map(move |l| id_of(shard, l)))
    }

    /// The dense number of `id`.
    pub(super) fn dense(&self, id: Id) -> usize {
        self.offsets[shard_of(id)] + local_of(id) as usize
    }

    /// The key of entry `id`.
    pub(super) fn key(&self, id: Id) -> &str {
        self.shards[shard_of(id)].key(local_of(id))
    }

    /// The value of entry `id`.
    pub(super) fn value(&self, id: Id) -> &V {
        self.shards[shard_of(id)].value(local_of(id))
    }

    /// Every value.
    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        self.shards.iter().flat_map(|s| s.values())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_names_its_key_in_every_view() {
        let map: Shards<usize> = Shards::default();
        let keys: Vec<String> = (0..2_000).map(|i| format!("https://t/{i}")).collect();
        let mut ids = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            let k = map.hashed(key);
            let mut shard = map.lock_key(&k);
            let vacant = shard.lookup(&k).expect_err("new");
            ids.push(shard.insert(vacant, &k, i).expect("room"));
        }
        let used = ids
            .iter()
            .map(|&id| shard_of(id))
            .collect::<std::collections::HashSet<_>>();
        assert_eq!(used.len(), SHARDS, "keys spread over every shard");
        for (i, (key, &id)) in keys.iter().zip(&ids).enumerate() {
            assert_eq!(map.find(key), Some(id));
            let shard = map.lock_id(id);
            assert_eq!((shard.key(id), *shard.value(id)), (key.as_str(), i));
        }
        let all = map.lock_all();
        assert_eq!(all.len(), keys.len());
        let dense: Vec<usize> = all.ids().map(|id| all.dense(id)).collect();
        assert_eq!(dense, (0..keys.len()).collect::<Vec<_>>());
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!((all.key(id), *all.value(id)), (keys[i].as_str(), i));
        }
        assert_eq!(all.values().sum::<usize>(), (0..2_000usize).sum::<usize>());
    }
}
