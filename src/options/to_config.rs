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
        // Every option by name: a new one is a compile error here until it is mapped below,
        // or by the helper named beside it (`every_option_is_mapped` checks that it is).
        let CheckOptions {
            fallback_extensions,
            default_extension,
            index_files,
            changed_since,
            threads,
            timeout,
            max_requests_per_second,
            host_concurrency,
            recursion_level,
            internal_only,
            check_extern,
            include,
            exclude,
            remap,
            no_follow,
            max_redirects,
            abort_timeout,
            root_dir,
            include_verbatim,
            include_wikilinks,
            no_robots,
            follow_outside_root,
            sitemaps,
            max_retries,
            max_retry_wait,
            headers,
            insecure,
            exclude_private,
            exclude_loopback,
            exclude_link_local,
            allow_private,
            proxy,
            max_urls,
            max_memory,
            queue_memory,
            max_run_time,
            max_body_size,
            user_agent,
            ignore_warning,
            fail_on_blocked,
            cache,
            cache_file,
            max_cache_age,
            cache_failures,
            cache_exclude_status,
            resume,
            fail_after_runs,
            accept_timeouts,
            require_https,
            method,
            suggest,
            detect_soft_404,
            rate_given,
            shard,
            // `inputs()`:
            no_ignore: _,
            extensions: _,
            glob_ignore_case: _,
            hidden: _,
            follow: _,
            exclude_path: _,
            // `host_rules()`:
            host_rate: _,
            host_max_concurrency: _,
            host_header: _,
            host_method: _,
            // `requests()`:
            base_url: _,
            cookie_file: _,
            cookie_jar: _,
            preprocess: _,
            accept: _,
            check_mx: _,
            dns_server: _,
            archive_url: _,
            github_token: _,
            // `login()`:
            login_url: _,
            login_user: _,
            login_user_field: _,
            login_password_field: _,
            login_extra_field: _,
            login_logout_pattern: _,
            login_password: _,
            // `plugins()`:
            check_anchors: _,
            render_js: _,
            render_tabs: _,
            render_timeout: _,
            plugins: _,
        } = self.clone();
        config = config
            .threads(threads)
            .timeout(secs("timeout", timeout)?)
            .max_requests_per_second(rate("max-requests-per-second", max_requests_per_second)?)
            // Loopback (a local development server) is exempt from the default rate only.
            .loopback_unthrottled(!rate_given)
            .host_concurrency(host_concurrency)
            // What a change touches is checked, not the pages it links to (unless -r says so).
            .recursion_level(recursion_level.or(changed_since.as_ref().map(|_| 1)))
            // LinkChecker's `--check-extern=false` means what --internal-only does.
            .check_external(!internal_only && check_extern != Some(false))
            .max_redirects(max_redirects)
            .abort_timeout(secs("abort-timeout", abort_timeout)?)
            .robots(!no_robots)
            .follow_outside_root(follow_outside_root)
            .include_verbatim(include_verbatim)
            .include_wikilinks(include_wikilinks)
            .fallback_extensions(fallback_extensions.clone())
            .default_extension(default_extension)
            .seed_sitemaps(sitemaps)
            .max_retries(max_retries)
            .max_retry_wait(secs("max-retry-wait", max_retry_wait)?)
            .insecure(insecure)
            .exclude_private(exclude_private)
            .exclude_loopback(exclude_loopback)
            .exclude_link_local(exclude_link_local)
            .allow_private(allow_private)
            .fail_on_blocked(fail_on_blocked)
            // 0 means no limit, like the other limits.
            .max_urls(Some(max_urls))
            .max_memory(Some(usize::try_from(max_memory.0).unwrap_or(usize::MAX)))
            .queue_memory(queue_memory.map(|q| usize::try_from(q.0).unwrap_or(usize::MAX)))
            .max_run_time(max_run_time.map(|t| secs("max-run-time", t)).transpose()?)
            .max_body_size(max_body_size)
            .max_cache_age(max_cache_age)
            .cache_failures(cache_failures)
            .resume(resume)
            .fail_after_runs(fail_after_runs)
            .suggest(suggest)
            .detect_soft_404(detect_soft_404)
            .accept_timeouts(accept_timeouts)
            .require_https(require_https)
            .always_get(method == "get");
        if !["head", "get"].contains(&method.as_str()) {
            return Err(bad("method", format!("`{}' is not head or get", method)));
        }
        if fail_after_runs == 0 {
            return Err(bad("fail-after-runs", "must be at least 1"));
        }
        if let Some(statuses) = &cache_exclude_status {
            let set = AcceptStatus::parse(statuses).map_err(|e| bad("cache-exclude-status", e))?;
            config = config.cache_exclude_status(set);
        }
        if let Some(path) = &cache_file {
            config = config.state_file(path);
        } else if cache || resume {
            config = config.state_file(DEFAULT_STATE_FILE);
        }
        for tag in &ignore_warning {
            config = config.ignore_warning(tag);
        }
        for (name, value) in &headers {
            config = config.header(name, value);
        }
        config = self.host_rules(config)?;
        if let Some(dir) = &root_dir {
            config = config.root_dir(dir);
        }
        if let Some(names) = index_files {
            config = config.index_files(names);
        }
        if let Some(ua) = &user_agent {
            config = config.user_agent(ua);
        }
        if let Some(proxy) = &proxy {
            config = config.proxy(proxy);
        }
        for r in any_of(&include).map_err(|e| bad("include", e))? {
            config = config.include(r);
        }
        for r in any_of(&exclude).map_err(|e| bad("exclude", e))? {
            config = config.exclude(r);
        }
        for r in any_of(&no_follow).map_err(|e| bad("no-follow", e))? {
            config = config.no_follow(r);
        }
        for rule in &remap {
            config = config.remap(Remap::parse(rule).map_err(|e| bad("remap", e.to_string()))?);
        }
        if let Some(shard) = shard {
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
            .follow(self.follow)
            .glob_ignore_case(self.glob_ignore_case);
        if let Some(extensions) = &self.extensions {
            inputs = inputs.extensions(extensions.clone());
        }
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

    /// Cookies (and the jar kept between runs), the preprocessing program, accepted
    /// statuses, the MX resolver, the archive, GitHub's token and the site's
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
        if let Some(path) = &self.cookie_jar {
            config = config.cookie_jar(path);
        }
        if let Some(program) = &self.preprocess {
            config = config.preprocess(program);
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
        // --render-js is `--plugin render-js` with the tab count and timeout; settings given
        // with --plugin render-js:… come after, so they win.
        if self.render_js {
            let render = Options::new("render-js".to_owned())
                .with("tabs", self.render_tabs.to_string())
                .with("timeout", self.render_timeout.to_string());
            match order.iter().position(|o| o.plugin() == "render-js") {
                Some(at) => {
                    let mut merged = render;
                    for (k, v) in order[at].pairs() {
                        merged.push(k.clone(), v.clone());
                    }
                    order[at] = merged;
                }
                None => order.push(render),
            }
        }
        for options in &order {
            let plugin = crate::config::plugins::builtin(options.plugin(), options)
                .map_err(|e| bad("plugin", e.to_string()))?;
            config = config.builtin_plugin(plugin, options);
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
        assert_eq!(ours.max_memory, library.max_memory);
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

    /// What `to_config` makes of `arguments`, as text (every field of both values).
    fn mapped(arguments: &[String]) -> String {
        let mut o = CheckOptions::from_arguments(arguments)
            .unwrap_or_else(|e| panic!("{arguments:?}: {e}"));
        o.login_password = Some("pw".into());
        let made = o
            .to_config(Config::new())
            .unwrap_or_else(|e| panic!("{arguments:?}: {e}"));
        // The token's Debug hides it: its header is compared instead.
        let token = made.0.github_token.as_ref().map(|t| t.header_value());
        format!("{made:?} {token:?}")
    }

    /// Every option changes what `to_config` makes: each is given a sample value (with the
    /// options it needs), and the result is compared with the same without it. An option whose
    /// mapping line is left out fails here, and so does a new option until it has a sample.
    #[test]
    fn every_option_is_mapped() {
        let dir = std::env::temp_dir().join(format!("linkpatrol-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cookies = dir.join("cookies.txt");
        std::fs::write(&cookies, ".example.test\tTRUE\t/\tFALSE\t0\tid\t1\n").unwrap();
        let cookies = cookies.display().to_string();
        let login: &[&str] = &["--login-url=http://127.0.0.1:9/a", "--login-user=me"];
        // (option, sample value, `None` for a switch, the options it needs)
        let samples: &[(&str, Option<&str>, &[&str])] = &[
            ("fallback-extensions", Some("md"), &[]),
            ("extensions", Some("md,html"), &[]),
            ("default-extension", Some("md"), &[]),
            ("glob-ignore-case", None, &[]),
            ("index-files", Some("README.md,."), &[]),
            ("changed-since", Some("HEAD"), &[]),
            ("no-ignore", None, &[]),
            ("hidden", None, &[]),
            ("follow", None, &[]),
            ("exclude-path", Some("x"), &[]),
            ("threads", Some("3"), &[]),
            ("timeout", Some("7"), &[]),
            ("max-requests-per-second", Some("3"), &[]),
            ("host-concurrency", Some("5"), &[]),
            ("recursion-level", Some("2"), &[]),
            ("internal-only", None, &[]),
            ("check-extern", Some("false"), &[]),
            ("include", Some("x"), &[]),
            ("exclude", Some("x"), &[]),
            ("remap", Some("a b"), &[]),
            ("no-follow", Some("x"), &[]),
            ("max-redirects", Some("3"), &[]),
            ("abort-timeout", Some("3"), &[]),
            ("root-dir", Some("/tmp"), &[]),
            ("include-verbatim", None, &[]),
            ("include-wikilinks", None, &[]),
            ("no-robots", None, &[]),
            ("follow-outside-root", None, &[]),
            ("sitemaps", None, &[]),
            ("max-retries", Some("5"), &[]),
            ("max-retry-wait", Some("3"), &[]),
            ("header", Some("X-A: 1"), &[]),
            ("host-rate", Some("x=1"), &[]),
            ("host-max-concurrency", Some("x=1"), &[]),
            ("host-header", Some("x=X-A: 1"), &[]),
            ("host-method", Some("x=get"), &[]),
            ("insecure", None, &[]),
            ("exclude-private", None, &[]),
            ("exclude-loopback", None, &[]),
            ("exclude-link-local", None, &[]),
            ("allow-private", None, &[]),
            ("proxy", Some("http://127.0.0.1:9"), &[]),
            ("max-urls", Some("7"), &[]),
            ("max-memory", Some("64M"), &[]),
            ("queue-memory", Some("1K"), &[]),
            ("max-run-time", Some("7"), &[]),
            ("max-body-size", Some("7"), &[]),
            ("user-agent", Some("x"), &[]),
            ("ignore-warning", Some("x"), &[]),
            ("fail-on-blocked", None, &[]),
            ("cache", None, &[]),
            ("cache-file", Some("x.sqlite"), &[]),
            ("max-cache-age", Some("2d"), &[]),
            ("cache-failures", None, &[]),
            ("resume", None, &[]),
            ("fail-after-runs", Some("3"), &[]),
            ("base-url", Some("http://127.0.0.1:9/"), &[]),
            ("cookie-file", Some(&cookies), &[]),
            ("cookie-jar", Some("jar.txt"), &[]),
            ("preprocess", Some("pdftotext"), &[]),
            ("cache-exclude-status", Some("429"), &[]),
            ("login-url", Some("http://127.0.0.1:9/b"), login),
            ("login-user", Some("you"), login),
            ("login-user-field", Some("u"), login),
            ("login-password-field", Some("p"), login),
            ("login-extra-field", Some("a=b"), login),
            ("login-logout-pattern", Some("x"), login),
            ("accept", Some("200"), &[]),
            ("accept-timeouts", None, &[]),
            ("require-https", None, &[]),
            ("method", Some("get"), &[]),
            ("check-mx", None, &["--dns-server=127.0.0.1:53"]),
            (
                "dns-server",
                Some("127.0.0.2:53"),
                &["--check-mx", "--dns-server=127.0.0.1:53"],
            ),
            ("suggest", None, &[]),
            ("archive-url", Some("http://127.0.0.1:9/"), &["--suggest"]),
            ("github-token", Some("x"), &["--github-token=y"]),
            ("detect-soft-404", None, &[]),
            ("shard", Some("0/2"), &[]),
            ("check-anchors", None, &[]),
            ("render-js", None, &[]),
            ("render-tabs", Some("3"), &["--render-js"]),
            ("render-timeout", Some("4"), &["--render-js"]),
            ("plugin", Some("anchors"), &[]),
        ];
        for arg in CheckOptions::command().get_arguments() {
            let long = arg.get_long().expect("every option has a long name");
            let Some((_, value, needs)) = samples.iter().find(|(l, _, _)| *l == long) else {
                panic!("--{long} has no sample in this test: give it one");
            };
            let base: Vec<String> = needs.iter().map(|a| (*a).to_owned()).collect();
            let mut given: Vec<String> = base
                .iter()
                .filter(|a| !a.starts_with(&format!("--{long}=")))
                .cloned()
                .collect();
            given.push(match value {
                Some(v) => format!("--{long}={v}"),
                None => format!("--{long}"),
            });
            assert_ne!(mapped(&base), mapped(&given), "--{long} changes nothing");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
