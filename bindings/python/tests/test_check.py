"""The Python package against a loopback http.server site: same rows as the CLI's CSV,
streaming, the GIL free during a crawl, Ctrl-C, bad options, every report format."""

from __future__ import annotations

import csv
import json
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import linkpatrol
from conftest import Site

# CSV columns that are times (they differ between two runs).
TIMING = {"dltime", "checktime"}


def csv_rows(path: pathlib.Path) -> list[tuple[str, ...]]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter=";")
        rows = [
            tuple(f"{k}={v}" for k, v in row.items() if k not in TIMING) for row in reader
        ]
    return sorted(rows)


@pytest.mark.parametrize("threads", [1, 4])
def test_rows_equal_the_cli_csv(
    site: Site, cli: str, tmp_path: pathlib.Path, threads: int
) -> None:
    site.release.set()
    report = linkpatrol.check(site.url, threads=threads)
    ours = tmp_path / "python.csv"
    report.write(ours, format="csv", verbose=True)
    theirs = tmp_path / "cli.csv"
    run = subprocess.run(
        [cli, "--no-config", "--no-status", "-v", "-q", "-t", str(threads),
         "-F", f"csv/{theirs}", site.url],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 1, run.stderr  # missing.html and gone/x.html are broken
    assert csv_rows(ours) == csv_rows(theirs)
    # The Result objects say what the rows say.
    by_url = {(r.url, r.parent, r.line): r for r in report.results}
    assert len(by_url) == len(report.results) == report.links == 13
    missing = by_url[(site.url + "missing.html", site.url, 3)]
    assert (missing.valid, missing.status, missing.state) == (False, 404, "broken")
    assert missing.to_dict()["failure"] == "http-error"
    assert {r.url for r in report.broken} == {site.url + "missing.html", site.url + "gone/x.html"}
    assert report.errors == 3 and report.statistics["errors"] == 3
    assert report.statistics["broken_urls"] == 2 and not report.interrupted


def test_iter_yields_before_the_crawl_ends(site: Site) -> None:
    results = linkpatrol.Checker(threads=2).iter(site.url)
    first = next(results)
    # /slow answers only once released: the first row came while the crawl was still going.
    assert not site.release.is_set()
    site.release.set()
    rest = list(results)
    assert not site.slow_timed_out, "the first result only came after /slow timed out"
    assert first.url == site.url
    report = results.report
    assert report is not None and len(report) == 1 + len(rest) == 13


def test_other_python_threads_run_during_a_crawl(site: Site) -> None:
    counted = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal counted
        while not stop.is_set():
            counted += 1

    def release_later() -> None:
        site.slow_requested.wait(10)
        time.sleep(0.5)
        site.release.set()

    threading.Thread(target=release_later, daemon=True).start()
    counter = threading.Thread(target=count)
    counter.start()
    before = counted
    report = linkpatrol.check(site.url, threads=2)
    during = counted - before
    stop.set()
    counter.join()
    assert report.links == 13
    # Half a second of a pure-Python loop; with the GIL held by the crawl it would not move.
    assert during > 10_000, during


def test_sigint_returns_a_partial_report_within_the_abort_timeout(site: Site) -> None:
    site.slow_wait = 30.0
    script = textwrap.dedent(
        f"""
        import json, sys, time
        import linkpatrol
        report = linkpatrol.check({site.url!r}, threads=2, abort_timeout=1.0)
        print(json.dumps({{"interrupted": report.interrupted,
                           "urls": sorted(r.url for r in report.results)}}))
        print("done", time.monotonic(), file=sys.stderr)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert site.slow_requested.wait(30), "the crawl never reached /slow"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
        elapsed = time.monotonic() - sent
    finally:
        child.kill()
    assert child.returncode == 0, err
    # abort_timeout 1 s, then the in-flight request is interrupted.
    assert elapsed < 5.0, elapsed
    got = json.loads(out)
    assert got["interrupted"] is True
    assert site.url in got["urls"] and site.url + "a.html" in got["urls"]
    assert site.url + "slow" not in got["urls"]


@pytest.mark.parametrize(
    ("options", "error", "named"),
    [
        ({"bogus": 1}, ValueError, "bogus"),
        ({"threads": "4"}, TypeError, "threads"),
        ({"threads": True}, TypeError, "threads"),
        ({"threads": 0}, ValueError, "threads"),
        ({"timeout": -1}, ValueError, "timeout"),
        ({"exclude": "("}, ValueError, "exclude"),
        ({"exclude": ["a", 3]}, TypeError, "exclude"),
        ({"internal_only": 1}, TypeError, "internal_only"),
        ({"accept": "nope"}, ValueError, "accept"),
        ({"header": "no colon"}, ValueError, "header"),
        ({"plugin": "no-such-plugin"}, ValueError, "plugin"),
        ({"method": "post"}, ValueError, "method"),
        ({"output": "csv"}, ValueError, "output"),
    ],
)
def test_bad_options_raise_naming_the_option(
    options: dict[str, object], error: type, named: str
) -> None:
    with pytest.raises(error, match=f"`{named}'"):
        linkpatrol.Checker(**options)


@pytest.mark.parametrize(
    "options",
    [
        {"max_cache_age": "12h"},
        {"max_cache_age": 3600},
        {"recursion_level": None, "user_agent": None},
        {"timeout": "5s", "abort_timeout": 2.5},
        {"fallback_extensions": ["md", "html"], "exclude": "x"},
        {"shard": (0, 2)},
        {"check_extern": True, "insecure": False},
    ],
)
def test_options_take_what_their_flags_take(options: dict[str, object]) -> None:
    # The same parsers as the command line's flags: durations with units, None for a default.
    linkpatrol.Checker(**options)  # type: ignore[arg-type]


def test_bad_inputs_raise(site: Site) -> None:
    site.release.set()
    with pytest.raises(ValueError, match="nothing to check"):
        linkpatrol.check()
    with pytest.raises(TypeError):
        linkpatrol.Checker().run(42)  # type: ignore[arg-type]
    report = linkpatrol.check(site.url, threads=1)
    with pytest.raises(ValueError, match="unknown report format"):
        report.write("x", format="pdf")  # type: ignore[arg-type]


def test_every_cli_format_is_written(site: Site, tmp_path: pathlib.Path) -> None:
    site.release.set()
    report = linkpatrol.check(site.url, threads=2, plugin=["anchors"])
    for name in linkpatrol.FORMATS:
        out = tmp_path / f"report.{name}"
        report.write(out, format=name)  # type: ignore[arg-type]
        assert out.stat().st_size > 0, name
    lines = (tmp_path / "report.ndjson").read_text().splitlines()
    summary = json.loads(lines[-1])
    assert summary["type"] == "summary" and summary["links"] == report.links
    broken = (tmp_path / "report.failures").read_text()
    assert "missing.html" in broken and "gone/x.html" in broken


def repository(root: pathlib.Path) -> pathlib.Path:
    """A git repository: docs that link up and out, an mdBook, a folder .gitignore leaves out
    and a hidden folder (their broken links must not count)."""
    files = {
        "README.md": "# Project\n\n## Setup\n\n[docs](docs/guide.md) [gone](nothing.md)\n",
        "docs/guide.md": "# Guide\n\n[home](../README.md#setup) [bad](../README.md#nope)\n"
                         "[missing](../missing.md)\n",
        "book/book.toml": "[book]\ntitle = \"t\"\n",
        "book/src/SUMMARY.md": "# Summary\n\n- [Intro](intro.md)\n",
        "book/src/intro.md": "# Intro\n\n[lost](lost.html) [self](intro.html#intro)\n",
        ".gitignore": "build/\n",
        "build/out.md": "[never](never-checked.md)\n",
        ".hidden/notes.md": "[never](hidden-never-checked.md)\n",
    }
    repo = root / "repo"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return repo


@pytest.mark.parametrize("threads", [1, 8])
def test_a_folder_is_read_as_the_cli_reads_it(
    cli: str, tmp_path: pathlib.Path, threads: int
) -> None:
    repo = repository(tmp_path)
    report = linkpatrol.check(repo, threads=threads, check_anchors=True)
    ours = tmp_path / "python.csv"
    report.write(ours, format="csv", verbose=True)
    theirs = tmp_path / "cli.csv"
    run = subprocess.run(
        [cli, "--no-config", "--no-status", "-v", "-q", "--check-anchors", "-t", str(threads),
         "-F", f"csv/{theirs}", str(repo)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert run.returncode == 1, run.stderr
    assert csv_rows(ours) == csv_rows(theirs)
    names = {r.urlname for r in report.results}
    assert {"nothing.md", "../README.md#nope", "../missing.md", "lost.html"} <= names
    assert not names & {"never-checked.md", "hidden-never-checked.md"}
    # The walk's options are the CLI's: with hidden files the hidden folder is read too.
    hidden = linkpatrol.check(repo, threads=threads, hidden=True)
    assert "hidden-never-checked.md" in {r.urlname for r in hidden.results}
    excluded = linkpatrol.check(repo, threads=threads, exclude_path="/book/")
    assert "lost.html" not in {r.urlname for r in excluded.results}


def test_check_extern_false_checks_no_external_link(tmp_path: pathlib.Path) -> None:
    page = tmp_path / "page.html"
    page.write_text('<a href="http://127.0.0.1:9/x">refused</a>\n')
    checked = linkpatrol.check(page, threads=1, max_retries=0)
    assert [r.state for r in checked.results if r.url.startswith("http")] == ["failed"]
    # LinkChecker's meaning: False leaves external links unchecked (listed as ignored).
    unchecked = linkpatrol.check(page, threads=1, check_extern=False)
    assert [r.state for r in unchecked.results if r.url.startswith("http")] == ["ignored"]
