//! Which config files are read, and the one configuration they make (see
//! docs/src/config-file.md, "Where the file is found"):
//!
//! - every file named with `-c` (repeatable), merged in order: a plain key of a later file
//!   replaces an earlier one's (lists too), `[[hosts]]` and `[[auth]]` add up, and a later
//!   `[plugins.NAME]` replaces the earlier one of that name. A `pyproject.toml` is read for its
//!   `[tool.linkpatrol]` table, a `Cargo.toml` for its `[package.metadata.linkpatrol]`; one
//!   without that table is an error.
//! - else the first of the current folder's `linkpatrol.toml`, `pyproject.toml` with a
//!   `[tool.linkpatrol]` table, `Cargo.toml` with a `[package.metadata.linkpatrol]` table: a
//!   local config, untrusted (`trust.rs`). A `pyproject.toml` or `Cargo.toml` without the table,
//!   or that is no TOML, belongs to other tools and is passed over.
//! - else the user's own `config.toml`.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};

use clap::Command;

use crate::args::Args;
use crate::config_file::{self, FileConfig, Found, LOCAL_FILE};

/// The project files that may hold a config, each with the dotted name of its table.
const PROJECT_FILES: [(&str, &str); 2] = [
    ("pyproject.toml", "tool.linkpatrol"),
    ("Cargo.toml", "package.metadata.linkpatrol"),
];

/// The configuration to use, the file it comes from (the last one named, with several) and
/// where that was found; `None` with `--no-config` or when there is none.
pub fn read(command: &Command, args: &Args) -> Result<Option<(FileConfig, PathBuf, Found)>> {
    if args.no_config {
        return Ok(None);
    }
    if !args.config.is_empty() {
        let mut merged = FileConfig::default();
        for path in &args.config {
            let mut file = load(command, path, Found::Named, table_of(path))?;
            for key in &mut file.keys {
                key.file = Some(path.clone());
            }
            merge_into(&mut merged, file);
        }
        let last = args.config.last().cloned().unwrap_or_default();
        return Ok(Some((merged, last, Found::Named)));
    }
    let local = Path::new(".").join(LOCAL_FILE);
    // Whatever it is: `load` refuses what is not a regular file inside the folder, with an
    // error rather than a silent fall back to the user's file.
    if local.symlink_metadata().is_ok() {
        let file = config_file::load(command, &local, Found::InCurrentFolder)?;
        return Ok(Some((file, local, Found::InCurrentFolder)));
    }
    for (name, table) in PROJECT_FILES {
        let path = Path::new(".").join(name);
        if path.symlink_metadata().is_err() || !has_table(&path, table) {
            continue;
        }
        let file = load(command, &path, Found::InCurrentFolder, Some(table))?;
        return Ok(Some((file, path, Found::InCurrentFolder)));
    }
    let user = dirs::config_dir()
        .map(|d| d.join("linkpatrol").join("config.toml"))
        .filter(|p| p.is_file());
    match user {
        Some(path) => Ok(Some((
            config_file::load(command, &path, Found::InUserFolder)?,
            path,
            Found::InUserFolder,
        ))),
        None => Ok(None),
    }
}

/// The table a named file is read for: by its name, `pyproject.toml` and `Cargo.toml`.
fn table_of(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    PROJECT_FILES
        .iter()
        .find(|(file, _)| *file == name)
        .map(|(_, table)| *table)
}

/// `true` when the project file at `path` (in the current folder) is TOML with `table`.
fn has_table(path: &Path, table: &str) -> bool {
    let Ok(bytes) = linkpatrol::checkout_file::read(path, Some(Path::new(".")), CONFIG_MAX) else {
        return false;
    };
    let Ok(doc) = String::from_utf8(bytes).map(|t| t.parse::<toml::Table>()) else {
        return false;
    };
    doc.ok().is_some_and(|d| table_in(&d, table).is_some())
}

/// The most bytes of a project file read for its table (a `Cargo.toml` of a big workspace
/// is tens of kilobytes).
const CONFIG_MAX: u64 = 1 << 20;

/// The config of `path`: the whole file, or its `table` (an error when it has none).
fn load(command: &Command, path: &Path, found: Found, table: Option<&str>) -> Result<FileConfig> {
    let Some(table) = table else {
        return config_file::load(command, path, found);
    };
    let shown = path.display();
    let folder = (found == Found::InCurrentFolder).then_some(Path::new("."));
    let bytes = linkpatrol::checkout_file::read(path, folder, CONFIG_MAX)
        .map_err(|why| anyhow!("cannot read config file `{shown}': it {why}"))?;
    let text =
        String::from_utf8(bytes).map_err(|_| anyhow!("config file `{shown}' is not UTF-8 text"))?;
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| anyhow!("config file `{shown}': {}", e.message().trim()))?;
    let Some(wanted) = table_in(&doc, table) else {
        return Err(anyhow!(
            "config file `{shown}' has no [{table}] table: put linkpatrol's settings there"
        ));
    };
    // The table's own lines, at their places, when a plain reading of the headers finds it
    // (its line numbers then name the file's lines); else the table written out again.
    let cut = only_table(&text, table);
    let text = match cut.parse::<toml::Table>() {
        Ok(t) if &t == wanted => cut,
        _ => toml::to_string(wanted).map_err(|e| anyhow!("config file `{shown}': {e}"))?,
    };
    config_file::parse(command, &text).map_err(|e| anyhow!("config file `{shown}' [{table}]{e}"))
}

/// The table `dotted` (`tool.linkpatrol`) of `doc`, if it has one.
fn table_in<'a>(doc: &'a toml::Table, dotted: &str) -> Option<&'a toml::Table> {
    let mut at = doc;
    for part in dotted.split('.') {
        at = at.get(part)?.as_table()?;
    }
    Some(at)
}

/// `text` with every line outside the table `dotted` blanked (so lines keep their numbers)
/// and the table's headers made top-level: `[tool.linkpatrol]` goes, `[[tool.linkpatrol.hosts]]`
/// becomes `[[hosts]]`. A plain reading: the caller checks the result against the parser's.
fn only_table(text: &str, dotted: &str) -> String {
    let mut inside = false;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(name) = header(trimmed) {
            let double = trimmed.starts_with("[[");
            if name == dotted {
                inside = true;
                out.push('\n');
                continue;
            }
            match name.strip_prefix(dotted).and_then(|r| r.strip_prefix('.')) {
                Some(rest) => {
                    inside = true;
                    let (open, close) = if double { ("[[", "]]") } else { ("[", "]") };
                    out.push_str(&format!("{open}{rest}{close}\n"));
                }
                None => {
                    inside = false;
                    out.push('\n');
                }
            }
            continue;
        }
        if inside {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The dotted name of a table header line (`[ tool . linkpatrol ]` → `tool.linkpatrol`), with
/// the spaces around its parts taken out; `None` for any other line.
fn header(line: &str) -> Option<String> {
    let inner = line
        .strip_prefix("[[")
        .and_then(|l| l.split_once("]]"))
        .or_else(|| line.strip_prefix('[').and_then(|l| l.split_once(']')))?;
    let (name, after) = inner;
    let after = after.trim();
    if !(after.is_empty() || after.starts_with('#')) {
        return None;
    }
    Some(
        name.split('.')
            .map(|p| p.trim().trim_matches('"'))
            .collect::<Vec<_>>()
            .join("."),
    )
}

/// `later` over `into`: its plain keys replace theirs, its `[[hosts]]` and `[[auth]]` add up,
/// its `[plugins.NAME]` replace theirs.
fn merge_into(into: &mut FileConfig, later: FileConfig) {
    for key in later.keys {
        into.keys.retain(|k| k.key != key.key);
        into.keys.push(key);
    }
    into.sections.hosts.extend(later.sections.hosts);
    into.sections.auth.extend(later.sections.auth);
    into.sections.plugins.extend(later.sections.plugins);
}

#[cfg(test)]
mod tests {
    use super::*;

    const PYPROJECT: &str = "[project]\nname = \"x\"\n\n[tool.linkpatrol]\nthreads = 3\n\
        exclude = [\"a\"]\n\n[[tool.linkpatrol.hosts]]\npattern = \"h\"\n\n[tool.black]\n\
        line-length = 1\n";

    #[test]
    fn the_table_keeps_its_line_numbers() {
        let cut = only_table(PYPROJECT, "tool.linkpatrol");
        let file = config_file::parse(&crate::settings::command(), &cut).unwrap();
        assert_eq!(file.get("threads").unwrap().line, 5);
        assert_eq!(file.get("exclude").unwrap().line, 6);
        assert_eq!(file.sections.hosts.len(), 1);
        assert!(file.get("line-length").is_none());
        let doc: toml::Table = PYPROJECT.parse().unwrap();
        assert_eq!(
            &cut.parse::<toml::Table>().unwrap(),
            table_in(&doc, "tool.linkpatrol").unwrap()
        );
    }

    #[test]
    fn later_files_win_key_by_key() {
        let mut a = config_file::parse(
            &crate::settings::command(),
            "threads = 2\ntimeout = 5\n[[hosts]]\npattern = 'a'\n",
        )
        .unwrap();
        let b = config_file::parse(
            &crate::settings::command(),
            "threads = 7\n[[hosts]]\npattern = 'b'\n",
        )
        .unwrap();
        merge_into(&mut a, b);
        assert_eq!(a.get("threads").unwrap().value, toml::Value::Integer(7));
        assert_eq!(a.get("timeout").unwrap().value, toml::Value::Integer(5));
        assert_eq!(a.sections.hosts.len(), 2);
    }
}
