//! The plugins of one run: which are configured, and what they fetched through the engine
//! (pages and certificates, once per URL per run). The hooks that show them each check are in
//! `plugin_hooks`.
//!
//! Locks: `pages` and `certs` are held only to find or insert a URL's cell; the fetch itself
//! runs in `OnceLock::get_or_init` outside them (a second caller for the same URL waits on that
//! cell only). No engine lock is held while a plugin hook runs: hooks are called from `check`
//! before the result is recorded and from `send` after `cache.finish` returned.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use linkpatrol_plugin_api::{Page, Plugin};
use parking_lot::Mutex;
use url::Url;

use crate::config::plugins::PluginList;
use crate::fetch::tls::CertReader;
use crate::policy::url_norm::cache_key;

/// A cell filled once by the first caller.
type Once<T> = Arc<OnceLock<T>>;
/// A leaf certificate's DER bytes, or why there is none.
type Certificate = Result<Arc<Vec<u8>>, String>;

/// The configured plugins of one run and what they fetched through the engine.
#[derive(Default)]
pub(crate) struct PluginHost {
    plugins: Vec<Arc<dyn Plugin>>,
    /// Pages fetched for plugins, by cache key.
    pages: Mutex<HashMap<String, Once<Arc<Page>>>>,
    /// Leaf certificates by `host:port`.
    certs: Mutex<HashMap<String, Once<Certificate>>>,
    /// Reads the certificates: within the run's `--timeout`, through its proxy.
    cert_reader: CertReader,
}

impl fmt::Debug for PluginHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginHost")
            .field("plugins", &PluginList(self.plugins.clone(), Vec::new()))
            .finish_non_exhaustive()
    }
}

impl PluginHost {
    pub(crate) fn new(list: &PluginList, cert_reader: CertReader) -> PluginHost {
        PluginHost {
            plugins: list.0.clone(),
            cert_reader,
            ..PluginHost::default()
        }
    }

    /// `true` when at least one plugin is configured (the hooks cost nothing otherwise).
    pub(crate) fn active(&self) -> bool {
        !self.plugins.is_empty()
    }

    /// The page fetched for plugins at `url` (without fragment): fetched by `fetch` on the first
    /// call for its key, shared afterwards. Another caller for the same URL waits on that cell
    /// only; the map's lock is held just to find or insert it.
    pub(crate) fn page(&self, url: &Url, fetch: impl FnOnce() -> Page) -> Arc<Page> {
        let cell = self.pages.lock().entry(cache_key(url)).or_default().clone();
        cell.get_or_init(|| Arc::new(fetch())).clone()
    }

    /// The leaf certificate of an https URL's server, read once per `host:port`.
    pub(crate) fn certificate(&self, url: &Url) -> Certificate {
        if url.scheme() != "https" {
            return Err(format!("{url} is not an https URL"));
        }
        let host = url.host_str().unwrap_or_default().to_owned();
        let port = url.port_or_known_default().unwrap_or(443);
        let cell = self
            .certs
            .lock()
            .entry(format!("{host}:{port}"))
            .or_default()
            .clone();
        cell.get_or_init(|| self.cert_reader.leaf_certificate(&host, port).map(Arc::new))
            .clone()
    }

    /// Every configured plugin, in order.
    pub(crate) fn plugins(&self) -> &[Arc<dyn Plugin>] {
        &self.plugins
    }

    /// Facts to collect while a page is parsed, when plugins run: `None` when none do.
    pub(crate) fn page_facts(&self) -> Option<PageFacts> {
        self.active().then(|| PageFacts {
            want_links: self.plugins.iter().any(|p| p.wants_links()),
            ..PageFacts::default()
        })
    }
}

/// What the content hook needs from the parse of a page, collected only when plugins run.
#[derive(Debug, Default)]
pub(crate) struct PageFacts {
    /// The page's ids and `<a name>`s.
    pub(crate) anchors: Vec<String>,
    /// Its links that resolved (only with `want_links`).
    pub(crate) links: Vec<Url>,
    /// Some plugin reads the links.
    pub(crate) want_links: bool,
}
