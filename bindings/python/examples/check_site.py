"""Check a site or a folder and list its broken links; write an HTML report too.

    python examples/check_site.py https://example.org/ [report.html]
"""

from __future__ import annotations

import sys

import linkpatrol


def main(argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else "."
    report = linkpatrol.check(target, threads=8, recursion_level=3, exclude=[r"/logout"])
    for result in report.broken:
        print(f"{result.url} (on {result.parent}, line {result.line}): {result.result}")
    stats = report.statistics
    print(f"{stats['errors']} broken of {stats['links']} links, {stats['urls']} URLs")
    if len(argv) > 2:
        report.write(argv[2], format="html")
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
