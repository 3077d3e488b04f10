"""The sharding figure: 40 loopback hosts (127.0.0.10-49), 30 pages each, every answer delayed
50 ms, a per-host rate of 5 requests/s. One run with threads=4 against linkpatrol.dask.check
on a LocalCluster of 2 worker processes with 4 shards, threads=4 each: the same broken set and
statistics, each URL requested once, no two requests to a host closer than its interval
(server-side timestamps), and the wall times.

    python benches/dask_hosts.py     (needs dask[distributed]; not part of CI: ~1 minute)
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import distributed

import linkpatrol
import linkpatrol.dask

HOSTS = range(10, 50)
PAGES = 30
DELAY = 0.05
RATE = 5.0

log: dict[str, list[tuple[float, str]]] = defaultdict(list)
lock = threading.Lock()


def serve(ip: str, bases: list[str]) -> str:
    """Pages /p0 ... /p29: p0 links to every other page; each page to a missing page and to
    p0 of the next host (an external link)."""
    me: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self, head: bool) -> None:
            with lock:
                log[me["base"]].append((time.monotonic(), self.path))
            time.sleep(DELAY)
            path = self.path
            body = None
            if path.startswith("/p") and path[2:].isdigit() and int(path[2:]) < PAGES:
                n = int(path[2:])
                nxt = bases[(bases.index(me["base"]) + 1) % len(bases)]
                links = [f'<a href="/p{i}">p{i}</a>' for i in range(1, PAGES)] if n == 0 else []
                links.append(f'<a href="/gone{n % 3}">gone</a>')
                links.append(f'<a href="{nxt}/p0">next host</a>')
                body = "\n".join(links)
            data = (body or "not found").encode()
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

    server = ThreadingHTTPServer((ip, 0), Handler)
    server.daemon_threads = True
    me["base"] = f"http://{ip}:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return me["base"]


def deficit(by_host: dict[str, list[tuple[float, str]]]) -> float:
    """The most that k intervals exceed the span of k+1 consecutive requests to one host,
    over every host and run (0 when every run is at least as long as the rate allows)."""
    worst = 0.0
    for entries in by_host.values():
        times = sorted(t for t, _ in entries)
        for i, start in enumerate(times):
            for k, end in enumerate(times[i + 1:], start=1):
                worst = max(worst, k / RATE - (end - start))
    return worst


def main() -> None:
    bases: list[str] = []
    for i in HOSTS:
        bases.append(serve(f"127.0.0.{i}", bases))
    starts = [b + "/p0" for b in bases]
    options = dict(threads=4, max_requests_per_second=RATE, timeout=10)

    t = time.monotonic()
    single = linkpatrol.check(*starts, **options)  # type: ignore[arg-type]
    single_wall = time.monotonic() - t
    single_log = {b: list(v) for b, v in log.items()}
    log.clear()

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=2, processes=True, host="127.0.0.1",
        dashboard_address=None,
    ) as cluster, distributed.Client(cluster) as client:
        client.run(lambda: None)  # workers up before the clock starts
        t = time.monotonic()
        merged = linkpatrol.dask.check(starts, client, shards=4, **options)
        dask_wall = time.monotonic() - t

    broken = lambda r: sorted((x.url, x.parent) for x in r.broken)  # noqa: E731
    same_broken = broken(single) == broken(merged)
    keys = ("links", "errors", "warnings", "urls", "broken_urls", "bytes", "content_types")
    same_stats = all(single.statistics[k] == merged.statistics[k] for k in keys)
    twice = sum(1 for b in log for n in Counter(p for _, p in log[b]).values() if n > 1)
    gaps = [
        b - a
        for entries in log.values()
        for a, b in zip(sorted(t for t, _ in entries), sorted(t for t, _ in entries)[1:])
    ]
    single_gaps = [
        b - a
        for entries in single_log.values()
        for a, b in zip(sorted(t for t, _ in entries), sorted(t for t, _ in entries)[1:])
    ]
    print(f"single run (threads=4): {single_wall:.2f} s, {single.links} links, "
          f"{single.errors} broken, min gap {min(single_gaps) * 1000:.0f} ms")
    print(f"dask (2 processes x 4 shards, threads=4): {dask_wall:.2f} s, {merged.links} links, "
          f"{merged.errors} broken, min gap {min(gaps) * 1000:.0f} ms")
    short = lambda g: sum(1 for x in g if x < 0.9 / RATE)  # noqa: E731
    print(f"gaps under 90% of the interval: single {short(single_gaps)} of {len(single_gaps)}, "
          f"dask {short(gaps)} of {len(gaps)}")
    # A gap under the interval is either a request sent early or server-side jitter (a request
    # logged late, then the next on time). Over any run of k+1 requests to one host, sending at
    # the rate takes k intervals: a limiter that let requests through early falls further
    # behind that the longer the run, jitter does not. The largest shortfall over every run:
    print(f"largest shortfall over any run of requests to one host (k intervals minus its "
          f"span): single {deficit(single_log) * 1000:.0f} ms, dask {deficit(log) * 1000:.0f} ms")
    print(f"ratio {dask_wall / single_wall:.2f}; same broken set: {same_broken}; "
          f"same statistics: {same_stats}; URLs requested twice in the dask run: {twice}")


if __name__ == "__main__":
    main()
