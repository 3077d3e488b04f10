//! A clap error as the one line the command prints (`--help` and `--version` print and exit
//! here), for the flags and for the config file's values, which the flags' parsers read.

/// A value its parser refused, as one line: clap quotes the value as given, and one with a
/// line break (`--user-agent $'a\nb'`) would cut the line short; here it is spelled out.
fn invalid_value(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
        e.get(ContextKind::InvalidArg),
        e.get(ContextKind::InvalidValue),
    ) else {
        return None;
    };
    let why = std::error::Error::source(e).map_or_else(String::new, |s| format!(": {s}"));
    Some(format!(
        "invalid value '{}' for '{arg}'{why}",
        value.escape_debug()
    ))
}

/// A clap error as one line (its first, the values allowed, and its tips: `a similar argument
/// exists: '--threads'`), or the help or version text printed at once.
pub fn usage_error(e: clap::Error) -> anyhow::Error {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    if let Some(line) = invalid_value(&e) {
        return anyhow::anyhow!("{line}");
    }
    let text = e.to_string();
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let first = first.trim().trim_start_matches("error: ");
    // A value not among an argument's values lists them on a line of its own.
    let values = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("[possible values: "));
    let first = match values {
        Some(v) => format!("{first} {v}"),
        None => first.to_owned(),
    };
    let tips: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .collect();
    if tips.is_empty() {
        anyhow::anyhow!("{first}")
    } else {
        anyhow::anyhow!("{first} ({})", tips.join("; "))
    }
}
