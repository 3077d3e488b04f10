//! Start inputs as a user names them, turned into the start URLs and files of a [`Config`]: URLs
//! and paths, `-` (URLs on stdin), URL list files, folders of Markdown files (a folder without
//! `index.html` stands for every Markdown file below it, or those of `extensions`), mdBooks,
//! glob patterns (`'docs/**/*.md'`: every file they match, or those of `extensions`; without
//! case with `glob_ignore_case`) and the files a git change touches
//! (`changed_since`). The command line, Python and the Rust API all read inputs here, so one
//! folder gives one report whichever door it came in by. Every problem is one error naming the
//! input (and the line of a list), found before anything runs; notes and warnings are handed
//! back for the caller to show.
//!
//! Folders and globs are walked as ripgrep walks them (the `ignore` crate): `.gitignore` (in a
//! git repository, as ripgrep: outside one only `.ignore` counts), `.ignore`, git's
//! `info/exclude` and global excludes are honoured, hidden files and folders are skipped, and
//! symbolic links are not followed — with `--follow` they are, but only to files inside the
//! walked folder (unless `--follow-outside-root`), and a link back to a folder being walked is
//! skipped, so a loop cannot be entered and each file is listed once.
//! `--no-ignore` and `--hidden` turn the first two rules off; `--exclude-path` drops the paths
//! (files or folders) a regex matches. The ignore files are the checkout's: each is checked
//! before the walk reads it (`walk_ignore_files.rs`), and a bad one ends the walk with an error.

mod changed;
pub(crate) mod checkout_file;
mod github_origin;
mod mdbook;
mod sources;
mod walk_ignore_files;
mod walk_watch;

use std::cell::RefCell;
use std::collections::HashSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobMatcher};
use parking_lot::Mutex;
use regex::Regex;
use url::Url;

use self::mdbook::Book;
pub use self::sources::SourceMap;
use self::walk_watch::{Progress, WalkWatch};
use crate::config::Config;
use crate::model::cancel::CancelHandle;
use crate::model::error::{Error, ErrorKind};

type Result<T> = std::result::Result<T, Error>;

/// An input error: what was wrong with which input.
fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, message)
}

/// Returns early with an [`invalid`] error, as `anyhow::bail!` would.
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err(invalid(format!($($arg)*)))
    };
}

/// The start inputs of a check and how folders are walked. Defaults to none, walked as ripgrep
/// walks (ignore files honoured, hidden files skipped, symbolic links not followed).
///
/// ```no_run
/// use linkpatrol::{Checker, Config, Inputs, Notice};
///
/// let resolved = Inputs::new().input("docs").resolve(Config::new())?;
/// for notice in &resolved.notices {
///     if let Notice::Warning(text) = notice {
///         eprintln!("warning: {text}");
///     }
/// }
/// let report = Checker::new(resolved.config)?.run()?;
/// # Ok::<(), linkpatrol::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    items: Vec<String>,
    list_files: Vec<PathBuf>,
    stdin: bool,
    walk: WalkOptions,
}

/// How folders and globs are walked, and which files a change picks.
#[derive(Debug, Clone, Default)]
struct WalkOptions {
    no_ignore: bool,
    hidden: bool,
    follow: bool,
    exclude_path: Vec<String>,
    extensions: Option<Vec<String>>,
    glob_ignore_case: bool,
    changed_since: Option<String>,
    cancel: Option<CancelHandle>,
    progress: Option<Progress>,
}

/// What [`Inputs::resolve`] found besides the start inputs.
#[derive(Debug)]
#[non_exhaustive]
pub struct Resolved {
    /// The configuration with the start inputs, the root folder, the mdBooks and the
    /// `.linkpatrolignore` patterns added.
    pub config: Config,
    /// Notes and warnings about the inputs (an mdBook read, a line of an ignore file skipped),
    /// as text chosen partly by the checked files: escape it before printing it.
    pub notices: Vec<Notice>,
    /// With `changed_since`: no Markdown or HTML file is touched by the change, so there is
    /// nothing to check.
    pub nothing_changed: bool,
}

/// A note or warning about the inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notice {
    /// Something the user may want to know (a folder read as an mdBook).
    Note(String),
    /// Something left out or not understood (a bad line of an ignore file, a folder that could
    /// not be read).
    Warning(String),
}

impl Inputs {
    /// No inputs yet.
    pub fn new() -> Self {
        Inputs::default()
    }

    /// Adds an input: a URL (`http`, `https`, `file`), a local file or folder, a glob pattern,
    /// or `-` (URLs on stdin).
    pub fn input(mut self, input: impl Into<String>) -> Self {
        self.items.push(input.into());
        self
    }

    /// Adds a file of URLs and paths, one a line (`#` starts a comment).
    pub fn list_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.list_files.push(path.into());
        self
    }

    /// Reads URLs and paths from stdin, one a line. Defaults to `false` (or `-` among the inputs).
    pub fn stdin(mut self, yes: bool) -> Self {
        self.stdin = yes;
        self
    }

    /// Walks without reading `.gitignore`, `.ignore` and git's exclude files. Defaults to `false`.
    pub fn no_ignore(mut self, yes: bool) -> Self {
        self.walk.no_ignore = yes;
        self
    }

    /// Walks hidden files and folders too (`.git` never). Defaults to `false`.
    pub fn hidden(mut self, yes: bool) -> Self {
        self.walk.hidden = yes;
        self
    }

    /// Follows symbolic links while walking (a link back into the walk is skipped; out of the
    /// folder only with [`Config::follow_outside_root`]). Defaults to `false`.
    pub fn follow(mut self, yes: bool) -> Self {
        self.walk.follow = yes;
        self
    }

    /// Leaves out the files and folders whose path matches this regex, walked or named.
    /// Defaults to none.
    pub fn exclude_path(mut self, regex: impl Into<String>) -> Self {
        self.walk.exclude_path.push(regex.into());
        self
    }

    /// The extensions of the files read in folder and glob walks (`md`, `html`; compared
    /// without case; a file without one has the config's default extension). Defaults to
    /// Markdown's ([`MARKDOWN_EXTENSIONS`](crate::MARKDOWN_EXTENSIONS)) in a folder without
    /// `index.html`, and every file a glob matches. A file named as an input is read whatever
    /// its extension.
    pub fn extensions(mut self, extensions: Vec<String>) -> Self {
        let kept = extensions
            .iter()
            .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        self.walk.extensions = Some(kept);
        self
    }

    /// Matches glob patterns without regard to case (`'docs/*.MD'` finds `a.md`); the folders
    /// before the first wildcard are taken as written. Defaults to `false`.
    pub fn glob_ignore_case(mut self, yes: bool) -> Self {
        self.walk.glob_ignore_case = yes;
        self
    }

    /// In a git checkout, checks only the Markdown and HTML files changed since `reference`,
    /// the files that name a file renamed or deleted since then, and the files that link into
    /// a changed file with a fragment (`guide.md#`); folder inputs limit it to themselves. Runs the `git` on PATH. Defaults to none.
    pub fn changed_since(mut self, reference: impl Into<String>) -> Self {
        self.walk.changed_since = Some(reference.into());
        self
    }

    /// Stops reading the inputs once `handle` is cancelled (a Ctrl-C while a huge folder is
    /// walked): [`resolve`](Self::resolve) then fails with [`ErrorKind::Interrupted`], whose
    /// message says how many files were found. Pass the checker's handle
    /// ([`Checker::with_cancel_handle`](crate::Checker::with_cancel_handle)) so one Ctrl-C
    /// stops whichever is running. Defaults to none.
    pub fn cancel_handle(mut self, handle: CancelHandle) -> Self {
        self.walk.cancel = Some(handle);
        self
    }

    /// Calls `progress` with the number of files found so far every 10,000 files the folder
    /// walks find, on the thread that resolves: a caller can say that a huge
    /// folder is being read. Defaults to none.
    pub fn on_progress(mut self, progress: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.walk.progress = Some(Progress(Arc::new(progress)));
        self
    }

    /// `true` when `input` names a URL (`http:`, `https:`, `file:`) rather than a path.
    pub fn is_url(input: &str) -> bool {
        looks_like_url(input)
    }

    /// The folder a path input points into: the folders of a glob pattern before its first
    /// wildcard (`.` when it starts with one), else the path itself.
    pub fn folder_of(input: &str) -> PathBuf {
        if is_glob(input) && !Path::new(input).exists() {
            glob_base(input)
        } else {
            PathBuf::from(input)
        }
    }

    /// Adds every input to `config`, with the root folder, the mdBooks found and the checked
    /// folder's `.linkpatrolignore` patterns. Reads `config`'s root folder, base URL, fallback
    /// and default extensions and whether links may lead out of the root. A file named (not
    /// walked) is added with [`Config::input_named_file`]: read whatever its extension.
    ///
    /// # Errors
    /// An input that cannot be read or parsed, a bad `exclude_path` regex, a `changed_since`
    /// outside a git checkout: one error naming the input.
    pub fn resolve(self, config: Config) -> Result<Resolved> {
        let walk = Walk::new(&self.walk, &config)?;
        let mut nothing_changed = false;
        let config = add_inputs(config, &self, &walk, &mut nothing_changed)?;
        Ok(Resolved {
            config,
            notices: walk.notices.into_inner(),
            nothing_changed,
        })
    }
}

/// How much compiled regex all the patterns of an untrusted file may take together (a local
/// config's, a `.linkpatrolignore`'s): each pattern gets an equal share (at most the 10 MB one
/// pattern may take anyway). Real URL patterns take a few KB each; 200 patterns of 10 MB each
/// once took 2.3 GB and 18 s.
pub const LOCAL_PATTERN_BUDGET: usize = 16 * 1024 * 1024;

/// How folders and globs are walked.
struct Walk {
    /// `--no-ignore`: ignore files are not read.
    no_ignore: bool,
    /// `--hidden`: hidden files and folders are walked too.
    hidden: bool,
    /// `--follow`: symbolic links are followed (loops skipped).
    follow: bool,
    /// `--follow-outside-root`: a followed link may lead out of the walked folder.
    anywhere: bool,
    /// `--exclude-path`: paths to leave out.
    exclude: Vec<Regex>,
    /// `--extensions`: the extensions of the files walks read, lower-case (`None`: Markdown
    /// in folders, every file in globs).
    extensions: Option<Vec<String>>,
    /// `--default-extension`: the extension of a file without one, lower-case.
    default_extension: Option<String>,
    /// `--glob-ignore-case`: globs match without regard to case.
    glob_ignore_case: bool,
    /// The mdBooks read so far.
    books: RefCell<Vec<Book>>,
    /// The cancel and the progress of all the walks.
    watch: WalkWatch,
    /// Notes and warnings so far.
    notices: RefCell<Vec<Notice>>,
}

impl Walk {
    fn new(options: &WalkOptions, config: &Config) -> Result<Walk> {
        let exclude = options
            .exclude_path
            .iter()
            .map(|p| {
                Regex::new(p)
                    .map_err(|e| invalid(format!("--exclude-path `{p}' is not a valid regex: {e}")))
            })
            .collect::<Result<_>>()?;
        Ok(Walk {
            no_ignore: options.no_ignore,
            hidden: options.hidden,
            follow: options.follow,
            anywhere: config.follow_outside_root,
            exclude,
            extensions: options.extensions.clone(),
            default_extension: config
                .default_extension
                .as_ref()
                .map(|e| e.to_ascii_lowercase()),
            glob_ignore_case: options.glob_ignore_case,
            books: RefCell::default(),
            watch: WalkWatch::new(options.cancel.clone(), options.progress.clone()),
            notices: RefCell::default(),
        })
    }

    fn warn(&self, text: String) {
        self.notices.borrow_mut().push(Notice::Warning(text));
    }

    /// `true` when a folder walk reads `path`: its extension (or the default extension) is
    /// one of `--extensions`, else a Markdown extension.
    fn wanted_in_folder(&self, path: &Path) -> bool {
        match &self.extensions {
            Some(_) => self.has_extension(path),
            None => match (path.extension(), &self.default_extension) {
                (None, Some(default)) => is_markdown(Path::new(&format!("x.{default}"))),
                _ => is_markdown(path),
            },
        }
    }

    /// `true` when a glob walk reads `path`, which the pattern matches: every file, or with
    /// `--extensions` those with one of them.
    fn wanted_in_glob(&self, path: &Path) -> bool {
        self.extensions.is_none() || self.has_extension(path)
    }

    /// `true` when `path`'s extension (the default one when it has none) is in `--extensions`.
    fn has_extension(&self, path: &Path) -> bool {
        let Some(wanted) = &self.extensions else {
            return false;
        };
        let ext = match path.extension() {
            Some(e) => e.to_string_lossy().to_ascii_lowercase(),
            None => match &self.default_extension {
                Some(d) => d.clone(),
                None => return false,
            },
        };
        wanted.contains(&ext)
    }

    fn excluded(&self, path: &Path) -> bool {
        let text = path.to_string_lossy();
        self.exclude.iter().any(|r| r.is_match(&text))
    }

    /// Every file below `dir` that `wanted` accepts, sorted, each file once (by its real
    /// path, so two links to one file list it once).
    fn files(&self, dir: &Path, wanted: &dyn Fn(&Path) -> bool) -> Result<Vec<PathBuf>> {
        let mut builder = ignore::WalkBuilder::new(dir);
        builder
            .standard_filters(!self.no_ignore)
            .hidden(!self.hidden)
            .follow_links(self.follow)
            .sort_by_file_name(|a, b| a.cmp(b));
        let exclude = self.exclude.clone();
        let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        // The ignore files the walk reads are the checkout's: each is checked before the
        // `ignore` crate reads it, the root's and its parents' now, a folder's own before the
        // walk enters it (see `walk_ignore_files.rs`). A bad one ends the walk with an error.
        let read_ignore_files = !self.no_ignore;
        if read_ignore_files {
            for folder in root.ancestors() {
                let inside = (folder == root).then_some(root.as_path());
                walk_ignore_files::check_folder(folder, inside).map_err(invalid)?;
            }
        }
        let refused = Arc::new(Mutex::new(None));
        let refused_in_walk = Arc::clone(&refused);
        let walk_root = root.clone();
        builder.filter_entry(move |e| {
            if e.file_name() == ".git"
                || exclude
                    .iter()
                    .any(|r| r.is_match(&e.path().to_string_lossy()))
            {
                return false;
            }
            if read_ignore_files && e.file_type().is_some_and(|t| t.is_dir()) {
                let checked = walk_ignore_files::check_folder(e.path(), Some(&walk_root));
                if let Err(why) = checked {
                    refused_in_walk.lock().get_or_insert(why);
                    return false;
                }
            }
            true
        });
        let mut found = Vec::new();
        let mut seen = HashSet::new();
        for entry in builder.build() {
            self.watch.check()?;
            let entry = match entry {
                Ok(e) => e,
                // A symbolic link back into the walk (only with --follow): skipped, its target
                // is walked already.
                Err(e) if is_loop(&e) => continue,
                // A folder that cannot be read: said, and the rest is walked (as ripgrep does).
                Err(e) => {
                    self.warn(walk_ignore_files::warning(&e));
                    continue;
                }
            };
            // A bad line in a folder's ignore file: said (by its number), the rest is used.
            if let Some(e) = entry.error() {
                self.warn(walk_ignore_files::warning(e));
            }
            // Without --follow a symbolic link is not a file of the walk (ripgrep's rule).
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let path = entry.path();
            if !wanted(path) {
                continue;
            }
            // Without --follow no link is on the way down: each path is a file of its own
            // inside the root, and neither a `canonicalize` (its cost grows with the depth
            // squared) nor a set of real paths (a path each, 50,000 in the Rust docs) is needed.
            if !self.follow && path.starts_with(dir) {
                found.push(path.to_path_buf());
                self.watch.found_one();
                continue;
            }
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            // A followed link out of the folder: not read, as a link out of a checked folder.
            if !self.anywhere && !real.starts_with(&root) {
                continue;
            }
            if seen.insert(real) {
                found.push(path.to_path_buf());
                self.watch.found_one();
            }
        }
        if let Some(why) = refused.lock().take() {
            bail!("{why}");
        }
        found.sort();
        Ok(found)
    }
}

/// `true` for the error of a symbolic link that leads back into the walk.
fn is_loop(e: &ignore::Error) -> bool {
    match e {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => is_loop(err),
        _ => false,
    }
}

/// Adds every start input of `inputs` to `config`.
fn add_inputs(
    mut config: Config,
    inputs: &Inputs,
    walk: &Walk,
    nothing_changed: &mut bool,
) -> Result<Config> {
    let mut root_dir = config.root_dir.clone();
    // A folder input is the local site's root when --root-dir is not given.
    let folder_input = inputs.items.iter().any(|i| Path::new(i).is_dir());
    let mut from_stdin = inputs.stdin;
    let changed_since = &inputs.walk.changed_since;
    if let Some(reference) = changed_since {
        match add_changed(config, reference, inputs, &mut root_dir, walk)? {
            Some(changed) => config = changed,
            None => {
                *nothing_changed = true;
                return Ok(Config::default());
            }
        }
    }
    for input in inputs.items.iter().filter(|_| changed_since.is_none()) {
        walk.watch.check()?;
        if input == "-" {
            from_stdin = true;
            continue;
        }
        config = add_one(config, input, &mut root_dir, None, walk)?;
    }
    for file in &inputs.list_files {
        let text = std::fs::read_to_string(file).map_err(|e| {
            invalid(format!("cannot read input file `{}'", file.display())).with_source(e)
        })?;
        let origin = file.display().to_string();
        config = add_list(config, &text, &origin, &mut root_dir, walk)?;
    }
    if from_stdin {
        let mut text = String::new();
        for line in std::io::stdin().lock().lines() {
            text.push_str(&line.map_err(|e| invalid("cannot read stdin").with_source(e))?);
            text.push('\n');
        }
        config = add_list(config, &text, "stdin", &mut root_dir, walk)?;
    }
    if let (Some(base), None, false) = (&config.base_url, &root_dir, folder_input) {
        bail!("--base-url `{base}' needs the local site's folder: give --root-dir or a folder");
    }
    // An mdBook is checked as the site it builds: `.html` links name `.md` sources,
    // `index.html` is a folder's README.md, and only the chapters SUMMARY.md lists are pages
    // (see `mdbook.rs`).
    let books = walk.books.borrow();
    for book in books.iter() {
        config = config.mdbook(&book.src, book.chapters.clone());
        // Deployed at its `site-url`, else at --base-url when the book is the checked folder.
        let public = book.site_url.clone().or_else(|| {
            let checked = root_dir
                .as_deref()
                .is_some_and(|r| same_folder(r, &book.dir));
            config.base_url.clone().filter(|_| checked)
        });
        config = config.site_root(&book.src, public);
        for (page, target) in &book.redirects {
            config = config.mdbook_redirect(&book.src, page, target);
        }
    }
    if let Some(first) = books.first() {
        let first = first.dir.display();
        let which = match books.len() {
            1 => format!("`{first}' is read as an mdBook"),
            n => format!("{n} folders are read as mdBooks (`{first}', …)"),
        };
        walk.notices.borrow_mut().push(Notice::Note(format!(
            "{which} (book.toml): a link to page.html is page.md, index.html is README.md"
        )));
    }
    drop(books);
    if !walk.books.borrow().is_empty() {
        let mut extensions = vec!["md".to_owned()];
        extensions.extend(config.fallback_extensions.iter().cloned());
        config = config.fallback_extensions(extensions).readme_as_index(true);
    }
    // The checked folder's ignore file: --root-dir's, else the first folder given, else the
    // current folder's (where a pre-commit hook or a CI job runs: the repository's root).
    let folder = root_dir
        .clone()
        .or_else(|| inputs.items.iter().map(PathBuf::from).find(|p| p.is_dir()))
        .unwrap_or_else(|| PathBuf::from("."));
    for pattern in ignore_file(&folder, walk) {
        config = config.ignore_file_pattern(pattern);
    }
    // The checked folder's repository on GitHub: links to its files there are checked here
    // (only when local files are checked: a web crawl started in a checkout is not about it).
    let local = config.inputs().iter().any(|i| match i {
        crate::config::Input::Path(_) => true,
        crate::config::Input::Url(u) => u.trim_start().starts_with("file:"),
        _ => false,
    });
    if local && let Some((checkout, repository)) = github_origin::github_origin(&folder) {
        walk.notices.borrow_mut().push(Notice::Note(format!(
            "`{}' is a checkout of {repository}: links to its files there (blob/…, tree/…) \
             are checked in the checkout",
            checkout.display()
        )));
        config = config.github_checkout(repository, checkout);
    }
    if let Some(dir) = root_dir {
        config = config.root_dir(dir);
    }
    Ok(config)
}

/// `true` when `a` and `b` name one folder.
fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The file of URL patterns not to check, at the checked folder's root (as lychee's
/// `.lycheeignore`).
const IGNORE_FILE: &str = ".linkpatrolignore";

/// Most bytes of an ignore file read; the rest is left out, with a warning.
const IGNORE_FILE_MAX: u64 = 64 * 1024;

/// Most bad lines of an ignore file warned about one by one; the rest are counted.
const IGNORE_WARNINGS_MAX: usize = 10;

/// Most compiled size of one pattern of an ignore file.
const IGNORE_PATTERN_MAX: usize = 256 * 1024;

/// The patterns of the ignore file in `folder`: one regex a line, blank lines and `#`
/// comments skipped. The file comes from the checkout: it is read only as a regular file
/// inside `folder` (see `checkout_file.rs`), it can only narrow the check (a pattern leaves
/// links out), its patterns share the compiled size a local config's patterns may take, and
/// a bad line is warned about by its number, never its text (the file may be a link to
/// secrets), and skipped, which checks more, never less than asked: the file cannot stop a run.
fn ignore_file(folder: &Path, walk: &Walk) -> Vec<Regex> {
    use self::checkout_file::{Refused, read_prefix};
    let path = folder.join(IGNORE_FILE);
    let shown = path.display().to_string();
    let warn = |what: String| walk.warn(what);
    let (bytes, whole) = match read_prefix(&path, Some(folder), IGNORE_FILE_MAX) {
        Ok(read) => read,
        Err(Refused::Missing) => return Vec::new(),
        Err(why) => {
            warn(format!("{shown} is not read: it {why}"));
            return Vec::new();
        }
    };
    if !whole {
        warn(format!(
            "{shown}: only its first {IGNORE_FILE_MAX} bytes are read"
        ));
    }
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<(usize, &str)> = text
        .lines()
        .map(str::trim)
        .enumerate()
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .collect();
    let Some(share) = LOCAL_PATTERN_BUDGET.checked_div(lines.len()) else {
        return Vec::new();
    };
    let share = share.min(IGNORE_PATTERN_MAX);
    let mut patterns = Vec::new();
    let mut skipped = 0;
    for (i, line) in lines {
        let why = match regex::RegexBuilder::new(line)
            .size_limit(share)
            .dfa_size_limit(share)
            .build()
        {
            Ok(r) => {
                patterns.push(r);
                continue;
            }
            Err(regex::Error::CompiledTooBig(_)) => format!(
                "needs more than its share ({} KB) of the {} MB the file's patterns may use",
                share / 1024,
                LOCAL_PATTERN_BUDGET >> 20
            ),
            Err(_) => "not a valid regex".to_owned(),
        };
        skipped += 1;
        if skipped <= IGNORE_WARNINGS_MAX {
            warn(format!("{shown}, line {}: {why}, skipped", i + 1));
        }
    }
    if skipped > IGNORE_WARNINGS_MAX {
        warn(format!(
            "{shown}: {} more lines skipped",
            skipped - IGNORE_WARNINGS_MAX
        ));
    }
    patterns
}

/// The files a change since `reference` touches (see `changed.rs`), those under the inputs
/// given when there are any; the checkout's top folder is the site's root. `None` when there
/// are none: there is nothing to check.
fn add_changed(
    mut config: Config,
    reference: &str,
    inputs: &Inputs,
    root_dir: &mut Option<PathBuf>,
    walk: &Walk,
) -> Result<Option<Config>> {
    let (files, top) = changed::changed_files(reference, &|text| walk.warn(text))?;
    let within: Vec<PathBuf> = inputs
        .items
        .iter()
        .filter(|i| *i != "-" && !looks_like_url(i))
        .filter_map(|i| std::fs::canonicalize(i).ok())
        .collect();
    let mut n = 0;
    for file in files {
        let real = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if (!within.is_empty() && !within.iter().any(|w| real.starts_with(w)))
            || walk.excluded(&file)
        {
            continue;
        }
        config = config.input_path(file);
        n += 1;
    }
    if n == 0 {
        return Ok(None);
    }
    root_dir.get_or_insert(top);
    Ok(Some(config))
}

/// The inputs of a list: one per line, blank lines and `#` comments skipped.
fn add_list(
    mut config: Config,
    text: &str,
    origin: &str,
    root_dir: &mut Option<PathBuf>,
    walk: &Walk,
) -> Result<Config> {
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{origin}, line {}", i + 1);
        config = add_one(config, line, root_dir, Some(&at), walk)?;
    }
    Ok(config)
}

/// One input: a URL, a file, a folder (its `index.html`, else its Markdown files) or a glob.
fn add_one(
    config: Config,
    input: &str,
    root_dir: &mut Option<PathBuf>,
    at: Option<&str>,
    walk: &Walk,
) -> Result<Config> {
    let place = at.map_or_else(String::new, |a| format!("{a}: "));
    if looks_like_url(input) {
        Url::parse(input.trim())
            .map_err(|e| invalid(format!("{place}`{input}' is not a valid URL: {e}")))?;
        return Ok(config.input_url(input));
    }
    let path = Path::new(input);
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(_) if is_glob(input) => return add_glob(config, input, root_dir, &place, walk),
        Err(_) if let Some(scheme) = other_scheme(input) => bail!(
            "{place}`{input}': {scheme}: URLs are not checked (inputs are \
             http, https and file URLs, and local paths)"
        ),
        Err(e) => {
            let hint = url_hint(input).map_or_else(String::new, |u| format!("; did you mean {u}?"));
            let text = format!("{place}cannot read `{input}': {e}{hint}");
            return Err(Error::new(ErrorKind::Io, text).with_source(e));
        }
    };
    if meta.is_dir()
        && let Some(book) = Book::at(path)
    {
        // The book's sources and the repository's other Markdown (README, CONTRIBUTING);
        // `/` in a link is the book's root. A source the book does not render is no page.
        let (files, nested) = books_below(walk, path, Some(&book))?;
        if !files.is_empty() {
            root_dir.get_or_insert(book.src.clone());
            walk.books.borrow_mut().push(book);
            walk.books.borrow_mut().extend(nested);
            return Ok(files.into_iter().fold(config, Config::input_path));
        }
    }
    if meta.is_dir() && !path.join("index.html").is_file() {
        let (files, books) = books_below(walk, path, None)?;
        walk.books.borrow_mut().extend(books);
        if !files.is_empty() {
            root_dir.get_or_insert_with(|| path.to_path_buf());
            return Ok(files.into_iter().fold(config, Config::input_path));
        }
    }
    if !meta.is_dir() && walk.excluded(path) {
        return Ok(config);
    }
    if meta.is_dir() {
        // Its listing (no index.html) names only what the walk keeps: one set of rules.
        let kept = walk.files(path, &|_: &Path| true)?;
        let config = config.walked_folder(path, kept);
        // A local site starts at its index.html, whatever `index_files` makes of folder links.
        let index = path.join("index.html");
        if config.index_files.first().is_none_or(|n| n != "index.html") && index.is_file() {
            root_dir.get_or_insert_with(|| path.to_path_buf());
            return Ok(config.input_path(index));
        }
        return Ok(config.input_path(path));
    }
    // Named, so read whatever its extension (as plain text when its type is not read).
    Ok(config.input_named_file(path))
}

/// The Markdown files below `dir` and the mdBooks there: a `book.toml` the walk finds starts
/// a book in its folder (an old edition kept beside the current book), read as `top`, the
/// book of `dir` itself, is: its links are resolved as mdBook resolves them, a link out of its
/// sources goes to the deployed site, and the sources a book does not render are no pages.
fn books_below(walk: &Walk, dir: &Path, top: Option<&Book>) -> Result<(Vec<PathBuf>, Vec<Book>)> {
    let is_book_toml = |p: &Path| p.file_name().is_some_and(|n| n == "book.toml");
    let mut files = walk.files(dir, &|p: &Path| walk.wanted_in_folder(p) || is_book_toml(p))?;
    let books: Vec<Book> = files
        .iter()
        .filter(|f| is_book_toml(f))
        .filter_map(|f| f.parent())
        .filter(|folder| top.is_none_or(|t| !same_folder(folder, &t.dir)))
        .filter_map(Book::at)
        .collect();
    files.retain(|f| !is_book_toml(f) && !top.into_iter().chain(&books).any(|b| b.unrendered(f)));
    Ok((files, books))
}

/// Every file `pattern` matches, walked from its folder part (`docs` of `docs/**/*.md`); that
/// folder is the local site's root when --root-dir is not given. A pattern that matches
/// nothing is an error, as a missing file is.
fn add_glob(
    config: Config,
    pattern: &str,
    root_dir: &mut Option<PathBuf>,
    place: &str,
    walk: &Walk,
) -> Result<Config> {
    let matcher: GlobMatcher = GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(walk.glob_ignore_case)
        .build()
        .map_err(|e| invalid(format!("{place}`{pattern}' is not a valid glob: {e}")))?
        .compile_matcher();
    let base = glob_base(pattern);
    // The walk from `.` names `./a.md`, which `*.md` is to match.
    let bare = !pattern.starts_with("./");
    let files = walk.files(&base, &|p: &Path| {
        let p = if bare {
            p.strip_prefix(".").unwrap_or(p)
        } else {
            p
        };
        matcher.is_match(p) && walk.wanted_in_glob(p)
    })?;
    if files.is_empty() {
        bail!("{place}`{pattern}' matches no file");
    }
    root_dir.get_or_insert(base);
    Ok(files.into_iter().fold(config, Config::input_path))
}

/// `true` when `input` holds a glob metacharacter (`*`, `?`, `[`, `{`).
pub(crate) fn is_glob(input: &str) -> bool {
    input.contains(['*', '?', '[', '{'])
}

/// The folders of `pattern` before its first component with a metacharacter (`.` if none).
pub(crate) fn glob_base(pattern: &str) -> PathBuf {
    let mut base = PathBuf::new();
    for part in Path::new(pattern).components() {
        if is_glob(&part.as_os_str().to_string_lossy()) {
            break;
        }
        base.push(part);
    }
    if base.as_os_str().is_empty() || base == Path::new(pattern) {
        PathBuf::from(".")
    } else {
        base
    }
}

/// `*.md` and `*.markdown` files.
fn is_markdown(path: &Path) -> bool {
    crate::config::is_markdown_path(path)
}

/// `http://…`, `https://…`, `file:…` are URLs; anything else is a path.
pub(crate) fn looks_like_url(s: &str) -> bool {
    let lower = s.trim_start().to_ascii_lowercase();
    ["http://", "https://", "file:"]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// The scheme of an input that is a URL of a scheme not checked (`ftp` for
/// `ftp://host/x`, `mailto` for `mailto:a@b.test`).
fn other_scheme(input: &str) -> Option<String> {
    let url = Url::parse(input.trim()).ok()?;
    let scheme = url.scheme();
    // A Windows drive (`C:\\docs`) parses as a one-letter scheme.
    (scheme.len() > 1 && !matches!(scheme, "http" | "https" | "file")).then(|| scheme.to_owned())
}

/// The URL meant by an input that names a host without a scheme (`example.org`,
/// `www.example.org/docs`, `localhost:8000`): none for what looks like a file name
/// (`README.md`, `index.html`). Only the text is looked at: no lookup of the name.
fn url_hint(input: &str) -> Option<String> {
    let input = input.trim();
    let host_port = input.split(['/', '?', '#']).next()?;
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => (h, Some(p)),
        Some(_) => return None,
        None => (host_port, None),
    };
    let labels: Vec<&str> = host.split('.').collect();
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
    };
    let tld = labels.last()?;
    const FILE_EXTENSIONS: &[&str] = &[
        "md", "markdown", "html", "htm", "xhtml", "txt", "text", "xml", "css", "rst", "adoc",
        "json", "csv", "pdf", "toml", "yml", "yaml", "rs", "py", "js", "sh",
    ];
    let named_host = labels.len() >= 2
        && labels.iter().all(label_ok)
        && (2..=24).contains(&tld.len())
        && tld.bytes().all(|b| b.is_ascii_alphabetic())
        && !FILE_EXTENSIONS.contains(&tld.to_ascii_lowercase().as_str());
    let local =
        host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::Ipv4Addr>().is_ok();
    let scheme = if local {
        "http"
    } else if named_host {
        "https"
    } else {
        return None;
    };
    if local
        && port.is_none()
        && !input.contains('/')
        && host.parse::<std::net::Ipv4Addr>().is_err()
    {
        // `localhost` alone is more likely a file or folder name than a site.
        return None;
    }
    Url::parse(&format!("{scheme}://{input}"))
        .ok()
        .map(|u| u.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_without_scheme_gets_a_url_hint_a_file_name_none() {
        assert_eq!(
            url_hint("example.org").as_deref(),
            Some("https://example.org/")
        );
        assert_eq!(
            url_hint("www.example.org/docs?x=1").as_deref(),
            Some("https://www.example.org/docs?x=1")
        );
        assert_eq!(
            url_hint("localhost:8000/a").as_deref(),
            Some("http://localhost:8000/a")
        );
        assert_eq!(url_hint("127.0.0.1").as_deref(), Some("http://127.0.0.1/"));
        for file in [
            "README.md",
            "index.html",
            "docs/a.md",
            "notes",
            "localhost",
            "a..b",
            "x:y",
        ] {
            assert_eq!(url_hint(file), None, "{file}");
        }
        assert_eq!(other_scheme("ftp://127.0.0.1/x").as_deref(), Some("ftp"));
        assert_eq!(other_scheme("C:\\docs"), None);
        assert_eq!(other_scheme("https://a.test/"), None);
        assert_eq!(other_scheme("example.org"), None);
    }

    #[test]
    fn the_base_of_a_glob_is_its_folders_before_the_first_pattern() {
        assert_eq!(glob_base("docs/**/*.md"), PathBuf::from("docs"));
        assert_eq!(glob_base("./docs/a*/x.md"), PathBuf::from("./docs"));
        assert_eq!(glob_base("*.md"), PathBuf::from("."));
        assert!(is_glob("docs/{a,b}.md") && !is_glob("docs/a.md"));
    }

    #[test]
    fn an_ignore_files_patterns_share_one_budget() {
        let dir =
            std::env::temp_dir().join(format!("linkpatrol-ignore-budget-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let walk = Walk::new(&WalkOptions::default(), &Config::default()).unwrap();
        let size = |n: usize| {
            std::fs::write(dir.join(IGNORE_FILE), "\\w{3}\n".repeat(n)).unwrap();
            ignore_file(&dir, &walk).len()
        };
        let (few, many) = (size(10), size(3000));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(few, 10);
        assert_eq!(many, 0);
    }
}
