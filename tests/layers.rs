//! Proves from the source that the library's files form no dependency circle, nor do the
//! command's (`src/bin/linkpatrol`, a crate of its own), and that every library
//! path goes down the layers described in ARCHITECTURE.md at the root of the repository:
//! `model` ← `config` ← `policy`, `extract` ← `fetch` ← `engine`, and `report` uses `model`
//! only.
//!
//! What counts as a dependency of a file: every `crate::…` and `super::…` path in its code,
//! written in a `use` (grouped trees such as `use crate::{a::X, b::{Y, Z}}` included) or inline.
//! Each path leads to the file that defines its longest module prefix (`src/a/b.rs` or
//! `src/a/b/mod.rs` is `a::b`); a root re-export of `lib.rs` is followed to its source.
//!
//! What does not count:
//! - comments (doc links included) and string literals;
//! - code under `#[cfg(test)]`, whether a test module or a single item: tests may reach across
//!   the layers;
//! - a module naming its own descendants (`self::x`, `crate::<own path>::x`): a folder's `mod.rs`
//!   declares and re-exports its children, whatever the spelling;
//! - `lib.rs` and `internals.rs`, the public facade; the command's `main.rs` is its root,
//!   whose `crate::x` paths name the command's own files.
//!
//! The test reads `src/` as text with std alone, so it runs in milliseconds and needs no feature.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Each layer and the layers it may use besides itself. `policy` and `extract` are siblings:
/// neither may use the other; nor may `state` (the state file) and `policy`, `extract` or
/// `fetch`.
const LAYERS: [(&str, &[&str]); 10] = [
    ("model", &[]),
    ("config", &["model"]),
    ("policy", &["model", "config"]),
    ("extract", &["model", "config"]),
    ("fetch", &["model", "config", "policy", "extract"]),
    ("state", &["model", "config"]),
    (
        "engine",
        &["model", "config", "policy", "extract", "fetch", "state"],
    ),
    ("report", &["model"]),
    ("inputs", &["model", "config"]),
    ("options", &["model", "config", "inputs"]),
];

/// The order the failure messages quote.
const ORDER: &str = "model <- config <- policy | extract <- fetch <- engine; config <- state <- engine; \
     report uses model only";

/// Files under `src/` that are not part of any layer.
const FACADE: [&str; 2] = ["lib.rs", "internals.rs"];

#[test]
fn no_circle_between_files() {
    let circles: Vec<String> = [graph(), bin_graph()]
        .into_iter()
        .flat_map(|graph| {
            graph
                .strongly_connected()
                .into_iter()
                .filter(|component| component.len() > 1)
                .map(|component| graph.describe_circle(&component))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "{} dependency circle(s) between files; break each at one of the lines quoted:\n\n{}",
        circles.len(),
        circles.join("\n")
    );
}

#[test]
fn imports_go_down_the_layers() {
    let graph = graph();
    let mut wrong = Vec::new();
    for (&(from, to), sites) in &graph.edges {
        let (from, to) = (&graph.files[from], &graph.files[to]);
        if !may_use(&from.layer, &to.layer) {
            let mut message = format!(
                "  src/{} ({}) uses src/{} ({}):\n",
                from.path, from.layer, to.path, to.layer
            );
            for site in sites {
                message += &graph.quote(from, site);
            }
            wrong.push(message);
        }
    }
    assert!(
        wrong.is_empty(),
        "{} file(s) reach up or across the layers ({ORDER}; see ARCHITECTURE.md):\n\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_layer_folders_exist() {
    let src = src_dir();
    for (layer, _) in LAYERS {
        assert!(
            src.join(layer).join("mod.rs").is_file() || src.join(format!("{layer}.rs")).is_file(),
            "the layer `{layer}` has no src/{layer}/mod.rs: update LAYERS in {} and ARCHITECTURE.md",
            file!()
        );
    }
    let strays: Vec<&str> = graph()
        .files
        .iter()
        .filter(|file| !LAYERS.iter().any(|(layer, _)| *layer == file.layer))
        .map(|file| file.path.as_str())
        .collect();
    assert!(
        strays.is_empty(),
        "files outside every layer (put them in a layer folder, or add the layer to LAYERS in {} \
         and to ARCHITECTURE.md): {strays:?}",
        file!()
    );
}

#[test]
fn the_parser_sees_the_whole_graph() {
    let graph = graph();
    let edges = graph.edges.len();
    assert!(
        graph.files.len() > 40 && edges > 50,
        "found {} files and {edges} file-to-file edges under {}: the parser in {} is broken",
        graph.files.len(),
        src_dir().display(),
        file!()
    );
    // Every layer above `model` and `extract` uses something: an empty row means lost edges.
    for layer in ["config", "policy", "fetch", "state", "engine", "report"] {
        assert!(
            graph
                .edges
                .keys()
                .any(|&(from, _)| graph.files[from].layer == layer),
            "no file of `{layer}` uses another file: the parser in {} is broken",
            file!()
        );
    }
    // The command: its root and its modules both use other files.
    let bin = bin_graph();
    let uses = |path: &str| {
        bin.edges
            .keys()
            .any(|&(from, _)| bin.files[from].path == format!("{BIN}/{path}"))
    };
    assert!(
        bin.files.len() > 15 && uses("main.rs") && uses("settings.rs"),
        "found {} files under src/{BIN} and no use from main.rs or settings.rs: the parser in \
         {} is broken",
        bin.files.len(),
        file!()
    );
}

#[test]
fn the_parser_reads_paths_like_the_compiler() {
    let source = r####"
        //! [`crate::engine::Doc`] is a comment.
        use crate::{model::A, config::{B, self}};
        use super::super::C;
        use {crate::model::F, self::G};
        pub(in crate::policy) fn f() -> &'static str {
            let _ = '{'; let _ = b'"'; let _ = '\'';
            let _ = r#"crate::engine::InRawString " }"#;
            /* crate::engine::InBlock /* nested */ */
            crate::fetch::http::get(self::inner::D)
        }
        #[cfg(test)]
        impl<A, B> X<A, B> { fn t() { crate::engine::Test; } }
        #[cfg(test)]
        mod tests { use crate::engine::Test; }
        #[cfg(test)]
        mod helpers;
        mod inner { use super::E; }
    "####;
    let module = ["policy".to_owned(), "hosts".to_owned()];
    let parsed = parse(&lex(source), &module);
    let paths: Vec<String> = parsed.paths.iter().map(|p| p.absolute.join("::")).collect();
    assert_eq!(
        paths,
        [
            "model::A",
            "config::B",
            "config",
            "C",
            "model::F",
            "policy::hosts::G",
            "fetch::http::get",
            "policy::hosts::inner::D",
            "policy::hosts::E",
        ]
    );
    assert_eq!(parsed.test_children, ["helpers"]);
    assert!(!parsed.whole_file_is_test);
}

/// Whether a file of layer `from` may use a file of layer `to`.
fn may_use(from: &str, to: &str) -> bool {
    from == to
        || LAYERS
            .iter()
            .any(|(layer, allowed)| *layer == from && allowed.contains(&to))
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The command's folder below `src/`.
const BIN: &str = "bin/linkpatrol";

/// Which crate a graph reads.
#[derive(Clone, Copy, PartialEq)]
enum Crate {
    /// `src/` but the facade and `src/bin`.
    Library,
    /// `src/bin/linkpatrol`, rooted at its `main.rs`.
    Binary,
}

/// One library file.
struct SourceFile {
    /// Its path below `src/`, with `/` separators.
    path: String,
    /// Its module path: `["engine", "run"]` for `engine/run.rs`.
    module: Vec<String>,
    /// The first segment of its module path.
    layer: String,
    /// Its text, to quote lines in the failure messages.
    text: String,
}

/// Where a file names another one.
struct Site {
    /// 1-based line of the path's last segment.
    line: usize,
    /// The path as written (`super::queue::HostLaneQueue`).
    written: String,
    /// The line of its `use` keyword, if that is another line.
    use_line: Option<usize>,
}

/// The file-to-file dependency graph of the library.
struct Graph {
    files: Vec<SourceFile>,
    /// (from, to) → every place `from` names `to`; no self-edges.
    edges: BTreeMap<(usize, usize), Vec<Site>>,
}

/// Built once per test binary: every test reads the same graph.
fn graph() -> &'static Graph {
    static GRAPH: OnceLock<Graph> = OnceLock::new();
    GRAPH.get_or_init(|| Graph::read(&src_dir(), Crate::Library))
}

/// The command's graph, built once.
fn bin_graph() -> &'static Graph {
    static GRAPH: OnceLock<Graph> = OnceLock::new();
    GRAPH.get_or_init(|| Graph::read(&src_dir().join(BIN), Crate::Binary))
}

impl Graph {
    fn read(src: &Path, kind: Crate) -> Graph {
        let mut found = Vec::new();
        walk(src, src, &mut found);
        found.sort();

        // Root re-exports, so that `crate::Config` leads to `config`; the command has none.
        let reexports = match kind {
            Crate::Library => {
                let lib = fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
                root_reexports(&lib)
            }
            Crate::Binary => HashMap::new(),
        };

        let mut files = Vec::new();
        let mut parsed = Vec::new();
        let mut test_modules = BTreeSet::new();
        for relative in found {
            if kind == Crate::Library
                && (FACADE.contains(&relative.as_str()) || relative.starts_with("bin/"))
            {
                continue;
            }
            let text = fs::read_to_string(src.join(&relative)).expect("a readable source file");
            let module = match kind {
                Crate::Binary if relative == "main.rs" => Vec::new(),
                _ => module_of(&relative),
            };
            let file_parse = parse(&lex(&text), &module);
            for child in &file_parse.test_children {
                let mut path = module.clone();
                path.push(child.clone());
                test_modules.insert(path);
            }
            if file_parse.whole_file_is_test {
                test_modules.insert(module.clone());
            }
            let layer = module.first().cloned().unwrap_or_default();
            files.push(SourceFile {
                path: match kind {
                    Crate::Library => relative,
                    Crate::Binary => format!("{BIN}/{relative}"),
                },
                module,
                layer,
                text,
            });
            parsed.push(file_parse);
        }
        // Files of test modules (`#[cfg(test)] mod tests;`) and everything below them go.
        let keep: Vec<bool> = files
            .iter()
            .map(|f| !test_modules.iter().any(|t| f.module.starts_with(t)))
            .collect();
        let (files, parsed): (Vec<_>, Vec<_>) = files
            .into_iter()
            .zip(parsed)
            .zip(&keep)
            .filter(|(_, keep)| **keep)
            .map(|(pair, _)| pair)
            .unzip();

        let by_module: HashMap<&[String], usize> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.as_slice(), i))
            .collect();
        let mut edges: BTreeMap<(usize, usize), Vec<Site>> = BTreeMap::new();
        for (from, file_parse) in parsed.iter().enumerate() {
            for path in &file_parse.paths {
                let Some(absolute) = follow_reexport(&path.absolute, &reexports) else {
                    continue;
                };
                let target = (1..=absolute.len())
                    .rev()
                    .find_map(|n| by_module.get(&absolute[..n]).copied());
                // A folder's `mod.rs` declares and re-exports its children: a module naming
                // its own descendants (`self::x`, `crate::<own path>::x`) is no dependency.
                // The command's root is the exception: it uses its modules as any file does.
                let descendant = |to: usize| {
                    !files[from].module.is_empty()
                        && files[to].module.starts_with(&files[from].module)
                };
                if let Some(to) = target.filter(|&to| !descendant(to)) {
                    let site = Site {
                        line: path.line,
                        written: path.written.clone(),
                        use_line: path.use_line.filter(|&l| l != path.line),
                    };
                    edges.entry((from, to)).or_default().push(site);
                }
            }
        }
        Graph { files, edges }
    }

    /// Tarjan's algorithm: the strongly connected components, each sorted by file.
    fn strongly_connected(&self) -> Vec<Vec<usize>> {
        struct State<'a> {
            next: &'a [Vec<usize>],
            index: Vec<Option<usize>>,
            low: Vec<usize>,
            on_stack: Vec<bool>,
            stack: Vec<usize>,
            counter: usize,
            components: Vec<Vec<usize>>,
        }
        fn visit(s: &mut State, v: usize) {
            s.index[v] = Some(s.counter);
            s.low[v] = s.counter;
            s.counter += 1;
            s.stack.push(v);
            s.on_stack[v] = true;
            for &w in &s.next[v] {
                match s.index[w] {
                    None => {
                        visit(s, w);
                        s.low[v] = s.low[v].min(s.low[w]);
                    }
                    Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                    Some(_) => {}
                }
            }
            if Some(s.low[v]) == s.index[v] {
                let mut component = Vec::new();
                while let Some(w) = s.stack.pop() {
                    s.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                component.sort();
                s.components.push(component);
            }
        }
        let next = self.successors();
        let n = self.files.len();
        let mut state = State {
            next: &next,
            index: vec![None; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            stack: Vec::new(),
            counter: 0,
            components: Vec::new(),
        };
        for v in 0..n {
            if state.index[v].is_none() {
                visit(&mut state, v);
            }
        }
        state.components
    }

    fn successors(&self) -> Vec<Vec<usize>> {
        let mut next = vec![Vec::new(); self.files.len()];
        for &(from, to) in self.edges.keys() {
            next[from].push(to);
        }
        next
    }

    /// The files of a component and one shortest circle through its first file, each step with
    /// the lines that make it.
    fn describe_circle(&self, component: &[usize]) -> String {
        let inside: BTreeSet<usize> = component.iter().copied().collect();
        let next = self.successors();
        let start = component[0];
        // Breadth-first from `start` back to `start`, inside the component.
        let mut came_from: HashMap<usize, usize> = HashMap::new();
        let mut queue = VecDeque::from([start]);
        let mut last = None;
        'search: while let Some(v) = queue.pop_front() {
            for &w in &next[v] {
                if w == start {
                    last = Some(v);
                    break 'search;
                }
                if inside.contains(&w) && !came_from.contains_key(&w) {
                    came_from.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        let mut circle = vec![last.expect("a component of several files has a circle")];
        while *circle.last().unwrap() != start {
            circle.push(came_from[circle.last().unwrap()]);
        }
        circle.reverse();

        let names: Vec<String> = component
            .iter()
            .map(|&f| format!("src/{}", self.files[f].path))
            .collect();
        let mut message = format!(
            "  circle among {} files: {}\n",
            component.len(),
            names.join(", ")
        );
        for (k, &from) in circle.iter().enumerate() {
            let to = circle[(k + 1) % circle.len()];
            let (source, target) = (&self.files[from], &self.files[to]);
            message += &format!("    src/{} -> src/{}\n", source.path, target.path);
            for site in &self.edges[&(from, to)] {
                message += &self.quote(source, site);
            }
        }
        message
    }

    /// `      src/a/b.rs:12: super::x::Y    | use super::x::Y;`, and the line of a `use` that
    /// starts on an earlier line.
    fn quote(&self, file: &SourceFile, site: &Site) -> String {
        let text = |line: usize| file.text.lines().nth(line - 1).unwrap_or("").trim();
        let mut quote = format!(
            "      src/{}:{}: {}    | {}",
            file.path,
            site.line,
            site.written,
            text(site.line)
        );
        if let Some(line) = site.use_line {
            quote += &format!("    (in the `use` at line {line}: {})", text(line));
        }
        quote + "\n"
    }
}

/// Every `.rs` file below `dir`, as a path relative to `src` with `/` separators.
fn walk(src: &Path, dir: &Path, found: &mut Vec<String>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            walk(src, &path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(src).expect("below src");
            let parts: Vec<_> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect();
            found.push(parts.join("/"));
        }
    }
}

/// `engine/run.rs` → `engine::run`; `engine/mod.rs` → `engine`.
fn module_of(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

/// What a root name of `lib.rs` re-exports.
enum Reexport {
    /// A path inside the crate (`config::Config`).
    Internal(Vec<String>),
    /// Another crate (`linkpatrol_plugin_api as plugin`): no layer.
    External,
}

/// The top-level `use` items of `lib.rs`, by the name they give at the root.
fn root_reexports(lib: &str) -> HashMap<String, Reexport> {
    let tokens = lex(lib);
    let mut map = HashMap::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth = depth.saturating_sub(1),
            Tok::Ident(word) if word == "use" && depth == 0 => {
                let (trees, end) = use_item(&tokens, i + 1);
                i = end;
                for mut tree in trees {
                    if tree.path.last().is_some_and(|last| last == "self") {
                        tree.path.pop(); // `use a::{self}` names `a`.
                    }
                    let Some(name) = tree.alias.or_else(|| tree.path.last().cloned()) else {
                        continue;
                    };
                    let first = tree.path.first().map_or("", String::as_str);
                    let target = if first == "crate" || first == "self" {
                        Reexport::Internal(tree.path[1..].to_vec())
                    } else if LAYERS.iter().any(|(layer, _)| *layer == first) {
                        Reexport::Internal(tree.path)
                    } else {
                        Reexport::External
                    };
                    map.insert(name, target);
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    map
}

/// `absolute` with a root re-export replaced by its source; `None` for another crate.
fn follow_reexport(
    absolute: &[String],
    reexports: &HashMap<String, Reexport>,
) -> Option<Vec<String>> {
    let Some(first) = absolute.first() else {
        return Some(Vec::new());
    };
    if LAYERS.iter().any(|(layer, _)| layer == first) {
        return Some(absolute.to_vec());
    }
    match reexports.get(first) {
        Some(Reexport::Internal(source)) => Some([source.as_slice(), &absolute[1..]].concat()),
        Some(Reexport::External) => None,
        // A facade item of lib.rs (`plugins`), or a module outside the layers: the graph has
        // no file for it, and the_layer_folders_exist catches a stray module file.
        None => Some(absolute.to_vec()),
    }
}

// ---------------------------------------------------------------------------------------------
// A lexer that keeps only what paths are made of: comments and literals vanish.

#[derive(Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

#[derive(Debug)]
struct Token {
    tok: Tok,
    /// 1-based.
    line: usize,
}

fn lex(source: &str) -> Vec<Token> {
    let c: Vec<char> = source.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let is_ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Moves past c[from..to], counting the line breaks.
    let skip = |from: usize, to: usize, line: &mut usize| {
        *line += c[from..to.min(c.len())]
            .iter()
            .filter(|&&ch| ch == '\n')
            .count();
        to
    };
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let (mut depth, mut j) = (0, i);
            loop {
                if j >= c.len() {
                    break;
                } else if c[j] == '/' && at(j + 1) == '*' {
                    depth += 1;
                    j += 2;
                } else if c[j] == '*' && at(j + 1) == '/' {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            i = skip(i, j, &mut line);
        } else if ch == '"' {
            i = skip(i, string_end(&c, i + 1), &mut line);
        } else if ch == '\'' {
            // A char literal ('x', '\n', '{') or a lifetime ('a, 'static).
            if at(i + 1) == '\\' {
                let mut j = i + 3;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(i + 2) == '\'' {
                i = skip(i, i + 3, &mut line);
            } else {
                i += 1;
                while i < c.len() && is_ident(c[i]) {
                    i += 1;
                }
            }
        } else if ch == ':' && at(i + 1) == ':' {
            tokens.push(Token {
                tok: Tok::PathSep,
                line,
            });
            i += 2;
        } else if is_ident_start(ch) {
            let start = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                i = skip(i, string_end(&c, i + 1), &mut line);
            } else if raw && (at(i) == '"' || at(i) == '#' && matches!(at(i + 1), '"' | '#')) {
                let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
                let mut j = i + hashes + 1;
                while j < c.len()
                    && !(c[j] == '"'
                        && c[j + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|&&h| h == '#')
                            .count()
                            == hashes)
                {
                    j += 1;
                }
                i = skip(i, j + 1 + hashes, &mut line);
            } else if word == "r" && at(i) == '#' && is_ident_start(at(i + 1)) {
                // A raw identifier: r#type.
                let start = i + 1;
                i += 1;
                while i < c.len() && is_ident(c[i]) {
                    i += 1;
                }
                tokens.push(Token {
                    tok: Tok::Ident(c[start..i].iter().collect()),
                    line,
                });
            } else {
                tokens.push(Token {
                    tok: Tok::Ident(word),
                    line,
                });
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
        } else {
            if ch == '\n' {
                line += 1;
            } else if !ch.is_whitespace() {
                tokens.push(Token {
                    tok: Tok::Punct(ch),
                    line,
                });
            }
            i += 1;
        }
    }
    tokens
}

/// The index after the closing quote of a string whose body starts at `i`.
fn string_end(c: &[char], mut i: usize) -> usize {
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

// ---------------------------------------------------------------------------------------------
// A parser that finds the paths and the test code.

/// A path that starts at `crate`, `super` or `self`, made absolute.
struct FoundPath {
    /// From the crate root: `["engine", "run", "Run"]`.
    absolute: Vec<String>,
    /// As written, joined with `::`.
    written: String,
    line: usize,
    /// The line of the `use` it is part of; `None` for an inline path.
    use_line: Option<usize>,
}

struct Parsed {
    /// Every path outside test code.
    paths: Vec<FoundPath>,
    /// `#[cfg(test)] mod x;`: the child module `x` is test code.
    test_children: Vec<String>,
    /// The file starts with `#![cfg(test)]`.
    whole_file_is_test: bool,
}

fn ident(tokens: &[Token], i: usize) -> Option<&str> {
    match tokens.get(i) {
        Some(Token {
            tok: Tok::Ident(word),
            ..
        }) => Some(word),
        _ => None,
    }
}

fn is(tokens: &[Token], i: usize, tok: Tok) -> bool {
    tokens.get(i).is_some_and(|t| t.tok == tok)
}

fn parse(tokens: &[Token], file_module: &[String]) -> Parsed {
    let mut parsed = Parsed {
        paths: Vec::new(),
        test_children: Vec::new(),
        whole_file_is_test: false,
    };
    // One entry per open `{`: the name of an inline `mod`, or `None`.
    let mut blocks: Vec<Option<String>> = Vec::new();
    let module = |blocks: &[Option<String>]| -> Vec<String> {
        file_module
            .iter()
            .cloned()
            .chain(blocks.iter().flatten().cloned())
            .collect()
    };
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].tok {
            Tok::Punct('#') => {
                let inner = is(tokens, i + 1, Tok::Punct('!'));
                let (end, test) = attribute(tokens, if inner { i + 2 } else { i + 1 });
                i = end;
                if test && inner && blocks.is_empty() {
                    parsed.whole_file_is_test = true;
                    return parsed;
                }
                if test && !inner {
                    i = skip_test_item(tokens, i, &mut parsed.test_children);
                }
                continue;
            }
            Tok::Ident(word) if word == "use" => {
                let use_line = Some(tokens[i].line);
                let (trees, end) = use_item(tokens, i + 1);
                i = end;
                let here = module(&blocks);
                for tree in trees {
                    if let Some(absolute) = absolute(&tree.path, &here) {
                        let written = tree.path.join("::").trim_end_matches("::self").to_owned();
                        parsed.paths.push(FoundPath {
                            absolute,
                            written,
                            line: tree.line,
                            use_line,
                        });
                    }
                }
                continue;
            }
            Tok::Ident(word) if word == "mod" && is(tokens, i + 2, Tok::Punct('{')) => {
                blocks.push(ident(tokens, i + 1).map(String::from));
                i += 3;
                continue;
            }
            Tok::Punct('{') => blocks.push(None),
            Tok::Punct('}') => {
                blocks.pop();
            }
            Tok::Ident(word)
                if matches!(word.as_str(), "crate" | "super" | "self")
                    && is(tokens, i + 1, Tok::PathSep)
                    && !(i > 0 && is(tokens, i - 1, Tok::PathSep))
                    && !(i > 0 && ident(tokens, i - 1) == Some("in")) =>
            {
                let mut path = vec![word.clone()];
                let mut line = tokens[i].line;
                let mut j = i + 1;
                while is(tokens, j, Tok::PathSep) {
                    let Some(segment) = ident(tokens, j + 1) else {
                        break;
                    };
                    path.push(segment.to_owned());
                    line = tokens[j + 1].line;
                    j += 2;
                }
                if let Some(absolute) = absolute(&path, &module(&blocks)) {
                    parsed.paths.push(FoundPath {
                        absolute,
                        written: path.join("::"),
                        line,
                        use_line: None,
                    });
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parsed
}

/// Reads `[ … ]` from `i`: the index after `]`, and whether it is `[cfg(test)]`.
fn attribute(tokens: &[Token], i: usize) -> (usize, bool) {
    if !is(tokens, i, Tok::Punct('[')) {
        return (i, false);
    }
    let mut depth = 0;
    let mut j = i;
    while j < tokens.len() {
        match tokens[j].tok {
            Tok::Punct('[') => depth += 1,
            Tok::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    let words: Vec<&Tok> = tokens[i + 1..j.min(tokens.len())]
        .iter()
        .map(|t| &t.tok)
        .collect();
    let test = words
        == [
            &Tok::Ident("cfg".into()),
            &Tok::Punct('('),
            &Tok::Ident("test".into()),
            &Tok::Punct(')'),
        ];
    (j + 1, test)
}

/// Skips the item after a `#[cfg(test)]`, from `i` (after the attribute); notes `mod x;`.
fn skip_test_item(tokens: &[Token], mut i: usize, test_children: &mut Vec<String>) -> usize {
    // Further attributes.
    while is(tokens, i, Tok::Punct('#')) {
        i = attribute(tokens, i + 1).0;
    }
    // Visibility.
    let mut k = i;
    if ident(tokens, k) == Some("pub") {
        k += 1;
        if is(tokens, k, Tok::Punct('(')) {
            while k < tokens.len() && !is(tokens, k, Tok::Punct(')')) {
                k += 1;
            }
            k += 1;
        }
    }
    if ident(tokens, k) == Some("mod") && is(tokens, k + 2, Tok::Punct(';')) {
        test_children.extend(ident(tokens, k + 1).map(String::from));
        return k + 3;
    }
    // An item or statement ends at `;` or with its first block; a field, variant, match arm
    // or argument also ends at `,`.
    let keyword = ident(tokens, k).unwrap_or("");
    let item = matches!(
        keyword,
        "fn" | "impl"
            | "mod"
            | "struct"
            | "enum"
            | "union"
            | "trait"
            | "type"
            | "const"
            | "static"
            | "use"
            | "unsafe"
            | "extern"
            | "async"
            | "macro_rules"
            | "let"
    );
    let ends_with_block = !matches!(keyword, "type" | "const" | "static" | "use" | "let");
    let mut depth = 0i32;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct(close @ ('}' | ')' | ']')) => {
                if depth == 0 {
                    return i; // The end of the enclosing block: leave it to the caller.
                }
                depth -= 1;
                if depth == 0 && close == '}' && (ends_with_block || !item) {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            Tok::Punct(',') if depth == 0 && !item => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// One leaf of a `use` tree.
struct UseLeaf {
    path: Vec<String>,
    /// `as name`
    alias: Option<String>,
    /// The line of the leaf's last segment.
    line: usize,
}

/// The leaves of the `use` item whose tree starts at `i`, and the index after its `;`.
fn use_item(tokens: &[Token], i: usize) -> (Vec<UseLeaf>, usize) {
    let mut leaves = Vec::new();
    let mut i = use_tree(tokens, i, Vec::new(), &mut leaves);
    while i < tokens.len() && !is(tokens, i, Tok::Punct(';')) {
        i += 1;
    }
    (leaves, i + 1)
}

/// Expands the `use` tree starting at `i` under `prefix`; returns the index after it.
fn use_tree(tokens: &[Token], mut i: usize, prefix: Vec<String>, out: &mut Vec<UseLeaf>) -> usize {
    let mut path = prefix;
    let mut line = tokens.get(i).map_or(0, |t| t.line);
    if is(tokens, i, Tok::PathSep) {
        path.push("::".into()); // `use ::name`: another crate.
        i += 1;
    }
    let mut group = false;
    loop {
        if let Some(segment) = ident(tokens, i) {
            path.push(segment.to_owned());
            line = tokens[i].line;
            i += 1;
            if is(tokens, i, Tok::PathSep) {
                i += 1;
                continue;
            }
        } else if is(tokens, i, Tok::Punct('*')) {
            i += 1; // A glob names the module itself.
        } else if is(tokens, i, Tok::Punct('{')) {
            group = true;
            i += 1;
            while i < tokens.len() && !is(tokens, i, Tok::Punct('}')) {
                i = use_tree(tokens, i, path.clone(), out);
                if is(tokens, i, Tok::Punct(',')) {
                    i += 1;
                }
            }
            i += 1;
        }
        break;
    }
    let mut alias = None;
    if ident(tokens, i) == Some("as") {
        alias = ident(tokens, i + 1).map(String::from);
        i += 2;
    }
    if !group {
        out.push(UseLeaf { path, alias, line });
    }
    i
}

/// `path` from the crate root, seen from module `here`; `None` unless it starts at `crate`,
/// `super` or `self`. A trailing `self` (`use a::{self}`) names the module.
fn absolute(path: &[String], here: &[String]) -> Option<Vec<String>> {
    let mut segments = path.iter().map(String::as_str).peekable();
    let mut base: Vec<String> = match segments.next()? {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => {
            let mut base = here.to_vec();
            base.pop()?;
            while segments.peek() == Some(&"super") {
                segments.next();
                base.pop()?;
            }
            base
        }
        _ => return None,
    };
    base.extend(segments.filter(|s| *s != "self").map(String::from));
    Some(base)
}
