//! The `render-js` plugin: renders the HTML pages of the checked site in headless Chromium,
//! driven synchronously over the DevTools protocol (`headless_chrome`: tungstenite over std
//! sockets, no async runtime), and hands the engine the links of the rendered DOM, so a page
//! that JavaScript builds is checked as a browser shows it (`--render-js`).
//!
//! One browser per run, started on the first page and killed by [`Plugin::finish`]; each page
//! opens in a fresh browser context (no cookies, storage or service worker carried from page
//! to page) except for the cookies the engine would send to it (the login session's). At most
//! `tabs` pages render at once; each within `timeout` seconds. The answer for a URL is kept,
//! so a page is rendered once per run however often it is asked for.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod browser;
mod page;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use linkpatrol_plugin_api::{ContentView, Options, Plugin, Remark, Rendered, Services};

use browser::Chromium;
pub use browser::kill_browsers;

/// The plugin's name.
pub const NAME: &str = "render-js";
/// One line for `--list-plugins`.
pub const DESCRIPTION: &str = "render the site's HTML pages in headless Chromium and check the \
                               links of the rendered DOM too (--render-js); settings: tabs=N \
                               (default 2), timeout=SECS (default 10), chromium=PATH";
/// Tag of a page whose script threw.
pub const TAG_SCRIPT_ERROR: &str = "render-script-error";
/// Tag of a page that did not settle within the timeout.
pub const TAG_TIMEOUT: &str = "render-timeout";
/// Tag of a page that could not be rendered at all.
pub const TAG_FAILED: &str = "render-failed";
/// Pages rendered at once by default: one tab per core of a 2-core machine.
pub const DEFAULT_TABS: usize = 2;
/// Seconds a page may take to settle by default.
pub const DEFAULT_TIMEOUT_SECS: f64 = 10.0;
/// Where Debian's `chromium` package puts the browser.
pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

/// A rendered page, shared by every caller for its URL.
type Cell = Arc<OnceLock<Arc<Rendered>>>;

/// The `render-js` plugin.
pub struct RenderJs {
    chromium: Chromium,
    /// Answers by URL (without fragment).
    done: Mutex<HashMap<String, Cell>>,
}

impl std::fmt::Debug for RenderJs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderJs").finish_non_exhaustive()
    }
}

impl RenderJs {
    /// The plugin from its settings: `tabs=`, `timeout=`, `chromium=` (the browser's path;
    /// else `/usr/bin/chromium`, else `chromium` or `chromium-browser` on `PATH`).
    ///
    /// # Errors
    /// No browser found (the message names Debian's `chromium` package), a bad number, or an
    /// unknown setting.
    pub fn from_options(options: &Options) -> Result<RenderJs, String> {
        options.only(&["tabs", "timeout", "chromium"])?;
        let tabs: usize = options.parse_or("tabs", DEFAULT_TABS)?;
        if tabs == 0 || tabs > 64 {
            return Err(format!("plugin {NAME}: tabs={tabs} must be 1 to 64"));
        }
        let secs: f64 = options.parse_or("timeout", DEFAULT_TIMEOUT_SECS)?;
        if !(secs.is_finite() && secs > 0.0 && secs <= 600.0) {
            return Err(format!(
                "plugin {NAME}: timeout={secs} must be more than 0 and at most 600 seconds"
            ));
        }
        let path = browser::find(options.get("chromium").map(PathBuf::from))?;
        Ok(RenderJs {
            chromium: Chromium::new(path, tabs, Duration::from_secs_f64(secs)),
            done: Mutex::default(),
        })
    }

    /// The page at `content`'s URL rendered, once per URL.
    fn rendered(&self, content: &ContentView<'_>, services: &dyn Services) -> Arc<Rendered> {
        let mut key = content.final_url.clone();
        key.set_fragment(None);
        let cell = {
            let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            done.entry(key.to_string()).or_default().clone()
        };
        cell.get_or_init(|| {
            let cookies = services.cookie_header(&key);
            Arc::new(match self.chromium.render(&key, cookies.as_deref(), services) {
                Ok(page) => page.into_rendered(&key, self.chromium.timeout()),
                Err(why) => Rendered {
                    remarks: vec![Remark::warning(
                        TAG_FAILED,
                        format!(
                            "the page could not be rendered: {why}; its static links are checked"
                        ),
                    )],
                    ..Rendered::default()
                },
            })
        })
        .clone()
    }
}

impl Plugin for RenderJs {
    fn name(&self) -> &'static str {
        NAME
    }

    /// The engine hands over the page's own links, so only new ones are marked rendered.
    fn wants_links(&self) -> bool {
        true
    }

    fn render(&self, content: &ContentView<'_>, services: &dyn Services) -> Option<Rendered> {
        let web = matches!(content.final_url.scheme(), "http" | "https");
        if !content.internal || !web || content.content_type != Some("text/html") {
            return None;
        }
        Some(Rendered::clone(&self.rendered(content, services)))
    }

    fn finish(&self) {
        self.chromium.close();
    }
}

impl Drop for RenderJs {
    fn drop(&mut self) {
        self.chromium.close();
    }
}
