//! The `anchors` plugin: a link's `#fragment` must name an `id` (or an `<a name>`) of its target
//! page, or, on a Markdown page, a heading (by GitHub's slug rules), an explicit heading id
//! (`{#id}`) or the `id`/`name` of its raw HTML. A missing one breaks the link (an error);
//! `severity=warning` makes it a warning (`anchor-not-found`) instead.
//!
//! Each page's anchors are read once. Pages the engine parses anyway hand their anchors over in
//! [`Plugin::check_content`]; any other target (an external page, a page below the recursion
//! limit) is fetched once through [`Services::fetch`], never once per fragment. Fragments are
//! matched as a browser does (the HTML standard's "find a potential indicated element"): the
//! fragment as written, then percent-decoded as UTF-8; `top` (any case) always scrolls to the
//! top of the page; `#` alone names nothing and is not checked; a single-page app's hash route
//! (`#/settings`, `#!/page`) is not an anchor: it gets an info that it was not checked.
//!
//! A text fragment (`#:~:text=…`, `text_fragment`) must match the visible text of its HTML
//! or Markdown target ([`linkpatrol_plugin_api::Page::text`], which the engine gives a page fetched for
//! plugins: such a page is fetched once more, once per run); a missing one is
//! `text-fragment-not-found`, with the severity of a missing anchor. An element id before the
//! `:~:` (`#usage:~:text=…`) is checked as an anchor too.
//!
//! Fragments follow the renderer that shows the target. GitHub matches a fragment in any case
//! (`#Summary` finds `summary`), so on a Markdown file linked from a repository file a match in
//! another case is valid, with the warning `anchor-case` naming the exact id; mdBook (a link
//! from one of its sources) and browsers on HTML pages do not, so there it stays missing. A
//! missing fragment's message names the closest anchors (`closest.rs`), not a list of all.
//!
//! On `github.com` pages (decided on the URL as written, before `--remap`), what GitHub's own
//! script does counts too (`github`): a line anchor (`#L10`, `#L10-L20`) of a file view is
//! valid when the page is, and `#foo` finds the rendered heading `id="user-content-foo"`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod closest;
mod decode;
mod github;
mod text_fragment;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use linkpatrol_plugin_api::{ContentView, LinkView, Options, Plugin, Remark, Services, Url};

pub use decode::percent_decode;

/// The plugin's name.
pub const NAME: &str = "anchors";
/// One line for `--list-plugins`.
pub const DESCRIPTION: &str = "#fragment links must name an id, <a name> or Markdown heading of \
                               their target page (each page read once); settings: \
                               severity=error|warning (default error)";
/// The warning tag.
pub const TAG: &str = "anchor-not-found";
/// The warning tag of a fragment that matches an anchor of a Markdown file only in another
/// case: valid on GitHub, which ignores case, but not elsewhere.
pub const TAG_CASE: &str = "anchor-case";
/// The warning tag of a text fragment (`#:~:text=`) its page's text does not have.
pub const TAG_TEXT: &str = "text-fragment-not-found";

/// The anchors of one page, for lookups. (The closest ones a message names are looked for only
/// when a fragment is missing.)
#[derive(Debug)]
struct PageAnchors {
    set: HashSet<String>,
    /// A Markdown page: GitHub shows it, and matches fragments in any case.
    markdown: bool,
}

impl PageAnchors {
    fn new(anchors: &[String], content_type: Option<&str>) -> PageAnchors {
        PageAnchors {
            set: anchors.iter().cloned().collect(),
            markdown: matches!(content_type, Some("text/markdown" | "text/x-markdown")),
        }
    }

    fn all(&self) -> impl Iterator<Item = &str> {
        self.set.iter().map(String::as_str)
    }
}

/// The `anchors` plugin. Its cache maps a page URL (without fragment) to that page's anchors.
///
/// Concurrency: `pages` is locked only to look up or insert an entry, never across a fetch. Two
/// workers may miss the same page at once; both then ask the engine, whose fetch is itself
/// once per URL and run, so the page is still requested once.
#[derive(Debug, Default)]
pub struct Anchors {
    pages: RwLock<HashMap<String, Arc<PageAnchors>>>,
    /// A missing fragment is a warning, not an error (`severity=warning`).
    only_warn: bool,
}

impl Anchors {
    /// The plugin, from its settings: `severity=error` (the default: a link whose fragment is
    /// missing is broken) or `severity=warning`.
    ///
    /// # Errors
    /// On an unknown setting or severity.
    pub fn from_options(options: &Options) -> Result<Anchors, String> {
        options.only(&["severity"])?;
        let only_warn = match options.get("severity").map(str::trim) {
            None | Some("error") => false,
            Some("warning") => true,
            Some(other) => {
                return Err(format!(
                    "plugin {NAME}: `severity={other}' is not `error' or `warning'"
                ));
            }
        };
        Ok(Anchors {
            only_warn,
            ..Anchors::default()
        })
    }

    fn key(url: &Url) -> String {
        let mut u = url.clone();
        u.set_fragment(None);
        u.into()
    }

    fn cached(&self, url: &Url) -> Option<Arc<PageAnchors>> {
        let pages = self.pages.read().unwrap_or_else(|p| p.into_inner());
        pages.get(&Self::key(url)).cloned()
    }

    fn store(
        &self,
        urls: &[&Url],
        anchors: &[String],
        content_type: Option<&str>,
    ) -> Arc<PageAnchors> {
        let page = Arc::new(PageAnchors::new(anchors, content_type));
        let mut pages = self.pages.write().unwrap_or_else(|p| p.into_inner());
        for url in urls {
            pages.insert(Self::key(url), page.clone());
        }
        page
    }

    /// The anchors of the link's target: cached, else fetched through the engine. `None` when
    /// the target is not an HTML page (nothing to check).
    fn anchors_of(&self, link: &LinkView<'_>, services: &dyn Services) -> Option<Arc<PageAnchors>> {
        if let Some(found) = self.cached(link.target) {
            return Some(found);
        }
        if let Some(found) = link.real_target.and_then(|u| self.cached(u)) {
            return Some(found);
        }
        let page = services.fetch(link.target);
        if !page.ok || !has_anchors(page.content_type.as_deref()) {
            return None;
        }
        let mut urls = vec![link.target];
        if let Some(u) = &page.final_url {
            urls.push(u);
        }
        Some(self.store(&urls, &page.anchors, page.content_type.as_deref()))
    }
}

/// `true` for the pages whose anchors are known: HTML and Markdown.
fn has_anchors(content_type: Option<&str>) -> bool {
    matches!(
        content_type,
        Some("text/html" | "application/xhtml+xml" | "text/markdown" | "text/x-markdown")
    )
}

/// `true` when `fragment` needs no element: `top` scrolls to the top.
fn always_valid(decoded: &str) -> bool {
    decoded.eq_ignore_ascii_case("top")
}

/// A fragment that a single-page app's hash router reads as a path (`#/settings`, `#!/page`,
/// `#!page`): the page's script shows that view, no element has it as an id.
fn is_client_route(fragment: &str) -> bool {
    fragment.starts_with('/') || fragment.starts_with('!')
}

/// The warning for a fragment missing from a page with `anchors`.
fn not_found_message(fragment: &str, decoded: &str, target: &Url, anchors: &PageAnchors) -> String {
    let mut m = format!("Anchor `{fragment}'");
    if decoded != fragment {
        m.push_str(&format!(" (decoded: `{decoded}')"));
    }
    m.push_str(&format!(" not found on {target}. "));
    let near = closest::closest(decoded, anchors.all());
    match (near.is_empty(), anchors.set.len()) {
        (_, 0) => m.push_str("The page has no anchors."),
        (true, n) => m.push_str(&format!("None of its {n} anchors is close.")),
        (false, _) => {
            let named: Vec<String> = near.iter().map(|a| format!("`{a}'")).collect();
            m.push_str(&format!("Did you mean {}?", named.join(", ")));
        }
    }
    m
}

/// The warning for a fragment that matches the anchors `same` only in another case.
fn case_message(fragment: &str, same: &[&str]) -> String {
    let named: Vec<String> = same.iter().map(|a| format!("`{a}'")).collect();
    format!(
        "Anchor `{fragment}' matches {} only in another case: GitHub finds it, mdBook and \
         browsers on an HTML page do not.",
        named.join(", ")
    )
}

impl Plugin for Anchors {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check_content(&self, content: &ContentView<'_>, _: &dyn Services) -> Vec<Remark> {
        if has_anchors(content.content_type) {
            self.store(
                &[content.url, content.final_url],
                content.anchors,
                content.content_type,
            );
        }
        Vec::new()
    }

    fn check_link(&self, link: &LinkView<'_>, services: &dyn Services) -> Vec<Remark> {
        if !link.target_ok || link.fragment.is_empty() {
            return Vec::new();
        }
        if link
            .target_content_type
            .is_some_and(|ct| !has_anchors(Some(ct)))
        {
            return Vec::new();
        }
        if is_client_route(link.fragment) {
            return vec![Remark::Info(format!(
                "#{} is a client-side route, not an anchor: not checked",
                link.fragment
            ))];
        }
        if let Some((id, directives)) = link.fragment.split_once(":~:") {
            let mut remarks = self.check_text(link, directives, services);
            if !id.is_empty() {
                remarks.extend(self.check_anchor(link, id, services));
            }
            return remarks;
        }
        self.check_anchor(link, link.fragment, services)
    }
}

impl Anchors {
    /// A missing fragment's remark: broken, or a warning with `tag` (`severity=warning`).
    fn missing(&self, tag: &'static str, message: String) -> Remark {
        if self.only_warn {
            Remark::warning(tag, message)
        } else {
            Remark::Broken(message)
        }
    }

    /// The text directives (after `:~:`) of a link must match its page's visible text.
    fn check_text(
        &self,
        link: &LinkView<'_>,
        directives: &str,
        services: &dyn Services,
    ) -> Vec<Remark> {
        let parsed = match text_fragment::text_directives(directives) {
            Ok(parsed) if parsed.is_empty() => return Vec::new(),
            Ok(parsed) => parsed,
            Err(bad) => {
                let message = format!(
                    "Text fragment `{bad}' is malformed: a browser highlights nothing \
                     (text=[prefix-,]start[,end][,-suffix])."
                );
                return vec![self.missing(TAG_TEXT, message)];
            }
        };
        let page = services.fetch(link.target);
        if !page.ok {
            return Vec::new();
        }
        if !has_anchors(page.content_type.as_deref()) {
            return vec![Remark::Info(
                "a text fragment of a page that is neither HTML nor Markdown: not checked".into(),
            )];
        }
        let text = text_fragment::searchable(&page.text);
        let missing: Vec<&str> = parsed
            .iter()
            .filter(|d| !d.matches(&text))
            .map(|d| d.written.as_str())
            .collect();
        if missing.is_empty() {
            return Vec::new();
        }
        let message = format!(
            "Text fragment `{}' not found in the text of {}.",
            missing.join("&"),
            link.target
        );
        vec![self.missing(TAG_TEXT, message)]
    }

    /// `fragment` (the link's, or the element id before a text directive) must name an
    /// anchor of the link's page.
    fn check_anchor(
        &self,
        link: &LinkView<'_>,
        fragment: &str,
        services: &dyn Services,
    ) -> Vec<Remark> {
        let decoded = percent_decode(fragment);
        if always_valid(&decoded) {
            return Vec::new();
        }
        if github::is_line_anchor(link, fragment) {
            return Vec::new();
        }
        let Some(anchors) = self.anchors_of(link, services) else {
            return Vec::new();
        };
        if anchors.set.contains(fragment) || anchors.set.contains(decoded.as_str()) {
            return Vec::new();
        }
        if github::is_github_page(link)
            && github::user_content_ids(&decoded)
                .iter()
                .any(|id| anchors.set.contains(id))
        {
            return Vec::new();
        }
        if anchors.markdown && !link.from_mdbook {
            let same = closest::same_but_case(&decoded, anchors.all());
            if !same.is_empty() {
                return vec![Remark::warning(TAG_CASE, case_message(fragment, &same))];
            }
        }
        let message = not_found_message(fragment, &decoded, link.target, &anchors);
        vec![self.missing(TAG, message)]
    }
}

#[cfg(test)]
mod tests;
