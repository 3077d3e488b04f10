//! Where each key's row is: the writer thread's map from a key to its row's `id` in `results`
//! and in `pages`. The tables have no index on `key` (schema 5): a new row is appended at the
//! end of its table, where an index on a URL would put each key on a random page and every
//! transaction would rewrite about as many index pages as it had rows. So the writer finds an
//! existing row through this map, loaded when its thread starts and kept up to date by it.

use std::collections::HashMap;

use rusqlite::Connection;

use crate::model::url_fingerprint::UrlFingerprints;

/// One table's rows by key: 32 bytes an entry (a key's fingerprint, not a copy of it).
#[derive(Debug, Default)]
pub(super) struct TableRows {
    ids: HashMap<u128, i64, foldhash::fast::RandomState>,
}

impl TableRows {
    /// Reads the `id` and `key` of every row of `table`. Rows of the wrong types (the file is
    /// untrusted) are left out: written again, a key gets a row of its own. When a key has
    /// several rows (a file changed by hand), the last one is the key's.
    fn load(conn: &Connection, table: &str, prints: &UrlFingerprints) -> rusqlite::Result<Self> {
        let mut stmt = conn.prepare(&format!(
            "SELECT id, key FROM {table} WHERE typeof(key) = 'text' ORDER BY id"
        ))?;
        let mut rows = stmt.query([])?;
        let mut ids = HashMap::default();
        while let Some(r) = rows.next()? {
            let (Ok(id), Ok(key)) = (r.get::<_, i64>(0), r.get_ref(1)?.as_str()) else {
                continue;
            };
            ids.insert(prints.of(key), id);
        }
        Ok(TableRows { ids })
    }

    /// The row of the key whose fingerprint ([`UrlFingerprints::of`], of [`RowIds::prints`]) is
    /// `print`, if it has one.
    pub(super) fn get(&self, print: u128) -> Option<i64> {
        self.ids.get(&print).copied()
    }

    /// Records that the row of the key whose fingerprint is `print` is `id`.
    pub(super) fn insert(&mut self, print: u128, id: i64) {
        self.ids.insert(print, id);
    }

    /// Keys with a row.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }
}

/// The rows of `results` and `pages` by key. Up to date with the file as long as every
/// transaction the writer began was committed: after a failed one the writer writes nothing
/// more (see `writer::write_loop`), so a row it rolled back is never looked for.
#[derive(Debug, Default)]
pub(super) struct RowIds {
    pub(super) prints: UrlFingerprints,
    pub(super) results: TableRows,
    pub(super) pages: TableRows,
}

impl RowIds {
    /// The rows the file has now.
    pub(super) fn load(conn: &Connection) -> rusqlite::Result<Self> {
        let prints = UrlFingerprints::default();
        Ok(RowIds {
            results: TableRows::load(conn, "results", &prints)?,
            pages: TableRows::load(conn, "pages", &prints)?,
            prints,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::schema::migrate;

    #[test]
    fn rows_of_other_types_are_left_out_and_a_key_written_twice_is_its_last_row() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, 0).unwrap();
        // `NOT NULL` is all the schema asks of a key: a file changed by hand may hold a blob.
        conn.execute_batch(
            "INSERT INTO pages (key, links, run_id) VALUES
                 ('http://a.test/', x'00', 1), (x'07', x'00', 1), ('http://a.test/', x'00', 2);",
        )
        .unwrap();
        let rows = RowIds::load(&conn).unwrap();
        assert_eq!(rows.pages.len(), 1);
        assert_eq!(rows.pages.get(rows.prints.of("http://a.test/")), Some(3));
        assert_eq!(rows.pages.get(rows.prints.of("http://a.test/x")), None);
        assert_eq!(rows.results.len(), 0);
    }
}
