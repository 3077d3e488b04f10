//! Start inputs from the command line: URLs and paths, `-` or `--stdin` (URLs on stdin), URL
//! list files (`--input-file`), and folders of Markdown files (a folder without `index.html`
//! stands for every `*.md` / `*.markdown` file below it). Every problem is one error naming the
//! input (and the line of a list), found before anything runs.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use linkpatrol::Config;
use url::Url;

use crate::args::Args;

/// Adds every start input of `args` to `config`.
pub fn add_inputs(mut config: Config, args: &Args) -> Result<Config> {
    let mut root_dir = args.root_dir.clone();
    // A folder input is the local site's root when --root-dir is not given.
    let folder_input = args.inputs.iter().any(|i| Path::new(i).is_dir());
    let mut from_stdin = args.stdin;
    for input in &args.inputs {
        if input == "-" {
            from_stdin = true;
            continue;
        }
        config = add_one(config, input, &mut root_dir, None)?;
    }
    for file in &args.input_file {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read input file `{}'", file.display()))?;
        let origin = file.display().to_string();
        config = add_list(config, &text, &origin, &mut root_dir)?;
    }
    if from_stdin {
        let mut text = String::new();
        for line in std::io::stdin().lock().lines() {
            text.push_str(&line.context("cannot read stdin")?);
            text.push('\n');
        }
        config = add_list(config, &text, "stdin", &mut root_dir)?;
    }
    if let (Some(base), None, false) = (&args.base_url, &root_dir, folder_input) {
        bail!("--base-url `{base}' needs the local site's folder: give --root-dir or a folder");
    }
    if let Some(dir) = root_dir {
        config = config.root_dir(dir);
    }
    Ok(config)
}

/// The inputs of a list: one per line, blank lines and `#` comments skipped.
fn add_list(
    mut config: Config,
    text: &str,
    origin: &str,
    root_dir: &mut Option<PathBuf>,
) -> Result<Config> {
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{origin}, line {}", i + 1);
        config = add_one(config, line, root_dir, Some(&at))?;
    }
    Ok(config)
}

/// One input: a URL, a file, or a folder (its `index.html`, else its Markdown files).
fn add_one(
    config: Config,
    input: &str,
    root_dir: &mut Option<PathBuf>,
    at: Option<&str>,
) -> Result<Config> {
    let place = at.map_or_else(String::new, |a| format!("{a}: "));
    if looks_like_url(input) {
        Url::parse(input.trim())
            .map_err(|e| anyhow::anyhow!("{place}`{input}' is not a valid URL: {e}"))?;
        return Ok(config.input_url(input));
    }
    let path = Path::new(input);
    let meta = std::fs::metadata(path)
        .map_err(|e| anyhow::anyhow!("{place}cannot read `{input}': {e}"))?;
    if meta.is_dir() && !path.join("index.html").is_file() {
        let files = markdown_files(path)?;
        if !files.is_empty() {
            root_dir.get_or_insert_with(|| path.to_path_buf());
            return Ok(files.into_iter().fold(config, Config::input_path));
        }
    }
    Ok(config.input_path(path))
}

/// Every Markdown file below `dir`, sorted; folders whose name starts with `.` are skipped.
fn markdown_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).with_context(|| format!("cannot read `{}'", d.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot read `{}'", d.display()))?;
            let path = entry.path();
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// `http://…`, `https://…`, `file:…` are URLs; anything else is a path.
pub fn looks_like_url(s: &str) -> bool {
    let lower = s.trim_start().to_ascii_lowercase();
    ["http://", "https://", "file:"]
        .iter()
        .any(|p| lower.starts_with(p))
}
