//! What a config file found in the current folder (a checkout's, untrusted) may do with an
//! option: declared on the option itself, `#[arg(add = Local::allowed("why"))]`, next to its
//! flag and help, and read back from the clap command ([`Local::of`]). The binary's trust
//! check, its caps and the regex budget read these and keep no list of option names; a test
//! fails for an option declared without one.

/// The most seconds a local config may set for a time (`timeout`, `abort-timeout`,
/// `max-retry-wait`): five minutes, not a year's wait on one host.
pub const LOCAL_MAX_SECS: f64 = 300.0;

/// The most retries a local config may set (not four billion).
pub const LOCAL_MAX_RETRIES: u64 = 10;

/// The most bytes of a page a local config may have read: 64 MiB (a 2 GB page would take
/// 3 GB to read and parse).
pub const LOCAL_MAX_BODY_SIZE: u64 = 64 << 20;

/// Where the part that matters sits in each value of an option: the whole value, or the text
/// before or after its first or last `sep` (`REGEX=N` puts the pattern before the last `=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Part {
    /// The whole value.
    Whole,
    /// What comes before the first `sep` (the whole value when there is none).
    BeforeFirst(char),
    /// What comes before the last `sep` (the whole value when there is none).
    BeforeLast(char),
    /// What comes after the first `sep` (the whole value when there is none).
    AfterFirst(char),
}

impl Part {
    /// This part of `value`.
    pub fn of(self, value: &str) -> &str {
        match self {
            Part::Whole => value,
            Part::BeforeFirst(sep) => value.split_once(sep).map_or(value, |(a, _)| a),
            Part::BeforeLast(sep) => value.rsplit_once(sep).map_or(value, |(a, _)| a),
            Part::AfterFirst(sep) => value.split_once(sep).map_or(value, |(_, b)| b),
        }
    }
}

/// Whether a local config may set the option at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Trust {
    /// It may.
    Allowed,
    /// Never, whatever the value.
    Refused,
    /// Only while each value stays inside the current folder: a local path (symbolic links
    /// resolved), and for [`Inside::Inputs`] no http(s) URL into this machine's network.
    Inside(Inside),
}

/// What the values of a [`Trust::Inside`] option are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Inside {
    /// Each value is a path.
    Paths,
    /// Each value is an input: a path, a glob (judged by its folder), `-`, or a URL
    /// (`file:` as its path, http(s) by its address).
    Inputs,
}

/// How far a local config may raise a number; beyond, the value is cut to the cap with a
/// warning (the command line may go further).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Cap {
    /// Seconds, given as a number or a duration (`5m`).
    Seconds(f64),
    /// A whole number; with `zero_is_unlimited`, 0 ("no limit") counts as over the cap.
    Count {
        /// The most the file may set.
        max: u64,
        /// 0 means "no limit" for this option.
        zero_is_unlimited: bool,
    },
}

/// The local-config policy of one option (or config-file section), with why it is safe or
/// dangerous in the hands of a checkout.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Local {
    /// Whether a local config may set it.
    pub trust: Trust,
    /// Why: what a checkout could do with it, or why that is harmless.
    pub why: &'static str,
    /// The cap on the value a local config gives, if any.
    pub cap: Option<Cap>,
    /// Each value holds a regex, here: it shares the budget of a local config's patterns
    /// (`linkpatrol::LOCAL_PATTERN_BUDGET`).
    pub pattern: Option<Part>,
    /// Each value holds a `NAME: VALUE` header, here: a local config may not send a
    /// credential header (`Authorization`, `Cookie`, …).
    pub header: Option<Part>,
    /// It prints what the checked sites answered: refused in a local config when the user's
    /// own flags give credentials, which it could otherwise print into a public log.
    pub prints: bool,
}

impl Local {
    /// A local config may set it; `why` says why that is harmless.
    pub const fn allowed(why: &'static str) -> Local {
        Local {
            trust: Trust::Allowed,
            why,
            cap: None,
            pattern: None,
            header: None,
            prints: false,
        }
    }

    /// A local config may never set it; `why` says what a checkout could do with it.
    pub const fn refused(why: &'static str) -> Local {
        Local {
            trust: Trust::Refused,
            ..Local::allowed(why)
        }
    }

    /// A local config may set it while its values stay inside the current folder.
    pub const fn inside(values: Inside, why: &'static str) -> Local {
        Local {
            trust: Trust::Inside(values),
            ..Local::allowed(why)
        }
    }

    /// The same, with the value a local config gives capped.
    pub const fn capped(self, cap: Cap) -> Local {
        Local {
            cap: Some(cap),
            ..self
        }
    }

    /// The same, each value's `part` a regex that shares the local pattern budget.
    pub const fn pattern(self, part: Part) -> Local {
        Local {
            pattern: Some(part),
            ..self
        }
    }

    /// The same, each value's `part` a header.
    pub const fn header(self, part: Part) -> Local {
        Local {
            header: Some(part),
            ..self
        }
    }

    /// The same, for an option that prints what the sites answered.
    pub const fn prints(self) -> Local {
        Local {
            prints: true,
            ..self
        }
    }

    /// The policy declared on `arg`, if any.
    pub fn of(arg: &clap::Arg) -> Option<&Local> {
        arg.get::<Local>()
    }
}

impl clap::builder::ArgExt for Local {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::CheckOptions;

    #[test]
    fn every_option_has_a_local_policy() {
        let command = CheckOptions::command();
        let missing: Vec<&str> = command
            .get_arguments()
            .filter(|a| a.get_long().is_some() && Local::of(a).is_none())
            .map(|a| a.get_id().as_str())
            .collect();
        assert!(
            missing.is_empty(),
            "options without a local-config policy (`#[arg(add = Local::…)]` in \
             src/options/mod.rs): {missing:?}"
        );
    }

    #[test]
    fn every_regex_option_shares_the_pattern_budget() {
        for arg in CheckOptions::command().get_arguments() {
            let names = arg.get_value_names().unwrap_or_default();
            let regex = names.iter().any(|n| n.as_str().contains("REGEX"));
            let local = Local::of(arg);
            let shares = local.is_some_and(|l| l.pattern.is_some() || l.trust == Trust::Refused);
            assert!(
                !regex || shares,
                "`{}' takes a regex: its local policy needs `.pattern(…)` (or refuse it)",
                arg.get_id()
            );
        }
    }

    #[test]
    fn parts_split_as_the_flags_parsers_do() {
        assert_eq!(Part::BeforeLast('=').of("a=b=3"), "a=b");
        assert_eq!(Part::BeforeFirst('=').of("a=X: y=z"), "a");
        assert_eq!(Part::AfterFirst('=').of("a=X: y=z"), "X: y=z");
        assert_eq!(Part::Whole.of("x=y"), "x=y");
        assert_eq!(Part::BeforeFirst('=').of("none"), "none");
    }
}
