//! The levels of merged rows: each URL's shortest link distance from a start URL, worked out
//! again over the rows of every shard, as a single run settles them over its link graph.
//!
//! A shard sees only its own hosts' pages, so the level it settled for a URL can be longer
//! than the distance through another shard's pages. The rows hold the whole graph: a row with
//! no parent is a start URL (level 0), and a row's URL is one link below its parent page. A
//! page is named by the URL checked and by where its redirects ended (a redirect keeps the
//! level), as a child row names its parent by the page it was found on.

use std::collections::{HashMap, VecDeque};

use crate::model::outcome::Entry;

/// The shortest link distance of every URL with a row, from the rows with no parent. A URL no
/// start reaches through the rows keeps no level here (its shard's level stands).
pub(super) fn shortest_levels(entries: &[Entry]) -> HashMap<String, usize> {
    // Page name (its URL or where it ended) -> the URLs linked from it.
    let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
    // URL -> the names its page goes by.
    let mut names: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut queue = VecDeque::new();
    let mut level: HashMap<&str, usize> = HashMap::new();
    for e in entries {
        let url = e.result.url.as_str();
        let own = names.entry(url).or_default();
        if own.is_empty() {
            own.push(url);
            if let Some(real) = &e.result.real_url {
                own.push(real.as_str());
            }
        }
        match &e.referrer {
            Some(r) => children.entry(r.parent.as_str()).or_default().push(url),
            None => {
                if level.insert(url, 0).is_none() {
                    queue.push_back(url);
                }
            }
        }
    }
    // Breadth first: every link is one step, so a URL's first visit is its shortest distance.
    while let Some(url) = queue.pop_front() {
        let below = level[url] + 1;
        for name in names.get(url).into_iter().flatten() {
            for child in children.get(name).into_iter().flatten() {
                if !level.contains_key(child) {
                    level.insert(child, below);
                    queue.push_back(child);
                }
            }
        }
    }
    level
        .into_iter()
        .map(|(url, l)| (url.to_owned(), l))
        .collect()
}
