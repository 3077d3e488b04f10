//! The anchors closest to a fragment that names none, for a "did you mean": those equal to it
//! but for case first, then the nearest by edit distance (case ignored), as a compiler names a
//! misspelt item. A long list of every anchor hides the one meant.

/// Most anchors named.
const NAMED: usize = 3;

/// The anchors close to `fragment`, closest first (ties in alphabetical order): at an edit
/// distance, case ignored, of at most a third of the fragment's length (at least 1).
pub(crate) fn closest<'a>(fragment: &str, anchors: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let wanted = fragment.to_lowercase();
    let limit = (wanted.chars().count() / 3).max(1);
    let mut near: Vec<(usize, &str)> = anchors
        .filter_map(|a| {
            let d = strsim::levenshtein(&wanted, &a.to_lowercase());
            (d <= limit).then_some((d, a))
        })
        .collect();
    near.sort_unstable();
    near.truncate(NAMED);
    near.into_iter().map(|(_, a)| a).collect()
}

/// The anchors equal to `fragment` but for case, in alphabetical order.
pub(crate) fn same_but_case<'a>(
    fragment: &str,
    anchors: impl Iterator<Item = &'a str>,
) -> Vec<&'a str> {
    let wanted = fragment.to_lowercase();
    let mut same: Vec<&str> = anchors.filter(|a| a.to_lowercase() == wanted).collect();
    same.sort_unstable();
    same
}

#[cfg(test)]
mod tests {
    use super::{closest, same_but_case};

    #[test]
    fn case_first_then_edit_distance_and_nothing_far() {
        let ids = [
            "installation",
            "instalation-notes",
            "tyctxt",
            "usage",
            "a",
            "b",
            "TyCtxt-2",
        ];
        assert_eq!(closest("TyCtxt", ids.into_iter()), ["tyctxt", "TyCtxt-2"]);
        assert_eq!(closest("instalation", ids.into_iter()), ["installation"]);
        assert_eq!(
            closest("nothing-like-it", ids.into_iter()),
            Vec::<&str>::new()
        );
        assert_eq!(closest("c", ids.into_iter()), ["a", "b"]);
        assert_eq!(closest("x", std::iter::empty()), Vec::<&str>::new());
    }

    #[test]
    fn same_but_case_ignores_only_case() {
        let ids = ["summary", "Summary", "summary-1"];
        assert_eq!(
            same_but_case("SUMMARY", ids.into_iter()),
            ["Summary", "summary"]
        );
        assert_eq!(same_but_case("sumary", ids.into_iter()), Vec::<&str>::new());
    }
}
