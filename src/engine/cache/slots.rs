//! One shard of the result cache's map: an arena of (key, slot) entries in claim order, found
//! through a table of (key hash, entry number) pairs. The hash is the shard map's
//! (`cache/shards.rs`), computed once per key for both the shard and the table.
//!
//! A bucket of the table is 8 bytes, not a whole entry: the table is kept at most 7/8 full and
//! doubles, so most of a map's buckets are empty right after it grows, and an empty bucket of
//! a map that held the entries in place would cost a whole entry. The arena is a `Vec`, whose
//! spare capacity is never written (so never resident). Keys are never removed, so an
//! entry's number never changes and can stand for its key (a redirect's target).

use hashbrown::HashTable;

/// An entry's number in its shard: its position in the arena.
pub(super) type Local = u32;

/// A key that [`Slots::lookup`] did not find, with its hash, to [`insert`](Slots::insert).
#[derive(Debug, Clone, Copy)]
pub(super) struct Vacant(u32);

/// Key → value, for keys that are never removed. Holds at most `max` entries
/// ([`has_room`](Slots::has_room)).
#[derive(Debug)]
pub(super) struct Slots<V> {
    /// Every key inserted, with its value; an entry's [`Local`] number is its position.
    entries: Vec<(Box<str>, V)>,
    /// For each entry: its key's hash folded to 32 bits (compared before the key is read, and
    /// all that a rehash reads) and its number.
    table: HashTable<(u32, Local)>,
    /// Most entries: the numbers a whole-map id leaves an entry of its shard.
    max: usize,
}

/// The table's hash of a folded hash: the 32 bits twice, so that both the bucket (low bits)
/// and the tag hashbrown keeps per bucket (top 7 bits) come from them.
fn spread(h: u32) -> u64 {
    (u64::from(h) << 32) | u64::from(h)
}

impl<V> Slots<V> {
    /// An empty map of at most `max` entries (at most `u32::MAX`).
    pub(super) fn with_max(max: usize) -> Self {
        Slots {
            entries: Vec::new(),
            table: HashTable::new(),
            max: max.min(u32::MAX as usize),
        }
    }
}

impl<V> Slots<V> {
    /// The entry of `key`, whose folded hash is `h`, or where to insert it.
    pub(super) fn lookup(&self, h: u32, key: &str) -> Result<Local, Vacant> {
        self.table
            .find(spread(h), |&(eh, id)| {
                eh == h && *self.entries[id as usize].0 == *key
            })
            .map(|&(_, id)| id)
            .ok_or(Vacant(h))
    }

    /// `false` once the shard holds as many entries as a whole-map id can number.
    pub(super) fn has_room(&self) -> bool {
        self.entries.len() < self.max
    }

    /// Adds `key` (not in the map: `vacant` came from [`lookup`](Self::lookup) and nothing was
    /// inserted since) with `value`. `None` when the map has no room (nothing inserted).
    pub(super) fn insert(&mut self, vacant: Vacant, key: &str, value: V) -> Option<Local> {
        if !self.has_room() {
            return None;
        }
        let id = self.entries.len() as Local;
        self.entries.push((key.into(), value));
        self.table
            .insert_unique(spread(vacant.0), (vacant.0, id), |&(h, _)| spread(h));
        Some(id)
    }

    /// The key of entry `id`.
    pub(super) fn key(&self, id: Local) -> &str {
        &self.entries[id as usize].0
    }

    /// The value of entry `id`.
    pub(super) fn value(&self, id: Local) -> &V {
        &self.entries[id as usize].1
    }

    /// The value of entry `id`, to change.
    pub(super) fn value_mut(&mut self, id: Local) -> &mut V {
        &mut self.entries[id as usize].1
    }

    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Every value, in entry order.
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

    /// A poor hash, so that keys share folded hashes and the key comparison is exercised.
    fn h(key: &str) -> u32 {
        key.len() as u32
    }

    #[test]
    fn finds_what_it_inserted_and_numbers_entries_in_order() {
        let mut m: Slots<usize> = Slots::with_max(usize::MAX);
        for i in 0..10_000 {
            let key = format!("https://example.org/{i}");
            let vacant = m.lookup(h(&key), &key).expect_err("new");
            assert_eq!(m.insert(vacant, &key, i), Some(i as Local));
        }
        assert_eq!(m.len(), 10_000);
        for i in (0..10_000).rev() {
            let key = format!("https://example.org/{i}");
            let id = m.lookup(h(&key), &key).expect("inserted");
            assert_eq!((m.key(id), *m.value(id)), (key.as_str(), i));
        }
        let absent = "https://example.org/10000";
        assert!(m.lookup(h(absent), absent).is_err());
        *m.value_mut(7) += 1;
        assert_eq!(m.values().nth(7), Some(&8));
        assert_eq!(m.values().count(), 10_000);
        assert!(m.has_room());
    }
}
