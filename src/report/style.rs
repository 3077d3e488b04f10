//! Colour for the reports read on a terminal (text, compact): errors red, warnings yellow,
//! the summary line bold.
//!
//! Whether to colour is decided by the caller (the binary: `--color`, `NO_COLOR`, whether
//! stdout is a terminal) and handed in as [`ReportOptions::color`](super::ReportOptions::color).
//! The escape codes written here are the only ones a report holds: every string from a page, a
//! server or a file name has passed [`escape_controls`](super::escape_controls) before it is
//! painted, so a page cannot close, open or forge a colour.

use std::fmt;

use anstyle::{AnsiColor, Style};

/// What a piece of report text is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// A broken link: red.
    Error,
    /// A warning: yellow.
    Warning,
    /// The summary line: bold.
    Summary,
}

impl Tone {
    fn style(self) -> Style {
        match self {
            Tone::Error => AnsiColor::Red.on_default(),
            Tone::Warning => AnsiColor::Yellow.on_default(),
            Tone::Summary => Style::new().bold(),
        }
    }
}

/// Paints text when colour is on, and passes it through unchanged when it is off.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Painter {
    color: bool,
}

impl Painter {
    /// A painter that colours when `color` is true.
    pub(crate) fn new(color: bool) -> Self {
        Painter { color }
    }

    /// `text` in the colour of `tone` (text that is already escaped).
    pub(crate) fn paint<T: fmt::Display>(self, tone: Tone, text: T) -> Painted<T> {
        Painted {
            style: if self.color {
                tone.style()
            } else {
                Style::new()
            },
            text,
        }
    }
}

/// Text with its style; shown as the style's codes, the text and a reset (no codes for the
/// plain style).
#[derive(Debug)]
pub(crate) struct Painted<T> {
    style: Style,
    text: T,
}

impl<T: fmt::Display> fmt::Display for Painted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // anstyle writes nothing for the plain style, neither codes nor reset.
        write!(f, "{}{}{:#}", self.style, self.text, self.style)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_off_writes_the_text_only() {
        let p = Painter::new(false);
        assert_eq!(p.paint(Tone::Error, "404").to_string(), "404");
        assert_eq!(
            p.paint(Tone::Summary, "That's it.").to_string(),
            "That's it."
        );
    }

    #[test]
    fn colour_on_wraps_the_text_in_codes_and_a_reset() {
        let p = Painter::new(true);
        assert_eq!(p.paint(Tone::Error, "x").to_string(), "\x1b[31mx\x1b[0m");
        assert_eq!(p.paint(Tone::Warning, "x").to_string(), "\x1b[33mx\x1b[0m");
        assert_eq!(p.paint(Tone::Summary, "x").to_string(), "\x1b[1mx\x1b[0m");
    }
}
