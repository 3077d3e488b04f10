//! The login form of a page (LinkChecker's `loginurl` form search): the first `<form>` that has
//! an input named like the user field and a `type=password` input named like the password
//! field. The password type is required so that no other form (a search form whose `lang`
//! field was named as the password field) is ever filled with the password. Pure: bytes in,
//! the form's action, method and fields out, as written (the caller resolves the action).
//!
//! The fields are what a browser would submit untouched: every named `<input>` with its
//! `value` (checkboxes and radio buttons only when `checked`; buttons, images, files and
//! resets never), `<select>`s are not read. A hidden field (a CSRF token) is carried this way.
//! Inputs outside any form and forms nested in forms (invalid HTML) are ignored.

use std::borrow::Cow;

use html5gum::{Token, Tokenizer};

/// A login form as written in its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoginForm {
    /// The `action` attribute, as written (`None`: the page's own URL).
    pub(crate) action: Option<String>,
    /// `true` for `method="post"` (any case); GET otherwise, as in HTML.
    pub(crate) post: bool,
    /// The fields a browser would submit unchanged, in document order.
    pub(crate) fields: Vec<(String, String)>,
}

/// A form being read.
struct Open {
    form: LoginForm,
    names: Vec<String>,
    /// The names of its `type=password` inputs.
    passwords: Vec<String>,
}

impl Open {
    /// `true` when it has both fields, the password one of type password.
    fn fits(&self, user_field: &str, password_field: &str) -> bool {
        self.names.iter().any(|n| n == user_field)
            && self.passwords.iter().any(|n| n == password_field)
    }
}

/// The first form of `html` with an input named `user_field` and a `type=password` input named
/// `password_field`.
pub(crate) fn find_login_form(
    html: &[u8],
    user_field: &str,
    password_field: &str,
) -> Option<LoginForm> {
    let text = String::from_utf8_lossy(html);
    let mut open: Option<Open> = None;
    for token in Tokenizer::new(text.as_ref()).flatten() {
        match token {
            Token::StartTag(tag) => {
                let attr = |name: &str| -> Option<String> {
                    tag.attributes
                        .get(name.as_bytes())
                        .map(|v| String::from_utf8_lossy(v).trim().to_owned())
                };
                match tag.name.as_slice() {
                    b"form" if open.is_none() => {
                        open = Some(Open {
                            form: LoginForm {
                                action: attr("action").filter(|a| !a.is_empty()),
                                post: attr("method")
                                    .is_some_and(|m| m.eq_ignore_ascii_case("post")),
                                fields: Vec::new(),
                            },
                            names: Vec::new(),
                            passwords: Vec::new(),
                        });
                    }
                    b"input" => {
                        let Some(o) = open.as_mut() else { continue };
                        let Some(name) = attr("name").filter(|n| !n.is_empty()) else {
                            continue;
                        };
                        o.names.push(name.clone());
                        let kind = attr("type").unwrap_or_default().to_ascii_lowercase();
                        if kind == "password" {
                            o.passwords.push(name.clone());
                        }
                        let sent = match kind.as_str() {
                            "submit" | "button" | "image" | "reset" | "file" => false,
                            "checkbox" | "radio" => {
                                tag.attributes.contains_key(b"checked".as_slice())
                            }
                            _ => true,
                        };
                        if sent {
                            // The value as written, spaces kept (a token may hold them).
                            let value = tag
                                .attributes
                                .get(b"value".as_slice())
                                .map(|v| String::from_utf8_lossy(v))
                                .unwrap_or(Cow::Borrowed(""));
                            o.form.fields.push((name, value.into_owned()));
                        }
                    }
                    _ => {}
                }
            }
            Token::EndTag(tag) if tag.name.as_slice() == b"form" => {
                if let Some(o) = open.take()
                    && o.fits(user_field, password_field)
                {
                    return Some(o.form);
                }
            }
            _ => {}
        }
    }
    // A form the page never closed ends with it.
    open.filter(|o| o.fits(user_field, password_field))
        .map(|o| o.form)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_with_both_fields_is_found_with_its_hidden_fields() {
        let html = br#"<form action="/search"><input name="q"></form>
            <form method=POST action="/session">
              <input type=hidden name=csrf value="t&amp;k 1">
              <input name=login value="">
              <input type=password name=password>
              <input type=checkbox name=remember>
              <input type=checkbox name=terms checked value=yes>
              <input type=submit name=go value=Go>
            </form>"#;
        let form = find_login_form(html, "login", "password").unwrap();
        assert_eq!(form.action.as_deref(), Some("/session"));
        assert!(form.post);
        let fields: Vec<(&str, &str)> = form
            .fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("csrf", "t&k 1"),
                ("login", ""),
                ("password", ""),
                ("terms", "yes")
            ]
        );
    }

    #[test]
    fn no_form_without_both_fields_and_no_panic_on_broken_html() {
        assert!(find_login_form(b"<form><input name=login></form>", "login", "password").is_none());
        assert!(
            find_login_form(
                b"<input name=login><input name=password>",
                "login",
                "password"
            )
            .is_none()
        );
        let open = find_login_form(
            b"<form><input name=user><input type=PassWord name=pw>",
            "user",
            "pw",
        );
        assert_eq!(open.unwrap().action, None);
        // A form whose field of the password's name is no password input: a search form.
        let search = b"<form action='//other.test/search'><input name=q><input name=lang></form>";
        assert!(find_login_form(search, "q", "lang").is_none());
        for junk in [&b""[..], b"<form", b"\xff\xfe<form action=\x00>", b"<<<>>>"] {
            let _ = find_login_form(junk, "login", "password");
        }
    }
}
