//! A hint for an unknown key of the config file: the known key it was probably meant to be
//! (`internal_only` → `internal-only`, `threds` → `threads`).

/// `did you mean `internal-only'?` for an unknown key `internal_only` among the `known` keys;
/// `None` when no key is close.
pub fn unknown_key_hint(key: &str, known: &[&str]) -> Option<String> {
    let normal = |k: &str| k.to_ascii_lowercase().replace('_', "-");
    let wanted = normal(key);
    if let Some(same) = known.iter().find(|k| normal(k) == wanted) {
        return Some(format!(
            "did you mean `{same}'? (keys are written with -, not _)"
        ));
    }
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(&wanted, k), *k))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| format!("did you mean `{k}'?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["inputs", "stdin", "internal-only", "threads", "timeout"];

    #[test]
    fn an_underscore_key_points_to_its_dashed_name() {
        assert_eq!(
            unknown_key_hint("internal_only", KNOWN).as_deref(),
            Some("did you mean `internal-only'? (keys are written with -, not _)")
        );
    }

    #[test]
    fn a_misspelt_key_points_to_the_closest_one() {
        assert_eq!(
            unknown_key_hint("threds", KNOWN).as_deref(),
            Some("did you mean `threads'?")
        );
        assert_eq!(unknown_key_hint("colour-scheme", KNOWN), None);
    }
}
