//! Values of the command's own flags (`-o`, `-F`). The check options' values are read in the
//! library (`linkpatrol::options::values`), the config file's sections in `sections.rs`.

use linkpatrol::report::Format;

/// `-F TYPE[/FILE]`: a report format written to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOutput {
    /// The format.
    pub format: Format,
    /// The file; the format's default name when not given.
    pub path: String,
}

/// `-o TYPE`: a report format, its names declared so that `--help` and the completions list
/// them with what each holds and its `-F` file (the argument reads them in any case).
pub fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Format::ALL.iter().map(|f| {
        let help = format!("{} (-F: {})", f.summary(), f.default_file_name());
        PossibleValue::new(f.name()).help(help)
    }))
    .map(|name| format_name(&name).expect("a format's own name"))
}

pub fn format_name(s: &str) -> Result<Format, String> {
    Format::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown report type `{s}' (one of: {})", names.join(", "))
    })
}

pub fn file_output(s: &str) -> Result<FileOutput, String> {
    let (name, path) = match s.split_once('/') {
        Some((name, path)) if !path.is_empty() => (name, Some(path)),
        _ => (s.trim_end_matches('/'), None),
    };
    let format = format_name(name)?;
    Ok(FileOutput {
        format,
        path: path.map_or_else(|| format.default_file_name().to_owned(), str::to_owned),
    })
}
