//! Assembling a run from a [`Config`]: validated start inputs, and the parts one run shares —
//! the queue with its host table, the politeness gate, the fetcher, the filter, the cache and
//! the plugin host. The checker then drives what is built here.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use crossbeam_channel::Sender;
use url::Url;

use super::cache::ResultCache;
use super::memory::MemoryBudget;
use super::plugin_host::PluginHost;
use super::queue::HostLaneQueue;
use super::run::{Message, Run};
use super::task_codec::task_codec;
use super::wiki_index::WikiIndex;
use crate::config::host_rules::HostRules;
use crate::config::{Config, Input};
use crate::fetch::Fetch;
use crate::fetch::book_redirects::BookRedirects;
use crate::fetch::file::{BookPages, FileScope};
use crate::fetch::github_auth::GithubAuth;
use crate::fetch::http::{HttpFetcher, HttpSettings, proxy_for};
use crate::fetch::mail_mx::MxCheck;
use crate::fetch::preprocess::Preprocess;
use crate::fetch::real_path::real_path;
use crate::fetch::request_extras::RequestExtras;
use crate::fetch::router::Router;
use crate::fetch::session_cookies::SessionCookies;
use crate::fetch::start_address;
use crate::fetch::tls::CertReader;
use crate::fetch::walked::Walked;
use crate::model::cancel::CancelHandle;
use crate::model::error::{Error, ErrorKind};
use crate::model::stats::SkipCounter;
use crate::policy::address::AddressPolicy;
use crate::policy::filter::Filter;
use crate::policy::github_checkout::Checkout;
use crate::policy::host_gate::HostGate;
use crate::policy::host_table::HostTable;
use crate::policy::robots::{RobotsCache, robots_agent};

/// A start input, validated.
#[derive(Debug, Clone)]
pub(super) struct Start {
    pub(super) url: Url,
    pub(super) inline: Option<Arc<str>>,
    /// A start file named through a symbolic link: the file it leads to, which may be read.
    pub(super) target: Option<PathBuf>,
}

/// The address classes the run does not connect to (the start sites' own hosts excepted):
/// those `cfg` excludes; link-local and cloud metadata addresses whatever the start sites;
/// and all of them when every start site is public. `cfg.allow_private` allows all but the
/// ones it excludes; remap rules allow loopback and private addresses. A start site is public
/// when its host is a public IP address, or a name (not `localhost`) that resolves to public
/// addresses only; a run with no http(s) start (a folder) has no public start site.
fn address_policy(cfg: &Config, starts: &[Start]) -> AddressPolicy {
    let [loopback, private, link_local] = cfg.exclude_addresses;
    let explicit = AddressPolicy {
        loopback,
        private,
        link_local,
    };
    if cfg.allow_private {
        return explicit;
    }
    // Nothing a page links to is served on the link, and the metadata service there hands
    // out the machine's credentials: refused for a folder check of a pull request too.
    let explicit = AddressPolicy {
        link_local: true,
        ..explicit
    };
    // Remap rules (the user's: a local config may not set them) say themselves where the
    // requests go, a staging server on this machine often.
    if !cfg.remap.is_empty() {
        return explicit;
    }
    // Each host once, and at most `LOOKED_UP` of them (a list of 10,000 URLs would wait
    // for as many lookups before the run): the start sites' own hosts are always requested.
    const LOOKED_UP: usize = 64;
    let mut seen = std::collections::HashSet::new();
    let sites: Vec<&Url> = starts
        .iter()
        .map(|s| &s.url)
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .filter(|u| seen.insert((u.host_str().map(str::to_owned), u.port_or_known_default())))
        .take(LOOKED_UP)
        .collect();
    if sites.is_empty()
        || !sites
            .iter()
            .all(|u| start_address::classes(u, cfg.timeout).is_empty())
    {
        return explicit;
    }
    AddressPolicy::ALL
}

/// Builds one run of `cfg` from its validated `starts`: the queue with its host table, the
/// politeness gate over it, the fetcher (`fetch_override`, else the `Router`), the filter, the
/// cache and the plugin host. `tx` carries its report rows to the caller's thread.
pub(super) fn assemble(
    cfg: &Config,
    starts: &[Start],
    fetch_override: Option<&Arc<dyn Fetch>>,
    cancel: &CancelHandle,
    tx: Sender<Message>,
) -> Result<Run, Error> {
    // A run of its own: folders are resolved afresh on this (the caller's) thread.
    crate::fetch::real_path::forget_folders();
    let rules = HostRules::new(cfg.host_rules.clone());
    // The queue schedules tasks by host and holds the politeness table; the gate is the
    // fetchers' view of that table (see `policy::host_gate`).
    let budget = Arc::new(
        MemoryBudget::new(cfg.max_memory, cfg.queue_memory).with_rows_held(cfg.rows_held.clone()),
    );
    let queue = Arc::new(
        HostLaneQueue::with_hosts(
            HostTable::new(
                cfg.max_requests_per_second,
                cfg.host_concurrency,
                rules.clone(),
                cfg.robots,
            )
            .loopback_unthrottled(cfg.loopback_unthrottled)
            // Phase 2 of a sharded check follows phase 1 on the same hosts (another process,
            // maybe just now): each host's interval holds across the two.
            .continues(!cfg.found_links.is_empty() || !cfg.reused.is_empty()),
            cancel.clone(),
        )
        .spilling(task_codec(), budget.clone()),
    );
    let gate = Arc::new(HostGate::over(queue.clone()));
    let idle_per_host = if cfg.host_concurrency == 0 {
        cfg.threads
    } else {
        cfg.host_concurrency.min(cfg.threads)
    };
    // What may be connected to: the agent's requests and the plugins' certificate reads.
    let addresses = address_policy(cfg, starts);
    let start_hosts: Vec<String> = starts
        .iter()
        .filter_map(|s| {
            let host = match s.url.host()? {
                // As a URI spells it: `[::1]`.
                url::Host::Ipv6(ip) => format!("[{ip}]"),
                h => h.to_string(),
            };
            Some(format!("{host}:{}", s.url.port_or_known_default()?))
        })
        .map(|h| h.to_ascii_lowercase())
        .collect();
    // One proxy for the run: the agent's requests and the plugins' certificate reads.
    let proxy = proxy_for(cfg.proxy.as_deref(), cfg.proxy_from_env);
    let github = cfg
        .github_token
        .clone()
        .map(|t| Arc::new(GithubAuth::new(t)));
    let http = || {
        HttpFetcher::new(
            HttpSettings {
                timeout: cfg.timeout,
                user_agent: cfg.user_agent.clone(),
                max_redirects: cfg.max_redirects,
                max_body: cfg.max_body_size,
                idle_per_host: idle_per_host.max(1),
                max_retries: cfg.max_retries,
                retry_backoff: cfg.retry_backoff,
                max_retry_wait: cfg.max_retry_wait,
                headers: cfg.headers.clone(),
                start_origins: starts
                    .iter()
                    .map(|s| s.url.origin().ascii_serialization())
                    .collect(),
                rules,
                insecure: cfg.insecure,
                keep_headers: !cfg.plugins.is_empty(),
                extras: RequestExtras {
                    always_get: cfg.always_get,
                    cookies: cfg.cookies.clone(),
                    auth: cfg.basic_auth.clone(),
                    accept: cfg.accept.clone(),
                    github: github.clone(),
                },
                proxy: proxy.clone(),
                addresses,
                start_hosts: start_hosts.clone(),
            },
            gate.clone(),
            cancel.clone(),
        )
    };
    let mut filter = Filter::new(
        cfg.include.clone(),
        cfg.exclude.clone(),
        cfg.no_follow.clone(),
        cfg.recursion_level,
        cfg.check_external,
    );
    filter.ignore_file(cfg.ignore_file.clone());
    if let Some(login) = &cfg.login {
        filter.logout(login.logout.clone());
    }
    for s in starts {
        filter.add_start(&s.url);
    }
    // The run's cookies, seeded from the jar file: the fetcher sends and stores them, the run
    // saves them when it ends.
    let cookies = Arc::new(SessionCookies::default());
    if let Some(path) = &cfg.cookie_jar {
        let jar = crate::fetch::cookie_jar_file::load(path)
            .map_err(|m| Error::new(ErrorKind::InvalidConfig, m))?;
        cookies.seed(&jar, std::time::SystemTime::now());
    }
    // One scope for the fetcher and the engine: it holds a path per walked file.
    let files = Arc::new(file_scope(cfg, starts));
    Ok(Run {
        queue,
        // Lean results where claims of a fine result make no row (see `only_problems` below,
        // and `plugins`: no plugin looks at links).
        cache: ResultCache::with_cap(cfg.max_urls)
            .lean_when_quiet(cfg.only_problems && cfg.shard.is_none() && cfg.plugins.is_empty())
            .within(budget.clone()),
        budget,
        filter,
        fetch: match fetch_override {
            Some(fetch) => fetch.clone(),
            None => Arc::new(Router {
                http: http().with_cookies(cookies.clone()),
                max_body: cfg.max_body_size,
                files: Arc::clone(&files),
                preprocess: cfg.preprocess.clone().map(|program| Preprocess {
                    program,
                    timeout: cfg.timeout,
                    max_body: cfg.max_body_size,
                }),
            }),
        },
        files,
        cancel: cancel.clone(),
        max_body: cfg.max_body_size,
        include_verbatim: cfg.include_verbatim,
        include_wikilinks: cfg.include_wikilinks,
        wiki: wiki_index(cfg, starts),
        max_urls: cfg.max_urls,
        ignore_warnings: cfg.ignore_warnings.clone(),
        seed_sitemaps: cfg.seed_sitemaps,
        sites: super::site_roots::site_roots(
            cfg,
            file_root(cfg, starts)?.as_ref(),
            site_url(cfg)?.as_ref(),
        ),
        checkouts: cfg
            .github_checkouts
            .iter()
            .filter_map(|(repository, folder)| Checkout::new(repository, path_url(folder).ok()?))
            .collect(),
        file_root: file_root(cfg, starts)?,
        site_url: site_url(cfg)?,
        mx: cfg
            .mx_resolver
            .map(|server| MxCheck::new(server, cfg.timeout)),

        robots: cfg
            .robots
            .then(|| RobotsCache::new(robots_agent(&cfg.user_agent))),
        gate: gate.clone(),
        suggest: cfg.suggest.then(|| cfg.archive_url.clone()),
        tx,
        // A shard delivers every entry: its exported links are never problems, and phase 2
        // needs them all.
        only_problems: cfg.only_problems && cfg.shard.is_none(),
        accept_timeouts: cfg.accept_timeouts,
        require_https: cfg.require_https,
        shard: cfg.shard,
        remap: cfg.remap.clone(),
        github,
        soft_404: cfg
            .detect_soft_404
            .then(super::soft_404::SoftNotFound::default),
        remembered: None,
        login_page: cfg.login.as_ref().map(|l| l.url.clone()),
        session_lost: std::sync::OnceLock::new(),
        cookie_jar: cfg.cookie_jar.clone().map(|path| (path, cookies)),
        unreported: AtomicUsize::new(0),
        over_limit: AtomicUsize::new(0),
        checked: AtomicUsize::new(0),
        skipped: SkipCounter::default(),
        plugins: PluginHost::new(
            &cfg.plugins,
            CertReader::new(
                cfg.timeout,
                proxy,
                cfg.insecure,
                cfg.user_agent.clone(),
                addresses,
                start_hosts,
            ),
        ),
    })
}

/// The folders whose files the run may read: each local start's folder (a file's own folder)
/// and the root folder of the local site.
fn file_scope(cfg: &Config, starts: &[Start]) -> FileScope {
    let folders = starts
        .iter()
        .filter(|s| s.inline.is_none() && s.url.scheme() == "file")
        .filter_map(|s| s.url.join(".").ok()?.to_file_path().ok())
        .chain(starts.iter().filter_map(|s| s.target.clone()))
        .chain(cfg.root_dir.clone());
    let mut scope = FileScope::new(folders, cfg.follow_outside_root);
    scope.index.clone_from(&cfg.index_files);
    scope.default_type = cfg
        .default_extension
        .as_ref()
        .map(|e| crate::fetch::file::type_of_extension(e));
    scope.named_text = cfg
        .named_files
        .iter()
        .filter_map(|p| start_path(p).ok()?.url.to_file_path().ok())
        .collect();
    scope.fallback.clone_from(&cfg.fallback_extensions);
    scope.readme_index = cfg.readme_as_index;
    scope.walked = Walked::new(&cfg.walked_folders);
    scope.books = cfg
        .mdbooks
        .iter()
        .filter_map(|(src, chapters)| BookPages::new(src, chapters.as_deref()?))
        .collect();
    scope.redirects = BookRedirects::new(&cfg.mdbook_redirects);
    scope
}

/// The public URL of the local site (`Config::base_url`), ending in `/`.
fn site_url(cfg: &Config) -> Result<Option<Url>, Error> {
    let Some(base) = &cfg.base_url else {
        return Ok(None);
    };
    let mut url = Url::parse(base.trim()).map_err(|e| {
        Error::new(
            ErrorKind::InvalidConfig,
            format!("base URL `{base}' is not a valid URL: {e}"),
        )
    })?;
    if !url.path().ends_with('/') {
        url.set_path(&format!("{}/", url.path()));
    }
    url.set_query(None);
    url.set_fragment(None);
    Ok(Some(url))
}

/// The files a wikilink may name: the start files and what the folder walks kept; none
/// unless `Config::include_wikilinks`.
fn wiki_index(cfg: &Config, starts: &[Start]) -> WikiIndex {
    if !cfg.include_wikilinks {
        return WikiIndex::default();
    }
    let started = starts
        .iter()
        .filter(|s| s.inline.is_none())
        .filter_map(|s| s.url.to_file_path().ok());
    let walked = cfg
        .walked_folders
        .iter()
        .flat_map(|(_, kept)| kept.iter().cloned());
    WikiIndex::new(started.chain(walked))
}

/// The folder `/` stands for in local pages: `Config::root_dir`, else the first folder
/// given as input.
fn file_root(cfg: &Config, starts: &[Start]) -> Result<Option<Url>, Error> {
    if let Some(dir) = &cfg.root_dir {
        let url = path_url(dir)?;
        if !url.as_str().ends_with('/') {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("`{}' is not a folder", dir.display()),
            ));
        }
        return Ok(Some(url));
    }
    Ok(starts
        .iter()
        .find(|s| s.inline.is_none() && s.url.scheme() == "file" && s.url.as_str().ends_with('/'))
        .map(|s| s.url.clone()))
}

/// Turns an input into a start URL (and its in-memory content).
pub(super) fn start_of(input: &Input) -> Result<Start, Error> {
    let bad = |m: String| Error::new(ErrorKind::InvalidInput, m);
    match input {
        Input::Url(s) => {
            let url =
                Url::parse(s.trim()).map_err(|e| bad(format!("`{s}' is not a valid URL: {e}")))?;
            match url.scheme() {
                "http" | "https" | "file" => Ok(Start {
                    url,
                    inline: None,
                    target: None,
                }),
                other => Err(bad(format!(
                    "cannot crawl `{s}': the scheme {other}: is not supported"
                ))),
            }
        }
        Input::Path(p) => start_path(p),
        Input::Html { html, base } => {
            let url = Url::parse(base.trim())
                .map_err(|e| bad(format!("base `{base}' is not a valid URL: {e}")))?;
            Ok(Start {
                url,
                inline: Some(Arc::from(html.as_str())),
                target: None,
            })
        }
    }
}

/// A start file or folder. A file named through a symbolic link keeps the link's name: only
/// its folder is resolved, so its relative links, `/` and `--remap` rules work from where it
/// was named, not from where the link leads; the file it leads to (that file alone) is read.
fn start_path(p: &Path) -> Result<Start, Error> {
    let link = std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    if link
        && p.is_file()
        && let Some(name) = p.file_name()
    {
        let parent = p.parent().filter(|f| !f.as_os_str().is_empty());
        let folder = path_url(parent.unwrap_or(Path::new(".")))?;
        let unusable = || {
            Error::new(
                ErrorKind::InvalidInput,
                format!("`{}' is not a usable path", p.display()),
            )
        };
        let folder = folder.to_file_path().map_err(|()| unusable())?;
        let url = Url::from_file_path(folder.join(name)).map_err(|()| unusable())?;
        return Ok(Start {
            url,
            inline: None,
            target: std::fs::canonicalize(p).ok(),
        });
    }
    Ok(Start {
        url: path_url(p)?,
        inline: None,
        target: None,
    })
}

/// A local path as a `file:` URL; folders get a trailing slash so relative links resolve inside.
pub(crate) fn path_url(p: &Path) -> Result<Url, Error> {
    let abs = real_path(p).map_err(|e| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("cannot read `{}': {e}", p.display()),
        )
        .with_source(e)
    })?;
    let url = if abs.is_dir() {
        Url::from_directory_path(&abs)
    } else {
        Url::from_file_path(&abs)
    };
    url.map_err(|()| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("`{}' is not a usable path", p.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(urls: &[&str]) -> Vec<Start> {
        urls.iter()
            .map(|u| Start {
                url: Url::parse(u).unwrap(),
                inline: None,
                target: None,
            })
            .collect()
    }

    /// Only link-local (with the cloud metadata addresses) left out.
    const LINK: AddressPolicy = AddressPolicy {
        loopback: false,
        private: false,
        link_local: true,
    };

    #[test]
    fn link_local_and_metadata_are_refused_whatever_the_start() {
        let cfg = Config::new();
        for start in [
            "file:///tmp/checkout/",
            "http://127.0.0.1:9/",
            "http://10.0.0.1/",
        ] {
            assert_eq!(address_policy(&cfg, &starts(&[start])), LINK, "{start}");
        }
        assert_eq!(address_policy(&cfg, &[]), LINK);
        let rule = crate::config::remap::Remap::parse("^http://a/ http://127.0.0.1:9/");
        let remapped = Config::new().remap(rule.expect("a valid rule"));
        assert_eq!(address_policy(&remapped, &starts(&["http://a/"])), LINK);
        // A public start (an IP literal: no lookup) leaves out every class.
        assert_eq!(
            address_policy(&cfg, &starts(&["http://192.0.2.1/"])),
            AddressPolicy::ALL
        );
    }

    #[test]
    fn allow_private_allows_link_local_too_unless_excluded() {
        let open = Config::new().allow_private(true);
        for start in ["file:///tmp/checkout/", "http://192.0.2.1/"] {
            assert!(
                address_policy(&open, &starts(&[start])).is_open(),
                "{start}"
            );
        }
        let excluded = Config::new().allow_private(true).exclude_link_local(true);
        assert_eq!(
            address_policy(&excluded, &starts(&["file:///tmp/checkout/"])),
            LINK
        );
    }
}
