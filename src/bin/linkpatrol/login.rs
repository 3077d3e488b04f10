//! `--login-url` and its flags made a [`FormLogin`], with the password read from
//! `LINKPATROL_LOGIN_PASSWORD` or, on a terminal, a prompt with echo off. The password never
//! comes from a flag or a config file (a command line is visible to every user of the machine
//! and a config file is shared), and no message here quotes it.

use std::io::IsTerminal;

use anyhow::{Context, Result, anyhow, bail};
use linkpatrol::FormLogin;
use regex::Regex;
use url::Url;

use crate::args::Args;

/// Where the password comes from when no terminal is there to ask.
pub const PASSWORD_VAR: &str = "LINKPATROL_LOGIN_PASSWORD";

/// The login the flags ask for, `None` without `--login-url`.
pub fn form_login(args: &Args) -> Result<Option<FormLogin>> {
    let Some(url) = &args.login_url else {
        if args.login_user.is_some() {
            bail!("--login-user needs --login-url (the page with the login form)");
        }
        return Ok(None);
    };
    let url = Url::parse(url).with_context(|| format!("--login-url `{url}' is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        bail!("--login-url {url}: the login page must be an http(s) URL");
    }
    let user = args
        .login_user
        .as_deref()
        .ok_or_else(|| anyhow!("--login-url needs --login-user"))?;
    let logout = Regex::new(&args.login_logout_pattern).with_context(|| {
        format!(
            "--login-logout-pattern `{}' is not a valid regex",
            args.login_logout_pattern
        )
    })?;
    let mut login = FormLogin::new(url.clone(), user, password(&url, user)?)
        .user_field(&args.login_user_field)
        .password_field(&args.login_password_field)
        .logout_pattern(logout);
    for field in &args.login_extra_field {
        let (name, value) = field
            .split_once('=')
            .ok_or_else(|| anyhow!("--login-extra-field `{field}': expected NAME=VALUE"))?;
        if name.is_empty() {
            bail!("--login-extra-field `{field}': the name is empty");
        }
        login = login.extra_field(name, value);
    }
    Ok(Some(login))
}

/// The password: the variable when set, else a prompt when the standard input is a terminal.
fn password(url: &Url, user: &str) -> Result<String> {
    if let Some(v) = std::env::var_os(PASSWORD_VAR) {
        return v
            .into_string()
            .map_err(|_| anyhow!("{PASSWORD_VAR} is not valid UTF-8"));
    }
    if !std::io::stdin().is_terminal() {
        bail!(
            "--login-url needs a password: set {PASSWORD_VAR} (no terminal to ask for it; a \
             password is never read from a flag or a config file)"
        );
    }
    let prompt = format!(
        "Password for {user} at {}: ",
        &url[..url::Position::AfterPath]
    );
    rpassword::prompt_password(prompt).context("cannot read the password from the terminal")
}
