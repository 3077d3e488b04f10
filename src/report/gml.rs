//! The link graph in GML (Graph Modelling Language), as read by yEd, Gephi, igraph and
//! networkx.
//!
//! One directed `graph`: a `node` per URL (`id`, `label` = URL, `state` and `result` when it
//! was checked) and an `edge` per page → link (`kind` `link`, `rendered` or `redirect`). GML strings cannot
//! hold `"` and are meant to be ISO-8859-1, so [`quoted`] writes `"`, `&` and every non-ASCII or
//! control character as an HTML character reference (`&quot;`, `&amp;`, `&#233;`), which GML
//! readers decode. Sorted and written by `finish`.

use std::io::{self, Write};

use super::Reporter;
use super::graph::LinkGraph;
use crate::model::outcome::Entry;
use crate::model::run_report::Report;

/// Collects the link graph and writes it as GML at the end.
#[derive(Debug)]
pub struct GmlReporter<W: Write> {
    out: W,
    graph: LinkGraph,
}

impl<W: Write> GmlReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W) -> Self {
        GmlReporter {
            out,
            graph: LinkGraph::default(),
        }
    }
}

impl<W: Write> Reporter for GmlReporter<W> {
    fn entry(&mut self, entry: &Entry) -> io::Result<()> {
        self.graph.add(entry);
        Ok(())
    }

    fn finish(&mut self, _report: &Report) -> io::Result<()> {
        let o = &mut self.out;
        writeln!(o, "graph [")?;
        writeln!(o, "  comment \"linkpatrol link graph\"")?;
        writeln!(o, "  directed 1")?;
        for n in self.graph.nodes() {
            writeln!(o, "  node [")?;
            writeln!(o, "    id {}", n.id)?;
            writeln!(o, "    label {}", quoted(n.url))?;
            if let Some(v) = n.verdict {
                writeln!(o, "    state {}", quoted(v.state))?;
                writeln!(o, "    result {}", quoted(&v.result))?;
                writeln!(o, "    internal {}", u8::from(v.internal))?;
            }
            writeln!(o, "  ]")?;
        }
        for (s, t, kind) in self.graph.edges() {
            writeln!(o, "  edge [")?;
            writeln!(o, "    source {s}")?;
            writeln!(o, "    target {t}")?;
            writeln!(o, "    kind {}", quoted(kind.as_str()))?;
            writeln!(o, "  ]")?;
        }
        writeln!(o, "]")?;
        o.flush()
    }
}

/// `s` as a GML string: ASCII printable characters as they are, except `"` and `&`, which
/// become `&quot;` and `&amp;`; anything else becomes a decimal character reference.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '&' => out.push_str("&amp;"),
            ' '..='~' => out.push(c),
            c => out.push_str(&format!("&#{};", u32::from(c))),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn strings_are_ascii_with_character_references() {
        assert_eq!(quoted(r#"a"b&c"#), "\"a&quot;b&amp;c\"");
        assert_eq!(quoted("café\n☃"), "\"caf&#233;&#10;&#9731;\"");
        assert_eq!(quoted("http://x/?q=[1]"), "\"http://x/?q=[1]\"");
    }
}
