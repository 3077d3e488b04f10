"""The package behaves like a Python package: reprs in Python's notation, exceptions of
Python's hierarchy, docstrings that list every option with its default, and type stubs that
match the module (the formats, the options)."""

from __future__ import annotations

import ast
import errno
import pathlib
import re

import pytest

import linkpatrol
from conftest import Site


def stub_tree() -> ast.Module:
    stub = pathlib.Path(linkpatrol.__file__).with_name("_linkpatrol.pyi")
    return ast.parse(stub.read_text(encoding="utf-8"))


def test_result_repr_is_in_python_notation(site: Site) -> None:
    site.release.set()
    report = linkpatrol.check(site.url, threads=2)
    start = next(r for r in report.results if r.parent is None)
    assert repr(start) == f"Result(url={site.url!r}, parent=None, line=None, result='200 OK')"
    child = next(r for r in report.results if r.url == site.url + "missing.html")
    assert repr(child) == (
        f"Result(url={child.url!r}, parent={site.url!r}, line=3, result='404 Not Found')"
    )
    for r in report.results:
        text = repr(r)
        assert "Some(" not in text and "None)" not in text.replace("line=None)", ""), text
        # Every field reads back as the Python value it shows.
        fields = ast.parse(text, mode="eval").body
        assert isinstance(fields, ast.Call)
        values = {k.arg: ast.literal_eval(k.value) for k in fields.keywords}
        assert values == {"url": r.url, "parent": r.parent, "line": r.line, "result": r.result}
    assert repr(report) == (
        f"Report(links=13, errors=3, warnings={report.warnings}, urls={report.urls}, "
        "interrupted=False)"
    )


def test_a_missing_path_raises_file_not_found(tmp_path: pathlib.Path) -> None:
    missing = tmp_path / "no-such-folder"
    with pytest.raises(FileNotFoundError) as raised:
        linkpatrol.check(str(missing))
    assert raised.value.errno == errno.ENOENT and "no-such-folder" in str(raised.value)
    with pytest.raises(FileNotFoundError):
        linkpatrol.Checker().run(missing)
    with pytest.raises(FileNotFoundError, match="cookie_file"):
        linkpatrol.Checker(cookie_file=tmp_path / "cookies.txt")


def test_io_errors_are_os_error_subclasses(tmp_path: pathlib.Path) -> None:
    page = tmp_path / "index.html"
    page.write_text("<p>no links</p>")
    report = linkpatrol.check(page)
    with pytest.raises(FileNotFoundError):
        report.write(tmp_path / "no-such-folder" / "out.csv", format="csv")
    with pytest.raises(IsADirectoryError):
        report.write(tmp_path, format="csv")
    # A bad value is a ValueError, a wrong type a TypeError (naming the option).
    with pytest.raises(ValueError, match="`max_requests_per_second'"):
        linkpatrol.Checker(max_requests_per_second=-1)
    with pytest.raises(TypeError, match="`cache_file'"):
        linkpatrol.Checker(cache_file=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("documented", [linkpatrol.Checker, linkpatrol.check])
def test_help_lists_every_option_with_its_default(documented: object) -> None:
    doc = documented.__doc__ or ""
    listed = re.findall(r"^(\w+): .+ = .+$", doc, flags=re.MULTILINE)
    assert listed == linkpatrol.option_names()
    # Defaults are those of the command line.
    for line in ("threads: int = 16", "timeout: float | str = 30.0", "max_redirects: int = 10",
                 "accept: str = '100..=399'", "max_cache_age: float | str = '1d'",
                 "fail_after_runs: int = 1"):
        assert line in doc.splitlines(), line


def test_the_stubs_format_is_every_format_of_the_module() -> None:
    alias = next(
        node for node in stub_tree().body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "_Format" for t in node.targets)
    )
    assert isinstance(alias.value, ast.Subscript)
    names = ast.literal_eval(alias.value.slice)
    assert list(names) == list(linkpatrol.FORMATS)
    assert {"compact", "github", "markdown"} <= set(linkpatrol.FORMATS)


def test_the_stubs_checker_takes_every_option() -> None:
    checker = next(
        node for node in stub_tree().body if isinstance(node, ast.ClassDef) and node.name == "Checker"
    )
    new = next(
        node for node in checker.body if isinstance(node, ast.FunctionDef) and node.name == "__new__"
    )
    assert [a.arg for a in new.args.kwonlyargs] == linkpatrol.option_names()


def test_every_format_is_written(site: Site, tmp_path: pathlib.Path) -> None:
    site.release.set()
    report = linkpatrol.check(site.url, threads=2)
    for name in linkpatrol.FORMATS:
        out = tmp_path / f"report.{name}"
        report.write(out, format=name)  # type: ignore[arg-type]
        assert out.stat().st_size > 0, name
    assert "missing.html" in (tmp_path / "report.markdown").read_text()
    assert "missing.html" in (tmp_path / "report.compact").read_text()
