//! An occurrence as a slot keeps it until its key is finished, and the slot's list of them.
//!
//! Most keys wait with exactly one occurrence (the link that found them), and most of those
//! are plain: a page, the link as written, its text, line and column, perhaps a fragment, and
//! nothing else. Such an occurrence is kept in 48 bytes inside the slot, its three texts in
//! one allocation; any other is boxed whole. Both give back exactly the fields they were made
//! from. (The links waiting for a URL not yet checked are most of a large check's memory: 46 of
//! the 74 MB of heap at the peak of a check of the Rust documentation, as 350,000 occurrences
//! with their link and text in two allocations, and a fragment boxed the whole site.)

use std::sync::Arc;

use crate::model::link_site::LinkSite;

/// A line or column in 4 bytes; `u32::MAX` is none.
const NO_POSITION: u32 = u32::MAX;

/// A plain link site (see the module docs).
#[derive(Debug)]
pub(super) struct PlainSite {
    parent: Arc<str>,
    /// The link as written, then its text, then its fragment.
    text: Box<str>,
    /// Where the link's text starts in `text`.
    name_at: u32,
    /// Where the fragment starts in `text`; [`NO_FRAGMENT`] when the link has none.
    fragment_at: u32,
    line: u32,
    column: u32,
}

/// `PlainSite::fragment_at` of a link without a fragment.
const NO_FRAGMENT: u32 = u32::MAX;

impl PlainSite {
    /// Keeps a site with no base, warning or remap, and its fragment: boxed whole when a line,
    /// column or the texts' length does not fit in its 4 bytes.
    fn keep(site: LinkSite, fragment: Option<String>) -> Stored {
        let frag_len = fragment.as_ref().map_or(0, String::len);
        let len = site.raw.len() + site.name.len() + frag_len;
        let fits = u32::try_from(len).is_ok_and(|l| l < NO_FRAGMENT);
        let (Some(line), Some(column), true) = (narrow(site.line), narrow(site.column), fits)
        else {
            return Stored::Boxed(Box::new((Some(site), fragment)));
        };
        let mut text = String::with_capacity(len);
        text.push_str(&site.raw);
        text.push_str(&site.name);
        let name_at = site.raw.len() as u32;
        let fragment_at = match &fragment {
            Some(f) => {
                let at = text.len() as u32;
                text.push_str(f);
                at
            }
            None => NO_FRAGMENT,
        };
        Stored::Plain(PlainSite {
            parent: site.parent,
            text: text.into_boxed_str(),
            name_at,
            fragment_at,
            line,
            column,
        })
    }

    fn into_parts(self) -> (LinkSite, Option<String>) {
        let name_at = self.name_at as usize;
        let name_end = match self.fragment_at {
            NO_FRAGMENT => self.text.len(),
            at => at as usize,
        };
        let name = self.text[name_at..name_end].to_owned();
        let fragment = (self.fragment_at != NO_FRAGMENT).then(|| self.text[name_end..].to_owned());
        // The link as written keeps the allocation.
        let mut raw = self.text.into_string();
        raw.truncate(name_at);
        let site = LinkSite {
            parent: self.parent,
            raw,
            line: widen(self.line),
            column: widen(self.column),
            name,
            base: None,
            warnings: Vec::new(),
            remapped_from: None,
            rendered: false,
        };
        (site, fragment)
    }
}

/// One occurrence: the link site (`None` for a start URL) and the fragment the link carried.
#[derive(Debug)]
pub(super) enum Stored {
    /// A link site with no fragment, base, warning or remap, its line and column under
    /// `u32::MAX`.
    Plain(PlainSite),
    /// Any other occurrence.
    Boxed(Box<(Option<LinkSite>, Option<String>)>),
}

/// `Some` position as 4 bytes; `None` when it does not fit.
fn narrow(position: Option<usize>) -> Option<u32> {
    match position {
        None => Some(NO_POSITION),
        Some(p) => u32::try_from(p).ok().filter(|&p| p != NO_POSITION),
    }
}

fn widen(position: u32) -> Option<usize> {
    (position != NO_POSITION).then_some(position as usize)
}

impl Stored {
    /// Keeps a site and fragment.
    pub(super) fn new(site: Option<LinkSite>, fragment: Option<String>) -> Stored {
        match site {
            Some(s)
                if s.base.is_none()
                    && s.warnings.is_empty()
                    && s.remapped_from.is_none()
                    && !s.rendered =>
            {
                PlainSite::keep(s, fragment)
            }
            site => Stored::Boxed(Box::new((site, fragment))),
        }
    }

    /// The site and fragment it was made from.
    pub(super) fn into_parts(self) -> (Option<LinkSite>, Option<String>) {
        match self {
            Stored::Plain(p) => {
                let (site, fragment) = p.into_parts();
                (Some(site), fragment)
            }
            Stored::Boxed(b) => *b,
        }
    }
}

/// The occurrences a slot keeps while its key is not done, in claim order: none, one kept
/// inline, or a list.
#[derive(Debug, Default)]
pub(super) enum StoredList {
    #[default]
    Empty,
    One(Stored),
    Many(Vec<Stored>),
}

impl StoredList {
    /// Appends one.
    pub(super) fn push(&mut self, stored: Stored) {
        *self = match std::mem::take(self) {
            StoredList::Empty => StoredList::One(stored),
            StoredList::One(first) => StoredList::Many(vec![first, stored]),
            StoredList::Many(mut all) => {
                all.push(stored);
                StoredList::Many(all)
            }
        };
    }

    /// Takes them all, in claim order, leaving none.
    pub(super) fn take(&mut self) -> Vec<Stored> {
        match std::mem::take(self) {
            StoredList::Empty => Vec::new(),
            StoredList::One(one) => vec![one],
            StoredList::Many(all) => all,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::outcome::Warning;

    fn site(line: Option<usize>) -> LinkSite {
        LinkSite {
            parent: Arc::from("https://example.org/a.html"),
            raw: "b.html".into(),
            line,
            column: Some(7),
            name: "text".into(),
            base: None,
            warnings: Vec::new(),
            remapped_from: None,
            rendered: false,
        }
    }

    #[test]
    fn every_occurrence_comes_back_as_it_went_in() {
        let mut warned = site(Some(1));
        warned.warnings.push(Warning {
            tag: "url-whitespace",
            message: "m".into(),
        });
        let mut based = site(Some(1));
        based.base = Some(Arc::from("/docs/"));
        let mut remapped = site(Some(1));
        remapped.remapped_from = Some("http://old/".into());
        let cases = [
            (Some(site(Some(3))), None, true),
            (Some(site(None)), None, true),
            (Some(site(Some(u32::MAX as usize))), None, false),
            (Some(site(Some(usize::MAX))), None, false),
            (Some(site(Some(3))), Some("top".to_owned()), true),
            (Some(site(Some(3))), Some(String::new()), true),
            (Some(warned), None, false),
            (Some(based), None, false),
            (Some(remapped), None, false),
            (None, None, false),
            (None, Some("f".to_owned()), false),
        ];
        for (site, fragment, plain) in cases {
            let stored = Stored::new(site.clone(), fragment.clone());
            assert_eq!(matches!(stored, Stored::Plain(_)), plain, "{site:?}");
            assert_eq!(stored.into_parts(), (site, fragment));
        }
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_plain_occurrence_takes_48_bytes() {
        assert_eq!(std::mem::size_of::<Stored>(), 48);
    }

    #[test]
    fn a_list_keeps_claim_order() {
        let mut list = StoredList::default();
        assert!(list.take().is_empty());
        for line in 1..=3 {
            list.push(Stored::new(Some(site(Some(line))), None));
        }
        let lines: Vec<_> = list
            .take()
            .into_iter()
            .map(|s| s.into_parts().0.unwrap().line)
            .collect();
        assert_eq!(lines, [Some(1), Some(2), Some(3)]);
        assert!(list.take().is_empty(), "taken");
    }
}
