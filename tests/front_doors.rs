//! One folder, one report, whichever door it comes in by: the command line and the Rust API
//! (`Inputs` then `Checker`) read a repository the same way — its mdBook, a folder its
//! `.gitignore` leaves out, a hidden folder, links that climb with `../` — and report the same
//! rows. (The Python package's own test compares it with the command line.)

use std::collections::BTreeSet;

use linkpatrol::plugin::Options;
use linkpatrol::plugins::builtin;
use linkpatrol::report::entry_json;
use linkpatrol::{Checker, Config, Inputs};
use serde_json::Value;

use crate::repository::git;
use crate::support::util::{TempDir, cli_in};

/// A git repository: a README, docs that link up and out, an mdBook, a build folder that
/// `.gitignore` leaves out and a hidden folder, both with broken links that must not count.
fn repository() -> TempDir {
    let repo = TempDir::new("front-doors");
    let write = |path: &str, text: &str| {
        let path = repo.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "README.md",
        "# Project\n\n## Setup\n\n[docs](docs/guide.md) [gone](nothing.md)\n",
    );
    write(
        "docs/guide.md",
        "# Guide\n\n[home](../README.md#setup) [bad anchor](../README.md#nope)\n\
         [book](../book/src/intro.md) [missing](../missing.md)\n",
    );
    write("book/book.toml", "[book]\ntitle = \"t\"\n");
    write(
        "book/src/SUMMARY.md",
        "# Summary\n\n- [Intro](intro.md)\n- [Next](next.md)\n",
    );
    write(
        "book/src/intro.md",
        "# Intro\n\n[next](next.html) [lost](lost.html)\n",
    );
    write("book/src/next.md", "# Next\n\n[back](intro.md#intro)\n");
    write(".gitignore", "build/\n");
    write("build/out.md", "[never](never-checked.md)\n");
    write(".hidden/notes.md", "[never](hidden-never-checked.md)\n");
    git(&repo, &["init", "-q"]);
    repo
}

/// What a row says, without times and levels: page, link, place and verdict.
fn rows(entries: &[Value]) -> BTreeSet<String> {
    entries
        .iter()
        .map(|e| {
            let keys = [
                "parent", "urlname", "url", "line", "column", "state", "failure", "result",
            ];
            keys.map(|k| e[k].to_string()).join(" ")
        })
        .collect()
}

#[test]
fn the_command_line_and_the_rust_api_report_one_folder_alike() {
    let repo = repository();
    let folder = repo.to_str().unwrap();
    for threads in ["1", "8"] {
        let out = cli_in(
            &repo,
            &[],
            &[
                "--no-status",
                "--check-anchors",
                "-v",
                "-o",
                "json",
                "-t",
                threads,
                folder,
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let cli = rows(json["entries"].as_array().unwrap());

        // The library's door: the same input and options.
        let anchors = builtin("anchors", &Options::new("anchors".to_owned())).unwrap();
        let config = Config::new()
            .threads(threads.parse().unwrap())
            .plugin(anchors);
        let resolved = Inputs::new().input(folder).resolve(config).unwrap();
        let report = Checker::new(resolved.config).unwrap().run().unwrap();
        let api: Vec<Value> = report.entries.iter().map(entry_json).collect();
        let api = rows(&api);
        assert_eq!(cli, api, "-t {threads}");
        let all = cli.iter().cloned().collect::<Vec<_>>().join("\n");
        for broken in ["nothing.md", "#nope", "missing.md", "lost.html"] {
            assert!(all.contains(broken), "{broken} is reported:\n{all}");
        }
        for left_out in ["never-checked", "hidden-never-checked"] {
            assert!(!all.contains(left_out), "{left_out} is not read:\n{all}");
        }
    }
}
