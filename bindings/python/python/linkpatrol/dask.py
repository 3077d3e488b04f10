"""A check split by host, run as Dask tasks: ``check(inputs, client, shards=N, **options)``.

Phase 1 runs one task per shard: each crawls the start sites whose host it owns and exports
its external links and its links to other shards' start sites. Phase 2 runs one task per shard
over every shard's exports: each checks the exported links whose host it owns, reusing the
results of its own phase 1 (so no URL is requested twice). The
six (2 x N) reports are merged into one :class:`linkpatrol.Report`, with the rows and statistics
of one run over everything. Phase 1's reports and exports stay on the workers (phase 2's tasks
take them as futures): the client sends only small task graphs and receives each report once. Each host is requested by one shard only, so the per-host rate
holds across the cluster.

A task that fails (an exception, or a worker killed more often than Dask retries it) makes
``check`` raise :class:`ShardFailed` naming the shard and phase: a partial report is never
returned as a whole one.
"""

from __future__ import annotations

from typing import Any, Iterable, Union

import linkpatrol

__all__ = ["ShardFailed", "check"]


class ShardFailed(RuntimeError):
    """A shard's task failed; ``shard`` and ``phase`` say which."""

    def __init__(self, shard: int, shards: int, phase: int, cause: BaseException) -> None:
        super().__init__(f"linkpatrol shard {shard}/{shards} failed in phase {phase}: {cause!r}")
        self.shard = shard
        self.phase = phase


def _phase1(
    inputs: list[str], shard: int, shards: int, options: dict[str, Any]
) -> tuple[str, list[dict[str, Any]]]:
    """Crawls the start sites this shard owns; its report and the links it exported."""
    report = linkpatrol.Checker(shard=f"{shard}/{shards}", **options).run(inputs)
    return report.ndjson(), report.exported()


def _exports(*phase1: tuple[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Every shard's exported links, gathered on a worker."""
    return [link for _, links in phase1 for link in links]


def _report(phase1: tuple[str, list[dict[str, Any]]]) -> str:
    """The NDJSON report of a phase-1 result."""
    return phase1[0]


def _phase2(
    exported: list[dict[str, Any]],
    phase1: tuple[str, list[dict[str, Any]]],
    shard: int,
    shards: int,
    options: dict[str, Any],
) -> str:
    """Checks the exported links this shard owns, reusing what its phase 1 checked; its
    report."""
    checker = linkpatrol.Checker(shard=f"{shard}/{shards}", **options)
    return checker.run([], found=exported, reuse=phase1[0]).ndjson()


def _wait(futures: list[Any], shards: int, phase: int) -> None:
    """Waits for every task of a phase (fetching no result); the first failed one raises
    :class:`ShardFailed` and cancels the others."""
    for shard, future in enumerate(futures):
        try:
            error = future.exception()
        except Exception as e:  # noqa: BLE001 - a cancelled or lost task is the shard's too
            error = e
        if error is not None:
            for rest in futures:
                rest.cancel()
            raise ShardFailed(shard, shards, phase, error) from error


def check(
    inputs: Union[str, Iterable[str]],
    client: Any,
    shards: int = 4,
    **options: Any,
) -> linkpatrol.Report:
    """Checks ``inputs`` split into ``shards`` by host, on the Dask ``client``'s workers."""
    if isinstance(inputs, str):
        inputs = [inputs]
    starts = [str(i) for i in inputs]
    if not isinstance(shards, int) or isinstance(shards, bool) or shards < 1:
        raise ValueError(f"shards: {shards!r} is not a count >= 1")
    # Options are checked here, once, before any task is sent.
    linkpatrol.Checker(**options)
    # Phase 1's reports and exports stay on the workers: phase 2's tasks get them as futures,
    # so they never travel to this client and back in a task graph. Only the final reports
    # come here, once.
    phase1 = [
        client.submit(_phase1, starts, i, shards, options, pure=False) for i in range(shards)
    ]
    _wait(phase1, shards, 1)
    exported = client.submit(_exports, *phase1, pure=False)
    phase2 = [
        client.submit(_phase2, exported, phase1[i], i, shards, options, pure=False)
        for i in range(shards)
    ]
    _wait(phase2, shards, 2)
    reports = [client.submit(_report, p, pure=False) for p in phase1]
    # A worker lost since holds no more phase 1 result: that shard failed too.
    _wait(reports, shards, 1)
    return linkpatrol.merge(*client.gather(reports + phase2))
