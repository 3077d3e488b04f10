//! The result cache's map: an arena of (key, slot) entries in claim order, found through a
//! table of (key hash, entry number) pairs.
//!
//! A bucket of the table is 8 bytes, not a whole entry: the table is kept at most 7/8 full and
//! doubles, so most of a map's buckets are empty right after it grows, and an empty bucket of
//! a map that held the entries in place would cost a whole entry. The arena is a `Vec`, whose
//! spare capacity is never written (so never resident). Keys are never removed, so an
//! entry's number never changes and can stand for its key (a redirect's target).

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;

/// An entry's number: its position in the arena.
pub(super) type Id = u32;

/// A key that [`Slots::lookup`] did not find, with its hash, to [`insert`](Slots::insert).
#[derive(Debug, Clone, Copy)]
pub(super) struct Vacant(u32);

/// Key → value, for keys that are never removed. Holds at most `u32::MAX` entries
/// ([`has_room`](Slots::has_room)).
#[derive(Debug)]
pub(super) struct Slots<V> {
    /// Every key inserted, with its value; an entry's [`Id`] is its position.
    entries: Vec<(Box<str>, V)>,
    /// For each entry: its key's hash folded to 32 bits (compared before the key is read, and
    /// all that a rehash reads) and its number.
    table: HashTable<(u32, Id)>,
    /// A fast hash with a random seed per map (see `Cargo.toml`).
    hasher: RandomState,
    /// Bytes of every key inserted.
    key_bytes: usize,
}

/// The table's hash of a folded hash: the 32 bits twice, so that both the bucket (low bits)
/// and the tag hashbrown keeps per bucket (top 7 bits) come from them.
fn spread(h: u32) -> u64 {
    (u64::from(h) << 32) | u64::from(h)
}

impl<V> Default for Slots<V> {
    fn default() -> Self {
        Slots {
            entries: Vec::new(),
            table: HashTable::new(),
            hasher: RandomState::default(),
            key_bytes: 0,
        }
    }
}

impl<V> Slots<V> {
    fn hash(&self, key: &str) -> u32 {
        let h = self.hasher.hash_one(key);
        // Folded, not cut: both halves of the hash count.
        (h ^ (h >> 32)) as u32
    }

    /// The entry of `key`, or where to insert it.
    pub(super) fn lookup(&self, key: &str) -> Result<Id, Vacant> {
        let h = self.hash(key);
        self.table
            .find(spread(h), |&(eh, id)| {
                eh == h && *self.entries[id as usize].0 == *key
            })
            .map(|&(_, id)| id)
            .ok_or(Vacant(h))
    }

    /// The entry of `key`.
    pub(super) fn find(&self, key: &str) -> Option<Id> {
        self.lookup(key).ok()
    }

    /// `false` once the map holds as many entries as an [`Id`] can number.
    pub(super) fn has_room(&self) -> bool {
        self.entries.len() < Id::MAX as usize
    }

    /// Adds `key` (not in the map: `vacant` came from [`lookup`](Self::lookup) and nothing was
    /// inserted since) with `value`. `None` when the map has no room (nothing inserted).
    pub(super) fn insert(&mut self, vacant: Vacant, key: &str, value: V) -> Option<Id> {
        if !self.has_room() {
            return None;
        }
        let id = self.entries.len() as Id;
        self.entries.push((key.into(), value));
        self.key_bytes += key.len();
        self.table
            .insert_unique(spread(vacant.0), (vacant.0, id), |&(h, _)| spread(h));
        Some(id)
    }

    /// The entry of `key`, inserted with `value()` when it is new; `None` when it is new and
    /// the map has no room.
    pub(super) fn find_or_insert(&mut self, key: &str, value: impl FnOnce() -> V) -> Option<Id> {
        match self.lookup(key) {
            Ok(id) => Some(id),
            Err(vacant) => self.insert(vacant, key, value()),
        }
    }

    /// The key of entry `id`.
    pub(super) fn key(&self, id: Id) -> &str {
        &self.entries[id as usize].0
    }

    /// The value of entry `id`.
    pub(super) fn value(&self, id: Id) -> &V {
        &self.entries[id as usize].1
    }

    /// The value of entry `id`, to change.
    pub(super) fn value_mut(&mut self, id: Id) -> &mut V {
        &mut self.entries[id as usize].1
    }

    /// The value of `key`.
    pub(super) fn get(&self, key: &str) -> Option<&V> {
        self.find(key).map(|id| self.value(id))
    }

    /// The value of `key`, to change.
    pub(super) fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.find(key).map(|id| self.value_mut(id))
    }

    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Bytes of every key inserted.
    pub(super) fn key_bytes(&self) -> usize {
        self.key_bytes
    }

    /// Every value.
    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Every entry, its value to change.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&**k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_inserted_and_numbers_entries_in_order() {
        let mut m: Slots<usize> = Slots::default();
        for i in 0..10_000 {
            let key = format!("https://example.org/{i}");
            let vacant = m.lookup(&key).expect_err("new");
            assert_eq!(m.insert(vacant, &key, i), Some(i as Id));
        }
        assert_eq!(m.len(), 10_000);
        for i in (0..10_000).rev() {
            let key = format!("https://example.org/{i}");
            let id = m.find(&key).expect("inserted");
            assert_eq!((m.key(id), *m.value(id)), (key.as_str(), i));
        }
        assert!(m.get("https://example.org/10000").is_none());
        assert_eq!(m.find_or_insert("https://example.org/7", || 99), Some(7));
        assert_eq!(m.find_or_insert("new", || 99), Some(10_000));
        *m.get_mut("new").unwrap() += 1;
        assert_eq!(m.get("new"), Some(&100));
        assert_eq!(m.values().count(), 10_001);
        assert!(m.has_room());
    }
}
