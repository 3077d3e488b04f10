//! `--generate`: shell completions and the man page, written from the same clap `Command` that
//! parses the flags (`settings::command`), so neither can drift from `--help`.
//!
//! clap_mangen gives each `help_heading` of `--help` a section of its own (`.SH INPUTS`, `.SH
//! SCOPE`, …) in the order the headings first appear, so the man page keeps the help's groups.
//! The sections after the flags come from the tables `--help` prints too (`help.rs`):
//! `COMMANDS` (merge, help), `EXAMPLES` and `EXIT STATUS`, as man pages title them, instead
//! of clap_mangen's one `EXTRA` paragraph; and every character outside ASCII is written as a
//! groff escape (`\[u2026]`), so the page renders without warnings whether or not the
//! formatter is told the input is UTF-8.
//!
//! The completions know the `merge` command (its flags after the word `merge`): it is added
//! as a subcommand here only, because the check's own parser reads `merge` first on the
//! command line before clap sees it (`main.rs`).

use std::io::{self, Write};

use clap::{Command, ValueEnum};
use clap_complete::Shell;

use crate::help;

/// What `--generate` writes on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Generated {
    /// A bash completion script (`source <(linkpatrol --generate bash)`).
    Bash,
    /// A zsh completion function (save as `_linkpatrol` in a folder of `$fpath`).
    Zsh,
    /// A fish completion script.
    Fish,
    /// A PowerShell completion script.
    Powershell,
    /// An elvish completion script.
    Elvish,
    /// The man page, in roff (`linkpatrol --generate man | man -l -`).
    Man,
}

/// Writes `what`, generated from `cmd`, to `out`.
pub fn write(what: Generated, mut cmd: Command, out: &mut dyn Write) -> io::Result<()> {
    let shell = match what {
        Generated::Man => return out.write_all(man_page(cmd)?.as_bytes()),
        Generated::Bash => Shell::Bash,
        Generated::Zsh => Shell::Zsh,
        Generated::Fish => Shell::Fish,
        Generated::Powershell => Shell::PowerShell,
        Generated::Elvish => Shell::Elvish,
    };
    let name = cmd.get_name().to_owned();
    cmd = cmd.subcommand(crate::merge::command().name("merge"));
    clap_complete::generate(shell, &mut cmd, name, out);
    Ok(())
}

/// The man page of `cmd` in roff, ASCII only.
fn man_page(cmd: Command) -> io::Result<String> {
    let man = clap_mangen::Man::new(cmd);
    let mut roff = Vec::new();
    man.render_title(&mut roff)?;
    man.render_name_section(&mut roff)?;
    man.render_synopsis_section(&mut roff)?;
    man.render_description_section(&mut roff)?;
    man.render_options_section(&mut roff)?;
    roff.extend_from_slice(after_flags().as_bytes());
    man.render_version_section(&mut roff)?;
    let roff = String::from_utf8_lossy(&roff);
    let mut page = String::with_capacity(roff.len());
    for line in roff.lines() {
        push_ascii(&mut page, line);
        page.push('\n');
    }
    Ok(page)
}

/// The `COMMANDS`, `EXAMPLES` and `EXIT STATUS` sections, from the tables of `--help`.
fn after_flags() -> String {
    let mut roff = String::from(".SH COMMANDS\n");
    for (synopsis, what) in help::COMMANDS {
        roff.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            text(synopsis),
            text(what)
        ));
    }
    roff.push_str(".SH EXAMPLES\n");
    for (what, command) in help::EXAMPLES {
        roff.push_str(&format!(".PP\n{}:\n", text(what)));
        roff.push_str(&format!(".IP\n.nf\n\\fB{}\\fR\n.fi\n", text(command)));
    }
    roff.push_str(&format!(
        ".SH \"EXIT STATUS\"\n{}\n",
        text(help::EXIT_STATUS)
    ));
    roff
}

/// `s` as roff text: backslashes and hyphens escaped, a leading `.` or `'` kept as text.
fn text(s: &str) -> String {
    let escaped = s.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// Appends `text` with each non-ASCII character as a groff escape (`…` → `\[u2026]`).
fn push_ascii(page: &mut String, text: &str) {
    use std::fmt::Write as _;
    for c in text.chars() {
        if c.is_ascii() {
            page.push(c);
        } else {
            // Writing to a String cannot fail.
            let _ = write!(page, "\\[u{:04X}]", u32::from(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_becomes_a_groff_escape() {
        let mut page = String::new();
        push_ascii(&mut page, "a … b é 😀");
        assert_eq!(page, "a \\[u2026] b \\[u00E9] \\[u1F600]");
    }
}
