//! The link graph in Graphviz DOT (`dot -Tsvg linkpatrol-out.dot > site.svg`).
//!
//! One `digraph`: a node per URL (`n<id>`, labelled with the URL, the result as tooltip;
//! broken and failed links red, ignored ones grey and dashed, external ones as ellipses) and an
//! edge per page → link (redirects dashed and labelled `redirect`, links found only after
//! rendering labelled `rendered`). Node ids are numbers, so
//! URLs appear only inside quoted labels, escaped by [`quoted`]. Sorted and written by `finish`.

use std::io::{self, Write};

use super::Reporter;
use super::graph::{EdgeKind, LinkGraph};
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Collects the link graph and writes it as DOT at the end.
#[derive(Debug)]
pub struct DotReporter<W: Write> {
    out: W,
    graph: LinkGraph,
}

impl<W: Write> DotReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W) -> Self {
        DotReporter {
            out,
            graph: LinkGraph::default(),
        }
    }
}

impl<W: Write> Reporter for DotReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        self.graph.add(entry);
        Ok(())
    }

    fn finish(&mut self, _report: &Report) -> io::Result<()> {
        let o = &mut self.out;
        writeln!(
            o,
            "// linkpatrol link graph: pages -> the URLs they link to"
        )?;
        writeln!(o, "digraph \"linkpatrol\" {{")?;
        writeln!(o, "  graph [charset=\"UTF-8\"];")?;
        writeln!(o, "  node [shape=\"box\"];")?;
        for n in self.graph.nodes() {
            write!(o, "  n{} [label={}", n.id, quoted(n.url))?;
            match n.verdict {
                Some(v) => {
                    write!(o, ", tooltip={}", quoted(&v.result))?;
                    match v.state {
                        "broken" | "failed" => write!(o, ", color=\"red\", fontcolor=\"red\"")?,
                        "ignored" => {
                            write!(o, ", color=\"gray\", fontcolor=\"gray\", style=\"dashed\"")?
                        }
                        _ => {}
                    }
                    if !v.internal {
                        write!(o, ", shape=\"ellipse\"")?;
                    }
                }
                None => write!(o, ", style=\"dotted\"")?,
            }
            writeln!(o, "];")?;
        }
        for (s, t, kind) in self.graph.edges() {
            match kind {
                EdgeKind::Link => writeln!(o, "  n{s} -> n{t};")?,
                EdgeKind::Rendered => writeln!(o, "  n{s} -> n{t} [label=\"rendered\"];")?,
                EdgeKind::Redirect => {
                    writeln!(o, "  n{s} -> n{t} [style=\"dashed\", label=\"redirect\"];")?
                }
            }
        }
        writeln!(o, "}}")?;
        o.flush()
    }
}

/// `s` as a DOT double-quoted string for a label: `"` and `\` are escaped (a lone backslash
/// would start a label escape such as `\N`), a line break becomes `\n`, and other control
/// characters become U+FFFD.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn labels_are_escaped() {
        assert_eq!(quoted(r#"a"b\N"#), r#""a\"b\\N""#);
        assert_eq!(quoted("one\r\ntwo\u{7}"), "\"one\\ntwo\u{FFFD}\"");
        assert_eq!(quoted("http://x/é?a=1&b=<2>"), "\"http://x/é?a=1&b=<2>\"");
    }
}
