//! The form login before the crawl (`Config::login`), and the watch for a session lost during
//! it.
//!
//! Before the first worker starts, [`log_in`] GETs the login page, finds the form that has the
//! user field and a password input of the password field's name (`extract::login_form`), fills
//! them into the form's own fields (its hidden CSRF token included) and submits it with the
//! form's method to its action, all through the run's fetcher, so the session's cookies land in
//! the run's jar and go with every request of the crawl. A login fails, and the run does not
//! start, when the page has no such form, when an answer is 401 or 403 (or another error
//! status), or when the form comes back after the submission (the password was refused).
//!
//! Where the password may go: to the form's action only, never over plain `http` when the login
//! page is `https` (its URL as given or as reached), and again after a 307/308 only to the
//! action's origin; a redirect elsewhere fails the login, naming its Location. Messages quote
//! URLs without their query (a GET form puts the password there), never the fields.
//!
//! During the crawl, [`Run::watch_session`] looks at each result's redirect chain: one that
//! ends at the login page means the session was lost (expired, or ended by a link the logout
//! pattern missed). It is noted once, with the URL where it happened, for the report's
//! warnings. Logout links themselves are never followed: the filter ignores them.

use url::{Position, Url};

use crate::config::login::FormLogin;
use crate::extract::login_form::find_login_form;
use crate::fetch::http::{FormMethod, PageAnswer};
use crate::model::error::{Error, ErrorKind};
use crate::model::outcome::{CheckResult, Warning};

use super::run::Run;

/// `url` without its query and fragment: what a login message may quote.
fn shown(url: &Url) -> &str {
    &url[..Position::AfterPath]
}

fn failed(message: String) -> Error {
    Error::new(ErrorKind::Login, format!("login failed: {message}"))
}

/// Refuses an answer with an error status: 401 and 403 as a refused login.
fn check_status(answer: &PageAnswer, what: &str) -> Result<(), Error> {
    match answer.status {
        401 | 403 => Err(failed(format!(
            "{what} {} was answered {}: the user name or password was refused, or this user \
             may not log in",
            shown(&answer.url),
            answer.status
        ))),
        s if s >= 400 => Err(failed(format!(
            "{what} {} was answered {s}",
            shown(&answer.url)
        ))),
        _ => Ok(()),
    }
}

/// Logs in with `login` through `run`'s fetcher. `Err` (of [`ErrorKind::Login`]) says why not.
pub(super) fn log_in(run: &Run, login: &FormLogin) -> Result<(), Error> {
    let page = run
        .fetch
        .exchange_page(&login.url, FormMethod::Get, &[])
        .map_err(|why| failed(format!("cannot read the login page: {why}")))?;
    check_status(&page, "the login page")?;
    let form =
        find_login_form(&page.body, &login.user_field, &login.password_field).ok_or_else(|| {
            failed(format!(
                "the login page {} has no form with a field `{}' and a password field `{}' \
                 (set their names with --login-user-field and --login-password-field)",
                shown(&page.url),
                login.user_field,
                login.password_field
            ))
        })?;
    let action = match &form.action {
        Some(a) => page.url.join(a).map_err(|e| {
            failed(format!(
                "the login form's action on {} is not a URL: {e}",
                shown(&page.url)
            ))
        })?,
        None => page.url.clone(),
    };
    if !matches!(action.scheme(), "http" | "https") {
        return Err(failed(format!(
            "the login form's action {} is not http(s)",
            shown(&action)
        )));
    }
    if action.scheme() == "http" && (login.url.scheme() == "https" || page.url.scheme() == "https")
    {
        return Err(failed(format!(
            "the login form of the https page {} sends the password over plain http to {}: \
             not sent",
            shown(&page.url),
            shown(&action)
        )));
    }
    let method = if form.post {
        FormMethod::Post
    } else {
        FormMethod::Get
    };
    let fields = login.submission(&form.fields);
    let answer = run
        .fetch
        .exchange_page(&action, method, &fields)
        // The action's URL may carry the fields (a GET form): the message names the action.
        .map_err(|_| {
            failed(format!(
                "no answer from the login form's action {}",
                shown(&action)
            ))
        })?;
    if let Some(to) = &answer.withheld {
        return Err(failed(format!(
            "the login form's action {} redirected it ({}) to {}, another origin: the password \
             is sent again only to the action's origin",
            shown(&action),
            answer.status,
            shown(to)
        )));
    }
    check_status(&answer, "the login form's action")?;
    if find_login_form(&answer.body, &login.user_field, &login.password_field).is_some() {
        return Err(failed(format!(
            "the login form came back after it was sent to {}: the user name or password was \
             refused",
            shown(&action)
        )));
    }
    Ok(())
}

/// `true` when `url` is the login page (scheme, host, port and path; the query aside).
fn is_login_page(login: &Url, url: &Url) -> bool {
    url[..Position::AfterPath] == login[..Position::AfterPath]
}

/// The warning on each page checked after the login session was lost: it was checked logged
/// out, and may be the login page's answer. It fails the run.
pub(crate) const SESSION_LOST: &str = "session-lost";

impl Run {
    /// With a lost session, the `session-lost` warning on `result` when it is a page of the
    /// site (checked with the session's cookies, which are gone).
    pub(super) fn mark_after_session_lost(&self, result: &mut CheckResult) {
        if let Some(lost) = self.session_lost.get()
            && result.internal
        {
            result.warnings.push(Warning {
                tag: SESSION_LOST,
                message: format!("checked after {lost}: the page may be the login page's answer"),
            });
        }
    }

    /// Notes, once, a result whose redirect chain ends at the login page: the session was
    /// lost there. Only a chain counts: a link to the login page itself is no news.
    pub(super) fn watch_session(&self, result: &CheckResult) {
        let Some(login) = &self.login_page else {
            return;
        };
        if self.session_lost.get().is_some() || result.redirects.is_empty() {
            return;
        }
        let lands = result
            .real_url
            .as_ref()
            .is_some_and(|u| is_login_page(login, u))
            || result
                .redirects
                .iter()
                .skip(1)
                .any(|h| is_login_page(login, &h.url));
        if lands {
            let _ = self.session_lost.set(format!(
                "the login session was lost: {} sent the crawl back to the login page {}",
                result.url,
                shown(login)
            ));
        }
    }
}
