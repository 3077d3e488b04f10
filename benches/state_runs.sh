#!/bin/bash
# benches/state_runs.sh [PAGES] — the state file's whole-crawl figures, in one run.
#
# Generates a PAGES-page site (default 20000) with the shared bench kit (../shared/bench:
# gen_site.py, serve.sh), serves it with nginx on 127.0.0.1:18080 (127.0.0.2 plays an external
# host) with an access log, then runs ROUNDS rounds of:
#   none    a crawl without a state file
#   first   the same crawl with a new state file (--cache-file)
#   second  the same crawl again on that file: the site is unchanged
# (none and first alternate which goes first), each `-t 32 -o csv` under /usr/bin/time. It
# prints each round, then the medians of the pair ratios the state file has bounds for: first ÷
# none (wall ≤ 1.15, peak RSS ≤ 1.2), second ÷ first (wall ≤ 1/3), the state file's size
# (≤ 50 MB), and from nginx's log of the last second run: the status of every request by host
# (every page a 304, the external host asked only for robots.txt and failures); and whether
# the second run reported the same broken links (URL, page, line, column) as the first.
# Timings on a shared machine drift; ratios of runs made side by side hold better. Only
# loopback is contacted.
#
# env: LP (our binary; default target/release/linkpatrol, built if missing), BENCH (the bench
#      kit, default ../shared/bench beside the repository), ROUNDS (default 10), THREADS
#      (default 32), OUT (results folder, default /tmp/state-runs), SITE (the site folder,
#      default /tmp/bench-site/nPAGES; generated when missing).
set -uo pipefail
# shellcheck source=support/kit.sh
. "$(dirname "$0")/support/kit.sh"
PAGES=${1:-20000}
ROUNDS=${ROUNDS:-10}
THREADS=${THREADS:-32}
OUT=${OUT:-/tmp/state-runs}/n$PAGES
SITE=${SITE:-/tmp/bench-site/n$PAGES}
START=http://127.0.0.1:18080/
LOG=/tmp/bench-nginx/access.log

kit_ready state_runs.sh
mkdir -p "$OUT"
if [[ ! -f $SITE/index.html ]]; then
    python3 "$BENCH/gen_site.py" "$SITE" --pages "$PAGES" --force > /dev/null || exit 2
fi
# The kit's server with an access log: serve.sh reads the nginx.conf beside it. (The `$`s
# are nginx's variables, not the shell's.)
cp "$BENCH/serve.sh" "$OUT/serve.sh"
# shellcheck disable=SC2016
sed 's#^\( *\)access_log off;#\1log_format lp "$request_method http://$host:$server_port$request_uri $status";\n\1access_log '"$LOG"' lp buffer=256k;#' \
    "$BENCH/nginx.conf" > "$OUT/nginx.conf"
grep -q "access_log $LOG lp" "$OUT/nginx.conf" \
    || { echo "state_runs.sh: no 'access_log off;' line to replace in $BENCH/nginx.conf" >&2; exit 2; }
"$OUT/serve.sh" stop > /dev/null 2>&1
"$OUT/serve.sh" start "$SITE" || exit 2
trap '"$OUT/serve.sh" stop > /dev/null' EXIT

# Has nginx reopen its log, which writes out what it buffered.
flush_log() {
    kill -USR1 "$(cat /tmp/bench-nginx/nginx.pid)"
    sleep 0.5
}

# run NAME [ARGS...]: one crawl; appends "NAME wall user sys rss_kb" to $OUT/times.txt.
run() {
    local name=$1
    shift
    /usr/bin/time --quiet -f "$name %e %U %S %M" -a -o "$OUT/times.txt" \
        "$LP" "$START" -t "$THREADS" -o csv "$@" > "$OUT/$name.csv" 2> "$OUT/$name.err"
}

: > "$OUT/times.txt"
state=$OUT/state.sqlite
for r in $(seq 1 "$ROUNDS"); do
    rm -f "$state" "$state"-*
    if ((r % 2)); then
        run none; run first --cache-file "$state"
    else
        run first --cache-file "$state"; run none
    fi
    stat -c "size %s" "$state" >> "$OUT/times.txt"
    # The log holds the second run alone: what nginx buffered before is written out first
    # (a reopen flushes it), then the file is emptied (nginx appends).
    flush_log
    : > "$LOG"
    run second --cache-file "$state"
    tail -4 "$OUT/times.txt" | tr '\n' ' '
    echo
done
flush_log

python3 - "$OUT" "$LOG" <<'EOF'
import collections, csv, statistics, sys
out, log = sys.argv[1:3]
rounds, cur = [], {}
for line in open(f"{out}/times.txt"):
    name, *v = line.split()
    if name == "size":
        cur["size"] = int(v[0])
        continue
    wall, user, sys_, rss = float(v[0]), float(v[1]), float(v[2]), int(v[3])
    cur[name] = (wall, user + sys_, rss)
    if name == "second":
        rounds.append(cur)
        cur = {}
med = lambda xs: statistics.median(xs)
ratio = lambda a, b, i: med([r[a][i] / r[b][i] for r in rounds])
print(f"\n{len(rounds)} rounds, medians of the pair ratios (bound in brackets):")
print(f"  first / none   wall {ratio('first', 'none', 0):.2f}x [1.15]  CPU {ratio('first', 'none', 1):.2f}x"
      f"  peak RSS {ratio('first', 'none', 2):.2f}x [1.2]"
      f" ({med([r['first'][2] for r in rounds]) / 1024:.0f} MB vs {med([r['none'][2] for r in rounds]) / 1024:.0f} MB)")
print(f"  second / first wall {ratio('second', 'first', 0):.2f}x [0.33]  CPU {ratio('second', 'first', 1):.2f}x"
      f"  (seconds: none {med([r['none'][0] for r in rounds]):.2f}, first {med([r['first'][0] for r in rounds]):.2f},"
      f" second {med([r['second'][0] for r in rounds]):.2f})")
print(f"  state file {med([r['size'] for r in rounds]) / 1e6:.0f} MB [50]")
by = collections.Counter()
for line in open(log):
    parts = line.split()
    if len(parts) >= 3:
        host = parts[1].split("/")[2]
        by[(host, parts[2])] += 1
print("  last second run, requests by host and status:",
      ", ".join(f"{h} {s}: {n}" for (h, s), n in sorted(by.items())))
def broken(name):
    with open(f"{out}/{name}.csv", newline="") as f:
        return {(r["urlname"], r["parentname"], r["line"], r["column"])
                for r in csv.DictReader(f, delimiter=";") if r["valid"] == "False"}
a, b = broken("first"), broken("second")
print(f"  broken links: first run {len(a)}, second run {len(b)}, same set: {a == b}")
EOF
