//! Checkers for the report formats: read DOT and GML back into nodes and edges, validate SARIF
//! against the official schema, make outputs comparable across runs (ports, timings, version)
//! and compare them with golden files in `tests/data/reports/` (`LINKPATROL_BLESS=1` rewrites
//! the golden files from the current output).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

/// A link graph read back from DOT or GML: node id → label, and (source, target) edges.
#[derive(Debug, Default)]
pub struct Graph {
    /// Node id → label (the URL).
    pub nodes: BTreeMap<usize, String>,
    /// Edges as (source id, target id, kind or style).
    pub edges: Vec<(usize, usize, String)>,
}

impl Graph {
    /// The set of node labels.
    pub fn labels(&self) -> BTreeSet<String> {
        self.nodes.values().cloned().collect()
    }

    /// The edges as (source label, target label).
    pub fn labelled_edges(&self) -> BTreeSet<(String, String)> {
        self.edges
            .iter()
            .map(|(s, t, _)| (self.nodes[s].clone(), self.nodes[t].clone()))
            .collect()
    }

    fn check_edges(&self) {
        for (s, t, _) in &self.edges {
            assert!(
                self.nodes.contains_key(s) && self.nodes.contains_key(t),
                "edge {s} -> {t} to an undeclared node"
            );
        }
    }
}

/// A DOT double-quoted string: `"` and `\` escaped.
const DOT_STRING: &str = r#""(?:[^"\\]|\\.)*""#;

fn dot_unquote(s: &str) -> String {
    let inner = &s[1..s.len() - 1];
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => panic!("dangling backslash in {s}"),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses linkpatrol's DOT output strictly: one statement per line, every attribute value a
/// well-formed quoted string, every edge between declared nodes, braces balanced.
pub fn parse_dot(text: &str) -> Graph {
    let attrs = format!(r#"(?:\w+={DOT_STRING})(?:, \w+={DOT_STRING})*"#);
    let node = Regex::new(&format!(r"^  n(\d+) \[({attrs})\];$")).unwrap();
    let edge = Regex::new(&format!(r"^  n(\d+) -> n(\d+)(?: \[({attrs})\])?;$")).unwrap();
    let defaults = Regex::new(&format!(r"^  (?:graph|node) \[{attrs}\];$")).unwrap();
    let pair = Regex::new(&format!(r"(\w+)=({DOT_STRING})")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("//")).collect();
    assert_eq!(lines.first(), Some(&"digraph \"linkpatrol\" {"), "{text}");
    assert_eq!(lines.last(), Some(&"}"), "unterminated graph:\n{text}");
    let mut g = Graph::default();
    for line in &lines[1..lines.len() - 1] {
        if let Some(c) = node.captures(line) {
            let label = pair
                .captures_iter(&c[2])
                .find(|p| &p[1] == "label")
                .map(|p| dot_unquote(&p[2]))
                .unwrap_or_else(|| panic!("node without label: {line}"));
            let id = c[1].parse().unwrap();
            assert!(g.nodes.insert(id, label).is_none(), "node {id} twice");
        } else if let Some(c) = edge.captures(line) {
            let kind = c.get(3).map_or("link", |_| "redirect").to_owned();
            g.edges
                .push((c[1].parse().unwrap(), c[2].parse().unwrap(), kind));
        } else {
            assert!(defaults.is_match(line), "not a DOT statement: {line:?}");
        }
    }
    g.check_edges();
    g
}

/// A GML value.
#[derive(Debug, Clone)]
pub enum Gml {
    /// An integer.
    Int(i64),
    /// A string, entities decoded.
    Str(String),
    /// A `[ key value … ]` list.
    List(Vec<(String, Gml)>),
}

impl Gml {
    fn get(&self, key: &str) -> Option<&Gml> {
        match self {
            Gml::List(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn int(&self, key: &str) -> i64 {
        match self.get(key) {
            Some(Gml::Int(n)) => *n,
            other => panic!("{key} is not an integer: {other:?}"),
        }
    }

    fn string(&self, key: &str) -> String {
        match self.get(key) {
            Some(Gml::Str(s)) => s.clone(),
            other => panic!("{key} is not a string: {other:?}"),
        }
    }
}

fn gml_unescape(s: &str) -> String {
    let re = Regex::new(r"&(#\d+|quot|amp|lt|gt);").unwrap();
    re.replace_all(s, |c: &regex::Captures| match &c[1] {
        "quot" => "\"".to_owned(),
        "amp" => "&".to_owned(),
        "lt" => "<".to_owned(),
        "gt" => ">".to_owned(),
        n => char::from_u32(n[1..].parse().unwrap()).unwrap().to_string(),
    })
    .into_owned()
}

/// Parses GML (key–value lists, integers, quoted strings) into its top-level list.
pub fn parse_gml_value(text: &str) -> Gml {
    fn list(s: &mut std::iter::Peekable<std::str::Chars<'_>>, top: bool) -> Gml {
        let mut items = Vec::new();
        loop {
            while s.peek().is_some_and(|c| c.is_whitespace()) {
                s.next();
            }
            match s.peek() {
                None if top => return Gml::List(items),
                None => panic!("unterminated GML list"),
                Some(']') if !top => {
                    s.next();
                    return Gml::List(items);
                }
                _ => {}
            }
            let mut key = String::new();
            while s
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                key.push(s.next().unwrap());
            }
            assert!(!key.is_empty(), "GML key expected at {:?}", s.peek());
            while s.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
                s.next();
            }
            let value = match s.next() {
                Some('[') => list(s, false),
                Some('"') => {
                    let mut v = String::new();
                    loop {
                        match s.next() {
                            Some('"') => break,
                            Some(c) => {
                                assert!(c.is_ascii() && !c.is_ascii_control(), "raw {c:?}");
                                v.push(c)
                            }
                            None => panic!("unterminated GML string"),
                        }
                    }
                    Gml::Str(gml_unescape(&v))
                }
                Some(c) if c == '-' || c.is_ascii_digit() => {
                    let mut n = c.to_string();
                    while s.peek().is_some_and(|c| c.is_ascii_digit()) {
                        n.push(s.next().unwrap());
                    }
                    Gml::Int(n.parse().unwrap())
                }
                other => panic!("GML value expected after {key}, got {other:?}"),
            };
            items.push((key, value));
        }
    }
    list(&mut text.chars().peekable(), true)
}

/// Parses linkpatrol's GML output into its graph, checking ids are unique and edges valid.
pub fn parse_gml(text: &str) -> Graph {
    let top = parse_gml_value(text);
    let Gml::List(top) = top else { unreachable!() };
    assert_eq!(top.len(), 1, "one graph");
    let (key, graph) = &top[0];
    assert_eq!(key, "graph");
    assert_eq!(graph.int("directed"), 1);
    let Gml::List(items) = graph else {
        panic!("graph is not a list")
    };
    let mut g = Graph::default();
    for (key, item) in items {
        match key.as_str() {
            "node" => {
                let id = item.int("id") as usize;
                assert!(
                    g.nodes.insert(id, item.string("label")).is_none(),
                    "node {id} twice"
                );
            }
            "edge" => g.edges.push((
                item.int("source") as usize,
                item.int("target") as usize,
                item.string("kind"),
            )),
            _ => {}
        }
    }
    g.check_edges();
    g
}

/// The official SARIF 2.1.0 schema (tests/data), compiled once, formats checked.
fn sarif_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let text = include_str!("../data/sarif-schema-2.1.0.json");
        let schema: Value = serde_json::from_str(text).expect("the schema is JSON");
        jsonschema::draft4::meta::validate(&schema).expect("a valid draft-04 schema");
        jsonschema::draft4::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("the schema compiles")
    })
}

/// Panics with every schema violation when `doc` is not a valid SARIF 2.1.0 log.
pub fn assert_valid_sarif(doc: &Value) {
    let errors: Vec<String> = sarif_validator()
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF schema violations:\n{}",
        errors.join("\n")
    );
}

/// `true` when `doc` is a valid SARIF 2.1.0 log.
pub fn is_valid_sarif(doc: &Value) -> bool {
    sarif_validator().is_valid(doc)
}

/// Replaces every `from` with `to` (the servers' `IP:PORT`, which differ per run).
pub fn placeholders(text: &str, hosts: &[(&str, &str)]) -> String {
    hosts
        .iter()
        .fold(text.to_owned(), |t, (from, to)| t.replace(from, to))
}

/// Makes a JSON report comparable across runs: timings become 0, `cached` (which occurrence
/// came first) is dropped, and the crate version becomes `VERSION`.
pub fn normalize_json(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.remove("cached");
            for (k, val) in map.iter_mut() {
                match k.as_str() {
                    "check_time" | "download_time" | "duration" | "waited" | "effective_rate"
                        if val.is_number() =>
                    {
                        *val = Value::from(0)
                    }
                    "version" | "semanticVersion" if *val == env!("CARGO_PKG_VERSION") => {
                        *val = Value::from("VERSION")
                    }
                    _ => normalize_json(val),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_json),
        _ => {}
    }
}

/// Sorts JSON entries by (url, parent, line, column).
pub fn sort_entries(entries: &mut [Value]) {
    let key = |e: &Value| {
        (
            e["url"].as_str().unwrap_or_default().to_owned(),
            e["parent"].as_str().unwrap_or_default().to_owned(),
            e["line"].as_u64(),
            e["column"].as_u64(),
        )
    };
    entries.sort_by_key(key);
}

/// Compares `actual` with `tests/data/reports/<name>`, or rewrites it when `LINKPATROL_BLESS`
/// is set. On a mismatch, shows the first differing line.
pub fn assert_golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/reports")
        .join(name);
    if std::env::var_os("LINKPATROL_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (LINKPATROL_BLESS=1 creates it)", path.display()));
    if expected != actual {
        let (n, (want, got)) = expected
            .lines()
            .chain(std::iter::repeat("<end>"))
            .zip(actual.lines().chain(std::iter::repeat("<end>")))
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((0, ("(line endings)", "(line endings)")));
        panic!(
            "{name} differs from its golden file at line {}:\n  expected: {want}\n  actual:   {got}\n\
             ---- whole output ----\n{actual}",
            n + 1
        );
    }
}

/// Fails unless `bytes` is one whole document in `format`'s syntax (after a cancelled run too):
/// JSON parses, every NDJSON line parses, XML is well-formed, CSV rows all have the header's
/// width, HTML and the graphs are closed. A new syntax must be taught here.
pub fn assert_well_formed(format: linkpatrol::report::Format, bytes: &[u8]) {
    use linkpatrol::report::Syntax;
    let name = format.name();
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: not UTF-8: {e}"));
    match format.syntax() {
        Syntax::Text => assert!(text.is_empty() || text.ends_with('\n'), "{name}: {text}"),
        Syntax::Csv => {
            let mut reader = csv::ReaderBuilder::new().delimiter(b';').from_reader(bytes);
            let width = reader.headers().expect("a CSV header").len();
            for row in reader.records() {
                let row = row.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(row.len(), width, "{name}: {row:?}");
            }
        }
        Syntax::Html => assert!(text.trim_end().ends_with("</html>"), "{name}: {text}"),
        Syntax::Json => {
            serde_json::from_str::<Value>(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        Syntax::JsonLines => {
            for line in text.lines() {
                serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
        Syntax::Xml => {
            roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        }
        Syntax::Dot => {
            parse_dot(text);
        }
        Syntax::Gml => {
            parse_gml(text);
        }
        other => panic!("{name}: teach assert_well_formed to read {other:?}"),
    }
}
