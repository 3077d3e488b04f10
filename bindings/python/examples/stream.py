"""Stream results as the crawl finds them, and stop after a number of broken links.

    python examples/stream.py https://example.org/ [MAX_BROKEN]
"""

from __future__ import annotations

import sys

import linkpatrol


def main(argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else "."
    limit = int(argv[2]) if len(argv) > 2 else 10
    checker = linkpatrol.Checker(threads=4, max_requests_per_second=5.0, timeout=10)
    results = checker.iter(target)
    broken = 0
    for result in results:
        if not result.valid:
            broken += 1
            print(result.to_dict()["url"], result.status, result.warnings)
            if broken >= limit:
                results.cancel()
    report = results.report
    if report is not None:
        print(f"{report.links} links, interrupted: {report.interrupted}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
