//! Per-host settings given by the user: request rate, concurrency, extra headers and the
//! method of checked links for the hosts whose `host:port` matches a pattern. The first
//! matching rule that sets a value wins.

use regex::Regex;

/// Settings for the hosts whose `host:port` matches `pattern` (`^docs\.example\.org:443$`).
#[derive(Debug, Clone)]
pub struct HostRule {
    /// Matched against `host:port` (the port is always present: `example.org:443`).
    pub pattern: Regex,
    /// Request starts per second for these hosts (0 = unlimited); `None` keeps the default.
    pub max_requests_per_second: Option<f64>,
    /// Requests in flight for each of these hosts (0 = unlimited); `None` keeps the default.
    pub concurrency: Option<usize>,
    /// Extra request headers sent to these hosts only (never to another host, not even on a
    /// redirect).
    pub headers: Vec<(String, String)>,
    /// `Some(true)`: links on these hosts that are only checked are asked with GET, never
    /// HEAD (a host whose HEAD answers 200 where GET answers 404); `Some(false)`: HEAD first
    /// even under `Config::always_get`; `None` keeps the run's method.
    pub always_get: Option<bool>,
}

impl HostRule {
    /// A rule for hosts matching `pattern` that changes nothing yet.
    pub fn new(pattern: Regex) -> Self {
        HostRule {
            pattern,
            max_requests_per_second: None,
            concurrency: None,
            headers: Vec::new(),
            always_get: None,
        }
    }

    /// Sets the request rate for these hosts (0 = unlimited; a negative or non-finite rate is
    /// refused by `Checker::new`, never read as unlimited).
    pub fn max_requests_per_second(mut self, n: f64) -> Self {
        self.max_requests_per_second = Some(n);
        self
    }

    /// Sets the in-flight cap for these hosts.
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = Some(n);
        self
    }

    /// Sets the method of the links on these hosts that are only checked: GET when `yes`,
    /// else HEAD first (GET when HEAD fails), as `Config::always_get` does for every host.
    pub fn always_get(mut self, yes: bool) -> Self {
        self.always_get = Some(yes);
        self
    }

    /// Adds a header sent to these hosts.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// The rules of a run, in the order given.
#[derive(Debug, Clone, Default)]
pub(crate) struct HostRules {
    rules: Vec<HostRule>,
}

impl HostRules {
    pub(crate) fn new(rules: Vec<HostRule>) -> Self {
        HostRules { rules }
    }

    fn matching<'a>(&'a self, host: &'a str) -> impl Iterator<Item = &'a HostRule> + 'a {
        self.rules.iter().filter(move |r| r.pattern.is_match(host))
    }

    /// The request rate for `host` (`host:port`), or `default`.
    pub(crate) fn rate(&self, host: &str, default: f64) -> f64 {
        self.matching(host)
            .find_map(|r| r.max_requests_per_second)
            .unwrap_or(default)
    }

    /// The in-flight cap for `host`, or `default`.
    pub(crate) fn concurrency(&self, host: &str, default: usize) -> usize {
        self.matching(host)
            .find_map(|r| r.concurrency)
            .unwrap_or(default)
    }

    /// `true` when no rule was given (most runs): nothing to look up.
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether checked links on `host` are asked with GET only, or `default`.
    pub(crate) fn always_get(&self, host: &str, default: bool) -> bool {
        self.matching(host)
            .find_map(|r| r.always_get)
            .unwrap_or(default)
    }

    /// Every header of every rule matching `host`.
    pub(crate) fn headers<'a>(
        &'a self,
        host: &'a str,
    ) -> impl Iterator<Item = &'a (String, String)> + 'a {
        self.matching(host).flat_map(|r| r.headers.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_matching_rule_wins() {
        let rules = HostRules::new(vec![
            HostRule::new(Regex::new("^slow\\.test:").unwrap()).max_requests_per_second(0.5),
            HostRule::new(Regex::new("\\.test:").unwrap())
                .max_requests_per_second(5.0)
                .concurrency(2)
                .header("X-Token", "t")
                .always_get(true),
            HostRule::new(Regex::new("^head\\.").unwrap()).always_get(false),
        ]);
        assert_eq!(rules.rate("slow.test:80", 10.0), 0.5);
        assert_eq!(rules.rate("a.test:80", 10.0), 5.0);
        assert_eq!(rules.rate("other:80", 10.0), 10.0);
        assert_eq!(rules.concurrency("slow.test:80", 16), 2);
        assert_eq!(rules.headers("a.test:443").count(), 1);
        assert_eq!(rules.headers("other:443").count(), 0);
        assert!(rules.always_get("a.test:80", false));
        assert!(
            !rules.always_get("head.other:80", true),
            "HEAD for these, whatever the run's"
        );
        assert!(rules.always_get("other:80", true) && !rules.always_get("other:80", false));
    }
}
