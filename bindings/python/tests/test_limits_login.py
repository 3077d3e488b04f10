"""`max_run_time` and the form login through Python: the time limit named in the report, a
login with its CSRF field before the crawl, a refused password raised, never shown."""

from __future__ import annotations

import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

import linkpatrol
from conftest import Site

PASSWORD = "py-pa55 word"
FORM = (
    b"<form method=post action=/session><input type=hidden name=csrf value=tok>"
    b"<input name=login><input type=password name=password></form>"
)


@pytest.mark.parametrize("threads", [1, 8])
def test_the_time_limit_stops_the_run_and_says_so(site: Site, threads: int) -> None:
    # /slow answers only when released, long after the limit.
    report = linkpatrol.check(
        site.url + "index.html", threads=threads, max_run_time=1.0, abort_timeout=0.2
    )
    assert report.time_limit_reached == 1.0
    assert report.interrupted is True
    assert report.statistics["time_limit_reached"] == 1.0
    assert report.statistics["unchecked"] >= 1


class Private:
    """A site whose pages want the session cookie that the form at /login gives."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        private = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def answer(self, status: int, body: bytes = b"", **headers: str) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k.replace("_", "-"), v)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                private.paths.append(self.path)
                if self.path == "/login":
                    return self.answer(200, FORM)
                if "sid=ok" not in (self.headers.get("Cookie") or ""):
                    return self.answer(302, Location="/login")
                if self.path == "/":
                    return self.answer(200, b'<a href="/inside">in</a> <a href="/logout">out</a>')
                if self.path == "/inside":
                    return self.answer(200, b"inside")
                return self.answer(404)

            def do_HEAD(self) -> None:
                self.do_GET()

            def do_POST(self) -> None:
                private.paths.append(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                fields = urllib.parse.parse_qs(self.rfile.read(length).decode())
                if fields == {"csrf": ["tok"], "login": ["ann"], "password": [PASSWORD]}:
                    return self.answer(302, Location="/", Set_Cookie="sid=ok; Path=/")
                return self.answer(200, FORM)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def private() -> Iterator[Private]:
    p = Private()
    try:
        yield p
    finally:
        p.server.shutdown()
        p.server.server_close()


def test_a_form_login_opens_the_pages_behind_it(
    private: Private, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINKPATROL_LOGIN_PASSWORD", PASSWORD)
    report = linkpatrol.check(
        private.url, login_url=private.url + "login", login_user="ann"
    )
    assert "/inside" in private.paths
    assert "/logout" not in private.paths
    assert report.errors == 0


def test_a_refused_login_raises_without_the_password(
    private: Private, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINKPATROL_LOGIN_PASSWORD", "wrong " + PASSWORD)
    with pytest.raises(RuntimeError) as raised:
        linkpatrol.check(private.url, login_url=private.url + "login", login_user="ann")
    assert "login failed" in str(raised.value)
    assert PASSWORD not in str(raised.value)
    assert "/inside" not in private.paths


def test_a_login_without_the_variable_is_refused(
    private: Private, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LINKPATROL_LOGIN_PASSWORD", raising=False)
    with pytest.raises(ValueError, match="LINKPATROL_LOGIN_PASSWORD"):
        linkpatrol.check(private.url, login_url=private.url + "login", login_user="ann")
