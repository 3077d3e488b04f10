//! [`FormLogin`]: log in through a form before the crawl (LinkChecker's `loginurl`,
//! `loginuserfield`, `loginpasswordfield`, `loginextrafields`), so pages behind the login are
//! checked with the session's cookies. The password is never shown: `Debug` masks it, and no
//! message of the login quotes it.

use std::fmt;

use regex::Regex;
use url::Url;

/// The user field's name by default, as in LinkChecker.
pub const DEFAULT_LOGIN_USER_FIELD: &str = "login";
/// The password field's name by default, as in LinkChecker.
pub const DEFAULT_LOGIN_PASSWORD_FIELD: &str = "password";
/// Links that end a session, by default: never followed once logged in. It is matched against
/// the URL as written and with its path and query percent-decoded, and names `/logout`,
/// `/log_out`, `/LogOff`, `/signoff`, Devise's `/users/sign_out`, `/session/destroy` and
/// `/session/end`. It also leaves out a few links that end no session (`/blog-offers`,
/// `/changelog-output`): a narrower `--login-logout-pattern` checks them.
pub const DEFAULT_LOGOUT_PATTERN: &str =
    "(?i)log[-_ ]?(out|off)|sign[-_ ]?(out|off)|session/(destroy|end)";

/// A form login: the page that has the form, the user and password, the fields' names, extra
/// fields to send, and the pattern of the links that would end the session.
#[derive(Clone)]
pub struct FormLogin {
    pub(crate) url: Url,
    pub(crate) user: String,
    pub(crate) password: String,
    pub(crate) user_field: String,
    pub(crate) password_field: String,
    pub(crate) extra_fields: Vec<(String, String)>,
    pub(crate) logout: Regex,
}

impl fmt::Debug for FormLogin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FormLogin")
            .field("url", &self.url.as_str())
            .field("user", &self.user)
            .field("password", &"***")
            .field("user_field", &self.user_field)
            .field("password_field", &self.password_field)
            .field("extra_fields", &self.extra_fields)
            .field("logout", &self.logout.as_str())
            .finish()
    }
}

impl FormLogin {
    /// Log in at `url` (the page with the form) as `user` with `password`. The fields are
    /// named [`DEFAULT_LOGIN_USER_FIELD`] and [`DEFAULT_LOGIN_PASSWORD_FIELD`] by default,
    /// and links matching [`DEFAULT_LOGOUT_PATTERN`] are not followed.
    pub fn new(url: Url, user: impl Into<String>, password: impl Into<String>) -> Self {
        FormLogin {
            url,
            user: user.into(),
            password: password.into(),
            user_field: DEFAULT_LOGIN_USER_FIELD.to_owned(),
            password_field: DEFAULT_LOGIN_PASSWORD_FIELD.to_owned(),
            extra_fields: Vec::new(),
            logout: Regex::new(DEFAULT_LOGOUT_PATTERN).expect("a valid pattern"),
        }
    }

    /// The name of the form's user field. Defaults to [`DEFAULT_LOGIN_USER_FIELD`].
    pub fn user_field(mut self, name: impl Into<String>) -> Self {
        self.user_field = name.into();
        self
    }

    /// The name of the form's password field, an input of type password (a form without one
    /// is never filled). Defaults to [`DEFAULT_LOGIN_PASSWORD_FIELD`].
    pub fn password_field(mut self, name: impl Into<String>) -> Self {
        self.password_field = name.into();
        self
    }

    /// Also sends `name=value` with the form (replacing a field of that name the form has).
    /// Defaults to none.
    pub fn extra_field(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra_fields.push((name.into(), value.into()));
        self
    }

    /// Links whose URL matches `pattern`, as written or with its path and query
    /// percent-decoded, end the session: they are not followed (nor requested) once logged
    /// in. Defaults to [`DEFAULT_LOGOUT_PATTERN`].
    pub fn logout_pattern(mut self, pattern: Regex) -> Self {
        self.logout = pattern;
        self
    }

    /// The fields to submit: the form's own (hidden ones included), the user and password in
    /// their fields, then the extra fields, each replacing a field of its name.
    pub(crate) fn submission(&self, form_fields: &[(String, String)]) -> Vec<(String, String)> {
        let mut fields: Vec<(String, String)> = form_fields.to_vec();
        let mut set = |name: &str, value: &str| match fields.iter_mut().find(|(k, _)| k == name) {
            Some(f) => f.1 = value.to_owned(),
            None => fields.push((name.to_owned(), value.to_owned())),
        };
        set(&self.user_field, &self.user);
        set(&self.password_field, &self.password);
        for (k, v) in &self.extra_fields {
            set(k, v);
        }
        fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_password() {
        let login = FormLogin::new(Url::parse("http://h.test/login").unwrap(), "me", "s3cr3t!");
        let shown = format!("{login:?}");
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(shown.contains("me"));
    }

    #[test]
    fn the_submission_fills_user_and_password_and_keeps_hidden_fields() {
        let login = FormLogin::new(Url::parse("http://h.test/login").unwrap(), "me", "pw")
            .user_field("user")
            .extra_field("remember", "1");
        let form = [
            ("csrf".to_owned(), "tok".to_owned()),
            ("user".to_owned(), String::new()),
            ("password".to_owned(), String::new()),
        ];
        let sent = login.submission(&form);
        let sent: Vec<(&str, &str)> = sent.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            sent,
            [
                ("csrf", "tok"),
                ("user", "me"),
                ("password", "pw"),
                ("remember", "1")
            ]
        );
    }
}
