//! [`CheckOptions`] → [`Config`] and [`Inputs`]: the one mapping every front door uses, with
//! the checks that need more than one value's parser (a rate too low, a bad regex, a cookie
//! file that cannot be read). An error names the option by its flag.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use regex::Regex;
use url::Url;

use super::CheckOptions;
use super::patterns::any_of;
use crate::config::accept::AcceptStatus;
use crate::config::cookies::CookieJar;
use crate::config::host_rules::HostRule;
use crate::config::login::FormLogin;
use crate::config::remap::Remap;
use crate::config::state::DEFAULT_STATE_FILE;
use crate::config::{Config, MAX_DURATION, resolver_from_resolv_conf};
use crate::inputs::Inputs;
use linkpatrol_plugin_api::Options;

/// The variable the login's password is read from (a prompt may give it instead).
pub const LOGIN_PASSWORD_VARIABLE: &str = "LINKPATROL_LOGIN_PASSWORD";

/// A value of an option that cannot be used, naming the option (its long flag without `--`).
#[derive(Debug)]
pub struct OptionError {
    /// The long flag, `max-retry-wait`; front doors spell it their way (`max_retry_wait`).
    pub option: &'static str,
    /// What is wrong, without the option's name.
    pub message: String,
    /// The file error behind it, when a file the option names could not be read.
    pub io: Option<std::io::Error>,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `--exclude `(' is not a valid regex`, `--timeout 1e20: at most …`, `--accept: …`.
        let quoted =
            self.message.starts_with(['`', '-']) || self.message.starts_with(char::is_numeric);
        let between = if quoted { " " } else { ": " };
        write!(f, "--{}{between}{}", self.option, self.message)
    }
}

impl std::error::Error for OptionError {}

fn bad(option: &'static str, message: impl Into<String>) -> OptionError {
    OptionError {
        option,
        message: message.into(),
        io: None,
    }
}

impl CheckOptions {
    /// These options applied to `config`, and the rules by which inputs are read (the folder
    /// walk, `changed-since`) as an [`Inputs`] without inputs yet.
    pub fn to_config(&self, mut config: Config) -> Result<(Config, Inputs), OptionError> {
        let o = self;
        config = config
            .threads(o.threads)
            .timeout(secs("timeout", o.timeout)?)
            .max_requests_per_second(rate("max-requests-per-second", o.max_requests_per_second)?)
            // Loopback (a local development server) is exempt from the default rate only.
            .loopback_unthrottled(!o.rate_given)
            .host_concurrency(o.host_concurrency)
            // What a change touches is checked, not the pages it links to (unless -r says so).
            .recursion_level(o.recursion_level.or(o.changed_since.as_ref().map(|_| 1)))
            // LinkChecker's `--check-extern=false` means what --internal-only does.
            .check_external(!o.internal_only && o.check_extern != Some(false))
            .max_redirects(o.max_redirects)
            .abort_timeout(secs("abort-timeout", o.abort_timeout)?)
            .robots(!o.no_robots)
            .follow_outside_root(o.follow_outside_root)
            .include_verbatim(o.include_verbatim)
            .fallback_extensions(o.fallback_extensions.clone())
            .seed_sitemaps(o.sitemaps)
            .max_retries(o.max_retries)
            .max_retry_wait(secs("max-retry-wait", o.max_retry_wait)?)
            .insecure(o.insecure)
            .exclude_private(o.exclude_private)
            .exclude_loopback(o.exclude_loopback)
            .exclude_link_local(o.exclude_link_local)
            .allow_private(o.allow_private)
            .fail_on_blocked(o.fail_on_blocked)
            // 0 means no limit, like the other limits.
            .max_urls(Some(o.max_urls))
            .max_run_time(
                o.max_run_time
                    .map(|t| secs("max-run-time", t))
                    .transpose()?,
            )
            .max_body_size(o.max_body_size)
            .max_cache_age(o.max_cache_age)
            .cache_failures(o.cache_failures)
            .resume(o.resume)
            .fail_after_runs(o.fail_after_runs)
            .suggest(o.suggest)
            .detect_soft_404(o.detect_soft_404)
            .always_get(o.method == "get");
        if !["head", "get"].contains(&o.method.as_str()) {
            return Err(bad("method", format!("`{}' is not head or get", o.method)));
        }
        if o.fail_after_runs == 0 {
            return Err(bad("fail-after-runs", "must be at least 1"));
        }
        if let Some(path) = &o.cache_file {
            config = config.state_file(path);
        } else if o.cache || o.resume {
            config = config.state_file(DEFAULT_STATE_FILE);
        }
        for tag in &o.ignore_warning {
            config = config.ignore_warning(tag);
        }
        for (name, value) in &o.headers {
            config = config.header(name, value);
        }
        config = self.host_rules(config)?;
        if let Some(dir) = &o.root_dir {
            config = config.root_dir(dir);
        }
        if let Some(ua) = &o.user_agent {
            config = config.user_agent(ua);
        }
        if let Some(proxy) = &o.proxy {
            config = config.proxy(proxy);
        }
        for r in any_of(&o.include).map_err(|e| bad("include", e))? {
            config = config.include(r);
        }
        for r in any_of(&o.exclude).map_err(|e| bad("exclude", e))? {
            config = config.exclude(r);
        }
        for r in any_of(&o.no_follow).map_err(|e| bad("no-follow", e))? {
            config = config.no_follow(r);
        }
        for rule in &o.remap {
            config = config.remap(Remap::parse(rule).map_err(|e| bad("remap", e.to_string()))?);
        }
        if let Some(shard) = o.shard {
            config = config.shard(shard);
        }
        config = self.requests(config)?;
        config = config.login(self.login()?);
        config = self.plugins(config)?;
        Ok((config, self.inputs()?))
    }

    /// How inputs are read: the walk's rules and `changed-since`.
    fn inputs(&self) -> Result<Inputs, OptionError> {
        let mut inputs = Inputs::new()
            .no_ignore(self.no_ignore)
            .hidden(self.hidden)
            .follow(self.follow);
        for pattern in &self.exclude_path {
            regex(pattern, "exclude-path")?;
            inputs = inputs.exclude_path(pattern);
        }
        if let Some(reference) = &self.changed_since {
            inputs = inputs.changed_since(reference);
        }
        Ok(inputs)
    }

    /// `--host-rate`, `--host-max-concurrency`, `--host-header` and `--host-method`.
    fn host_rules(&self, mut config: Config) -> Result<Config, OptionError> {
        for (pattern, n) in &self.host_rate {
            let n = rate("host-rate", *n)?;
            let rule = HostRule::new(regex(pattern, "host-rate")?).max_requests_per_second(n);
            config = config.host_rule(rule);
        }
        for (pattern, n) in &self.host_max_concurrency {
            let rule = HostRule::new(regex(pattern, "host-max-concurrency")?).concurrency(*n);
            config = config.host_rule(rule);
        }
        for (pattern, (name, value)) in &self.host_header {
            let rule = HostRule::new(regex(pattern, "host-header")?).header(name, value);
            config = config.host_rule(rule);
        }
        for (pattern, method) in &self.host_method {
            let rule = HostRule::new(regex(pattern, "host-method")?).always_get(method == "get");
            config = config.host_rule(rule);
        }
        Ok(config)
    }

    /// Cookies, accepted statuses, the MX resolver, the archive, GitHub's token and the site's
    /// public URL.
    fn requests(&self, mut config: Config) -> Result<Config, OptionError> {
        if let Some(path) = &self.cookie_file {
            let text = std::fs::read_to_string(path).map_err(|e| OptionError {
                option: "cookie-file",
                message: format!("cannot read cookie file `{}': {e}", path.display()),
                io: Some(e),
            })?;
            let jar = CookieJar::parse_netscape(&text)
                .map_err(|e| bad("cookie-file", format!("`{}', {e}", path.display())))?;
            config = config.cookies(jar);
        }
        let accept = AcceptStatus::parse(&self.accept).map_err(|e| bad("accept", e.to_string()))?;
        config = config.accept(accept);
        // A bad --dns-server is an error even without --check-mx, which alone asks it.
        let resolver = self.dns_server.as_deref().map(mx_resolver).transpose()?;
        if self.check_mx {
            let resolver = resolver.map_or_else(system_resolver, Ok)?;
            config = config.mx_resolver(Some(resolver));
        }
        if let Some(url) = &self.archive_url {
            config = config
                .archive_url(url)
                .map_err(|e| bad("archive-url", e.to_string()))?;
        }
        // The option, else GitHub's usual variable. No message quotes the token.
        let token = match &self.github_token {
            Some(token) => Some(("github-token", token.clone())),
            None => std::env::var("GITHUB_TOKEN")
                .ok()
                .filter(|t| !t.trim().is_empty())
                .map(|t| ("github-token", t)),
        };
        if let Some((option, token)) = token {
            config = config
                .github_token(&token)
                .map_err(|e| bad(option, e.to_string()))?;
        }
        if let Some(base) = &self.base_url {
            Url::parse(base)
                .map_err(|e| bad("base-url", format!("`{base}' is not a valid URL: {e}")))?;
            config = config.base_url(base);
        }
        Ok(config)
    }

    /// The form login `--login-url` asks for, `None` without it. The password is
    /// [`login_password`](CheckOptions::login_password), else [`LOGIN_PASSWORD_VARIABLE`]'s;
    /// no message quotes it.
    fn login(&self) -> Result<Option<FormLogin>, OptionError> {
        let Some(url) = &self.login_url else {
            if self.login_user.is_some() {
                return Err(bad(
                    "login-user",
                    "needs --login-url (the page with the login form)",
                ));
            }
            return Ok(None);
        };
        let url = Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| bad("login-url", format!("`{url}' is not an http(s) URL")))?;
        let user = self
            .login_user
            .as_deref()
            .ok_or_else(|| bad("login-url", "needs --login-user"))?;
        let password = match &self.login_password {
            Some(p) => p.clone(),
            None => std::env::var(LOGIN_PASSWORD_VARIABLE).map_err(|_| {
                bad(
                    "login-url",
                    format!(
                        "needs a password: set {LOGIN_PASSWORD_VARIABLE} (a password is never \
                         read from an option or a config file)"
                    ),
                )
            })?,
        };
        let logout = regex(&self.login_logout_pattern, "login-logout-pattern")?;
        let mut login = FormLogin::new(url, user, password)
            .user_field(&self.login_user_field)
            .password_field(&self.login_password_field)
            .logout_pattern(logout);
        for field in &self.login_extra_field {
            match field.split_once('=') {
                Some((name, value)) if !name.is_empty() => login = login.extra_field(name, value),
                _ => {
                    return Err(bad(
                        "login-extra-field",
                        format!("`{field}': expected NAME=VALUE"),
                    ));
                }
            }
        }
        Ok(Some(login))
    }

    /// Each named built-in plugin once, with the settings of every `--plugin` that names it, in
    /// the order the names first appear; `--check-anchors` is `--plugin anchors`.
    fn plugins(&self, mut config: Config) -> Result<Config, OptionError> {
        let mut order: Vec<Options> = Vec::new();
        for (name, pairs) in &self.plugins {
            let at = match order.iter().position(|o| o.plugin() == name) {
                Some(i) => i,
                None => {
                    order.push(Options::new(name.clone()));
                    order.len() - 1
                }
            };
            for (k, v) in pairs {
                order[at].push(k.clone(), v.clone());
            }
        }
        if self.check_anchors && !order.iter().any(|o| o.plugin() == "anchors") {
            order.push(Options::new("anchors".to_owned()));
        }
        for options in &order {
            let plugin = crate::config::plugins::builtin(options.plugin(), options)
                .map_err(|e| bad("plugin", e.to_string()))?;
            config = config.plugin(plugin);
        }
        Ok(config)
    }
}

/// Seconds as a `Duration`, refused beyond what the library accepts.
fn secs(option: &'static str, value: f64) -> Result<Duration, OptionError> {
    if !(value.is_finite() && value >= 0.0 && value <= MAX_DURATION.as_secs_f64()) {
        return Err(bad(
            option,
            format!(
                "{}: at most {} seconds (one year)",
                shown(value),
                MAX_DURATION.as_secs()
            ),
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

/// A request rate, refused when negative, not finite, or more than a year between requests.
fn rate(option: &'static str, per_second: f64) -> Result<f64, OptionError> {
    if !(per_second >= 0.0 && per_second.is_finite()) {
        return Err(bad(
            option,
            format!(
                "{}: not a rate of 0 or more (0 means no limit)",
                shown(per_second)
            ),
        ));
    }
    if per_second > 0.0 && 1.0 / per_second > MAX_DURATION.as_secs_f64() {
        return Err(bad(
            option,
            format!(
                "{}: too low, one request in more than a year (0 means no limit)",
                shown(per_second)
            ),
        ));
    }
    Ok(per_second)
}

/// A number as the user would write it: `1e20`, not twenty digits.
pub(crate) fn shown(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

fn regex(p: &str, option: &'static str) -> Result<Regex, OptionError> {
    Regex::new(p).map_err(|e| bad(option, format!("`{p}' is not a valid regex: {e}")))
}

/// `--dns-server`: `IP` or `IP:PORT`.
fn mx_resolver(given: &str) -> Result<SocketAddr, OptionError> {
    crate::config::setting_syntax::parse_dns_server(given).map_err(|e| bad("dns-server", e))
}

/// The first nameserver of /etc/resolv.conf, for `--check-mx` without `--dns-server`.
fn system_resolver() -> Result<SocketAddr, OptionError> {
    let conf = std::fs::read_to_string("/etc/resolv.conf").map_err(|e| {
        bad(
            "check-mx",
            format!("cannot read /etc/resolv.conf ({e}): give --dns-server"),
        )
    })?;
    resolver_from_resolv_conf(&conf).ok_or_else(|| {
        bad(
            "check-mx",
            "no nameserver in /etc/resolv.conf: give --dns-server",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(arguments: &[&str]) -> CheckOptions {
        CheckOptions::from_arguments(arguments).unwrap()
    }

    #[test]
    fn settings_of_one_plugin_add_up_and_errors_name_the_plugin() {
        let bad = options(&["--plugin=regex:pattern=a", "--plugin=regex:pattern=("]);
        let e = bad.to_config(Config::new()).unwrap_err();
        assert_eq!(e.option, "plugin");
        assert!(e.message.contains("pattern `('"), "{e}");
        let ok = options(&[
            "--plugin=regex:pattern=a",
            "--check-anchors",
            "--plugin=regex:pattern=b",
        ]);
        let (config, _) = ok.to_config(Config::new()).unwrap();
        assert_eq!(config.plugin_names(), ["regex", "anchors"]);
    }

    #[test]
    fn the_options_defaults_are_the_librarys() {
        let (ours, _) = CheckOptions::default().to_config(Config::new()).unwrap();
        let library = Config::new();
        assert_eq!(ours.threads, library.threads);
        assert_eq!(ours.timeout, library.timeout);
        assert_eq!(
            ours.max_requests_per_second,
            library.max_requests_per_second
        );
        assert_eq!(ours.host_concurrency, library.host_concurrency);
        assert_eq!(ours.max_redirects, library.max_redirects);
        assert_eq!(ours.abort_timeout, library.abort_timeout);
        assert_eq!(ours.max_retries, library.max_retries);
        assert_eq!(ours.max_retry_wait, library.max_retry_wait);
        assert_eq!(ours.max_body_size, library.max_body_size);
        assert_eq!(ours.max_urls, library.max_urls);
        assert_eq!(ours.user_agent, library.user_agent);
        assert_eq!(ours.state.max_age, library.state.max_age);
        assert_eq!(ours.state.fail_after_runs, library.state.fail_after_runs);
        assert_eq!(
            format!("{:?}", ours.accept),
            format!("{:?}", library.accept)
        );
        assert_eq!(ours.archive_url, library.archive_url);
        assert!(ours.check_external && ours.robots && !ours.always_get);
    }

    #[test]
    fn check_extern_false_checks_no_external_link() {
        for (arguments, external) in [
            (&[][..], true),
            (&["--check-extern"][..], true),
            (&["--check-extern=true"][..], true),
            (&["--check-extern=false"][..], false),
            (&["--internal-only"][..], false),
        ] {
            let (config, _) = options(arguments).to_config(Config::new()).unwrap();
            assert_eq!(config.check_external, external, "{arguments:?}");
        }
    }

    #[test]
    fn a_rate_given_holds_for_loopback_hosts_too() {
        assert!(!CheckOptions::default().rate_given);
        assert!(options(&["--max-requests-per-second=2"]).rate_given);
    }

    #[test]
    fn errors_name_the_option() {
        for (arguments, option) in [
            (&["--timeout=1e20"][..], "timeout"),
            (&["--exclude=("][..], "exclude"),
            (&["--accept=nope"][..], "accept"),
            (&["--exclude-path=("][..], "exclude-path"),
            (&["--host-rate=x=1e-20"][..], "host-rate"),
        ] {
            let e = options(arguments).to_config(Config::new()).unwrap_err();
            assert_eq!(e.option, option, "{arguments:?}: {e}");
        }
    }
}
