//! The `-F` files, opened all before any is touched, and never left half-written: a report
//! meant for a regular file is written to a temporary file beside it (`.NAME.PID.tmp`) and
//! renamed into place only when it is whole, so a full disk or a failed write leaves the
//! previous report as it was. Under `--stream`, whose rows must reach the file as they finish
//! (a killed run keeps them), and for a device or a pipe (`-F csv//dev/stdout`), the file
//! itself is written. Either way a failed write names the file.
//!
//! A symbolic link at a report's path is replaced, never followed
//! (`linkpatrol::report::out_file`).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Result, anyhow, bail};

use linkpatrol::report::out_file::{At, create_beside, no_follow};

use crate::values::FileOutput;

/// The `-F` files of a run: their writers, handed to the reporters, and what
/// [`ReportFiles::commit`] renames into place once the reports are finished.
#[derive(Debug, Default)]
pub struct ReportFiles {
    /// One writer per `-F` output, in the order given.
    pub writers: Vec<NamedFile>,
    /// The temporary files still to be renamed (or removed when their report failed).
    pending: Vec<Pending>,
}

#[derive(Debug)]
struct Pending {
    tmp: PathBuf,
    target: PathBuf,
    /// Set by the writer on its first failed write or flush.
    failed: Arc<AtomicBool>,
}

/// A `-F` file whose errors name it (`cannot write out.csv: No space left on device`).
#[derive(Debug)]
pub struct NamedFile {
    file: File,
    name: String,
    failed: Arc<AtomicBool>,
}

impl NamedFile {
    fn fail(&self, e: io::Error) -> io::Error {
        self.failed.store(true, Ordering::SeqCst);
        io::Error::new(e.kind(), format!("cannot write {}: {e}", self.name))
    }
}

impl Write for NamedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).map_err(|e| self.fail(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| self.fail(e))
    }
}

impl ReportFiles {
    /// Opens every `-F` file, and only once all of them opened truncates those written in
    /// place: a bad path (a missing folder, a read-only file) fails the run before an earlier
    /// file loses its contents. What was created here is removed again when a later one fails.
    pub fn open_all(outputs: &[FileOutput], stream: bool) -> Result<ReportFiles> {
        let mut seen = std::collections::HashSet::new();
        for f in outputs {
            if !seen.insert(f.path.as_str()) {
                bail!("-F {}: the file {} is given twice", f.format.name(), f.path);
            }
        }
        let mut files = ReportFiles::default();
        let mut created: Vec<PathBuf> = Vec::new();
        let mut in_place = Vec::new();
        for f in outputs {
            match open_one(f, stream, &mut files, &mut created) {
                Ok(then) => in_place.push(then),
                Err(e) => {
                    for path in &created {
                        let _ = fs::remove_file(path);
                    }
                    files.pending.clear();
                    return Err(e);
                }
            }
        }
        for (w, then) in files.writers.iter().zip(in_place) {
            match then {
                InPlace::Nothing => {}
                InPlace::Truncate => w
                    .file
                    .set_len(0)
                    .map_err(|e| anyhow!("cannot write {}: {e}", w.name))?,
                InPlace::ReplaceLink(tmp) => fs::rename(&tmp, &w.name).map_err(|e| {
                    let _ = fs::remove_file(&tmp);
                    anyhow!("cannot write {}: {e}", w.name)
                })?,
            }
        }
        Ok(files)
    }

    /// Renames every whole report into place; a report whose writing failed is removed and
    /// its file keeps what it held. Returns the first error, which names the file.
    pub fn commit(&mut self) -> Result<()> {
        let mut first = Ok(());
        for p in self.pending.drain(..) {
            let done = if p.failed.load(Ordering::SeqCst) {
                Ok(())
            } else {
                File::open(&p.tmp)
                    .and_then(|f| f.sync_all())
                    .and_then(|()| fs::rename(&p.tmp, &p.target))
                    .map_err(|e| anyhow!("cannot write {}: {e}", p.target.display()))
            };
            let _ = fs::remove_file(&p.tmp);
            if first.is_ok() {
                first = done;
            }
        }
        first
    }
}

impl Drop for ReportFiles {
    /// A run that ends in an error leaves no temporary file behind.
    fn drop(&mut self) {
        for p in &self.pending {
            let _ = fs::remove_file(&p.tmp);
        }
    }
}

/// What [`ReportFiles::open_all`] does to an output written in place once every output opened.
enum InPlace {
    Nothing,
    /// A regular file that existed: emptied.
    Truncate,
    /// A symbolic link stood at the path: this new file, open for writing, is renamed over it.
    ReplaceLink(PathBuf),
}

/// Opens one output; returns what is left to do to it once every output opened.
fn open_one(
    f: &FileOutput,
    stream: bool,
    files: &mut ReportFiles,
    created: &mut Vec<PathBuf>,
) -> Result<InPlace> {
    let cannot = |e: io::Error| anyhow!("cannot write {}: {e}", f.path);
    let path = Path::new(&f.path);
    let failed = Arc::new(AtomicBool::new(false));
    let at = At::of(path);
    let whole = !stream && matches!(at, At::Nothing | At::Regular(_) | At::Link);
    let (file, then) = if whole || matches!(at, At::Link) {
        // A new file beside the path: renamed over it when whole, or at once (a link under
        // --stream). A regular file that exists must be writable by us, as it would be
        // written in place, and keeps its permissions.
        let permissions = match &at {
            At::Regular(meta) => {
                no_follow(OpenOptions::new().write(true))
                    .open(path)
                    .map_err(cannot)?;
                Some(meta.permissions())
            }
            _ => None,
        };
        let (file, tmp) = create_beside(path).map_err(cannot)?;
        created.push(tmp.clone());
        if let Some(p) = permissions {
            let _ = file.set_permissions(p);
        }
        if whole {
            files.pending.push(Pending {
                tmp,
                target: path.to_owned(),
                failed: failed.clone(),
            });
            (file, InPlace::Nothing)
        } else {
            (file, InPlace::ReplaceLink(tmp))
        }
    } else {
        let mut options = OpenOptions::new();
        options.write(true).create(true).truncate(false);
        if !matches!(at, At::System) {
            no_follow(&mut options);
        }
        let file = options.open(path).map_err(cannot)?;
        if matches!(at, At::Nothing) {
            created.push(path.to_owned());
        }
        let regular = match at {
            At::Nothing | At::Regular(_) => true,
            At::System => file.metadata().is_ok_and(|m| m.is_file()),
            At::Link | At::Other => false,
        };
        (
            file,
            if regular {
                InPlace::Truncate
            } else {
                InPlace::Nothing
            },
        )
    };
    files.writers.push(NamedFile {
        file,
        name: f.path.clone(),
        failed,
    });
    Ok(then)
}
