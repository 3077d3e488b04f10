//! An occurrence as a slot keeps it until its key is finished, and the slot's list of them.
//!
//! Most keys wait with exactly one occurrence (the link that found them), and most of those
//! are plain: a page, the link as written, its text, line and column, and nothing else. Such
//! an occurrence is kept in 56 bytes inside the slot (no allocation of its own); any other is
//! boxed whole. Both give back exactly the fields they were made from.

use std::sync::Arc;

use crate::model::link_site::LinkSite;

/// A line or column in 4 bytes; `u32::MAX` is none.
const NO_POSITION: u32 = u32::MAX;

/// A plain link site (see the module docs).
#[derive(Debug)]
pub(super) struct PlainSite {
    parent: Arc<str>,
    raw: Box<str>,
    name: Box<str>,
    line: u32,
    column: u32,
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
        match (site, fragment) {
            (Some(s), None)
                if s.base.is_none() && s.warnings.is_empty() && s.remapped_from.is_none() =>
            {
                match (narrow(s.line), narrow(s.column)) {
                    (Some(line), Some(column)) => Stored::Plain(PlainSite {
                        parent: s.parent,
                        raw: s.raw.into_boxed_str(),
                        name: s.name.into_boxed_str(),
                        line,
                        column,
                    }),
                    _ => Stored::Boxed(Box::new((Some(s), None))),
                }
            }
            (site, fragment) => Stored::Boxed(Box::new((site, fragment))),
        }
    }

    /// The site and fragment it was made from.
    pub(super) fn into_parts(self) -> (Option<LinkSite>, Option<String>) {
        match self {
            Stored::Plain(p) => (
                Some(LinkSite {
                    parent: p.parent,
                    raw: p.raw.into_string(),
                    line: widen(p.line),
                    column: widen(p.column),
                    name: p.name.into_string(),
                    base: None,
                    warnings: Vec::new(),
                    remapped_from: None,
                }),
                None,
            ),
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
            (Some(site(Some(3))), Some("top".to_owned()), false),
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
