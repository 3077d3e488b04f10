//! Links on a page in a legacy charset: the query string is written in the page's encoding as
//! a browser writes it (`?q=ü` on an ISO-8859-1 page is `?q=%FC`), the path in UTF-8.

use crate::support::server::{Reply, Routes, TestServer};
use crate::support::util::{config, run};

#[test]
fn the_query_takes_the_page_encoding_and_the_path_stays_utf8() {
    for threads in [1, 4] {
        let site = TestServer::start(
            Routes::new()
                .reply(
                    "/",
                    Reply::html("")
                        .body(
                            &b"<a href='/q?q=\xfc'>1</a> <a href='/q?q=%FC'>2</a> \
                               <a href='/caf\xe9?w=\xe9'>3</a> <a href='/q?q=\xe2\x82'>4</a>"[..],
                        )
                        .content_type("text/html; charset=ISO-8859-1"),
                )
                .page("/q", "q")
                .page("/caf%C3%A9", "cafe"),
        );
        let report = run(config(&site.url("/"), threads));
        assert_eq!(report.errors(), 0, "{:#?}", report.entries);
        let mut requested: Vec<String> = site
            .requests()
            .into_iter()
            .map(|r| r.path)
            .filter(|p| p != "/" && p != "/robots.txt")
            .collect();
        requested.sort();
        // `?q=ü` and `?q=%FC` are one URL, requested once.
        assert_eq!(
            requested,
            ["/caf%C3%A9?w=%E9", "/q?q=%E2%82", "/q?q=%FC"],
            "threads={threads}"
        );
    }
}
