//! The single-page-app fixture of tests/data/spa on a loopback server: a shell whose body a
//! script builds (links at once, after a `fetch()` of JSON, after a 300 ms timer), a router
//! (`#/settings`, and `/app/...` paths answered with the shell), a page whose script throws
//! and a page that never settles. `*-ok.html` pages exist; every other path is a 404.

use crate::support::server::{Reply, Routes, TestServer};

const SHELL: &str = include_str!("../data/spa/index.html");
const OK: &str = include_str!("../data/spa/ok.html");

/// The fixture's server.
pub fn start() -> TestServer {
    start_with(Routes::new())
}

/// The fixture's server, with `routes` (a robots.txt) before its own.
pub fn start_with(routes: Routes) -> TestServer {
    let js = Reply::html(include_str!("../data/spa/app.js")).content_type("text/javascript");
    let json = Reply::html(include_str!("../data/spa/links.json")).content_type("application/json");
    let png = Reply::html("png").content_type("image/png");
    let routes = routes
        .page("/", SHELL)
        .page("/index.html", SHELL)
        .reply("/app.js", js)
        .reply("/api/links.json", json)
        .reply("/logo.png", png)
        .page("/throws.html", include_str!("../data/spa/throws.html"))
        .page("/busy.html", include_str!("../data/spa/busy.html"))
        .dynamic(|req| {
            let path = req.path_only();
            if path.starts_with("/app/") {
                Some(Reply::html(SHELL))
            } else if path.ends_with("-ok.html") || path.ends_with("-ok-2.html") {
                Some(Reply::html(OK))
            } else {
                None
            }
        });
    TestServer::start(routes)
}

/// The links only the rendered pages have (none is in a page's source).
pub const JS_ONLY: [&str; 8] = [
    "/js-ok.html",
    "/js-missing.html",
    "/fetched-ok.html",
    "/fetched-missing.html",
    "/timer-ok.html",
    "/timer-missing.html",
    "/app/settings",
    "/logo.png",
];
