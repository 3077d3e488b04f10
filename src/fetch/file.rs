//! `file:` URLs: the file exists (a folder means its first index file, `index.html` by default,
//! or a listing of its entries when it has none and `.` is among them), and its content when it
//! is a page we will parse (by extension; a start file named as such of an unknown type as
//! plain text).
//!
//! Only files inside the checked folders are read ([`FileScope`]): the decision is made on the
//! path the file system would open — percent-escapes decoded (`..%2F`), `..` resolved and
//! symbolic links followed — not on the URL's text, which a link can dress up. A file outside
//! is checked for existence only, except inside the git work tree of a checked folder
//! (`work_tree.rs`): GitHub shows the whole tree, so a file there is read when its anchors are
//! asked for (never parsed for links: it is no page of the check), without a warning.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs::Metadata;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use url::Url;

use super::Fetched;
use super::book_redirects::{BookRedirects, Target};
use super::real_path::{real_path, real_path_of_entry};
use super::walked::Walked;
use super::work_tree::WorkTrees;
use crate::extract::format::{Format, is_parsed};
use crate::model::outcome::{FailKind, Outcome, Warning};

/// The folders whose files a run may read: every other file is checked for existence only.
#[derive(Debug, Clone)]
pub(crate) struct FileScope {
    /// Canonical folders (symbolic links resolved). Empty: no local start, nothing to guard.
    roots: Vec<PathBuf>,
    /// Read files anywhere (`Config::follow_outside_root`).
    anywhere: bool,
    /// The canonical roots of the git work trees that hold `roots` (see `work_tree.rs`): their
    /// files are read for anchors too. Empty with `anywhere`.
    trees: Vec<PathBuf>,
    /// Extensions tried, in order, for a file that does not exist (`Config::fallback_extensions`).
    pub(crate) fallback: Vec<String>,
    /// A missing `index.html` is its folder's `README.md` (`Config::readme_as_index`).
    pub(crate) readme_index: bool,
    /// The mdBooks whose summaries are known (`Config::mdbook`): only their chapters are pages.
    pub(crate) books: Vec<BookPages>,
    /// The pages the mdBooks' `[output.html.redirect]` tables create (`Config::mdbook_redirect`).
    pub(crate) redirects: BookRedirects,
    /// What the folder walks kept (`Config::walked_folder`): all a listing inside them names.
    pub(crate) walked: Walked,
    /// The media type of a file whose name has no extension (`Config::default_extension`).
    pub(crate) default_type: Option<&'static str>,
    /// Start files named as such, whose type is not read: read as plain text
    /// (`Config::input_named_file`), by the path of their start URL.
    pub(crate) named_text: HashSet<PathBuf>,
    /// The names a folder link stands for, in order; `.` is the listing (`Config::index_files`).
    pub(crate) index: Vec<String>,
}

impl Default for FileScope {
    /// No folders to guard, and the default index files.
    fn default() -> Self {
        FileScope::new(Vec::new(), false)
    }
}

/// The pages an mdBook renders from its sources: the chapters its `SUMMARY.md` lists, and
/// `404.md`. mdBook copies every other file of its source folder as it is, except `.md` files:
/// a `.md` file it does not list is on no page of the site.
#[derive(Debug, Clone)]
pub(crate) struct BookPages {
    /// The source folder, canonical.
    src: PathBuf,
    /// The chapters, `SUMMARY.md` and `404.md`, canonical (those that exist).
    pages: HashSet<PathBuf>,
}

impl BookPages {
    /// The book with sources in `src` and these chapters; `None` when `src` does not resolve.
    pub(crate) fn new(src: &Path, chapters: &[PathBuf]) -> Option<BookPages> {
        let src = std::fs::canonicalize(src).ok()?;
        let pages = chapters
            .iter()
            .map(PathBuf::as_path)
            .chain([Path::new("SUMMARY.md"), Path::new("404.md")])
            .filter_map(|c| std::fs::canonicalize(src.join(c)).ok())
            .collect();
        Some(BookPages { src, pages })
    }
}

/// What the failure of a link to an mdBook source the book does not render ends with.
pub(crate) const UNRENDERED: &str = "not in SUMMARY.md, so mdBook does not render it";

impl FileScope {
    /// `true` when `page` (a page's URL) is no source of the mdBooks: a link from there to a
    /// source a book does not render is good (GitHub shows the file), though no page of the
    /// book's site links there.
    pub(crate) fn outside_books(&self, page: &str) -> bool {
        if self.books.is_empty() {
            return true;
        }
        let Some(path) = Url::parse(page).ok().and_then(|u| u.to_file_path().ok()) else {
            return true;
        };
        let real = std::fs::canonicalize(&path).unwrap_or(path);
        !self.books.iter().any(|b| real.starts_with(&b.src))
    }
}

/// `Some(message)` when `path` is a `.md` source of an mdBook in `books` that the book does
/// not render: a link to it is broken on the site.
fn unrendered(books: &[BookPages], path: &Path) -> Option<String> {
    if books.is_empty() || path.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let real = std::fs::canonicalize(path).ok()?;
    let book = books.iter().find(|b| real.starts_with(&b.src))?;
    (!book.pages.contains(&real)).then(|| format!("{}: {UNRENDERED}", path.display()))
}

/// Where the file system opens a path, for [`FileScope::look_up`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Inside the checked folders (or anywhere, when allowed).
    Inside,
    /// Outside them, inside the git work tree of one: read for anchors, not listed.
    Tree,
    /// Beyond both: checked for existence only.
    Outside,
}

impl FileScope {
    /// The metadata of `path` (symbolic links followed), and whether the file system opens it
    /// inside one of the folders. A plain file costs one `lstat`, as a `stat` would; a
    /// symbolic link a `stat` and a `realpath` more.
    fn look_up(&self, path: &Path) -> std::io::Result<(Metadata, bool)> {
        self.place(path)
            .map(|(m, place)| (m, place == Place::Inside))
    }

    /// [`FileScope::look_up`], telling a file of a checked folder's work tree apart.
    fn place(&self, path: &Path) -> std::io::Result<(Metadata, Place)> {
        // Without a trailing slash: `lstat("dir/")` follows a symbolic link named `dir`.
        let trimmed;
        let path =
            if path.as_os_str().len() > 1 && path.as_os_str().to_string_lossy().ends_with('/') {
                trimmed = path.components().collect::<PathBuf>();
                trimmed.as_path()
            } else {
                path
            };
        let own = std::fs::symlink_metadata(path)?;
        let link = own.file_type().is_symlink();
        let meta = if link { std::fs::metadata(path)? } else { own };
        if self.anywhere || self.roots.is_empty() {
            return Ok((meta, Place::Inside));
        }
        let real = if link {
            std::fs::canonicalize(path).ok()
        } else {
            real_path_of_entry(path)
        };
        let place = match real {
            Some(real) if self.roots.iter().any(|r| real.starts_with(r)) => Place::Inside,
            Some(real) if self.trees.iter().any(|t| real.starts_with(t)) => Place::Tree,
            _ => Place::Outside,
        };
        Ok((meta, place))
    }
    /// `true` when `url` is a `file:` URL the file system opens inside the folders.
    pub(crate) fn holds(&self, url: &Url) -> bool {
        url.to_file_path()
            .ok()
            .and_then(|p| self.look_up(&p).ok())
            .is_some_and(|(_, inside)| inside)
    }

    /// The scope of `folders` (made canonical here; one that does not exist is left out). A
    /// run gives one folder per start file, so the same folders come many times: each is
    /// resolved once, and a folder inside another is dropped (the outer one holds its files).
    pub(crate) fn new(folders: impl IntoIterator<Item = PathBuf>, anywhere: bool) -> Self {
        let mut seen = HashSet::new();
        let mut roots: Vec<PathBuf> = folders
            .into_iter()
            .filter(|f| seen.insert(f.clone()))
            .filter_map(|f| real_path(&f).ok())
            .collect();
        drop(seen);
        // Sorted by components, a folder's subfolders follow it.
        roots.sort_unstable();
        roots.dedup_by(|inner, outer| inner.starts_with(outer));
        let mut trees: Vec<PathBuf> = Vec::new();
        let mut work_trees = WorkTrees::new();
        for tree in roots
            .iter()
            .filter(|_| !anywhere)
            .filter_map(|r| work_trees.root_of(r))
        {
            // Only a tree wider than the folders adds files.
            if !roots.iter().any(|r| tree.starts_with(r)) && !trees.contains(&tree) {
                trees.push(tree);
            }
        }
        FileScope {
            roots,
            anywhere,
            trees,
            fallback: Vec::new(),
            readme_index: false,
            books: Vec::new(),
            redirects: BookRedirects::default(),
            walked: Walked::default(),
            default_type: None,
            named_text: HashSet::new(),
            index: crate::config::DEFAULT_INDEX_FILES
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }
}

impl FileScope {
    /// The media type `path` is read as: by its extension, by the default extension when it
    /// has none, and as plain text when it is a start file named as such whose type is text
    /// not read (`.js`, `.json`) or unknown (`.log`, no extension). An image, a font or an
    /// archive stays what it is: its bytes hold no links to read.
    pub(crate) fn type_of(&self, path: &Path) -> &'static str {
        let guessed = match self.default_type {
            Some(default) if path.extension().is_none() => default,
            _ => guess_type(path),
        };
        let textual = guessed.starts_with("text/")
            || matches!(guessed, "application/json" | "application/octet-stream");
        if !self.named_text.is_empty()
            && textual
            && Format::of(Some(guessed)).is_none()
            && self.named_text.contains(path)
        {
            return "text/plain";
        }
        guessed
    }
}

/// The file read instead of `path`, which does not exist: the same name with each of the
/// fallback extensions in turn (`ch1.html` → `ch1.md`), then for `index.html` its folder's
/// `README.md` when asked. With its metadata and whether it is inside the scope.
///
/// Only what a renderer swaps is swapped: a name with no extension or with the rendered one
/// (`.html`, `.htm`). `intro.png`, `intro.pdf` or a typo such as `intro.mdr` stay missing
/// even when `intro.md` exists.
fn fallback(scope: &FileScope, path: &Path) -> Option<(PathBuf, Metadata, Place)> {
    let swappable = path
        .extension()
        .is_none_or(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
    let by_extension = scope
        .fallback
        .iter()
        .filter(|_| swappable)
        .map(|ext| path.with_extension(ext));
    let readme = (scope.readme_index && path.file_name().is_some_and(|n| n == "index.html"))
        .then(|| path.with_file_name("README.md"));
    by_extension.chain(readme).find_map(|p| {
        let (m, place) = scope.place(&p).ok()?;
        m.is_file().then_some((p, m, place))
    })
}

/// A link to `path`, a page an mdBook's redirect table creates: as good as its `target`, a
/// file of the book looked up as a link to it would be (its content and anchors are the
/// page's), or not checked when the target is outside the book.
fn redirected(
    url: &Url,
    path: &Path,
    target: Target,
    want_body: bool,
    max_body: u64,
    scope: &FileScope,
    hops: usize,
) -> Fetched {
    let to = match target {
        Target::Away(to) => {
            let reason = format!(
                "book.toml redirects it to `{}', outside the book: not checked",
                crate::policy::url_cap::capped(&to)
            );
            return Fetched::bare(url, Outcome::Ignored { reason });
        }
        Target::Page(to) => to,
    };
    let shown = format!(
        "{} (redirected by book.toml to {})",
        path.display(),
        to.display()
    );
    if hops >= MAX_BOOK_REDIRECTS {
        let message = format!("more than {MAX_BOOK_REDIRECTS} redirects in a row");
        return Fetched::failed(url, FailKind::FileNotFound, message);
    }
    let Ok(to_url) = Url::from_file_path(&to) else {
        return Fetched::failed(url, FailKind::InvalidUrl, shown);
    };
    let mut f = fetch_hop(&to_url, want_body, max_body, scope, hops + 1);
    // The link's own page names the first redirect; what failed further on says the rest.
    if hops == 0
        && let Outcome::Failed { message, .. } = &mut f.outcome
    {
        *message = format!("{shown}: {message}");
    }
    f
}

impl FileScope {
    /// The index file of the folder `dir`, the first of [`FileScope::index`] that is a file
    /// before a `.`: its name, its path and its metadata (`None`: it is outside the scope).
    fn index_of(&self, dir: &Path) -> Option<(String, PathBuf, Option<Metadata>)> {
        for name in self.index.iter().take_while(|n| *n != ".") {
            let index = dir.join(name);
            match self.look_up(&index) {
                Ok((m, true)) if m.is_file() => return Some((name.clone(), index, Some(m))),
                Ok((_, false)) => return Some((name.clone(), index, None)),
                _ => {}
            }
        }
        None
    }
}

/// A file name as the last segment of a URL (`%`, `?` and `#` escaped).
fn escape_name(name: &str) -> String {
    name.replace('%', "%25")
        .replace('?', "%3F")
        .replace('#', "%23")
}

/// A link to a folder that has none of the index files, without `.` among them.
fn no_index_file(url: &Url, dir: &Path, names: &[String]) -> Fetched {
    let message = if names.is_empty() {
        format!(
            "{}: a folder, and --index-files is empty: a link must name a file",
            dir.display()
        )
    } else {
        format!(
            "{}: a folder without any of the index files {}",
            dir.display(),
            names.join(", ")
        )
    };
    Fetched::failed(url, FailKind::FileNotFound, message)
}

/// A file that exists outside the checked folders: nothing it holds is read.
fn outside_root(url: &Url) -> Fetched {
    let mut f = Fetched::bare(url, Outcome::Ok { status: None });
    f.warnings.push(Warning {
        tag: "outside-root",
        message: "It is outside the checked folder: only its existence was checked \
                  (--follow-outside-root reads it)."
            .into(),
    });
    f
}

/// Checks a `file:` URL; reads the file (up to `max_body` bytes) when `want_body` and it is a
/// page we parse, and only inside `scope`.
pub(crate) fn fetch(url: &Url, want_body: bool, max_body: u64, scope: &FileScope) -> Fetched {
    fetch_hop(url, want_body, max_body, scope, 0)
}

/// Most mdBook redirect pages followed one after the other (a table may lead in a circle).
const MAX_BOOK_REDIRECTS: usize = 8;

/// [`fetch`], `hops` mdBook redirects after the link.
fn fetch_hop(url: &Url, want_body: bool, max_body: u64, scope: &FileScope, hops: usize) -> Fetched {
    let Ok(path) = url.to_file_path() else {
        return Fetched::failed(url, FailKind::InvalidUrl, "not a local file path");
    };
    if want_body && let Some(f) = read_plain_page(url, &path, max_body, scope) {
        return f;
    }
    let (path, meta, found_as) = match scope.place(&path) {
        Ok((m, Place::Inside)) => (path, m, None),
        // A folder of the work tree exists; nothing of it is listed.
        Ok((m, Place::Tree)) if m.is_dir() => {
            return found(&without_query(url), scope.type_of(&path), &m);
        }
        Ok((m, Place::Tree)) => (path, m, None),
        Ok((_, Place::Outside)) => return outside_root(url),
        Err(e) => match fallback(scope, &path) {
            Some((_, _, Place::Outside)) => return outside_root(url),
            Some((other, m, _)) => {
                let Ok(u) = Url::from_file_path(&other) else {
                    return not_found(url, &path, &e);
                };
                (other, m, Some(u))
            }
            None => match scope.redirects.target(&path) {
                Some(target) => {
                    return redirected(url, &path, target, want_body, max_body, scope, hops);
                }
                None => return missing(url, &path, &e, scope),
            },
        },
    };
    let (path, final_url, meta) = if let Some(u) = found_as {
        (path, u, meta)
    } else if meta.is_dir() {
        let Some((name, index, meta)) = scope.index_of(&path) else {
            return if scope.index.iter().any(|n| n == ".") {
                listing(url, &path, want_body, &scope.walked)
            } else {
                no_index_file(url, &path, &scope.index)
            };
        };
        let Some(meta) = meta else {
            return outside_root(url);
        };
        let mut u = url.clone();
        if !u.path().ends_with('/') {
            u.set_path(&format!("{}/", u.path()));
        }
        let u = u.join(&escape_name(&name)).unwrap_or(u);
        (index, u, meta)
    } else {
        (path, without_query(url), meta)
    };
    if let Some(message) = unrendered(&scope.books, &path) {
        return Fetched::failed(url, FailKind::FileNotFound, message);
    }
    let mut f = found(&final_url, scope.type_of(&path), &meta);
    if want_body && is_parsed(&final_url, f.content_type.as_deref()) {
        if !meta.is_file() {
            // Opening a FIFO waits for a writer, and a device may never end.
            f.warnings.push(Warning {
                tag: "not-regular-file",
                message: "It is not a regular file (a FIFO, socket or device): it was not read."
                    .into(),
            });
            return f;
        }
        let t = Instant::now();
        let read = std::fs::File::open(&path).and_then(|file| read_body(file, &meta, max_body));
        match read {
            Ok(body) => add_body(&mut f, body, &meta, max_body, t),
            Err(e) => {
                return Fetched::failed(url, FailKind::Io, format!("{}: {e}", path.display()));
            }
        }
    }
    f
}

/// The common case of a folder check, a page that is a plain file inside the scope, in one
/// `open` and one `fstat`: the same decision as [`FileScope::look_up`] (the final name is no
/// symbolic link, `O_NOFOLLOW` makes sure; its folder resolves inside the scope, remembered per
/// folder), made without `lstat` first. `None` sends every other case down the general path,
/// which gives its verdict: a symbolic link, a folder, a missing file, a file outside, a page
/// of an mdBook (which may be a source the book does not render).
#[cfg(unix)]
fn read_plain_page(url: &Url, path: &Path, max_body: u64, scope: &FileScope) -> Option<Fetched> {
    use std::os::unix::fs::OpenOptionsExt;

    let final_url = without_query(url);
    if !scope.books.is_empty()
        || path.as_os_str().to_string_lossy().ends_with('/')
        || !is_parsed(&final_url, Some(scope.type_of(path)))
    {
        return None;
    }
    if !(scope.anywhere || scope.roots.is_empty()) {
        let real = real_path_of_entry(path)?;
        if !scope.roots.iter().any(|r| real.starts_with(r)) {
            return None;
        }
    }
    let t = Instant::now();
    // O_NONBLOCK: a FIFO under a page's name must not block the open; it is no regular file,
    // so it is never read here.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut f = found(&final_url, scope.type_of(path), &meta);
    match read_body(file, &meta, max_body) {
        Ok(body) => add_body(&mut f, body, &meta, max_body, t),
        Err(e) => {
            return Some(Fetched::failed(
                url,
                FailKind::Io,
                format!("{}: {e}", path.display()),
            ));
        }
    }
    Some(f)
}

#[cfg(not(unix))]
fn read_plain_page(_: &Url, _: &Path, _: u64, _: &FileScope) -> Option<Fetched> {
    None
}

/// The document a file URL reads: the file system reads no query string (`about.html?x=1` is
/// `about.html`, and its links are on that page).
fn without_query(url: &Url) -> Url {
    let mut u = url.clone();
    u.set_query(None);
    u
}

/// A file that exists, before its content is read: its size and media type.
fn found(final_url: &Url, media_type: &str, meta: &Metadata) -> Fetched {
    let mut f = Fetched::bare(final_url, Outcome::Ok { status: None });
    f.size = Some(meta.len());
    f.content_type = Some(media_type.to_owned());
    // A regular file only: a device or a pipe reports no length.
    if meta.is_file() && meta.len() == 0 {
        f.warnings.push(Warning::empty_content());
    }
    f
}

/// Up to `max_body` bytes of `file`, in a buffer sized once from its length (+1 to see the end
/// without growing): growing from empty copied and page-faulted a large page several times over.
fn read_body(file: std::fs::File, meta: &Metadata, max_body: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(meta.len().min(max_body) as usize + 1);
    file.take(max_body).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Gives `f` the page's content, saying when only its first `max_body` bytes were read.
fn add_body(f: &mut Fetched, body: Vec<u8>, meta: &Metadata, max_body: u64, started: Instant) {
    if meta.len() > max_body {
        f.warnings.push(Warning {
            tag: "content-too-large",
            message: format!(
                "only the first {max_body} bytes of {} were parsed",
                meta.len()
            ),
        });
    }
    f.download_time = Some(started.elapsed());
    f.body = Some(body);
}

/// A folder without `index.html`, as LinkChecker shows one: an HTML page listing its entries,
/// so each is checked (and pages among them parsed). Hidden entries (`.git`) and symbolic links
/// (a link to `..` would list forever) are left out. The URL gets its trailing slash.
fn listing(url: &Url, dir: &Path, want_body: bool, walked: &Walked) -> Fetched {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return Fetched::failed(url, FailKind::Io, format!("{}: {e}", dir.display())),
    };
    let mut names: Vec<(String, bool)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let kind = e.file_type().ok()?;
            let name = e.file_name().into_string().ok()?;
            (!kind.is_symlink() && !name.starts_with('.') && walked.lists(&e.path()))
                .then_some((name, kind.is_dir()))
        })
        .collect();
    names.sort();
    let mut base = url.clone();
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('"', "&quot;")
    };
    let mut html = String::from("<!doctype html><title>folder listing</title>\n");
    for (name, is_dir) in &names {
        let entry = dir.join(name);
        let href = if *is_dir {
            Url::from_directory_path(&entry)
        } else {
            Url::from_file_path(&entry)
        };
        if let Ok(href) = href {
            html.push_str(&format!(
                "<a href=\"{}\">{}</a>\n",
                escape(href.as_str()),
                escape(name)
            ));
        }
    }
    let mut f = Fetched::bare(&base, Outcome::Ok { status: None });
    f.content_type = Some("text/html".into());
    f.size = Some(html.len() as u64);
    f.body = want_body.then(|| html.into_bytes());
    f
}

/// `true` for the URL of a folder listing made by [`fetch`] (a `file:` folder URL whose
/// content is the listing, not an `index.html`).
pub(crate) fn is_listing(final_url: &Url) -> bool {
    final_url.scheme() == "file" && final_url.path().ends_with('/')
}

impl FileScope {
    /// `true` for a `file:` URL naming a folder that has none of the index files and is
    /// listed (`.` among them). Asked for every `file:` link of a page, so a link whose last
    /// segment has an extension (`page.html`) is taken for a file without asking the file
    /// system.
    /// The index files a folder link stands for, as a message names them: `index.html`,
    /// `README.md or index.html`, or `an index file` when the listing comes first.
    pub(crate) fn index_names(&self) -> String {
        let names: Vec<&str> = self
            .index
            .iter()
            .map(String::as_str)
            .take_while(|n| *n != ".")
            .collect();
        if names.is_empty() {
            "an index file".into()
        } else {
            names.join(" or ")
        }
    }

    pub(crate) fn is_folder_without_index(&self, url: &Url) -> bool {
        let last = url.path().rsplit('/').next().unwrap_or("");
        if url.scheme() != "file" || last.contains('.') {
            return false;
        }
        self.with_folder(url, |folder| {
            folder.is_dir && folder.index.is_none() && self.index.iter().any(|n| n == ".")
        })
    }

    /// The cache key of the document `url` reads, given its plain `key`: a `file:` folder
    /// with an index file reads that file, so `site/`, `site` and `site/index.html` get the
    /// key of `site/index.html` — one check, one parse, one row per link. Any other URL keeps
    /// its key (a folder without an index file is its listing). Asked for every `file:` link
    /// whose last segment has no extension (one `stat` per index name, folder and thread,
    /// remembered as in [`FileScope::is_folder_without_index`]).
    pub(crate) fn document_key<'a>(&self, url: &Url, key: Cow<'a, str>) -> Cow<'a, str> {
        if url.scheme() != "file" {
            return key;
        }
        let last = url.path().rsplit('/').next().unwrap_or("");
        if last.contains('.') {
            return key;
        }
        let Some(i) = self.with_folder(url, |f| f.index) else {
            return key;
        };
        let slash = if key.ends_with('/') { "" } else { "/" };
        Cow::Owned(format!("{key}{slash}{}", escape_name(&self.index[i])))
    }

    /// Runs `f` on what this thread knows of the folder at `url` (a `file:` URL), asking the
    /// file system the first time. Every page of a site links the same few folders: each
    /// thread asks the disk once per folder (two `stat`s a link cost 5% of a folder check). A
    /// worker thread lives for one run, so what it remembers is never older than the run, and
    /// its index names are the run's.
    fn with_folder<T>(&self, url: &Url, f: impl FnOnce(&mut Folder) -> T) -> T {
        thread_local! {
            static FOLDERS: RefCell<HashMap<String, Folder>> = RefCell::new(HashMap::new());
        }
        // `site` and `site/` are the same folder.
        let path = url.path().trim_end_matches('/');
        FOLDERS.with_borrow_mut(|known| {
            if known.len() >= FOLDERS_REMEMBERED && !known.contains_key(path) {
                known.clear();
            }
            let folder = known.entry(path.to_owned()).or_insert_with(|| {
                let dir = url.to_file_path().ok().filter(|p| p.is_dir());
                let index = dir.as_ref().and_then(|d| {
                    self.index
                        .iter()
                        .take_while(|n| *n != ".")
                        .position(|n| d.join(n).is_file())
                });
                Folder {
                    is_dir: dir.is_some(),
                    index,
                }
            });
            f(folder)
        })
    }
}

/// What one thread remembers of a folder (see [`FileScope::is_folder_without_index`]).
#[derive(Clone, Copy)]
struct Folder {
    /// It is a folder.
    is_dir: bool,
    /// The position of its index file among the index names, if it has one.
    index: Option<usize>,
}

/// Most folder answers one thread keeps (a few hundred KB at most).
const FOLDERS_REMEMBERED: usize = 4096;

/// [`not_found`], naming the closest sibling of a missing file when its folder is inside the
/// scope or its work tree (outside them, the folder's names are not read).
fn missing(url: &Url, path: &Path, e: &std::io::Error, scope: &FileScope) -> Fetched {
    let mut f = not_found(url, path, e);
    let folder_inside = path
        .parent()
        .and_then(|p| scope.place(p).ok())
        .is_some_and(|(m, place)| place != Place::Outside && m.is_dir());
    if e.kind() == std::io::ErrorKind::NotFound
        && folder_inside
        && let Some(name) = super::sibling_hint::closest_sibling(path)
        && let Outcome::Failed { message, .. } = &mut f.outcome
    {
        message.push_str(&format!("; did you mean `{name}'?"));
    }
    f
}

fn not_found(url: &Url, path: &Path, e: &std::io::Error) -> Fetched {
    let kind = if e.kind() == std::io::ErrorKind::NotFound {
        FailKind::FileNotFound
    } else {
        FailKind::Io
    };
    Fetched::failed(url, kind, format!("{}: {e}", path.display()))
}

/// The media type of a file with the extension `ext` (`md`, `html`).
pub(crate) fn type_of_extension(ext: &str) -> &'static str {
    guess_type(Path::new(&format!("x.{ext}")))
}

/// The media type of a local file, from its extension.
fn guess_type(path: &Path) -> &'static str {
    if crate::config::is_markdown_path(path) {
        return "text/markdown";
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" | "shtml" => "text/html",
        "xhtml" => "application/xhtml+xml",
        "css" => "text/css",
        "js" | "mjs" => "text/javascript",
        "json" => "application/json",
        "xml" => "application/xml",
        "txt" => "text/plain",
        "gz" => "application/gzip",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt" => "application/vnd.oasis.opendocument.text",
        "ods" => "application/vnd.oasis.opendocument.spreadsheet",
        "odp" => "application/vnd.oasis.opendocument.presentation",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "mp4" => "video/mp4",
        "mp3" => "audio/mpeg",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_resolves_to_index_and_missing_file_fails() {
        let dir = std::env::temp_dir().join(format!("lp-file-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/index.html"), "<a href=x>x</a>").unwrap();
        let u = Url::from_directory_path(dir.join("sub")).unwrap();
        let f = fetch(&u, true, 1024, &FileScope::default());
        assert_eq!(f.outcome, Outcome::Ok { status: None });
        assert!(f.final_url.as_str().ends_with("/sub/index.html"));
        assert_eq!(f.body.as_deref(), Some(&b"<a href=x>x</a>"[..]));
        let missing = Url::from_file_path(dir.join("nope.html")).unwrap();
        let f = fetch(&missing, false, 1024, &FileScope::default());
        assert!(matches!(
            f.outcome,
            Outcome::Failed {
                kind: FailKind::FileNotFound,
                ..
            }
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A fresh folder of its own for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lp-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A run hands the scope one folder per start file: a folder 300 deep with a page in
    /// each of its folders, plus a repeated sibling, keeps one root per separate folder, and
    /// the files of the work tree above stay readable.
    #[cfg(unix)]
    #[test]
    fn folders_of_many_starts_make_few_roots() {
        let dir = scratch("many-starts");
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join("README.md"), "# Setup").unwrap();
        let mut folders = vec![dir.join("site")];
        for _ in 1..300 {
            let next = folders.last().unwrap().join("d");
            folders.push(next);
        }
        std::fs::create_dir_all(folders.last().unwrap()).unwrap();
        std::fs::create_dir_all(dir.join("other")).unwrap();
        let other = std::iter::repeat_n(dir.join("other"), 300);
        let given: Vec<PathBuf> = folders.iter().cloned().chain(other).collect();
        let scope = FileScope::new(given, false);
        let real = std::fs::canonicalize(&dir).unwrap();
        assert_eq!(scope.roots, vec![real.join("other"), real.join("site")]);
        assert_eq!(scope.trees, vec![real.clone()]);
        let deepest = Url::from_file_path(folders.last().unwrap().join("x.md")).unwrap();
        std::fs::write(folders.last().unwrap().join("x.md"), "x").unwrap();
        assert!(scope.holds(&deepest));
        let readme = scope.place(&dir.join("README.md")).unwrap().1;
        assert_eq!(readme, Place::Tree);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_plain_page_is_read_as_the_general_path_reads_it() {
        let dir = scratch("plain");
        std::fs::create_dir_all(dir.join("site/sub")).unwrap();
        std::fs::write(dir.join("site/sub/p.html"), "<a href=q>q</a>").unwrap();
        std::fs::write(dir.join("site/empty.html"), "").unwrap();
        let scope = FileScope::new([dir.join("site")], false);
        for page in ["site/sub/p.html", "site/empty.html"] {
            let url = Url::from_file_path(dir.join(page)).unwrap();
            let mut with_query = url.clone();
            with_query.set_query(Some("x=1"));
            let path = url.to_file_path().unwrap();
            let fast = read_plain_page(&with_query, &path, 1024, &scope).expect("fast path");
            let general = {
                // The general path, as `fetch` took it before the fast path existed.
                let (meta, inside) = scope.look_up(&path).unwrap();
                assert!(inside);
                let mut f = found(&url, scope.type_of(&path), &meta);
                let body = read_body(std::fs::File::open(&path).unwrap(), &meta, 1024).unwrap();
                add_body(&mut f, body, &meta, 1024, Instant::now());
                f
            };
            assert_eq!(fast.final_url, general.final_url);
            assert_eq!(fast.outcome, general.outcome);
            assert_eq!(fast.size, general.size);
            assert_eq!(fast.content_type, general.content_type);
            assert_eq!(fast.body, general.body);
            assert_eq!(fast.warnings, general.warnings);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn the_fast_path_leaves_links_folders_outsiders_and_fifos_to_the_general_path() {
        let dir = scratch("declined");
        std::fs::create_dir_all(dir.join("site/folder.html")).unwrap();
        std::fs::create_dir_all(dir.join("other")).unwrap();
        std::fs::write(dir.join("site/in.html"), "in").unwrap();
        std::fs::write(dir.join("other/out.html"), "out").unwrap();
        std::os::unix::fs::symlink(dir.join("site/in.html"), dir.join("site/link.html")).unwrap();
        std::os::unix::fs::symlink(dir.join("other"), dir.join("site/away")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.join("site/fifo.html"))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        let scope = FileScope::new([dir.join("site")], false);
        for (page, inside) in [
            ("site/link.html", true),
            ("site/folder.html", true),
            ("site/missing.html", false),
            ("site/away/out.html", false),
            ("site/../other/out.html", false),
            ("site/fifo.html", true),
        ] {
            let path = dir.join(page);
            let url = Url::from_file_path(&path).unwrap();
            assert!(
                read_plain_page(&url, &path, 1024, &scope).is_none(),
                "{page}"
            );
            assert_eq!(scope.holds(&url), inside, "{page}");
        }
        // The general path: a FIFO is found and not read (opening it would wait for a writer).
        let url = Url::from_file_path(dir.join("site/fifo.html")).unwrap();
        let f = fetch(&url, true, 1024, &scope);
        assert_eq!(f.outcome, Outcome::Ok { status: None });
        assert!(f.body.is_none());
        assert!(f.warnings.iter().any(|w| w.tag == "not-regular-file"));
        let f = fetch(
            &Url::from_file_path(dir.join("site/away/out.html")).unwrap(),
            true,
            1024,
            &scope,
        );
        assert!(f.warnings.iter().any(|w| w.tag == "outside-root"));
        assert!(f.body.is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
