"""Test fixtures: a small site served by http.server on 127.0.0.1 (port 0), with a page whose
answer waits until the test releases it, and the path of the CLI binary."""

from __future__ import annotations

import os
import pathlib
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

# index -> a, b, missing, slow; a -> index.html, c; b -> a#top, gone; c has no links. `/` and
# `/index.html` are two URLs: 13 rows, 3 of them broken (missing twice, gone once).
PAGES = {
    "index.html": '<a href="a.html">A</a>\n<a href="b.html">B</a>\n'
    '<a href="missing.html">M</a>\n<a href="/slow">S</a>\n',
    "a.html": '<p>\n<a href="index.html">home</a> <a href="c.html">C</a>\n',
    "b.html": '<a href="a.html#top">A top</a>\n<a href="gone/x.html">gone</a>\n',
    "c.html": "<p>no links</p>\n",
}


class Site:
    """The running server: its base URL, and the gate of `/slow`."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self.release = threading.Event()
        self.slow_requested = threading.Event()
        self.slow_timed_out = False
        self.slow_wait = 10.0
        self.requests: list[str] = []
        self.lock = threading.Lock()
        site = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, directory=str(root), **kwargs)

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self, head: bool) -> None:
                with site.lock:
                    site.requests.append(self.path)
                if self.path == "/slow":
                    site.slow_requested.set()
                    if not site.release.wait(site.slow_wait):
                        site.slow_timed_out = True
                    body = b"<p>slow</p>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if not head:
                        self.wfile.write(body)
                    return
                if head:
                    super().do_HEAD()
                else:
                    super().do_GET()

            def do_GET(self) -> None:
                self._serve(False)

            def do_HEAD(self) -> None:
                self._serve(True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site(tmp_path: pathlib.Path) -> Iterator[Site]:
    root = tmp_path / "site"
    root.mkdir()
    for name, text in PAGES.items():
        (root / name).write_text(text)
    s = Site(root)
    try:
        yield s
    finally:
        s.close()


def write_many_pages(root: pathlib.Path, pages: int) -> int:
    """Writes a site of `pages` pages under `root`: index.html links to every page, and each
    page to the next three (round) and home, so the crawl always has pages waiting. Returns
    the rows a whole check of it has."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(
        "".join(f'<a href="p{i}.html">p{i}</a>\n' for i in range(pages))
    )
    rows = 1 + pages  # the start URL and its links
    for i in range(pages):
        links = [f'<a href="p{(i + k) % pages}.html">next</a>' for k in (1, 2, 3)]
        links.append('<a href="index.html">home</a>')
        (root / f"p{i}.html").write_text("\n".join(links) + "\n")
        rows += len(links)
    return rows


@pytest.fixture
def big_site(tmp_path: pathlib.Path) -> Iterator[tuple[Site, int]]:
    """A 500-page site and the number of rows a whole check of it has."""
    root = tmp_path / "big"
    rows = write_many_pages(root, 500)
    s = Site(root)
    try:
        yield s, rows
    finally:
        s.close()


@pytest.fixture
def cli() -> str:
    """The linkpatrol binary: $LINKPATROL_BIN, else the workspace's debug build."""
    given = os.environ.get("LINKPATROL_BIN")
    if given:
        return given
    here = pathlib.Path(__file__).resolve().parents[3]
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", here / "target"))
    for candidate in (target / "debug" / "linkpatrol", shutil.which("linkpatrol")):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    pytest.fail("no linkpatrol binary: build it (cargo build) or set LINKPATROL_BIN")
