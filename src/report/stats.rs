//! Run statistics derived from a [`Report`]: content types, bytes downloaded, URL lengths, and
//! per-host numbers (errors joined to the gate's request counts). Shared by every format that
//! prints a summary.

use std::collections::{BTreeMap, HashSet};

use crate::checker::Report;
use crate::hosts::HostStats;

/// Summary numbers of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Statistics {
    /// Distinct URLs per content-type class (`text`, `image`, `application`, …, `mail`,
    /// `other` for unknown), counted once per URL.
    pub content_types: BTreeMap<String, usize>,
    /// Bytes of bodies read or announced, over distinct URLs.
    pub bytes: u64,
    /// Shortest, longest and mean URL length in characters (distinct URLs).
    pub url_lengths: Option<(usize, usize, f64)>,
    /// Per host: the gate's numbers and the broken URLs on that host.
    pub hosts: Vec<(HostStats, usize)>,
    /// Distinct broken URLs.
    pub broken_urls: usize,
}

/// Computes the statistics of `report`.
pub fn statistics(report: &Report) -> Statistics {
    let mut s = Statistics::default();
    let mut seen = HashSet::new();
    let mut lengths = Vec::new();
    let mut errors_by_host: BTreeMap<String, usize> = BTreeMap::new();
    for e in &report.entries {
        let r = &e.result;
        if !seen.insert(r.url.as_str()) {
            continue;
        }
        lengths.push(r.url.chars().count());
        s.bytes += r.size.unwrap_or(0);
        let class = if r.url.starts_with("mailto:") {
            "mail".to_owned()
        } else {
            r.content_type
                .as_deref()
                .and_then(|ct| ct.split('/').next())
                .filter(|c| !c.is_empty())
                .unwrap_or("other")
                .to_owned()
        };
        *s.content_types.entry(class).or_default() += 1;
        if r.outcome.is_broken() {
            s.broken_urls += 1;
            if let Ok(u) = url::Url::parse(&r.url)
                && let Some(h) = u.host_str()
            {
                let key = format!("{h}:{}", u.port_or_known_default().unwrap_or(0));
                *errors_by_host.entry(key).or_default() += 1;
            }
        }
    }
    if !lengths.is_empty() {
        let (min, max) = (
            lengths.iter().min().copied().unwrap_or(0),
            lengths.iter().max().copied().unwrap_or(0),
        );
        let avg = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
        s.url_lengths = Some((min, max, avg));
    }
    s.hosts = report
        .hosts
        .iter()
        .map(|h| (h.clone(), errors_by_host.get(&h.host).copied().unwrap_or(0)))
        .collect();
    s
}

/// `1.2MB`, `3KB`, `17B`.
pub fn human_bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n}B"),
        1024..1_048_576 => format!("{}KB", n / 1024),
        _ => format!("{:.1}MB", n as f64 / 1_048_576.0),
    }
}
