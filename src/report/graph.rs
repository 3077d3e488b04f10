//! The link graph behind the DOT and GML reports: nodes are URLs, edges go from a page to each
//! URL it links to (`link`, or `rendered` for a link found only on the rendered page) and from
//! a redirected URL to where it ended (`redirect`).
//!
//! Nodes and edges are kept sorted by URL, and node ids are their positions in that order, so a
//! site yields the same graph text whatever order its entries arrived in. A node known only as
//! a page that links (or as a redirect target) has no verdict of its own.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::outcome::Entry;

/// How an edge came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum EdgeKind {
    /// The source page links to the target.
    Link,
    /// The source URL redirected to the target.
    Redirect,
    /// The source page links to the target once rendered (`--render-js`), not in its source.
    Rendered,
}

impl EdgeKind {
    /// `link` or `redirect`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Link => "link",
            EdgeKind::Redirect => "redirect",
            EdgeKind::Rendered => "rendered",
        }
    }
}

/// The verdict on a node's URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// `ok`, `broken`, `failed` or `ignored`.
    pub(crate) state: &'static str,
    /// The result text (`404 Not Found`).
    pub(crate) result: String,
    /// Whether the URL is inside the crawl's scope.
    pub(crate) internal: bool,
}

/// A node as the writers see it.
#[derive(Debug)]
pub(crate) struct Node<'a> {
    /// Position in URL order; edges refer to it.
    pub(crate) id: usize,
    /// The URL.
    pub(crate) url: &'a str,
    /// Its verdict, when it was checked under this URL.
    pub(crate) verdict: Option<&'a Verdict>,
}

/// Nodes and edges collected from entries.
#[derive(Debug, Default)]
pub(crate) struct LinkGraph {
    /// URL → verdict (`None` until an entry for the URL itself arrives).
    nodes: BTreeMap<String, Option<Verdict>>,
    /// (source URL, target URL, kind), each once.
    edges: BTreeSet<(String, String, EdgeKind)>,
}

impl LinkGraph {
    /// Adds an entry's URL, its page and the edges between them.
    pub(crate) fn add(&mut self, e: &Entry) {
        let r = &e.result;
        self.nodes.insert(
            r.url.clone(),
            Some(Verdict {
                state: r.outcome.state_name(),
                result: r.outcome.to_string(),
                internal: r.internal,
            }),
        );
        if let Some(rf) = &e.referrer {
            self.nodes.entry(rf.parent.clone()).or_insert(None);
            let kind = if rf.rendered {
                EdgeKind::Rendered
            } else {
                EdgeKind::Link
            };
            self.edges.insert((rf.parent.clone(), r.url.clone(), kind));
        }
        if let Some(real) = &r.real_url {
            self.nodes.entry(real.to_string()).or_insert(None);
            self.edges
                .insert((r.url.clone(), real.to_string(), EdgeKind::Redirect));
        }
    }

    /// The nodes in URL order, with their ids.
    pub(crate) fn nodes(&self) -> impl Iterator<Item = Node<'_>> {
        self.nodes.iter().enumerate().map(|(id, (url, v))| Node {
            id,
            url,
            verdict: v.as_ref(),
        })
    }

    /// The edges as (source id, target id, kind), sorted.
    pub(crate) fn edges(&self) -> Vec<(usize, usize, EdgeKind)> {
        let ids: BTreeMap<&str, usize> = self
            .nodes
            .keys()
            .enumerate()
            .map(|(i, u)| (u.as_str(), i))
            .collect();
        let mut edges: Vec<_> = self
            .edges
            .iter()
            .map(|(s, t, k)| (ids[s.as_str()], ids[t.as_str()], *k))
            .collect();
        edges.sort_unstable();
        edges
    }
}
