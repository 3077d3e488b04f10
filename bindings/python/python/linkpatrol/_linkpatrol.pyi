"""Type stubs of the extension module (src/*.rs in bindings/python)."""

import os
from typing import Any, Iterable, Iterator, Literal, Optional, Sequence, Tuple, Union

__version__: str

Input = Union[str, "os.PathLike[str]"]
Inputs = Union[Input, Iterable[Input]]
Strings = Union[str, Sequence[str]]
Format = Literal[
    "text", "csv", "html", "json", "ndjson", "junit", "sarif", "sitemap", "failures", "dot", "gml"
]

class Result:
    """One report row: a link on a page (or a start URL) and the verdict on its URL."""

    @property
    def url(self) -> str: ...
    @property
    def urlname(self) -> str: ...
    @property
    def real_url(self) -> str: ...
    @property
    def parent(self) -> Optional[str]: ...
    @property
    def line(self) -> Optional[int]: ...
    @property
    def column(self) -> Optional[int]: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def valid(self) -> bool: ...
    @property
    def status(self) -> Optional[int]: ...
    @property
    def result(self) -> str: ...
    @property
    def state(self) -> Literal["ok", "broken", "failed", "blocked", "ignored"]: ...
    @property
    def failure(self) -> Optional[str]: ...
    @property
    def suggestion(self) -> Optional[str]: ...
    @property
    def warnings(self) -> list[Tuple[str, str]]: ...
    @property
    def infos(self) -> list[str]: ...
    @property
    def content_type(self) -> Optional[str]: ...
    @property
    def size(self) -> Optional[int]: ...
    @property
    def check_time(self) -> float: ...
    @property
    def level(self) -> int: ...
    @property
    def internal(self) -> bool: ...
    @property
    def cached(self) -> bool: ...
    @property
    def redirects(self) -> list[Tuple[str, int]]: ...
    @property
    def exported_to(self) -> Optional[int]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Report:
    """What a run found: its rows, its statistics, and every report format of the CLI."""

    @property
    def results(self) -> list[Result]: ...
    @property
    def broken(self) -> list[Result]: ...
    @property
    def statistics(self) -> dict[str, Any]: ...
    @property
    def interrupted(self) -> bool: ...
    @property
    def errors(self) -> int: ...
    @property
    def warnings(self) -> int: ...
    @property
    def failing(self) -> int: ...
    @property
    def links(self) -> int: ...
    @property
    def urls(self) -> int: ...
    @property
    def duration(self) -> float: ...
    def __len__(self) -> int: ...
    def ndjson(self) -> str: ...
    def exported(self) -> list[dict[str, Any]]: ...
    def write(
        self,
        path: Union[str, "os.PathLike[str]"],
        format: Format = "text",
        *,
        verbose: bool = False,
        csv_delimiter: str = ";",
        csv_bom: bool = False,
        csv_raw: bool = False,
    ) -> None: ...

class Results(Iterator[Result]):
    """The iterator of Checker.iter: rows as they are found, then `report`."""

    def __iter__(self) -> "Results": ...
    def __next__(self) -> Result: ...
    @property
    def report(self) -> Optional[Report]: ...
    def cancel(self) -> None: ...

class Checker:
    """A configured check; options are the CLI's long flags with `_` for `-`."""

    def __init__(
        self,
        *,
        threads: int = ...,
        timeout: float = ...,
        max_requests_per_second: float = ...,
        host_concurrency: int = ...,
        recursion_level: Optional[int] = ...,
        internal_only: bool = ...,
        check_extern: bool = ...,
        include: Strings = ...,
        exclude: Strings = ...,
        no_follow: Strings = ...,
        max_redirects: int = ...,
        abort_timeout: float = ...,
        root_dir: Union[str, "os.PathLike[str]"] = ...,
        no_robots: bool = ...,
        follow_outside_root: bool = ...,
        include_verbatim: bool = ...,
        fallback_extensions: list[str] = ...,
        sitemaps: bool = ...,
        max_retries: int = ...,
        max_retry_wait: float = ...,
        header: Strings = ...,
        host_rate: Strings = ...,
        host_max_concurrency: Strings = ...,
        host_header: Strings = ...,
        insecure: bool = ...,
        fail_on_blocked: bool = ...,
        proxy: str = ...,
        max_urls: int = ...,
        max_body_size: int = ...,
        user_agent: str = ...,
        ignore_warning: Strings = ...,
        base_url: str = ...,
        cookie_file: Union[str, "os.PathLike[str]"] = ...,
        accept: str = ...,
        method: Literal["head", "get"] = ...,
        check_mx: bool = ...,
        dns_server: str = ...,
        suggest: bool = ...,
        archive_url: str = ...,
        github_token: str = ...,
        detect_soft_404: bool = ...,
        exclude_private: bool = ...,
        exclude_loopback: bool = ...,
        exclude_link_local: bool = ...,
        allow_private: bool = ...,
        remap: Strings = ...,
        check_anchors: bool = ...,
        plugin: Strings = ...,
        cache: bool = ...,
        cache_file: Union[str, "os.PathLike[str]"] = ...,
        max_cache_age: float = ...,
        cache_failures: bool = ...,
        resume: bool = ...,
        fail_after_runs: int = ...,
        shard: Union[str, Tuple[int, int]] = ...,
    ) -> None: ...
    def run(
        self, inputs: Inputs, *, found: Optional[Iterable[dict[str, Any]]] = None,
        reuse: Optional[str] = None,
    ) -> Report: ...
    def iter(
        self, inputs: Inputs, *, found: Optional[Iterable[dict[str, Any]]] = None,
        reuse: Optional[str] = None,
    ) -> Results: ...
    def cancel(self) -> None: ...

def check(*inputs: Input, **options: Any) -> Report: ...
def option_names() -> list[str]: ...
def merge(*reports: str) -> Report: ...
