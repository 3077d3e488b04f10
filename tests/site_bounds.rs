//! Links that leave the checked folder, judged as the reader sees them: inside the git work
//! tree of a checked `docs/` folder, `../README.md#setup` has its anchor checked (GitHub shows
//! the whole tree), beyond the tree only existence.

use std::fs;

use crate::support::util::{TempDir, assert_exit, csv_run_in, row_named, rows};

/// `root/repo/` (a work tree: it has `.git`) with `README.md` (heading `setup`) and the checked
/// folder `docs/`, beside `root/other.md` (heading `beyond`) outside the tree. `docs/guide.md`
/// links to both, with good and bad fragments, and into a folder of the tree.
fn repo_with_docs(name: &str) -> TempDir {
    let root = TempDir::new(name);
    fs::create_dir_all(root.join("repo/.git")).unwrap();
    fs::create_dir_all(root.join("repo/docs")).unwrap();
    fs::create_dir_all(root.join("repo/src")).unwrap();
    fs::write(root.join("repo/README.md"), "# Repo\n\n## Setup\n").unwrap();
    fs::write(
        root.join("repo/src/lib.md"),
        "[out](https://example.invalid/x)\n",
    )
    .unwrap();
    fs::write(root.join("other.md"), "# Beyond\n").unwrap();
    fs::write(
        root.join("repo/docs/guide.md"),
        "# Guide\n\n[good](../README.md#setup) [bad](../README.md#set-up)\n\
         [folder](../src/) [lib](../src/lib.md)\n\
         [far](../../other.md#beyond) [far-bad](../../other.md#nowhere)\n",
    )
    .unwrap();
    root
}

#[test]
fn anchors_are_checked_up_to_the_work_tree_root() {
    let root = repo_with_docs("bounds-work-tree");
    for threads in ["1", "8"] {
        let out = csv_run_in(
            &root.join("repo"),
            &["-t", threads, "--internal-only", "--check-anchors", "docs"],
        );
        assert_exit(&out, 1);
        let rows = rows(&out);
        let bad = row_named(&rows, "../README.md#set-up");
        assert_eq!(&bad[6], "False", "{bad:?}");
        assert!(bad[3].contains("Did you mean `setup'?"), "{bad:?}");
        for good in ["../README.md#setup", "../src/", "../src/lib.md"] {
            let row = row_named(&rows, good);
            assert_eq!(&row[6], "True", "{row:?}");
            assert!(
                row[4].is_empty(),
                "inside the tree, no outside-root: {row:?}"
            );
        }
        // Beyond the work tree: existence only, both fragments pass with the warning.
        for far in ["../../other.md#beyond", "../../other.md#nowhere"] {
            let row = row_named(&rows, far);
            assert_eq!(&row[6], "True", "{row:?}");
            assert!(row[4].contains("outside-root"), "{row:?}");
        }
        // A file of the tree is read for its anchors only: its links are not checked.
        assert!(
            rows.iter().all(|r| !r[0].contains("example.invalid")),
            "{rows:#?}"
        );
    }
}
