//! The login's password on the command line: `LINKPATROL_LOGIN_PASSWORD` when set (the library
//! reads it), else a prompt with echo off when the standard input is a terminal. The password
//! never comes from a flag or a config file (a command line is visible to every user of the
//! machine and a config file is shared), and no message here quotes it.

use std::io::IsTerminal;

use anyhow::{Context, Result, bail};
use linkpatrol::options::{CheckOptions, LOGIN_PASSWORD_VARIABLE};

/// The password to put in `options` for `--login-url`: `None` when there is no login or the
/// variable holds it; a prompt's answer when a terminal can ask.
pub fn prompted_password(options: &CheckOptions) -> Result<Option<String>> {
    let (Some(url), Some(user)) = (&options.login_url, &options.login_user) else {
        return Ok(None);
    };
    if std::env::var_os(LOGIN_PASSWORD_VARIABLE).is_some() {
        return Ok(None);
    }
    if !std::io::stdin().is_terminal() {
        bail!(
            "--login-url needs a password: set {LOGIN_PASSWORD_VARIABLE} (no terminal to ask for \
             it; a password is never read from a flag or a config file)"
        );
    }
    // The page without its query, which a GET form may have filled.
    let page = url.split(['?', '#']).next().unwrap_or(url);
    let prompt = format!("Password for {user} at {page}: ");
    rpassword::prompt_password(prompt)
        .map(Some)
        .context("cannot read the password from the terminal")
}
