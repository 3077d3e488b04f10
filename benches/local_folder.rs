//! Criterion bench of a local folder check with one start per file, as a Markdown folder is
//! checked: a chain of folders 300 deep and 1,000 pages side by side, each in a git work
//! tree. It covers what is done once per start folder (the file scope, the work tree's root).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use linkpatrol::Config;

/// `files` pages, each `[x](a.md)` to itself, in `dir`: nested one folder deeper each, or
/// each in its own folder side by side. `dir` holds a `.git` folder.
fn folder(dir: &Path, files: usize, nested: bool) -> Vec<PathBuf> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let mut made = Vec::new();
    let mut at = dir.join("site");
    for i in 0..files {
        at = if nested {
            at.join("d")
        } else {
            dir.join("site").join(format!("f{i}"))
        };
        std::fs::create_dir_all(&at).unwrap();
        let page = at.join("a.md");
        std::fs::write(&page, "[x](a.md)\n").unwrap();
        made.push(page);
    }
    made
}

fn bench(c: &mut Criterion) {
    let base = std::env::temp_dir().join(format!("lp-bench-local-{}", std::process::id()));
    let mut g = c.benchmark_group("local_folder");
    g.sample_size(10);
    for (name, files, nested) in [("nested", 300, true), ("side_by_side", 1000, false)] {
        let dir = base.join(name);
        let pages = folder(&dir, files, nested);
        g.throughput(Throughput::Elements(files as u64));
        g.bench_with_input(BenchmarkId::new("starts", name), &pages, |b, pages| {
            b.iter(|| {
                let config = pages
                    .iter()
                    .fold(Config::new(), |c, p| c.input_path(p))
                    .root_dir(dir.join("site"))
                    .threads(8)
                    .keep_entries(false);
                let report = linkpatrol::Checker::new(config).unwrap().run().unwrap();
                assert_eq!(report.stats.broken_urls, 0);
                black_box(report.urls)
            })
        });
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&base);
}

criterion_group!(benches, bench);
criterion_main!(benches);
