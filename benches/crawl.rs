//! Criterion bench of a whole crawl: a generated 300-page site on an in-process loopback
//! server (the integration tests' server), crawled by the library with politeness off, with
//! every entry built and with problem entries only.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use linkpatrol::Checker;

#[path = "../tests/support/server.rs"]
#[allow(dead_code, unreachable_pub)]
mod server;

#[path = "support/fast_crawl.rs"]
mod fast_crawl;

use fast_crawl::fast_crawl;
use server::{Routes, TestServer};

const PAGES: usize = 300;

/// Page `i` links to 20 other pages (a ring with strides), one missing page and one image.
fn site() -> TestServer {
    let mut routes = Routes::new();
    for i in 0..PAGES {
        let mut html = format!("<html><head><title>Page {i}</title></head><body>");
        for stride in 1..=20 {
            let j = (i + stride * 7) % PAGES;
            html.push_str(&format!("<p><a href='/p/{j}.html'>page {j}</a></p>"));
        }
        html.push_str(&format!("<a href='/missing/{}.html'>gone</a>", i % 10));
        html.push_str("<img src='/logo.png' alt='logo'></body></html>");
        let path = if i == 0 {
            "/".to_owned()
        } else {
            format!("/p/{i}.html")
        };
        routes = routes.page(&path, &html);
        if i == 0 {
            routes = routes.page("/p/0.html", &html);
        }
    }
    TestServer::start(routes.reply("/logo.png", server::Reply::status(200)))
}

fn bench(c: &mut Criterion) {
    let server = site();
    let mut g = c.benchmark_group("crawl");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(PAGES as u64));
    for only_problems in [false, true] {
        g.bench_with_input(
            BenchmarkId::new("site_300_pages_only_problems", only_problems),
            &only_problems,
            |b, &only_problems| {
                b.iter(|| {
                    let config = fast_crawl(server.url("/"), only_problems);
                    let report = Checker::new(config).unwrap().run().unwrap();
                    assert_eq!(report.stats.broken_urls, 10);
                    black_box(report.urls)
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
