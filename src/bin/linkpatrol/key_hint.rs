//! A hint for an unknown key of the config file: the known key it was probably meant to be
//! (`internal_only` → `internal-only`, `threds` → `threads`), read from the list of expected
//! keys the TOML reader's message gives.

/// `did you mean `internal-only`?` for a TOML message `unknown field `internal_only`, expected
/// one of `inputs`, …`; `None` when the message is about something else or no key is close.
pub fn unknown_key_hint(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (key, rest) = rest.split_once('`')?;
    let expected = rest.split_once("expected")?.1;
    let known: Vec<&str> = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|k| !k.is_empty())
        .collect();
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

    const MESSAGE: &str = "unknown field `internal_only`, expected one of `inputs`, `stdin`, \
                           `internal-only`, `threads`, `timeout`";

    #[test]
    fn an_underscore_key_points_to_its_dashed_name() {
        assert_eq!(
            unknown_key_hint(MESSAGE).as_deref(),
            Some("did you mean `internal-only'? (keys are written with -, not _)")
        );
    }

    #[test]
    fn a_misspelt_key_points_to_the_closest_one() {
        let m = MESSAGE.replace("internal_only", "threds");
        assert_eq!(
            unknown_key_hint(&m).as_deref(),
            Some("did you mean `threads'?")
        );
        let m = MESSAGE.replace("internal_only", "colour-scheme");
        assert_eq!(unknown_key_hint(&m), None);
        assert_eq!(unknown_key_hint("invalid type: string"), None);
    }
}
