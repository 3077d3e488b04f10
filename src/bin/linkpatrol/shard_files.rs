//! The files of a check split by host (`--shard I/N`): phase 1 writes the links it exports
//! (`--export-external FILE`), phase 2 reads them back (`--external-from FILE`).
//!
//! An export file is NDJSON: one line per exported link occurrence, the JSON report's entry
//! object (`linkpatrol::report::entry_json`) plus `"type": "export"` and `"shard"` (the shard
//! that checks it). Phase 2 reads the `url`, `fragment`, `parent`, `urlname`, `line`,
//! `column`, `name`, `base` and `level` of the lines whose URL its shard owns; it trusts no
//! line (a bad one is an error naming the file and line).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use linkpatrol::report::{entry_json, read_ndjson_line};
use linkpatrol::{Entry, FoundLink, Shard};
use serde_json::Value;
use url::Url;

/// Writes exported link occurrences, one NDJSON line each.
pub struct ExportWriter {
    out: BufWriter<File>,
    path: PathBuf,
}

impl ExportWriter {
    /// Creates (truncates) `path`; a symbolic link there is replaced, never followed.
    pub fn create(path: &Path) -> Result<ExportWriter> {
        let file = linkpatrol::report::out_file::create_report_file(path)
            .with_context(|| format!("cannot write --export-external {}", path.display()))?;
        Ok(ExportWriter {
            out: BufWriter::new(file),
            path: path.to_owned(),
        })
    }

    /// Writes one exported occurrence.
    pub fn write(&mut self, entry: &Entry) -> io::Result<()> {
        let mut value = entry_json(entry);
        if let Value::Object(map) = &mut value {
            map.insert("type".into(), Value::from("export"));
            map.insert("shard".into(), Value::from(entry.result.exported_to));
        }
        serde_json::to_writer(&mut self.out, &value)?;
        self.out.write_all(b"\n")
    }

    /// Flushes what was written.
    pub fn finish(mut self) -> Result<()> {
        self.out
            .flush()
            .with_context(|| format!("cannot write --export-external {}", self.path.display()))
    }
}

/// The links of the export `files` that `shard` owns, in file and line order.
pub fn read_exports(files: &[PathBuf], shard: Shard) -> Result<Vec<FoundLink>> {
    let mut found = Vec::new();
    for path in files {
        let file = File::open(path)
            .with_context(|| format!("cannot read --external-from {}", path.display()))?;
        let mut reader = BufReader::new(file);
        for i in 0usize.. {
            let at = || format!("--external-from {}, line {}", path.display(), i + 1);
            let Some(line) = read_ndjson_line(&mut reader).with_context(at)? else {
                break;
            };
            let line = line.map_err(anyhow::Error::msg).with_context(at)?;
            if line.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(&line).with_context(at)?;
            if value.get("type").and_then(Value::as_str) != Some("export") {
                continue;
            }
            let link = found_link(&value).with_context(at)?;
            let url = Url::parse(&link.url).with_context(at)?;
            if shard.owns(&url) {
                found.push(link);
            }
        }
    }
    Ok(found)
}

/// The results of an NDJSON report (a shard's phase 1, written with `-v`), one per URL.
pub fn read_results(path: &Path) -> Result<Vec<std::sync::Arc<linkpatrol::CheckResult>>> {
    let file = File::open(path)
        .with_context(|| format!("cannot read --reuse-results {}", path.display()))?;
    let name = format!("--reuse-results {}", path.display());
    let report = linkpatrol::report::merge_ndjson([(name, BufReader::new(file))])?;
    let mut seen = std::collections::HashSet::new();
    Ok(report
        .entries
        .into_iter()
        .filter(|e| seen.insert(e.result.url.clone()))
        .map(|e| e.result)
        .collect())
}

/// One export line as a found link.
fn found_link(v: &Value) -> Result<FoundLink> {
    let text = |key: &str| v.get(key).and_then(Value::as_str);
    let number = |key: &str| {
        v.get(key)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    let Some(url) = text("url") else {
        bail!("no \"url\"")
    };
    let Some(parent) = text("parent") else {
        bail!("no \"parent\" (an export lists links found on pages)")
    };
    let Some(level) = number("level") else {
        bail!("no \"level\"")
    };
    let url = match text("fragment") {
        Some(f) => format!("{url}#{f}"),
        None => url.to_owned(),
    };
    Ok(
        FoundLink::new(url, parent, text("urlname").unwrap_or_default(), level)
            .at(number("line"), number("column"))
            .name(text("name").unwrap_or_default())
            .base(text("base").map(str::to_owned)),
    )
}
