//! The part of a robots.txt that applies to us, capped, and what keeping it costs.
//!
//! texting_robots already keeps only the group for our agent (else `*`): measured on a
//! 500 KiB robots.txt all for another agent, its `Robot` holds nothing of it. But it keeps
//! every rule of our group and every `Sitemap:` line, and each rule with `$` becomes a
//! compiled regular expression of about 6.5 KB: one 500 KiB robots.txt of `Disallow: /pN$`
//! lines held 180 MB. So the text is first cut down here, read line by line as texting_robots
//! reads it (the same keys and spellings, `:` or a space, `#` comments, BOM): the lines of the
//! group(s) that apply to our agent, at most [`MAX_RULES`] `Allow`/`Disallow` rules of which
//! at most [`MAX_ANCHORED`] with `$`, the first `Crawl-delay`, and at most [`MAX_SITEMAPS`]
//! `Sitemap:` lines — rules past the caps are ignored, as Google ignores what follows its
//! 500 KiB. The result is a small robots.txt with one `User-agent: *` group that
//! texting_robots reads to the same verdicts, and [`Kept::bytes`], an estimate of what its
//! `Robot` holds (for the cache's budget, `robots`).

/// The most `Allow`/`Disallow` rules kept for an origin.
pub(crate) const MAX_RULES: usize = 10_000;
/// The most rules with `$` kept for an origin (each is a compiled regular expression).
pub(crate) const MAX_ANCHORED: usize = 100;
/// The most `Sitemap:` lines kept for an origin.
pub(crate) const MAX_SITEMAPS: usize = 1_000;

/// Measured in release builds: a plain rule costs its pattern and ~100 bytes, a rule with `*`
/// its pattern twice and ~140, a rule with `$` a regular expression of ~6,500 bytes.
const RULE_BYTES: usize = 160;
const ANCHORED_BYTES: usize = 6_600;
/// An origin's `Robot` and its entry in the cache's map.
const ORIGIN_BYTES: usize = 256;

/// What is kept of one robots.txt.
#[derive(Debug)]
pub(crate) struct Kept {
    /// The robots.txt to parse: our group's lines under `User-agent: *`, and the sitemaps.
    pub(crate) text: Vec<u8>,
    /// An estimate of the memory its parsed rules take.
    pub(crate) bytes: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Agent,
    Allow,
    Disallow,
    Sitemap,
    Delay,
}

/// The keys texting_robots reads, with its spellings, in the order it tries them.
const KEYS: [(&str, Key); 16] = [
    ("user-agent", Key::Agent),
    ("user agent", Key::Agent),
    ("useragent", Key::Agent),
    ("allow", Key::Allow),
    ("disallow", Key::Disallow),
    ("dissallow", Key::Disallow),
    ("dissalow", Key::Disallow),
    ("disalow", Key::Disallow),
    ("diasllow", Key::Disallow),
    ("disallaw", Key::Disallow),
    ("sitemap", Key::Sitemap),
    ("site-map", Key::Sitemap),
    ("site map", Key::Sitemap),
    ("crawl-delay", Key::Delay),
    ("crawl delay", Key::Delay),
    ("crawldelay", Key::Delay),
];

fn skip_blanks(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
    &s[n..]
}

/// One line's key and value (up to a `#`, trimmed), `None` for any other line.
fn classify(line: &[u8]) -> Option<(Key, &[u8])> {
    let line = skip_blanks(line);
    let (key, rest) = KEYS.iter().find_map(|(name, key)| {
        let head = line.get(..name.len())?;
        head.eq_ignore_ascii_case(name.as_bytes())
            .then(|| (*key, &line[name.len()..]))
    })?;
    // `Key: value` or `Key value`.
    let after = skip_blanks(rest);
    let value = match after.first() {
        Some(b':') => &after[1..],
        _ if after.len() < rest.len() => after,
        _ => return None,
    };
    let value = value.split(|b| *b == b'#').next().unwrap_or_default();
    let value = match std::str::from_utf8(value) {
        Ok(s) => s.trim().as_bytes(),
        Err(_) => value.trim_ascii(),
    };
    // A delay that is no number ≥ 0 is no `Crawl-delay` line.
    if key == Key::Delay
        && !std::str::from_utf8(value)
            .ok()
            .and_then(|s| s.parse::<f32>().ok())
            .is_some_and(|d| d >= 0.0)
    {
        return None;
    }
    Some((key, value))
}

/// The lines of `body` texting_robots reads: without a leading BOM, NUL read as a line end.
fn lines(body: &[u8]) -> impl Iterator<Item = (Key, &[u8])> {
    let mut body = body;
    for b in [0xef, 0xbb, 0xbf] {
        body = body.strip_prefix(&[b]).unwrap_or(body);
    }
    body.split(|b| matches!(b, b'\n' | b'\r' | 0))
        .filter_map(classify)
}

/// What applies to `agent` of `body` (see the module doc).
pub(crate) fn keep(body: &[u8], agent: &str) -> Kept {
    let agent = agent.to_lowercase();
    let is = |ua: &[u8], name: &str| ua.to_ascii_lowercase() == name.as_bytes();
    let (mut any_agent, mut ours) = (false, false);
    for (key, value) in lines(body) {
        if key == Key::Agent {
            any_agent = true;
            ours |= is(value, &agent);
        }
    }
    let target = if ours { agent.as_str() } else { "*" };
    let mut text = Vec::new();
    let mut bytes = ORIGIN_BYTES;
    let (mut sitemaps, mut rules, mut anchored) = (0, 0, 0);
    let (mut top_delay, mut delay) = (None, None);
    // As texting_robots: a run of `User-agent` lines opens a group, which is ours when one of
    // them names the target; with no `User-agent` line at all, every line is ours.
    let (mut capturing, mut in_agents, mut seen_agent) = (!any_agent, false, false);
    let mut group = Vec::new();
    for (key, value) in lines(body) {
        match key {
            Key::Sitemap => {
                if sitemaps < MAX_SITEMAPS && std::str::from_utf8(value).is_ok() {
                    sitemaps += 1;
                    bytes += value.len() + 24;
                    push_line(&mut text, "Sitemap", value);
                }
                continue;
            }
            Key::Agent => {
                if !in_agents {
                    capturing = false;
                }
                in_agents = true;
                seen_agent = true;
                capturing |= is(value, target);
                continue;
            }
            _ => in_agents = false,
        }
        if key == Key::Delay && !seen_agent {
            top_delay = Some(value);
        }
        if !capturing {
            continue;
        }
        match key {
            Key::Delay => {
                delay = delay.or(Some(value));
            }
            Key::Allow | Key::Disallow => {
                let with_end = value.contains(&b'$');
                if rules == MAX_RULES || (with_end && anchored == MAX_ANCHORED) {
                    continue;
                }
                rules += 1;
                bytes += 2 * value.len() + RULE_BYTES;
                if with_end {
                    anchored += 1;
                    bytes += ANCHORED_BYTES;
                }
                let name = if key == Key::Allow {
                    "Allow"
                } else {
                    "Disallow"
                };
                push_line(&mut group, name, value);
            }
            _ => {}
        }
    }
    // A `Crawl-delay` of our group wins; else the last one above every group.
    if let Some(d) = delay.or(top_delay) {
        push_line(&mut text, "Crawl-delay", d);
    }
    if any_agent {
        text.extend_from_slice(b"User-agent: *\n");
    }
    text.extend_from_slice(&group);
    Kept { text, bytes }
}

fn push_line(text: &mut Vec<u8>, key: &str, value: &[u8]) {
    text.extend_from_slice(key.as_bytes());
    text.extend_from_slice(b": ");
    text.extend_from_slice(value);
    text.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use texting_robots::Robot;

    /// The verdicts of texting_robots on `body` and on what is kept of it, for `paths`.
    fn same_verdicts(body: &str, agent: &str, paths: &[&str]) {
        let whole = Robot::new(agent, body.as_bytes()).unwrap();
        let kept = keep(body.as_bytes(), agent);
        let part = Robot::new(agent, &kept.text).unwrap();
        for p in paths {
            assert_eq!(whole.allowed(p), part.allowed(p), "{p} in\n{body}");
        }
        assert_eq!(whole.delay, part.delay, "{body}");
        assert_eq!(whole.sitemaps, part.sitemaps, "{body}");
    }

    #[test]
    fn the_kept_part_gives_the_verdicts_of_the_whole() {
        let paths = [
            "/",
            "/a",
            "/a/b",
            "/b",
            "/c.pdf",
            "/c.pdfx",
            "/private/x",
            "/x",
        ];
        for body in [
            "User-agent: *\nDisallow: /a\nAllow: /a/b\n",
            "User-agent: other\nDisallow: /\n\nUser-agent: linkpatrol\nDisallow: /b\n",
            "User-agent: other\nUser-agent: LinkPatrol # us\nDisallow: /b\nCrawl-delay: 3\n",
            "Crawl-delay: 2\nSitemap: http://h.test/s.xml\nUser-agent: *\nDisallow: /*.pdf$\n",
            "\u{feff}user agent * \r\n  disallow /private\r\nDisallow:\n",
            "Disallow: /x\nCrawl-delay: nope\nCrawl-delay: 1.5\n",
            "User-agent: a\nUser-agent: *\nDisallow: /a\nUser-agent: b\nDisallow: /\n\
             User-agent: *\nDisallow: /b\nSiteMap: http://h.test/2.xml # two\n",
            "User-agent: linkpatrol\nDisallow: /x\nUser-agent: *\nDisallow: /\n",
            "User-agent: *\nCrawl-delay: 5\nUser-agent: linkpatrol\nAllow: /\n",
            "User-agent:*\nDisallow:/a\0Disallow: /b\n",
        ] {
            same_verdicts(body, "linkpatrol", &paths);
        }
    }

    #[test]
    fn only_our_group_is_kept_and_its_rules_are_capped() {
        let mut body = String::from("User-agent: otherbot\n");
        for i in 0..20_000 {
            body.push_str(&format!("Disallow: /other/{i}$\n"));
        }
        body.push_str("User-agent: *\n");
        // The first 105 end with `$`: 5 past that cap; then plain ones, 5 past the other.
        for i in 0..MAX_RULES + 10 {
            let end = if i < MAX_ANCHORED + 5 { "$" } else { "" };
            body.push_str(&format!("Disallow: /ours/{i}/{end}\n"));
        }
        let kept = keep(body.as_bytes(), "linkpatrol");
        let text = String::from_utf8(kept.text).unwrap();
        assert!(!text.contains("/other/"));
        assert_eq!(text.matches("Disallow").count(), MAX_RULES);
        assert_eq!(text.matches('$').count(), MAX_ANCHORED);
        let robot = Robot::new("linkpatrol", text.as_bytes()).unwrap();
        let denied = |i: usize| !robot.allowed(&format!("/ours/{i}/"));
        assert!(denied(0) && denied(MAX_ANCHORED - 1));
        assert!(!denied(MAX_ANCHORED), "past the cap of rules with $");
        assert!(denied(MAX_RULES + 4));
        assert!(!denied(MAX_RULES + 5), "past the cap of rules");
        // The estimate bounds what the rules cost.
        assert!(kept.bytes < MAX_RULES * 200 + MAX_ANCHORED * ANCHORED_BYTES + ORIGIN_BYTES);
        assert!(kept.bytes > MAX_ANCHORED * ANCHORED_BYTES);
    }
}
