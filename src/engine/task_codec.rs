//! A queued [`Task`] as bytes for the queue's spill file (`queue_spill`) and back: its URL
//! (a `Url` parses back from its own serialization to the same value), its key when that
//! differs, its level, its redirect count and its flags. An in-memory document or a deferred
//! task (which carries what its first try learned) is not written: it stays in memory.

use std::mem::size_of;

use url::Url;

use super::queue_spill::SpillCodec;
use super::run::Task;

const INTERNAL: u8 = 1;
const RECURSE: u8 = 2;
const FOLLOW: u8 = 4;
const PARSE_ONLY: u8 = 8;
const KEY_IS_URL: u8 = 16;

/// The codec of the engine's queue.
pub(super) fn task_codec() -> SpillCodec<Task> {
    SpillCodec {
        size,
        encode,
        decode,
    }
}

/// Bytes a queued task holds: the task, its URL's text and its key (with the allocator's
/// header of each).
fn size(t: &Task) -> usize {
    size_of::<Task>() + t.url.as_str().len() + t.key.capacity() + 32
}

fn encode(t: &Task, out: &mut Vec<u8>) -> bool {
    if t.inline.is_some() || t.resume.is_some() {
        return false;
    }
    let url = t.url.as_str();
    let same = t.key == url;
    let flags = [
        (t.internal, INTERNAL),
        (t.recurse, RECURSE),
        (t.follow, FOLLOW),
        (t.parse_only, PARSE_ONLY),
        (same, KEY_IS_URL),
    ]
    .iter()
    .fold(0, |f, &(on, bit)| if on { f | bit } else { f });
    out.push(flags);
    out.extend_from_slice(&(t.level as u64).to_le_bytes());
    out.extend_from_slice(&(t.redirected as u64).to_le_bytes());
    out.extend_from_slice(&(url.len() as u64).to_le_bytes());
    out.extend_from_slice(url.as_bytes());
    if !same {
        out.extend_from_slice(t.key.as_bytes());
    }
    true
}

fn decode(b: &[u8]) -> Option<Task> {
    let (&flags, rest) = b.split_first()?;
    let number = |at: usize| -> Option<usize> {
        let bytes: [u8; 8] = rest.get(at..at + 8)?.try_into().ok()?;
        usize::try_from(u64::from_le_bytes(bytes)).ok()
    };
    let (level, redirected, len) = (number(0)?, number(8)?, number(16)?);
    let url = std::str::from_utf8(rest.get(24..24usize.checked_add(len)?)?).ok()?;
    let key = if flags & KEY_IS_URL != 0 {
        url.to_owned()
    } else {
        std::str::from_utf8(rest.get(24 + len..)?).ok()?.to_owned()
    };
    Some(Task {
        url: Url::parse(url).ok()?,
        key,
        level,
        internal: flags & INTERNAL != 0,
        recurse: flags & RECURSE != 0,
        inline: None,
        follow: flags & FOLLOW != 0,
        parse_only: flags & PARSE_ONLY != 0,
        redirected,
        resume: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(url: &str, key: &str) -> Task {
        Task {
            url: Url::parse(url).unwrap(),
            key: key.to_owned(),
            level: 3,
            internal: true,
            recurse: false,
            inline: None,
            follow: true,
            parse_only: true,
            redirected: 2,
            resume: None,
        }
    }

    #[test]
    fn a_task_comes_back_as_it_was_written() {
        for (url, key) in [
            ("https://example.org/a?b=1", "https://example.org/a?b=1"),
            ("https://ex.org/%C3%A9/", "https://ex.org/é/"),
            ("file:///tmp/x.html", "file:///tmp/x.html"),
        ] {
            let t = task(url, key);
            let mut out = Vec::new();
            assert!(encode(&t, &mut out));
            let back = decode(&out).expect("decodes");
            assert_eq!(format!("{back:?}"), format!("{t:?}"));
        }
    }

    #[test]
    fn documents_and_deferred_tasks_stay_in_memory_and_garbage_does_not_decode() {
        let mut t = task("https://example.org/", "https://example.org/");
        t.inline = Some("<a href=x>".into());
        assert!(!encode(&t, &mut Vec::new()));
        for bad in [&b""[..], &[16, 1, 2], &[16; 40]] {
            assert!(decode(bad).is_none());
        }
    }
}
