//! The failure classes a broken link is reported under — `http-error` for an error status,
//! else its [`FailKind`] — each with its name and description. JSON's `failure`, JUnit's
//! `type`, SARIF's `broken/<class>` rules, the HTML report and Python read them from here.

use std::fmt;

use crate::model::outcome::{FailKind, Outcome};

/// Why a broken link is broken, as the reports name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureClass {
    /// The server answered with an error status (4xx or 5xx).
    HttpError,
    /// The URL could not be checked to a status, for this reason.
    Failed(FailKind),
}

impl FailureClass {
    /// Every class: `http-error`, then each [`FailKind`] in declaration order. The order is
    /// that of the SARIF rules.
    pub fn all() -> impl Iterator<Item = FailureClass> {
        // No wildcard: a new variant stops this compiling, to send whoever adds it to the
        // chain below (`FailKind`s come from their declaration).
        let _every_variant = |c: FailureClass| match c {
            FailureClass::HttpError | FailureClass::Failed(_) => (),
        };
        std::iter::once(FailureClass::HttpError)
            .chain(FailKind::ALL.into_iter().map(FailureClass::Failed))
    }

    /// The class of a broken outcome; `None` when the link is not broken.
    pub fn of(outcome: &Outcome) -> Option<FailureClass> {
        match outcome {
            Outcome::Broken { .. } => Some(FailureClass::HttpError),
            Outcome::Failed { kind, .. } => Some(FailureClass::Failed(*kind)),
            Outcome::Ok { .. } | Outcome::Ignored { .. } | Outcome::Blocked { .. } => None,
        }
    }

    /// The class named `name` (the inverse of [`name`](Self::name)).
    pub fn from_name(name: &str) -> Option<FailureClass> {
        FailureClass::all().find(|c| c.name() == name)
    }

    /// A short, stable, lower-case name (`http-error`, `timeout`).
    pub fn name(self) -> &'static str {
        match self {
            FailureClass::HttpError => "http-error",
            FailureClass::Failed(kind) => kind.as_str(),
        }
    }

    /// One sentence on what the class means (SARIF's rule text, the HTML report's tooltip).
    /// The match has no wildcard, so a new kind must be described.
    pub fn description(self) -> &'static str {
        let FailureClass::Failed(kind) = self else {
            return "The link's server answers with an HTTP error status (4xx or 5xx).";
        };
        match kind {
            FailKind::InvalidUrl => "The link is not a valid URL.",
            FailKind::Dns => "The link's host name could not be resolved.",
            FailKind::Connect => "No connection could be made to the link's server.",
            FailKind::Timeout => "The link's server did not answer in time.",
            FailKind::Tls => "The TLS handshake or certificate of the link's server failed.",
            FailKind::Protocol => "The link's server broke the HTTP protocol.",
            FailKind::Io => "The connection broke while reading the link's response.",
            FailKind::RedirectLoop => "The link's redirects lead back to a URL already visited.",
            FailKind::TooManyRedirects => "The link redirects more times than allowed.",
            FailKind::BadRedirect => "The link redirects without a usable Location.",
            FailKind::FileNotFound => "The linked local file or folder does not exist.",
            FailKind::BadMailAddress => "The mailto: link's address is not valid.",
            FailKind::Interrupted => "The run was interrupted while the link was being checked.",
            FailKind::Internal => "Checking the link hit an internal error in linkpatrol.",
            FailKind::Plugin => "A plugin found the link's target broken.",
            FailKind::Fragment => "The link's #fragment names no anchor on its target page.",
            FailKind::UndefinedReference => {
                "The Markdown reference's label is defined nowhere: it renders as text."
            }
            FailKind::UrlTooLong => {
                "The URL is longer than 8,192 characters: not requested, servers refuse it."
            }
        }
    }
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_its_own_name_and_a_description() {
        let classes: Vec<FailureClass> = FailureClass::all().collect();
        assert_eq!(classes.len(), FailKind::ALL.len() + 1);
        for class in &classes {
            assert_eq!(FailureClass::from_name(class.name()), Some(*class));
            assert!(class.description().ends_with('.'), "{class}");
        }
        let mut names: Vec<&str> = classes.iter().map(|c| c.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), classes.len());
        assert_eq!(
            FailureClass::of(&Outcome::Broken { status: 410 }),
            Some(FailureClass::HttpError)
        );
        assert_eq!(FailureClass::of(&Outcome::Ok { status: None }), None);
    }
}
