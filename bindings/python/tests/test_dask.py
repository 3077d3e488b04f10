"""linkpatrol.dask.check on a LocalCluster of 2 worker processes, against sites on several
loopback hosts: the same rows and statistics as one run, each URL requested once, and a
killed shard raises naming it."""

from __future__ import annotations

import os
import re
import threading
import warnings
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

import linkpatrol

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed")
import dask  # noqa: E402
import linkpatrol.dask  # noqa: E402


class Host:
    """One loopback host: pages by path (404 otherwise), a request log, an optional hang."""

    def __init__(self, ip: str, pages: dict[str, str]) -> None:
        self.pages = pages
        self.log: list[str] = []
        self.lock = threading.Lock()
        self.hang = threading.Event()
        self.hung = threading.Event()
        host = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self, head: bool) -> None:
                with host.lock:
                    host.log.append(f"{self.command} {self.path}")
                if self.path == "/hang":
                    host.hung.set()
                    host.hang.wait(30)
                body = host.pages.get(self.path)
                data = (body or "<p>not found</p>").encode()
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not head:
                    self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve(False)

            def do_HEAD(self) -> None:
                self._serve(True)

        self.server = ThreadingHTTPServer((ip, 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://{ip}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.hang.set()
        self.server.shutdown()
        self.server.server_close()


def big_site_pages(pages: int, external: str) -> dict[str, str]:
    """A site of `pages` pages: `/` links to each, and each page to the next three (round),
    home, and one page of the `external` host."""
    site = {"/": "".join(f'<a href="/p{i}.html">p{i}</a>\n' for i in range(pages))}
    for i in range(pages):
        links = [f'<a href="/p{(i + k) % pages}.html">next</a>' for k in (1, 2, 3)]
        links += ['<a href="/">home</a>', f'<a href="{external}/ok.html">out</a>']
        site[f"/p{i}.html"] = "\n".join(links) + "\n"
    return site


@pytest.fixture
def hosts() -> Iterator[list[Host]]:
    external = [Host(f"127.0.0.{i}", {"/ok.html": "<p>ok</p>"}) for i in (44, 45)]
    starts = []
    for n, i in enumerate(range(40, 44)):
        e, f = external[n % 2].base, external[(n + 1) % 2].base
        starts.append(
            Host(
                f"127.0.0.{i}",
                {
                    "/": f'<a href="/a.html">a</a>\n<a href="/missing.html">m</a>\n'
                    f'<a href="{e}/ok.html">ok</a> <a href="{e}/gone.html">gone</a>\n'
                    f'<a href="{f}/ok.html#top">frag</a>\n',
                    "/a.html": f'<a href="/">home</a>\n<a href="{external[0].base}/ok.html">s</a>\n',
                },
            )
        )
    # A link between two start sites (each shard's phase 2 reuses what its phase 1 checked).
    for n, h in enumerate(starts):
        h.pages["/a.html"] += f'<a href="{starts[(n + 1) % len(starts)].base}/">next</a>\n'
    all_hosts = starts + external
    try:
        yield all_hosts
    finally:
        for h in all_hosts:
            h.close()


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    # A killed task fails at once (no retry elsewhere), so a killed shard is seen as one.
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=2, processes=True, host="127.0.0.1",
            dashboard_address=None,
        )
        c = distributed.Client(cluster)
        try:
            yield c
        finally:
            c.close()
            cluster.close()


def rows(report: linkpatrol.Report) -> list[tuple[str, ...]]:
    keys = ("url", "parent", "line", "column", "result", "valid", "level", "fragment")
    return sorted(tuple(repr(r.to_dict()[k]) for k in keys) for r in report.results)


STATS = ("links", "errors", "warnings", "urls", "broken_urls", "bytes", "content_types")


def test_dask_run_equals_one_run_and_requests_each_url_once(
    hosts: list[Host], client: Any
) -> None:
    starts = [h.base + "/" for h in hosts[:4]]
    single = linkpatrol.check(*starts, threads=4)
    before = [len(h.log) for h in hosts]
    merged = linkpatrol.dask.check(starts, client, shards=3, threads=2)
    assert rows(merged) == rows(single)
    for key in STATS:
        assert merged.statistics[key] == single.statistics[key], key
    assert not merged.interrupted and merged.errors == single.errors > 0
    # Each URL once per method: a broken link's failing HEAD is confirmed by one GET.
    requested = Counter(
        (h.base, request) for h, n in zip(hosts, before) for request in h.log[n:]
    )
    assert requested and max(requested.values()) == 1, requested


def test_a_killed_shard_raises_naming_it(hosts: list[Host], client: Any) -> None:
    target = hosts[0]
    target.pages["/"] = '<a href="/hang">hang</a>\n'
    result: dict[str, BaseException] = {}

    def run() -> None:
        try:
            linkpatrol.dask.check([target.base + "/"], client, shards=2, threads=1)
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            result["error"] = e

    runner = threading.Thread(target=run)
    runner.start()
    assert target.hung.wait(60), "the crawl never reached /hang"
    # Every worker process dies (the nannies start new ones).
    client.run(os._exit, 1, on_error="ignore")
    runner.join(60)
    assert not runner.is_alive()
    error = result.get("error")
    assert isinstance(error, linkpatrol.dask.ShardFailed), repr(error)
    assert "shard " in str(error) and "phase 1" in str(error)
    client.wait_for_workers(2, timeout=60)


def test_a_500_page_site_sends_no_large_graph(client: Any) -> None:
    external = Host("127.0.0.47", {"/ok.html": "<p>ok</p>"})
    site = Host("127.0.0.46", big_site_pages(500, external.base))
    try:
        # Every graph the client sends is reported (threshold 1 byte), with its size.
        with dask.config.set({"distributed.admin.large-graph-warning-threshold": "1B"}), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = linkpatrol.dask.check([site.base + "/"], client, shards=2, threads=4)
    finally:
        site.close()
        external.close()
    # 501 pages of 5 links, the start URL and its 500 links.
    assert report.links == 1 + 500 + 500 * 5 and not report.interrupted
    sizes = [
        re.search(r"large graph of size ([0-9.]+) (B|kiB|MiB|GiB)", str(w.message))
        for w in caught
    ]
    assert sizes and all(sizes), [str(w.message) for w in caught]
    # Phase 1's NDJSON (1.4 MB here) never goes back out in a graph: each graph is a few
    # hundred bytes (was 1.16 MiB for phase 2, 12.61 MiB on a site with longer rows).
    assert all(m is not None and m.group(2) in ("B", "kiB") for m in sizes), sizes
    assert sum(float(m.group(1)) * (1024 if m.group(2) == "kiB" else 1)
               for m in sizes if m is not None) < 64 * 1024
