"""Type stubs of the extension module (src/*.rs in bindings/python)."""

import os
from typing import Any, Iterable, Iterator, Literal, Optional, Sequence, Tuple, Union, final

# As the extension module's own (PyO3 writes it); stubtest checks both agree.
__all__ = [
    "Checker", "Results", "Report", "Result", "check", "option_names", "merge", "__version__",
    "FORMATS",
]

__version__: str

# Type aliases of the stubs only (private: nothing of that name exists at run time).
_Input = Union[str, "os.PathLike[str]"]
_Inputs = Union[_Input, Iterable[_Input]]
_Strings = Union[str, Sequence[str]]
# Generated from the formats' table (src/report/format.rs) by tests/report_formats.rs; do not
# edit: `LINKPATROL_BLESS=1 cargo test --test integration report_formats` rewrites it.
_Format = Literal[
    "text", "compact", "github", "markdown", "csv", "html", "json", "ndjson", "junit", "sarif",
    "sitemap", "failures", "dot", "gml",
]
# End of the generated formats.
FORMATS: Tuple[str, ...]

@final
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
    def from_state(self) -> bool: ...
    @property
    def redirects(self) -> list[Tuple[str, int]]: ...
    @property
    def exported_to(self) -> Optional[int]: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
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
    def time_limit_reached(self) -> Optional[float]: ...
    @property
    def memory_limit(self) -> Optional[int]: ...
    @property
    def state_warnings(self) -> list[str]: ...
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
        format: _Format = "text",
        *,
        verbose: bool = False,
        csv_delimiter: str = ";",
        csv_bom: bool = False,
        csv_raw: bool = False,
    ) -> None: ...

@final
@final
class Results(Iterator[Result]):
    """The iterator of Checker.iter: rows as they are found, then `report`."""

    def __iter__(self) -> "Results": ...
    def __next__(self) -> Result: ...
    @property
    def report(self) -> Optional[Report]: ...
    def cancel(self) -> None: ...

@final
class Checker:
    """A configured check; options are the CLI's long flags with `_` for `-`."""

    # PyO3 builds a Checker in __new__ (there is no __init__ of its own).
    def __new__(
        cls,
        *,
        # Generated from linkpatrol::options::CheckOptions (cargo test --bin linkpatrol python_surface)
        fallback_extensions: _Strings = ...,
        preprocess: Optional[Union[str, "os.PathLike[str]"]] = ...,
        extensions: _Strings = ...,
        default_extension: Optional[str] = ...,
        glob_ignore_case: bool = ...,
        index_files: _Strings = ...,
        changed_since: Optional[str] = ...,
        no_ignore: bool = ...,
        hidden: bool = ...,
        follow: bool = ...,
        exclude_path: _Strings = ...,
        threads: int = ...,
        timeout: Union[float, str] = ...,
        max_requests_per_second: Union[float, str] = ...,
        host_concurrency: int = ...,
        recursion_level: Optional[int] = ...,
        internal_only: bool = ...,
        check_extern: Optional[bool] = ...,
        include: _Strings = ...,
        exclude: _Strings = ...,
        remap: _Strings = ...,
        no_follow: _Strings = ...,
        max_redirects: int = ...,
        abort_timeout: Union[float, str] = ...,
        root_dir: Optional[Union[str, "os.PathLike[str]"]] = ...,
        include_verbatim: bool = ...,
        include_wikilinks: bool = ...,
        no_robots: bool = ...,
        follow_outside_root: bool = ...,
        sitemaps: bool = ...,
        max_retries: int = ...,
        max_retry_wait: Union[float, str] = ...,
        header: _Strings = ...,
        host_rate: _Strings = ...,
        host_max_concurrency: _Strings = ...,
        host_header: _Strings = ...,
        insecure: bool = ...,
        exclude_private: bool = ...,
        exclude_loopback: bool = ...,
        exclude_link_local: bool = ...,
        allow_private: bool = ...,
        proxy: Optional[str] = ...,
        max_urls: int = ...,
        max_memory: Union[int, str] = ...,
        queue_memory: Optional[Union[int, str]] = ...,
        max_run_time: Optional[Union[float, str]] = ...,
        max_body_size: int = ...,
        user_agent: Optional[str] = ...,
        ignore_warning: _Strings = ...,
        fail_on_blocked: bool = ...,
        cache: bool = ...,
        cache_file: Optional[Union[str, "os.PathLike[str]"]] = ...,
        max_cache_age: Union[float, str] = ...,
        cache_failures: bool = ...,
        cache_exclude_status: Optional[str] = ...,
        resume: bool = ...,
        fail_after_runs: int = ...,
        base_url: Optional[str] = ...,
        cookie_file: Optional[Union[str, "os.PathLike[str]"]] = ...,
        cookie_jar: Optional[Union[str, "os.PathLike[str]"]] = ...,
        login_url: Optional[str] = ...,
        login_user: Optional[str] = ...,
        login_user_field: str = ...,
        login_password_field: str = ...,
        login_extra_field: _Strings = ...,
        login_logout_pattern: str = ...,
        accept: str = ...,
        accept_timeouts: bool = ...,
        require_https: bool = ...,
        method: Literal["head", "get"] = ...,
        host_method: _Strings = ...,
        check_mx: bool = ...,
        dns_server: Optional[str] = ...,
        suggest: bool = ...,
        archive_url: Optional[str] = ...,
        github_token: Optional[str] = ...,
        detect_soft_404: bool = ...,
        shard: Optional[Union[str, Tuple[int, int]]] = ...,
        check_anchors: bool = ...,
        render_js: bool = ...,
        render_tabs: str = ...,
        render_timeout: Union[float, str] = ...,
        plugin: _Strings = ...,
        # End of the generated options.
    ) -> "Checker": ...
    def run(
        self, inputs: _Inputs, *, found: Optional[Iterable[dict[str, Any]]] = None,
        reuse: Optional[str] = None,
    ) -> Report: ...
    def iter(
        self, inputs: _Inputs, *, found: Optional[Iterable[dict[str, Any]]] = None,
        reuse: Optional[str] = None,
    ) -> Results: ...
    def cancel(self) -> None: ...

def check(*inputs: _Input, **options: Any) -> Report: ...
def option_names() -> list[str]: ...
def merge(*reports: str) -> Report: ...
