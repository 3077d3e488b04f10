//! Criterion bench of what the state file costs a whole crawl: a generated 300-page
//! site on an in-process loopback server that answers `If-None-Match` with `304`, crawled
//! without a state file, as a first run (a new file each time) and as a second run of an
//! unchanged site (every page `304`, its links replayed from the file). The targets
//! are the ratios: a first run at most 1.15x a run without state, a second run at most a third
//! of a first.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use linkpatrol::{Checker, Report};

#[path = "../tests/support/server.rs"]
#[allow(dead_code, unreachable_pub)]
mod server;

#[path = "support/fast_crawl.rs"]
mod fast_crawl;

use fast_crawl::fast_crawl;
use server::{Reply, Routes, TestServer};

const PAGES: usize = 300;

/// The HTML of page `i`: 20 links to other pages (a ring with strides), one to a missing page,
/// an image, and a stylesheet, as `benches/crawl.rs` has them, with labels.
fn page(i: usize) -> String {
    let mut html = format!(
        "<html><head><title>Page {i}</title><link rel=stylesheet href='/site.css'></head><body>"
    );
    for stride in 1..=20 {
        let j = (i + stride * 7) % PAGES;
        html.push_str(&format!("<p><a href='/p/{j}.html'>page {j}</a></p>"));
    }
    html.push_str(&format!("<a href='/missing/{}.html'>gone</a>", i % 10));
    html.push_str("<img src='/logo.png' alt='logo'></body></html>");
    html
}

/// Every page has one version, `"1"`: a request that names it gets `304`.
fn site() -> TestServer {
    TestServer::start(Routes::new().dynamic(|req| {
        let path = req.path_only();
        let body = match path {
            "/" => page(0),
            "/logo.png" => {
                return Some(Reply::status(200).content_type("image/png").body("png"));
            }
            "/site.css" => {
                return Some(Reply::status(200).content_type("text/css").body("p{}"));
            }
            p => {
                let i: usize = p.strip_prefix("/p/")?.strip_suffix(".html")?.parse().ok()?;
                page(i)
            }
        };
        Some(if req.header("if-none-match") == Some("\"1\"") {
            Reply::status(304).header("ETag", "\"1\"")
        } else {
            Reply::html(&body).header("ETag", "\"1\"")
        })
    }))
}

/// A crawl of the site, with the state file `state` when given.
fn crawl(server: &TestServer, state: Option<&Path>) -> Report {
    let mut config = fast_crawl(server.url("/"), true);
    if let Some(file) = state {
        config = config.state_file(file);
    }
    let report = Checker::new(config).unwrap().run().unwrap();
    assert_eq!(report.stats.broken_urls, 10);
    assert!(
        report.state_warnings.is_empty(),
        "{:?}",
        report.state_warnings
    );
    report
}

/// The state file and its WAL, gone.
fn remove(file: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

fn bench(c: &mut Criterion) {
    let server = site();
    let dir = std::env::temp_dir().join(format!("linkpatrol-bench-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("state.sqlite");
    let mut g = c.benchmark_group("state");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(PAGES as u64));
    g.bench_function("site_300_pages_without_state", |b| {
        b.iter(|| black_box(crawl(&server, None).urls))
    });
    g.bench_function("site_300_pages_first_run", |b| {
        b.iter(|| {
            remove(&file);
            black_box(crawl(&server, Some(&file)).urls)
        })
    });
    remove(&file);
    crawl(&server, Some(&file));
    g.bench_function("site_300_pages_second_run", |b| {
        b.iter(|| black_box(crawl(&server, Some(&file)).urls))
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
