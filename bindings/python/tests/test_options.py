"""Each option of the Python package changes what a check does, seen on loopback servers and
local files: the rows, their states, the report's counts, and the requests the server got."""

from __future__ import annotations

import json
import pathlib
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

import linkpatrol
from conftest import Site

Route = tuple[int, dict[str, str], str]


class Routes:
    """A loopback server answering each path from `routes` (404 otherwise), logging every
    request as `METHOD /path?query` and each path's last `Authorization` header (or None)."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.log: list[str] = []
        self.authorization: dict[str, str | None] = {}
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self, head: bool) -> None:
                path = self.path.split("?")[0]
                with server.lock:
                    server.log.append(f"{self.command} {self.path}")
                    server.authorization[path] = self.headers.get("Authorization")
                status, headers, body = server.routes.get(path, (404, {}, "<p>not found</p>"))
                data = body.encode()
                self.send_response(status)
                headers = {"Content-Type": "text/html", **headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not head:
                    self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve(False)

            def do_HEAD(self) -> None:
                self._serve(True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def requested(self, path: str) -> int:
        with self.lock:
            return sum(1 for line in self.log if line.split(" ", 1)[1].split("?")[0] == path)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def routes() -> Iterator[Routes]:
    r = Routes({})
    try:
        yield r
    finally:
        r.close()


def by_url(report: linkpatrol.Report, url: str) -> list[linkpatrol.Result]:
    return [r for r in report.results if r.url == url]


def test_remap_rewrites_links_before_they_are_checked(site: Site) -> None:
    site.release.set()
    plain = linkpatrol.check(site.url, threads=2)
    assert by_url(plain, site.url + "missing.html")[0].state == "broken"
    before = len([p for p in site.requests if p == "/missing.html"])
    remapped = linkpatrol.check(
        site.url, threads=2, remap=rf"missing\.html$ c.html"
    )
    assert by_url(remapped, site.url + "missing.html") == []
    # The link as written stays in the row; the URL checked is the remapped one.
    rows = [r for r in remapped.results if r.urlname == "missing.html"]
    assert rows and all(r.url == site.url + "c.html" and r.valid for r in rows)
    assert len([p for p in site.requests if p == "/missing.html"]) == before
    assert remapped.errors == plain.errors - 2


def test_check_anchors_reports_a_missing_anchor(tmp_path: pathlib.Path) -> None:
    (tmp_path / "index.html").write_text(
        '<a href="a.html#here">here</a>\n<a href="a.html#nowhere">nowhere</a>\n'
        # `#top' is the top of any page, as browsers scroll to it.
        '<a href="a.html#top">top</a>\n'
    )
    (tmp_path / "a.html").write_text('<h1 id="here">Here</h1>\n')
    plain = linkpatrol.check(tmp_path / "index.html")
    assert plain.errors == 0
    anchored = linkpatrol.check(tmp_path / "index.html", check_anchors=True)
    valid = {r.urlname: r.valid for r in anchored.results if r.parent is not None}
    assert valid == {"a.html#here": True, "a.html#nowhere": False, "a.html#top": True}
    assert anchored.errors == 1


def state_site(routes: Routes) -> str:
    routes.routes.update({
        "/": (200, {}, '<img src="/leaf.png"> <a href="/gone.html">gone</a>'),
        # A leaf: not a page, so nothing in it is parsed for links.
        "/leaf.png": (200, {"Content-Type": "image/png"}, "PNG"),
    })
    return routes.url


def test_cache_file_reuses_results_of_an_earlier_run(
    routes: Routes, tmp_path: pathlib.Path
) -> None:
    start = state_site(routes)
    state = tmp_path / "state.sqlite"
    first = linkpatrol.check(start, threads=2, cache_file=state)
    assert state.is_file() and first.errors == 1 and first.state_warnings == []
    leaf = routes.requested("/leaf.png")
    gone = routes.requested("/gone.html")
    assert leaf >= 1 and gone >= 1
    second = linkpatrol.check(start, threads=2, cache_file=state)
    # The leaf's result is reused; the broken link is checked again (no cache_failures).
    assert routes.requested("/leaf.png") == leaf
    assert routes.requested("/gone.html") > gone
    assert second.links == first.links and second.errors == 1
    # The reused row says so; `cached` keeps LinkChecker's meaning (a repeat in this run).
    assert [r.from_state for r in first.results if r.url.endswith("/leaf.png")] == [False]
    assert [r.from_state for r in second.results if r.url.endswith("/leaf.png")] == [True]
    gone = routes.requested("/gone.html")
    third = linkpatrol.check(start, threads=2, cache_file=state, cache_failures=True)
    assert routes.requested("/gone.html") == gone and third.errors == 1
    # max_cache_age=0: nothing is recent enough to reuse.
    linkpatrol.check(start, threads=2, cache_file=state, max_cache_age=0)
    assert routes.requested("/leaf.png") > leaf


def test_an_unusable_state_file_is_a_warning_not_an_error(
    routes: Routes, tmp_path: pathlib.Path
) -> None:
    start = state_site(routes)
    not_sqlite = tmp_path / "state.sqlite"
    not_sqlite.write_text("not a database")
    report = linkpatrol.check(start, cache_file=not_sqlite)
    assert report.errors == 1 and len(report.state_warnings) >= 1, report.state_warnings


def test_cache_keeps_state_in_the_current_folder(
    routes: Routes, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = state_site(routes)
    monkeypatch.chdir(tmp_path)
    linkpatrol.check(start, threads=2, cache=True)
    assert (tmp_path / ".linkpatrol-cache.sqlite").is_file()
    leaf = routes.requested("/leaf.png")
    linkpatrol.check(start, threads=2, cache=True)
    assert routes.requested("/leaf.png") == leaf


def test_fail_after_runs_fails_a_link_broken_that_many_runs_in_a_row(
    routes: Routes, tmp_path: pathlib.Path
) -> None:
    start = state_site(routes)
    state = tmp_path / "state.sqlite"
    runs = [linkpatrol.check(start, cache_file=state, fail_after_runs=3) for _ in range(3)]
    assert [r.errors for r in runs] == [1, 1, 1]
    assert [r.failing for r in runs] == [0, 0, 1]
    assert linkpatrol.check(start, cache_file=tmp_path / "other.sqlite").failing == 1


def test_resume_continues_an_interrupted_run(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "big"
    from conftest import write_many_pages

    whole = write_many_pages(root, 100)
    big = Site(root)
    try:
        state = tmp_path / "state.sqlite"
        checker = linkpatrol.Checker(threads=2, cache_file=state, max_requests_per_second=100)
        results = checker.iter(big.url + "index.html")
        for n, _ in enumerate(results):
            if n == 30:
                results.cancel()
        first = results.report
        assert first is not None and first.interrupted and len(first) < whole
        with big.lock:
            done = set(big.requests)
            big.requests.clear()
        resumed = linkpatrol.check(big.url + "index.html", threads=2, cache_file=state,
                                   resume=True)
        assert not resumed.interrupted and len(resumed) == whole
        with big.lock:
            again = set(big.requests)
        # The pages the first run parsed are not requested again. (A page whose check the
        # cancel caught between its answer and its parse is reported, but has no stored
        # links: it is requested again. A row on a page shows the page was parsed.)
        parsed_pages = {r.parent for r in first.results if r.parent}
        finished_pages = {
            urllib.parse.urlsplit(r.url).path for r in first.results
            if r.url.endswith(".html") and r.valid and not r.cached and r.url in parsed_pages
        }
        assert finished_pages and not (finished_pages & again & done), finished_pages & again
    finally:
        big.close()


def links_page(tmp_path: pathlib.Path, *urls: str) -> pathlib.Path:
    page = tmp_path / "links.html"
    page.write_text("".join(f'<a href="{u}">x</a>\n' for u in urls))
    return page


def test_exclude_address_classes_are_never_requested(
    routes: Routes, tmp_path: pathlib.Path
) -> None:
    routes.routes["/ok.html"] = (200, {}, "<p>ok</p>")
    loopback = routes.url + "ok.html"
    private, link_local = "http://10.255.255.1/x", "http://169.254.169.254/latest/meta-data/"
    page = links_page(tmp_path, loopback, private, link_local)
    report = linkpatrol.check(
        page, exclude_loopback=True, exclude_private=True, exclude_link_local=True, timeout=2
    )
    for url in (loopback, private, link_local):
        [row] = by_url(report, url)
        assert row.state == "ignored" and row.valid, (url, row.result)
    assert routes.requested("/ok.html") == 0
    # Without them, the loopback link is requested (a local start site excludes nothing).
    report = linkpatrol.check(links_page(tmp_path, loopback))
    assert by_url(report, loopback)[0].state == "ok" and routes.requested("/ok.html") >= 1


def test_github_token_defaults_to_the_github_token_variable(
    routes: Routes, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the CLI: without the option, GITHUB_TOKEN goes to GitHub (here a remap of it to the
    loopback server, which gets the token as GitHub would); the option wins over it."""
    routes.routes["/o/r"] = (200, {}, "<p>repo</p>")
    page = links_page(tmp_path, "https://github.com/o/r")
    remap = r"^https://github\.com/ " + routes.url
    monkeypatch.setenv("GITHUB_TOKEN", "from-env")
    linkpatrol.check(page, remap=remap)
    assert routes.authorization.get("/o/r") == "Bearer from-env"
    linkpatrol.check(page, remap=remap, github_token="given")
    assert routes.authorization.get("/o/r") == "Bearer given"
    monkeypatch.delenv("GITHUB_TOKEN")
    linkpatrol.check(page, remap=remap)
    assert routes.requested("/o/r") >= 3 and routes.authorization.get("/o/r") is None


def test_fail_on_blocked_counts_bot_protection_as_failing(routes: Routes) -> None:
    routes.routes["/"] = (200, {}, '<a href="/wall">wall</a>')
    routes.routes["/wall"] = (999, {}, "denied")
    plain = linkpatrol.check(routes.url)
    [wall] = by_url(plain, routes.url + "wall")
    assert wall.state == "blocked" and plain.failing == 0
    strict = linkpatrol.check(routes.url, fail_on_blocked=True)
    assert strict.failing == 1


def test_suggest_asks_the_archive_given_by_archive_url(routes: Routes) -> None:
    snapshot = "http://web.archive.org/web/2020/" + routes.url + "gone.html"
    answer = {"archived_snapshots": {"closest": {"available": True, "url": snapshot,
                                                 "status": "200", "timestamp": "20200101"}}}
    routes.routes["/"] = (200, {}, '<a href="/gone.html">gone</a>')
    routes.routes["/wayback/available"] = (
        200, {"Content-Type": "application/json"}, json.dumps(answer)
    )
    archive = routes.url + "wayback/available"
    plain = linkpatrol.check(routes.url, archive_url=archive)
    assert by_url(plain, routes.url + "gone.html")[0].suggestion is None
    assert routes.requested("/wayback/available") == 0
    report = linkpatrol.check(routes.url, suggest=True, archive_url=archive)
    [gone] = by_url(report, routes.url + "gone.html")
    assert gone.suggestion == snapshot
    with routes.lock:
        asked = [line for line in routes.log if "/wayback/available" in line]
    assert len(asked) == 1 and urllib.parse.quote(routes.url + "gone.html", safe="") in asked[0]


def test_fallback_extensions_find_the_source_of_a_link(tmp_path: pathlib.Path) -> None:
    (tmp_path / "index.md").write_text("[chapter](ch1.html)\n")
    (tmp_path / "ch1.md").write_text("# Chapter\n")
    plain = linkpatrol.check(tmp_path / "index.md")
    assert plain.errors == 1
    fallback = linkpatrol.check(tmp_path / "index.md", fallback_extensions=["md"])
    assert fallback.errors == 0
    assert [r.valid for r in fallback.results if r.urlname == "ch1.html"] == [True]


def test_include_verbatim_checks_urls_in_code(routes: Routes, tmp_path: pathlib.Path) -> None:
    routes.routes["/in-code"] = (200, {}, "<p>ok</p>")
    page = tmp_path / "code.md"
    page.write_text(f"Run:\n\n```\ncurl {routes.url}in-code\n```\n")
    plain = linkpatrol.check(page)
    assert by_url(plain, routes.url + "in-code") == [] and routes.requested("/in-code") == 0
    verbatim = linkpatrol.check(page, include_verbatim=True)
    assert [r.valid for r in by_url(verbatim, routes.url + "in-code")] == [True]
    assert routes.requested("/in-code") >= 1


def test_index_files_choose_what_a_folder_link_stands_for(tmp_path: pathlib.Path) -> None:
    (tmp_path / "index.html").write_text("<a href='docs/'>docs</a>")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("[gone](gone.md)\n")
    plain = linkpatrol.check(tmp_path / "index.html", index_files=[])
    assert [r.valid for r in plain.results if r.urlname == "docs/"] == [False]
    readme = linkpatrol.check(tmp_path / "index.html", index_files=["README.md"])
    assert [r.valid for r in readme.results if r.urlname == "docs/"] == [True]
    assert [r.valid for r in readme.results if r.urlname == "gone.md"] == [False]


def test_include_wikilinks_checks_links_to_pages_by_name(tmp_path: pathlib.Path) -> None:
    (tmp_path / "Home.md").write_text("See [[Other]] and [[Missing]].\n")
    (tmp_path / "Other.md").write_text("# Other\n")
    plain = linkpatrol.check(tmp_path)
    assert plain.errors == 0 and not [r for r in plain.results if "Missing" in r.urlname]
    wiki = linkpatrol.check(tmp_path, include_wikilinks=True)
    assert [r.valid for r in wiki.results if r.urlname == "Other.md"] == [True]
    assert [r.valid for r in wiki.results if r.urlname == "Missing.md"] == [False]


def test_max_memory_takes_a_size_and_its_brake_is_reported(tmp_path: pathlib.Path) -> None:
    links = "".join(f"<a href='p{i}.html'>p{i}</a>\n" for i in range(400))
    (tmp_path / "index.html").write_text(links)
    for i in range(400):
        (tmp_path / f"p{i}.html").write_text("<p>leaf</p>")
    roomy = linkpatrol.check(tmp_path / "index.html", max_memory="512M")
    assert roomy.memory_limit is None and roomy.errors == 0
    tight = linkpatrol.check(tmp_path / "index.html", max_memory="64K")
    assert tight.memory_limit == 64 * 1024
    assert tight.urls < 400


def test_extensions_choose_the_files_of_a_folder(tmp_path: pathlib.Path) -> None:
    (tmp_path / "a.md").write_text("[gone](gone-a.md)\n")
    (tmp_path / "b.html").write_text("<a href='gone-b.html'>b</a>")

    def pages(report: linkpatrol.Report) -> list[str]:
        return sorted({r.parent.rsplit("/", 1)[-1] for r in report.broken if r.parent})

    assert pages(linkpatrol.check(tmp_path)) == ["a.md"]
    assert pages(linkpatrol.check(tmp_path, extensions=["html"])) == ["b.html"]


def test_preprocess_reads_a_file_through_the_program(tmp_path: pathlib.Path) -> None:
    (tmp_path / "guide.md").write_text("[raw](raw-gone.md)\n")
    program = tmp_path / "to-html"
    program.write_text("#!/bin/sh\nprintf '<p><a href=\"converted-gone.html\">c</a>'\n")
    program.chmod(0o755)
    plain = linkpatrol.check(tmp_path / "guide.md")
    assert [r.urlname for r in plain.broken] == ["raw-gone.md"]
    converted = linkpatrol.check(tmp_path / "guide.md", preprocess=str(program))
    assert [r.urlname for r in converted.broken] == ["converted-gone.html"]
