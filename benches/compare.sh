#!/bin/bash
# benches/compare.sh [PAGES] — the whole-crawl comparison against the peers, in one run.
#
# Generates a PAGES-page site (default 20000) with the shared bench kit (../shared/bench:
# gen_site.py, serve.sh, score.py), serves it with nginx on 127.0.0.1:18080 (127.0.0.2 plays
# an external host), then runs one after the other, each under /usr/bin/time -v:
#   linkpatrol         our recursive crawl from the start page, politeness off, 32 threads
#   lychee             given the list of every page URL (it cannot recurse), politeness off
#   linkchecker        LinkChecker's crawl, 32 threads, its throttle lifted (linkcheckerrc)
#   linkpatrol-folder  our offline check of the site folder (file: links only)
#   hyperlink          hyperlink's offline check of the same folder
#   wrk                nginx's own request rate over the page URLs at 32 connections
# and prints one table (wall time, peak RSS, URLs checked, broken found), then the targets of
# the peer comparison and the offline targets (folder check against hyperlink, crawl against
# the offline parse rate, per-page figures for the 200k comparison), each as a ratio measured in
# this run. Timings on a shared machine drift; ratios from
# one run hold. A peer that is not installed is listed as "not installed" and its ratio
# skipped. Only loopback is contacted.
#
# env: LP (our binary; default target/release/linkpatrol, built if missing), LY (lychee),
#      LC (LinkChecker, default /tmp/lc-venv/bin/linkchecker), HL (hyperlink), BENCH (the
#      bench kit, default ../shared/bench beside the repository), TIMEOUT (seconds per tool,
#      default 600; a tool killed at it is shown with ">"), REPEATS (default 1; medians),
#      OUT (results folder, default /tmp/compare-results), WRK_SECONDS (default 10),
#      PORT (nginx's port, default 18080), SITE (the site folder, default
#      /tmp/bench-site/nPAGES; generated there for PORT when missing), SERVE (the serve.sh that
#      starts nginx, default the bench kit's, which listens on 18080: give a copy of it, and of
#      its nginx.conf, that listens on PORT to run beside another bench).
set -uo pipefail
# shellcheck source=support/kit.sh
. "$(dirname "$0")/support/kit.sh"
PAGES=${1:-20000}
TIMEOUT=${TIMEOUT:-600}
REPEATS=${REPEATS:-1}
OUT=${OUT:-/tmp/compare-results}/n$PAGES
WRK_SECONDS=${WRK_SECONDS:-10}
LY=${LY:-$(command -v lychee || echo "$HOME/.cargo/bin/lychee")}
LC=${LC:-/tmp/lc-venv/bin/linkchecker}
HL=${HL:-$(command -v hyperlink || echo "$HOME/.cargo/bin/hyperlink")}
PORT=${PORT:-18080}
HOSTPORT=127.0.0.1:$PORT
START=http://$HOSTPORT/index.html
SITE=${SITE:-/tmp/bench-site/n$PAGES}
TRUTH=$SITE.truth.json
SERVE=${SERVE:-$BENCH/serve.sh}

kit_ready compare.sh
mkdir -p "$OUT"
rm -f "$OUT/runs.jsonl"
if [[ ! -f $TRUTH || ! -f $SITE/index.html ]]; then
    python3 "$BENCH/gen_site.py" "$SITE" --pages "$PAGES" --port "$PORT" --force || exit 2
fi
"$SERVE" start "$SITE" || exit 2
trap '"$SERVE" stop > /dev/null' EXIT
find "$SITE" -name '*.html' | sort | sed "s#^$SITE#http://$HOSTPORT#" > "$OUT/pages.txt"

# tool name, binary that must exist, scorer (score.py's parser name), command
TOOLS=(
    "linkpatrol|$LP|linkpatrol|$LP --no-status --max-requests-per-second 0 --host-concurrency 0 -t 32 -o text --group-by url $START"
    "lychee|$LY|lychee|$LY --files-from $OUT/pages.txt --max-concurrency 32 --host-concurrency 32 --host-request-interval 0s --no-progress --format json"
    "linkchecker|$LC|linkchecker|$LC -f $BENCH/linkcheckerrc --threads 32 --no-status --check-extern --ignore-url=^mailto: -o text $START"
    "linkpatrol-folder|$LP|linkpatrol|$LP --no-status --internal-only -o text --group-by url $SITE"
    "hyperlink|$HL|hyperlink|$HL $SITE"
)

for spec in "${TOOLS[@]}"; do
    IFS='|' read -r name bin scorer cmd <<< "$spec"
    if [[ ! -x $bin ]]; then
        echo "{\"tool\": \"$name\", \"missing\": true}" >> "$OUT/runs.jsonl"
        echo "$name: not installed ($bin)"
        continue
    fi
    for i in $(seq 1 "$REPEATS"); do
        sync
        # shellcheck disable=SC2086
        /usr/bin/time -v -o "$OUT/$name-time-$i.txt" timeout -s KILL "$TIMEOUT" $cmd \
            > "$OUT/$name-out-$i.txt" 2> "$OUT/$name-err-$i.txt"
        rc=$?
        score=$(python3 "$BENCH/score.py" "$scorer" "$OUT/$name-out-$i.txt" "$TRUTH" 2>/dev/null || echo '{}')
        python3 - "$name" "$rc" "$OUT/$name-time-$i.txt" "$OUT/$name-out-$i.txt" "$score" \
            >> "$OUT/runs.jsonl" <<'EOF'
import json, re, sys
name, rc, time_file, out_file, score = sys.argv[1:6]
t = open(time_file).read()
wall = re.search(r"Elapsed \(wall clock\).*: (.*)", t).group(1).split(":")
wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
out = open(out_file, errors="replace").read()
requests = sum(int(n) for n in re.findall(r"^Host \S+: (\d+) requests", out, re.M))
d = {"tool": name, "rc": int(rc), "wall_s": wall, "rss_kb": rss, "requests": requests}
try:
    d.update(json.loads(score))
except ValueError:
    pass
print(json.dumps(d))
EOF
        tail -1 "$OUT/runs.jsonl" | cut -c1-200
        [[ $rc == 137 ]] && break
    done
done

# nginx's own rate: the same page URLs, the same 32 connections, no link checking at all.
if command -v wrk > /dev/null; then
    cat > "$OUT/urls.lua" <<EOF
local paths, i = {}, 0
for line in io.lines("$OUT/pages.txt") do
    paths[#paths + 1] = line:gsub("^http://[^/]+", "")
end
request = function()
    i = i % #paths + 1
    return wrk.format("GET", paths[i])
end
EOF
    wrk -t 2 -c 32 -d "${WRK_SECONDS}s" -s "$OUT/urls.lua" "http://$HOSTPORT" > "$OUT/wrk.txt" 2>&1
    rps=$(awk '/^Requests\/sec/{print $2}' "$OUT/wrk.txt")
    echo "{\"tool\": \"wrk\", \"rps\": ${rps:-0}}" >> "$OUT/runs.jsonl"
else
    echo '{"tool": "wrk", "missing": true}' >> "$OUT/runs.jsonl"
fi

python3 - "$OUT/runs.jsonl" "$PAGES" "$TIMEOUT" <<'EOF'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pages, timeout = int(sys.argv[2]), float(sys.argv[3])
by = {}
for r in runs:
    by.setdefault(r["tool"], []).append(r)

def med(tool, key):
    rs = [r for r in by.get(tool, []) if not r.get("missing")]
    vals = [r[key] for r in rs if r.get(key) is not None]
    return statistics.median(vals) if vals else None

def killed(tool):
    return any(r.get("rc") == 137 for r in by.get(tool, []))

print(f"\n{pages}-page site; medians of the runs above; '>' = killed at {timeout:.0f} s\n")
print("| tool | wall s | peak RSS MB | URLs checked | broken found (internal) | false pos | rc |")
print("|---|---:|---:|---|---|---:|---:|")
for tool in ["linkpatrol", "lychee", "linkchecker", "linkpatrol-folder", "hyperlink"]:
    rs = by.get(tool, [])
    if not rs or rs[0].get("missing"):
        print(f"| {tool} | not installed | | | | | |")
        continue
    r = sorted(rs, key=lambda r: r["wall_s"])[len(rs) // 2]
    urls = r.get("urls_checked")
    # A run killed at the timeout leaves /usr/bin/time the rusage of `timeout` only.
    rss = "n/a" if r["rc"] == 137 else "%.0f" % (r["rss_kb"] / 1024)
    print("| %s | %s%.2f | %s | %s | %s / %s | %s | %s |" % (
        tool, ">" if killed(tool) else "", r["wall_s"], rss,
        "n/a" if urls is None else urls, r.get("tp_internal", "?"), r.get("truth_internal", "?"),
        r.get("false_pos", "?"), r["rc"]))
w = by.get("wrk", [{}])[0]
folder_out = sys.argv[1].rsplit("/", 1)[0] + "/linkpatrol-folder-out-1.txt"
try:
    root_relative = sum(1 for l in open(folder_out, errors="replace")
                        if l.startswith("URL ") and l.split("`", 1)[-1].startswith("/"))
except OSError:
    root_relative = None
print("| wrk (nginx alone) | | | %s | | | |" % (
    "not installed" if w.get("missing") else "%.0f requests/s" % w.get("rps", 0)))

if root_relative:
    print("\nlinkpatrol-folder: score.py resolves a root-relative link (`/x.html`) of a file: page "
          "against file:///, not the site folder the tool resolves it in: %d of its reported "
          "links are root-relative and count as false positives (and misses) there." % root_relative)
lp, lpf = med("linkpatrol", "wall_s"), med("linkpatrol-folder", "wall_s")
print("\n| target (against the peers) | measured | met |")
print("|---|---|---|")
def row(what, value, ok, note=""):
    print(f"| {what} | {value}{note} | {ok} |")
def ratio(peer, ours, need, higher_is_better=True, label=""):
    p = med(peer, "wall_s")
    if p is None or ours is None:
        row(label, "n/a", "peer not installed" if p is None else "n/a")
        return
    x = p / ours
    lower_bound = killed(peer)
    ok = x >= need if higher_is_better else x <= need
    row(label, "%s%.2fx" % (">" if lower_bound else "", x), "yes" if ok else "NO",
        " (peer killed: a lower bound)" if lower_bound else "")
ratio("linkchecker", lp, 20, label="crawl throughput >= 20x LinkChecker's (their wall / ours)")
ratio("lychee", lp, 1.5, label="crawl >= 1.5x lychee given every URL (their wall / ours)")
rps = w.get("rps")
reqs, lpw = med("linkpatrol", "requests"), lp
if rps and reqs and lpw:
    x = reqs / lpw / rps
    row("request rate >= 50% of nginx's (wrk, 32 connections)",
        "%.0f%% (%.0f of %.0f requests/s)" % (100 * x, reqs / lpw, rps), "yes" if x >= 0.5 else "NO")
else:
    row("request rate >= 50% of nginx's", "n/a", "n/a")
# What bounds the crawl on this machine: the same pages parsed from disk, no HTTP at all. The
# crawl's rate cannot pass this (and shares the cores with nginx); wrk parses nothing.
lpf_urls = med("linkpatrol-folder", "urls_checked")
if reqs and lpw and lpf and lpf_urls:
    row("(context) offline parse rate of the same pages: the crawl's ceiling here",
        "%.0f URLs/s; the crawl reaches %.0f%% of it" % (lpf_urls / lpf, 100 * (reqs / lpw) / (lpf_urls / lpf)),
        "-")
ly_rss, lp_rss = med("lychee", "rss_kb"), med("linkpatrol", "rss_kb")
if ly_rss and lp_rss:
    row("peak RSS <= lychee's", "%.0f MB vs %.0f MB" % (lp_rss / 1024, ly_rss / 1024),
        "yes" if lp_rss <= ly_rss else "NO")
else:
    row("peak RSS <= lychee's", "n/a", "peer not installed")
hl = med("hyperlink", "wall_s")
if hl and lpf:
    x = lpf / hl
    row("folder check within 1.0x hyperlink's time (ours / theirs)", "%.2fx" % x,
        "yes" if x <= 1.0 else "NO")
else:
    row("folder check within 1.0x hyperlink's time", "n/a", "peer not installed")

# The offline and per-page targets measured in the same run.
print("\n| target (offline and per page) | measured | met |")
print("|---|---|---|")
if hl and lpf:
    x = lpf / hl
    row("1. folder check <= 1.0x hyperlink's time (ours / theirs)", "%.2fx (%.2f s vs %.2f s)" % (x, lpf, hl),
        "yes" if x <= 1.0 else "NO")
    hl_rss, lpf_rss = med("hyperlink", "rss_kb"), med("linkpatrol-folder", "rss_kb")
    x = lpf_rss / hl_rss
    row("1. folder check peak RSS <= 1.3x hyperlink's", "%.2fx (%.0f MB vs %.0f MB)" % (
        x, lpf_rss / 1024, hl_rss / 1024), "yes" if x <= 1.3 else "NO")
else:
    row("1. folder check against hyperlink", "n/a", "peer not installed")
if lp and lpf:
    # The same PAGES pages both ways: pages per second is PAGES over each wall time.
    x = lpf / lp
    row("2. crawl rate >= 90% of the offline parse rate (pages/s, same pages)",
        "%.0f%% (%.0f vs %.0f pages/s)" % (100 * x, pages / lp, pages / lpf), "yes" if x >= 0.9 else "NO")
    print("\nper page, for target 4 (compare the 20k and 200k runs): crawl %.3f ms and %.2f KB RSS; "
          "folder %.3f ms and %.2f KB RSS" % (1000 * lp / pages, med("linkpatrol", "rss_kb") / pages,
                                               1000 * lpf / pages, med("linkpatrol-folder", "rss_kb") / pages))
EOF
