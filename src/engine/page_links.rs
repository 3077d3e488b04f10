//! Turning a page into links: extract them (HTML in batches, or CSS, Markdown, sitemaps,
//! text, PDF and Office documents), resolve each against the page's base (an OpenDocument's:
//! the package as a folder, [`package_base`]) and the local site root (a plain relative link
//! on a local or web page as text, `policy::local_join`, its `Url` built only when the claim
//! needs one), and admit it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use encoding_rs::Encoding;
use url::{Position, Url};

use crate::engine::plugin_host::PageFacts;
use crate::extract::format::{Format, is_html};
use crate::extract::{
    HtmlDocument, RawLink, extract_css, extract_html_batched, extract_markdown_with,
    extract_office, extract_pdf, extract_sitemap, extract_text_urls, gunzip_capped, is_gzip,
    is_sitemap, markdown_anchors,
};
use crate::fetch::{self};
use crate::model::link_site::LinkSite;
use crate::model::outcome::{CheckResult, FailKind, Outcome, Warning};
use crate::model::redact::redact;
use crate::model::stats::SkipReason;
use crate::policy::filter::Decision;
use crate::policy::local_join::{JoinBase, join_local_key};
use crate::policy::parse_near::parse_near;
use crate::policy::url_cap::{self, MAX_URL_LENGTH};
use crate::state::{Packer, PageLinks as StoredLinks, StoredLink};

use super::admit::Via;
use super::cache::{Occurrence, PageEdges};
use super::record::is_problem;
use super::run::Run;

/// How many links of an HTML page are resolved and considered at a time: bounds the memory of
/// one page's link list (a source listing has 200,000 links) at the cost of one call per batch.
pub(crate) const LINK_BATCH: usize = 1024;

/// What all links of one page share while they are considered.
struct PageLinks<'p> {
    /// The page's (final) URL.
    page: &'p Url,
    /// The URL its links are resolved against: the page's `<base href>`, else the page.
    base: Url,
    /// One copy of the page's (masked) URL for all its link sites.
    parent: Arc<str>,
    /// The `<base href>` as written, shared by all link sites.
    doc_base: Option<Arc<str>>,
    /// The base is the page as a folder ([`package_base`]): an OpenDocument package, whose
    /// fragment-only links (`#bookmark`) are still places in the document itself. Set only
    /// where such a base is made: an HTML `<base>` keeps a browser's meaning.
    package: bool,
    /// `<meta name=robots content=nofollow>`: no link of the page is followed.
    nofollow: bool,
    /// The page came over HTTP(S).
    from_web: bool,
    /// The page is Markdown: a link to a folder is not `file-no-index`, nor followed.
    markdown: bool,
    /// The encoding of the page's query strings, when not UTF-8 (see `extract::charset`).
    query_encoding: Option<&'static Encoding>,
    /// The recursion level of the page's links.
    level: usize,
    /// See `own` of [`Run::queue_children`].
    own: Option<&'p CheckResult>,
    /// The page's folder (its URL up to the last `/`) when its plain relative links may be
    /// joined as text (`policy::local_join`): a local or web page with no `<base>`, query,
    /// fragment or escape in its URL, its queries in UTF-8. Set by [`Run::fast_join`].
    fast_dir: Option<JoinBase>,
    /// What the page's root-relative links (`/about.html`) are joined to on the fast path: the
    /// site root of a local page under it, the origin (with a `/`) of a web page.
    fast_root: Option<JoinBase>,
    /// The key of the link being considered on the fast path, reused from link to link.
    key: RefCell<String>,
    /// The edges from the page's slot in the result cache, recorded by its links' claims for
    /// the levels settled at the end (`cache/levels.rs`).
    from: Option<&'p PageEdges<'p>>,
    /// The links are those a rendering of the page found and its parse did not.
    rendered: bool,
}

impl<'p> PageLinks<'p> {
    /// `doc` gives the base and robots flag (its links are not read).
    pub(super) fn new(
        page: &'p Url,
        doc: &HtmlDocument,
        level: usize,
        own: Option<&'p CheckResult>,
    ) -> Self {
        PageLinks {
            page,
            base: doc
                .base
                .as_deref()
                .and_then(|b| page.join(b.trim()).ok())
                .unwrap_or_else(|| page.clone()),
            parent: Arc::from(redact(page.as_str())),
            doc_base: doc.base.as_deref().map(Arc::from),
            package: false,
            nofollow: doc.nofollow,
            from_web: matches!(page.scheme(), "http" | "https"),
            markdown: false,
            query_encoding: None,
            level,
            own,
            fast_dir: None,
            fast_root: None,
            // Room for most keys at once, instead of growing on the first links of each page.
            key: RefCell::new(String::with_capacity(2 * page.as_str().len())),
            from: None,
            rendered: false,
        }
    }
}

/// `value` resolved against `base`, as a browser does on a page in `query_encoding`: the query
/// string in that encoding (characters it lacks as `&#N;`), the rest in UTF-8.
fn join(
    base: &Url,
    value: &str,
    query_encoding: Option<&'static Encoding>,
) -> Result<Url, url::ParseError> {
    let Some(encoding) = query_encoding else {
        return base.join(value);
    };
    let encode = query_encoder(encoding);
    Url::options()
        .base_url(Some(base))
        .encoding_override(Some(&encode))
        .parse(value)
}

/// The url crate's encoding override for `encoding` (a named function: a closure's lifetimes
/// would not be inferred as general enough).
fn query_encoder(encoding: &'static Encoding) -> impl Fn(&str) -> Cow<'_, [u8]> {
    move |query| encoding.encode(query).0
}

/// One link of a page as written: moved out of the extractor's `RawLink` on a parse, borrowed
/// from the state file's blob on a replay (no copy of its texts for each link).
struct Written<'a> {
    value: Cow<'a, str>,
    line: usize,
    column: usize,
    name: Cow<'a, str>,
    nofollow: bool,
    padded: bool,
    /// A Markdown reference to a label defined nowhere: broken as written.
    undefined_label: bool,
    /// An Obsidian wikilink: its file is looked up by name first (`Run::wikilink_value`).
    wikilink: bool,
}

/// A link as the state file stores it.
fn stored(link: &RawLink) -> StoredLink<'_> {
    StoredLink {
        value: &link.value,
        line: link.line,
        column: link.column,
        name: &link.name,
        nofollow: link.nofollow,
        padded: link.padded,
        undefined_label: link.undefined_label,
    }
}

impl From<RawLink> for Written<'static> {
    fn from(link: RawLink) -> Self {
        Written {
            value: Cow::Owned(link.value),
            line: link.line,
            column: link.column,
            name: Cow::Owned(link.name),
            nofollow: link.nofollow,
            padded: link.padded,
            undefined_label: link.undefined_label,
            wikilink: link.wikilink,
        }
    }
}

impl<'a> From<StoredLink<'a>> for Written<'a> {
    fn from(link: StoredLink<'a>) -> Self {
        Written {
            value: Cow::Borrowed(link.value),
            line: link.line,
            column: link.column,
            name: Cow::Borrowed(link.name),
            nofollow: link.nofollow,
            padded: link.padded,
            undefined_label: link.undefined_label,
            wikilink: false,
        }
    }
}

/// Bytes of HTML per byte of packed links, rounded down so that a page's buffer rarely grows:
/// the 126 MB of the 20,000-page generated site pack into 49 MB (803,000 links, 61 bytes each
/// before compression).
const BODY_BYTES_PER_PACKED_BYTE: usize = 2;

/// A page's links as they are considered, for the state file (see `Run::records_page`).
#[derive(Debug, Default)]
pub(super) struct PageRecord {
    /// `<base href>` as written.
    pub(super) base: Option<String>,
    /// `<meta name=robots content=nofollow>`.
    pub(super) nofollow: bool,
    /// The links, packed as they come.
    pub(super) links: Packer,
}

impl PageRecord {
    /// An empty record for a page of `body_len` bytes, its buffer sized once for the links
    /// such a page usually has (growing it link by link cost a crawl 2% of its time).
    pub(super) fn for_body(body_len: usize) -> Self {
        PageRecord {
            links: Packer::with_capacity(body_len / BODY_BYTES_PER_PACKED_BYTE),
            ..PageRecord::default()
        }
    }

    /// The blob for the `pages` table.
    pub(super) fn finish(self) -> Vec<u8> {
        self.links.finish(self.base.as_deref(), self.nofollow)
    }
}

/// The base of an OpenDocument package's links, relative to its URL: the package as a folder
/// (ODF 1.2 part 3 §3.7), so that `../x.html`, as LibreOffice writes a link to a file next to
/// the document, is that file (a link to `#bookmark` stays in the document, see
/// `PageLinks::package`). `./` keeps a name with a `:` from reading as a scheme. `None` for a
/// URL that already ends in `/`. (Documents are not stored in the state file, so no replay
/// needs it.)
fn package_base(page: &Url) -> Option<String> {
    let name = page
        .path_segments()?
        .next_back()
        .filter(|s| !s.is_empty())?;
    Some(format!("./{name}/"))
}

/// `/x` but not `//host/x`.
pub(super) fn is_root_relative(value: &str) -> bool {
    value.starts_with('/') && !value.starts_with("//")
}

impl Run {
    /// Extracts the links of a page and considers each. Returns how many links it had. With
    /// `facts`, also hands over the page's anchors (of HTML and Markdown) and resolved links
    /// (for plugins); without, anchors are not collected at all. `query_encoding`: the page's
    /// legacy encoding, in which its links' query strings are written (see `extract::charset`).
    ///
    /// An HTML page's links arrive in batches of [`LINK_BATCH`] while it is parsed and are
    /// considered batch by batch, so a page with 200,000 links never holds them all (see
    /// [`extract_html_batched`]); they are considered in document order, batched or not.
    ///
    /// `own` is the page's verdict (all but its timing), given when only problems are reported,
    /// no plugin is active and the page is checked under its own key. A link back to the page
    /// (`#line-123`; a source listing has one per line) would wait in the cache until the page
    /// is recorded, 200,000 of them for one large page; when neither the verdict nor the link
    /// is a problem it is counted at once instead, exactly as `send` would count it later.
    ///
    /// `keep` collects the page's followed in-scope links (see `cache::Upgrade::Relevel`);
    /// `from` the edges of the link graph from the page (see `cache::PageEdges`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn queue_children(
        &self,
        body: &[u8],
        page: &Url,
        level: usize,
        content_type: Option<&str>,
        query_encoding: Option<&'static Encoding>,
        mut facts: Option<&mut PageFacts>,
        own: Option<&CheckResult>,
        mut keep: Option<&mut Vec<Url>>,
        mut record: Option<&mut PageRecord>,
        from: Option<&PageEdges<'_>>,
    ) -> (usize, Option<String>) {
        if !is_html(content_type) {
            let format = Format::of(content_type);
            let mut unreadable = None;
            // An OpenDocument package's links resolve against it as a folder: its base.
            let mut doc = HtmlDocument::default();
            let links = match format {
                Some(Format::Css) => extract_css(body),
                Some(Format::Markdown) => {
                    extract_markdown_with(body, self.include_verbatim, self.include_wikilinks)
                }
                Some(Format::Office) => {
                    let office = extract_office(body);
                    unreadable = office.trouble.map(|t| t.to_string());
                    if office.open_document {
                        doc.base = package_base(page);
                    }
                    office.links
                }
                Some(Format::Pdf) => {
                    let (links, trouble) = extract_pdf(body);
                    unreadable = trouble;
                    links
                }
                // A text file given as a start input is a list of URLs; other text is not read.
                Some(Format::Text) if level == 1 => extract_text_urls(body),
                _ if is_gzip(body) => match gunzip_capped(body, self.max_body) {
                    Some(xml) if is_sitemap(&xml) => extract_sitemap(&xml),
                    _ => return (0, None),
                },
                _ if is_sitemap(body) => extract_sitemap(body),
                _ => return (0, None),
            };
            let mut ctx = PageLinks::new(page, &doc, level, own);
            ctx.package = doc.base.is_some();
            ctx.from = from;
            ctx.markdown = matches!(format, Some(Format::Markdown));
            self.fast_join(&mut ctx);
            if let Some(f) = facts.as_deref_mut()
                && ctx.markdown
            {
                f.anchors = markdown_anchors(body);
            }
            let n = links.len();
            for link in links {
                // Not to be checked, as the page's author asked: counted, never stored.
                if link.ignored {
                    self.skipped.add(SkipReason::Comment);
                    continue;
                }
                if let Some(r) = record.as_deref_mut() {
                    r.links.push(&stored(&link));
                }
                self.consider_link(&ctx, facts.as_deref_mut(), keep.as_deref_mut(), link.into());
            }
            return (n, unreadable);
        }
        let mut ctx = None;
        let mut n = 0;
        let anchors = facts.is_some();
        let verbatim = self.include_verbatim;
        let doc = extract_html_batched(body, anchors, verbatim, LINK_BATCH, &mut |doc| {
            // The base and robots flag are final from the first batch on.
            let ctx = ctx.get_or_insert_with(|| {
                let mut ctx = PageLinks::new(page, doc, level, own);
                ctx.from = from;
                ctx.query_encoding = query_encoding;
                self.fast_join(&mut ctx);
                ctx
            });
            n += doc.links.len();
            if let Some(r) = record.as_deref_mut() {
                r.base.clone_from(&doc.base);
                r.nofollow = doc.nofollow;
                for l in doc.links.iter().filter(|l| !l.ignored) {
                    r.links.push(&stored(l));
                }
            }
            for link in doc.links.drain(..) {
                if link.ignored {
                    self.skipped.add(SkipReason::Comment);
                    continue;
                }
                self.consider_link(ctx, facts.as_deref_mut(), keep.as_deref_mut(), link.into());
            }
        });
        if let Some(f) = facts {
            f.anchors = doc.anchors;
        }
        (n, None)
    }

    /// Considers the links of a page that its server said had not changed, as stored when it
    /// was last parsed: the same as parsing it again, without the body. Returns how many.
    pub(super) fn replay_children(
        &self,
        stored: &StoredLinks,
        page: &Url,
        level: usize,
        own: Option<&CheckResult>,
        mut keep: Option<&mut Vec<Url>>,
        from: Option<&PageEdges<'_>>,
    ) -> usize {
        let doc = HtmlDocument {
            base: stored.base.clone(),
            nofollow: stored.nofollow,
            ..HtmlDocument::default()
        };
        let mut ctx = PageLinks::new(page, &doc, level, own);
        ctx.from = from;
        self.fast_join(&mut ctx);
        for link in stored.links() {
            self.consider_link(&ctx, None, keep.as_deref_mut(), link.into());
        }
        stored.len()
    }

    /// Resolves one link of a page and considers it (see [`Run::queue_children`]).
    /// `keep`: when given, the followed in-scope links are also pushed there (a page parsed again
    /// at a lower level hands them on, see [`Run::queue_children`]).
    fn consider_link(
        &self,
        ctx: &PageLinks<'_>,
        facts: Option<&mut PageFacts>,
        keep: Option<&mut Vec<Url>>,
        link: Written<'_>,
    ) {
        let page = ctx.page;
        let Written {
            value,
            line,
            column,
            name,
            nofollow,
            padded,
            undefined_label,
            wikilink,
        } = link;
        let value = if wikilink {
            self.wikilink_value(page, value)
        } else {
            value
        };
        let follow = !ctx.nofollow && !nofollow;
        let via = Via {
            from: ctx.from,
            ..Via::link(ctx.level, ctx.from_web, follow)
        };
        if undefined_label {
            let raw = value.clone().into_owned();
            let site = self.site_of(ctx, value, line, column, name, Vec::new(), None);
            let outcome = Outcome::Failed {
                kind: FailKind::UndefinedReference,
                message: format!(
                    "no definition `{raw}: URL' in the page: the reference renders as text"
                ),
            };
            let key = format!("undefined:{raw}");
            self.finish_unresolved(key, Some(site), raw, outcome, via, None);
            return;
        }
        // A relative link that climbs out of the page's site (an mdBook's sources): a page of
        // the deployed host, not a file here.
        if !self.sites.is_empty()
            && super::site_roots::may_climb(&value)
            && let Ok(local) = self.resolve(ctx, &value)
        {
            let written = value.clone().into_owned();
            let leaving = super::left_site::Leaving {
                page,
                value: &written,
                local: &local,
            };
            if let Some(site) = self.site_left(&leaving) {
                let occurrence = self.site_of(ctx, value, line, column, name, Vec::new(), None);
                self.left_site(site, &leaving, occurrence, via);
                return;
            }
        }
        // The fast path: a plain link on a local or web page, joined as text. Its `Url` is built only
        // when the claim needs one (a new key, or one a parse may upgrade).
        if keep.is_none()
            && facts.as_ref().is_none_or(|f| !f.want_links)
            && let Some(dir) = &ctx.fast_dir
        {
            let mut key = ctx.key.borrow_mut();
            // A link whose URL may be over the cap takes the slow path, which keys it by a
            // digest (`Run::consider`).
            if let Some(fragment) = join_local_key(dir, ctx.fast_root.as_ref(), &value, &mut key)
                && key.len() <= MAX_URL_LENGTH
            {
                // The key, then the fragment as written: `key` holds the whole URL, to be
                // parsed only if the claim needs it.
                let key_len = key.len();
                if let Some(f) = fragment {
                    key.push('#');
                    key.push_str(f);
                }
                #[cfg(debug_assertions)]
                self.assert_same_join(ctx, &value, &key, key_len);
                let warnings = self.link_warnings(&value, padded, false);
                if let Some(own) = ctx.own
                    && key[..key_len] == *page.as_str()
                    && !is_problem(own, None)
                    && warnings.is_empty()
                {
                    self.unreported.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                let warned = !warnings.is_empty();
                // Built only when the claim keeps it (see `Run::claim_link`). The fragment is
                // the text after the key and its `#` (absent: out of range).
                let text: &str = &key;
                let occ = || Occurrence {
                    fragment: text
                        .get(key_len + 1..)
                        .filter(|f| !f.is_empty())
                        .map(str::to_owned),
                    site: Some(self.site_of(ctx, value, line, column, name, warnings, None)),
                };
                if let Some(next) =
                    self.claim_link(&text[..key_len], warned, occ, ctx.level, ctx.from)
                {
                    let whole = std::mem::take(&mut *key);
                    drop(key);
                    match parse_near(page, &whole) {
                        Ok(url) => {
                            let mut whole = whole;
                            whole.truncate(key_len);
                            self.carry_on(next, whole, url, via, None);
                        }
                        // Cannot happen: the text join qualifies only what the parser gave.
                        Err(e) => debug_assert!(false, "`{whole}': {e}"),
                    }
                }
                return;
            }
        }
        let url = self.resolve(ctx, &value);
        let (url, remapped_from) = self.remapped(url);
        if let (Some(f), Ok(u)) = (facts, &url)
            && f.want_links
        {
            f.links.push(u.clone());
        }
        let folder = url
            .as_ref()
            .is_ok_and(|u| !fetch::file::is_listing(page) && self.files.is_folder_without_index(u));
        // On GitHub a folder link from Markdown shows the folder: it exists, so it is valid,
        // and it is no page of the site (its files are not walked). From HTML a web server
        // would serve no page there: warned, and its entries listed and checked.
        // Told only of folders inside the checked ones: outside, whether a folder has an
        // `index.html` is not the checkout's to learn.
        let no_index = folder && !ctx.markdown && url.as_ref().is_ok_and(|u| self.files.holds(u));
        let via = if folder && ctx.markdown {
            Via {
                follow: false,
                ..via
            }
        } else {
            via
        };
        // The link as written goes to the site (masked) and, for an unparsable link only,
        // to `consider` as its key: one copy in the common case.
        let raw = match &url {
            Ok(_) => String::new(),
            Err(_) => value.clone().into_owned(),
        };
        let warnings = self.link_warnings(&value, padded, no_index);
        if let (Some(own), Ok(u)) = (ctx.own, &url)
            && u[..Position::AfterQuery] == page[..Position::AfterQuery]
            && !is_problem(own, None)
            && warnings.is_empty()
        {
            self.unreported.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let site = self.site_of(ctx, value, line, column, name, warnings, remapped_from);
        if let (Some(keep), Ok(u), true) = (keep, &url, follow)
            && matches!(
                self.filter.decide(u, ctx.level, false, ctx.from_web),
                Decision::Check { internal: true, .. }
            )
        {
            let mut u = u.clone();
            u.set_fragment(None);
            keep.push(u);
        }
        self.consider(url, Some(site), raw, via, None);
    }

    /// Considers the links found on `page` once rendered that its parse did not find (each
    /// absolute), marked as found after rendering; they have no line in the page's source.
    pub(super) fn queue_rendered(
        &self,
        page: &Url,
        links: &[Url],
        level: usize,
        from: Option<&PageEdges<'_>>,
    ) {
        let doc = HtmlDocument::default();
        let mut ctx = PageLinks::new(page, &doc, level, None);
        ctx.from = from;
        ctx.rendered = true;
        for link in links {
            let written = Written {
                value: Cow::Borrowed(link.as_str()),
                line: 0,
                column: 0,
                name: Cow::Borrowed(""),
                nofollow: false,
                padded: false,
                undefined_label: false,
                wikilink: false,
            };
            self.consider_link(&ctx, None, None, written);
        }
    }

    /// Sets up the fast path of `ctx`'s links (see `PageLinks::fast_dir`): only when no rule
    /// (`--remap`, `--base-url`) rewrites a link and nothing about the page changes how its
    /// links resolve.
    fn fast_join(&self, ctx: &mut PageLinks<'_>) {
        let page = ctx.page;
        let web = matches!(page.scheme(), "http" | "https");
        if !self.remap.is_empty()
            || self.site_url.is_some()
            || ctx.query_encoding.is_some()
            || ctx.doc_base.is_some()
            || !(web || page.scheme() == "file")
            || page.query().is_some()
            || page.fragment().is_some()
            || page.as_str().contains('%')
            // A key drops such a dot (`url_norm::cache_key_ref`); the text join would not.
            || page.host_str().is_some_and(|h| h.ends_with('.'))
        {
            return;
        }
        let s = page.as_str();
        ctx.fast_dir = s
            .rfind('/')
            .and_then(|at| JoinBase::new(s[..=at].to_owned()));
        ctx.fast_root = if web {
            JoinBase::new(format!("{}/", &page[..Position::BeforePath]))
        } else {
            self.site_root(page, "/")
                .and_then(|root| JoinBase::new(root.as_str().to_owned()))
        };
    }

    /// A link's URL, resolved as a browser viewing the page resolves it (see `site_root`,
    /// `web_scheme`, `local_copy`).
    fn resolve(&self, ctx: &PageLinks<'_>, value: &str) -> Result<Url, String> {
        let page = ctx.page;
        match self.site_root(page, value) {
            // With --base-url, `/x` is the deployed site's `/x`: under the base URL it maps
            // back into the folder (`local_copy`), elsewhere it is a page of that site.
            Some(root) => match self.site_url.as_ref().and_then(|s| s.join("/").ok()) {
                Some(site_root) => join(
                    &site_root,
                    value.trim_start_matches('/'),
                    ctx.query_encoding,
                ),
                None => join(root, value.trim_start_matches('/'), ctx.query_encoding),
            },
            None => match self.web_scheme(&ctx.base, value) {
                Some(scheme) => Url::parse(&format!("{scheme}:{}", value.trim())),
                None if ctx.package && value.trim_start().starts_with('#') => {
                    join(page, value, ctx.query_encoding)
                }
                None => join(&ctx.base, value, ctx.query_encoding),
            },
        }
        .map(|u| self.local_copy(page, u))
        .map_err(|e| format!("cannot resolve `{}': {e}", url_cap::capped(value)))
    }

    /// The warnings of one link, `value` as written (`file-no-index` when `no_index`,
    /// `url-whitespace` when `padded`), those the run keeps. None (no allocation) for most.
    fn link_warnings(&self, value: &str, padded: bool, no_index: bool) -> Vec<Warning> {
        let mut warnings = Vec::new();
        if !padded && !no_index {
            return warnings;
        }
        if no_index {
            warnings.push(Warning {
                tag: "file-no-index",
                message: format!(
                    "`{}' is a folder without {}: a web server would not serve a page here \
                     (its entries are listed and checked).",
                    url_cap::capped(value),
                    self.files.index_names()
                ),
            });
        }
        if padded {
            warnings.push(Warning {
                tag: "url-whitespace",
                message: format!(
                    "URL `{}' has whitespace at the beginning or end.",
                    url_cap::capped(value)
                ),
            });
        }
        warnings.retain(|w| self.keeps(w));
        warnings
    }

    /// The site of one link of `ctx`'s page: the link as written (masked), where it is, its
    /// label and its `warnings` (see [`Run::link_warnings`]).
    #[allow(clippy::too_many_arguments)]
    fn site_of(
        &self,
        ctx: &PageLinks<'_>,
        value: Cow<'_, str>,
        line: usize,
        column: usize,
        name: Cow<'_, str>,
        warnings: Vec<Warning>,
        remapped_from: Option<Box<str>>,
    ) -> LinkSite {
        let raw = match redact(&value) {
            Cow::Owned(masked) => masked,
            Cow::Borrowed(_) => value.into_owned(),
        };
        // A link over the cap is shown by its first characters (`policy::url_cap`).
        let raw = match url_cap::capped(&raw) {
            Cow::Owned(short) => short,
            Cow::Borrowed(_) => raw,
        };
        LinkSite {
            parent: ctx.parent.clone(),
            raw,
            line: (!ctx.rendered).then_some(line),
            column: (!ctx.rendered).then_some(column),
            rendered: ctx.rendered,
            name: name.into_owned(),
            base: ctx.doc_base.clone(),
            warnings,
            remapped_from,
        }
    }

    /// Checks (in debug builds: every test) that the text join gave what the parser gives:
    /// `whole` is the URL, and its first `key_len` bytes its key.
    #[cfg(debug_assertions)]
    fn assert_same_join(&self, ctx: &PageLinks<'_>, value: &str, whole: &str, key_len: usize) {
        let url = self.resolve(ctx, value).expect("a plain link parses");
        let slow = self
            .files
            .document_key(&url, crate::policy::url_norm::cache_key_ref(&url));
        assert_eq!(
            slow,
            whole[..key_len],
            "the key of `{value}' on {}",
            ctx.page
        );
        assert_eq!(url.as_str(), whole, "`{value}' on {}", ctx.page);
    }

    /// The site root for a root-relative link (`/about.html`) on a local page, when one is set.
    pub(super) fn site_root(&self, page: &Url, value: &str) -> Option<&Url> {
        let root = self.file_root.as_ref()?;
        (page.scheme() == "file"
            && is_root_relative(value)
            && page.as_str().starts_with(root.as_str()))
        .then_some(root)
    }

    /// The scheme of a protocol-relative link (`//cdn.example.net/lib.js`) under a `file:` base:
    /// a browser viewing the site would use the site's, so `--base-url`'s scheme when given,
    /// else `https`. `None` for any other link or base (a `//` link on a web page keeps the
    /// page's scheme, as `Url::join` gives it).
    pub(super) fn web_scheme(&self, base: &Url, value: &str) -> Option<&str> {
        (base.scheme() == "file" && value.trim().starts_with("//"))
            .then(|| self.site_url.as_ref().map_or("https", Url::scheme))
    }

    /// On a local page, a link under the site's public URL (`--base-url`) points into the local
    /// folder instead; any other URL is returned as is.
    pub(super) fn local_copy(&self, page: &Url, url: Url) -> Url {
        if page.scheme() == "file"
            && let (Some(site), Some(root)) = (&self.site_url, &self.file_root)
            && let Some(rest) = url.as_str().strip_prefix(site.as_str())
            && let Ok(local) = root.join(rest)
        {
            return local;
        }
        url
    }
}
