//! The run's Chromium: found at start, launched on the first page, shared by at most `tabs`
//! renders at once, and killed at the end of the run (or when its connection died, to be
//! launched again for the next page).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use headless_chrome::{Browser, LaunchOptions};
use linkpatrol_plugin_api::{Services, Url};

use crate::page::{self, Page};

/// The browser's path: `given`, else Debian's `/usr/bin/chromium`, else `chromium` or
/// `chromium-browser` on `PATH`.
///
/// # Errors
/// None found: the message names the package to install.
pub(crate) fn find(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "plugin render-js: no browser at {} (chromium=PATH); install Debian's \
                 `chromium` package (apt-get install chromium)",
                p.display()
            ))
        };
    }
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .flat_map(|dir| [dir.join("chromium"), dir.join("chromium-browser")])
            .find(|p| p.is_file())
    });
    Some(PathBuf::from(crate::DEFAULT_CHROMIUM))
        .filter(|p| p.is_file())
        .or(on_path)
        .ok_or_else(|| {
            format!(
                "--render-js needs Chromium, and none was found ({} or chromium on PATH): \
                 install Debian's `chromium` package (apt-get install chromium), or give its \
                 path with --plugin render-js:chromium=PATH",
                crate::DEFAULT_CHROMIUM
            )
        })
}

/// The process ids of every browser launched and not yet killed, in this process: for
/// [`kill_browsers`] at an exit that runs no destructor.
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Kills every browser this process launched that is still running (see
/// `linkpatrol::plugins::release_builtins`).
pub fn kill_browsers() {
    let pids = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for pid in pids {
        kill_pid(pid);
    }
}

/// Pages a browser renders before it is replaced by a fresh one (when no other page renders):
/// the DevTools protocol lets a page's session close its tab but not dispose of its browser
/// context, so the contexts of a long run would pile up in one browser.
const RECYCLE_AFTER: usize = 100;

/// A launched browser and its process id (killed by id: a tab may still hold the browser).
struct Live {
    browser: Browser,
    pid: Option<u32>,
    /// Pages begun in it.
    renders: usize,
}

/// The run's browser and its tab slots.
pub(crate) struct Chromium {
    path: PathBuf,
    timeout: Duration,
    /// Tab slots in all.
    tabs: usize,
    /// Free tab slots.
    free: Mutex<usize>,
    freed: Condvar,
    /// The browser, once launched; `closed` once the run ended (no launch after that).
    live: Mutex<(Option<Live>, bool)>,
    /// Set once the run ended: a render in progress stops waiting.
    stop: AtomicBool,
}

impl Chromium {
    pub(crate) fn new(path: PathBuf, tabs: usize, timeout: Duration) -> Chromium {
        Chromium {
            path,
            timeout,
            tabs,
            free: Mutex::new(tabs),
            freed: Condvar::new(),
            live: Mutex::new((None, false)),
            stop: AtomicBool::new(false),
        }
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Renders `url` in a tab of its own, waiting for a free slot first. A failure on a
    /// browser whose connection died launches it again once.
    pub(crate) fn render(
        &self,
        url: &Url,
        cookies: Option<&str>,
        services: &dyn Services,
    ) -> Result<Page, String> {
        let _slot = self.slot();
        let browser = self.browser()?;
        match page::render(&browser, url, cookies, self.timeout, services, &self.stop) {
            Err(e) if browser.get_version().is_err() => {
                self.restart(&browser);
                let browser = self.browser()?;
                page::render(&browser, url, cookies, self.timeout, services, &self.stop)
                    .map_err(|again| format!("{e}; again after restarting the browser: {again}"))
            }
            other => other,
        }
    }

    /// Kills the browser; no other is launched afterwards.
    pub(crate) fn close(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let mut live = self.lock_live();
        live.1 = true;
        if let Some(old) = live.0.take() {
            kill(old);
        }
    }

    fn lock_live(&self) -> MutexGuard<'_, (Option<Live>, bool)> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The browser, launched when there is none.
    fn browser(&self) -> Result<Browser, String> {
        let mut live = self.lock_live();
        if live.1 {
            return Err("the run has ended".into());
        }
        // Only this page holds a slot: an old browser can go.
        let alone = *self.free.lock().unwrap_or_else(|e| e.into_inner()) + 1 == self.tabs;
        if alone
            && live.0.as_ref().is_some_and(|l| l.renders >= RECYCLE_AFTER)
            && let Some(old) = live.0.take()
        {
            kill(old);
        }
        if let Some(l) = &mut live.0 {
            l.renders += 1;
            return Ok(l.browser.clone());
        }
        let browser = launch(&self.path, self.timeout)?;
        let pid = browser.get_process_id();
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).extend(pid);
        live.0 = Some(Live {
            browser: browser.clone(),
            pid,
            renders: 1,
        });
        Ok(browser)
    }

    /// Kills `dead` if it is still the current browser, so the next page launches another.
    fn restart(&self, dead: &Browser) {
        let mut live = self.lock_live();
        if live.0.as_ref().and_then(|l| l.pid) == dead.get_process_id()
            && let Some(old) = live.0.take()
        {
            kill(old);
        }
    }

    /// One tab slot, held until dropped.
    fn slot(&self) -> Slot<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Slot(self)
    }
}

/// A tab slot: given back when dropped.
struct Slot<'a>(&'a Chromium);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

/// Starts the browser: headless, no GPU, no background traffic, certificates verified. As
/// root Chromium refuses its sandbox, so it runs without one (see SECURITY.md).
fn launch(path: &Path, timeout: Duration) -> Result<Browser, String> {
    let args: Vec<&OsStr> = [
        "--disable-gpu",
        "--disable-quic",
        "--disable-component-update",
        "--no-default-browser-check",
        "--mute-audio",
        "--hide-scrollbars",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    let options = LaunchOptions {
        path: Some(path.to_owned()),
        headless: true,
        sandbox: !running_as_root(),
        ignore_certificate_errors: false,
        // Also the longest wait for one DevTools answer: past the render timeout, so the
        // settle script ends first; an idle connection closes and is relaunched on demand.
        idle_browser_timeout: timeout + Duration::from_secs(20),
        args,
        ..LaunchOptions::default()
    };
    Browser::new(options).map_err(|e| format!("cannot start {}: {e}", path.display()))
}

/// The process's effective user is root (`/proc/self` belongs to it).
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Kills the browser's process (its renderers exit with it), then lets the handle go, which
/// reaps it and removes its profile folder.
fn kill(live: Live) {
    if let Some(pid) = live.pid {
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|p| *p != pid);
        kill_pid(pid);
    }
    drop(live.browser);
}

/// Sends SIGKILL to `pid`.
fn kill_pid(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        use nix::sys::signal::{Signal, kill};
        let _ = kill(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL);
    }
}
