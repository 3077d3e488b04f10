#!/usr/bin/env python3
"""Scores the anchors plugin against gen_site.py's ground truth.

    python3 benches/anchors_truth.py SITE_DIR LINKPATROL_NDJSON [SERVED_BASE]

SITE_DIR is the folder gen_site.py wrote; LINKPATROL_NDJSON is `linkpatrol -o ndjson
--check-anchors SITE_DIR` output (missing fragments as errors, failure `fragment`; or as
`anchor-not-found` warnings with `--plugin anchors:severity=warning`) (or of a crawl of the site served at SERVED_BASE, e.g.
http://127.0.0.1:18180 when it is not served at the generator's base). Prints found / missed / false positives over the unique
missing fragments (URL#fragment) and the occurrence counts, and exits 1 on any miss or false
positive.
"""
import json
import sys
from urllib.parse import unquote


def norm(url, prefix, base):
    """file:///site/x/index.html#f and http://base/x/#f both become /x/#f."""
    page, _, frag = url.partition("#")
    for p in (prefix, base):
        if page.startswith(p):
            page = page[len(p):]
    if page.endswith("/index.html"):
        page = page[: -len("index.html")]
    if not page.startswith("/"):
        page = "/" + page
    return page + "#" + unquote(frag)


def main():
    site, report = sys.argv[1].rstrip("/"), sys.argv[2]
    truth = json.load(open(site + ".truth.json"))
    base = truth["base"]
    prefix = sys.argv[3].rstrip("/") if len(sys.argv) > 3 else "file://" + site
    expected = {norm(u, prefix, base) for u in truth["missing_fragments"]}
    found, occurrences = set(), 0
    for line in open(report):
        e = json.loads(line)
        if e.get("type") != "entry":
            continue
        if e.get("failure") == "fragment" or any(
            w["tag"] == "anchor-not-found" for w in e["warnings"]
        ):
            occurrences += 1
            found.add(norm((e.get("real_url") or e["url"]) + "#" + e["fragment"], prefix, base))
    missed, false_pos = expected - found, found - expected
    print("missing fragments (truth): %d unique, %d occurrences"
          % (len(expected), truth["missing_fragment_occurrences"]))
    print("reported: %d unique, %d occurrences; found %d, missed %d, false positives %d"
          % (len(found), occurrences, len(expected & found), len(missed), len(false_pos)))
    for u in sorted(missed)[:10]:
        print("  missed", u)
    for u in sorted(false_pos)[:10]:
        print("  false positive", u)
    sys.exit(1 if missed or false_pos else 0)


main()
