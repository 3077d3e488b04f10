#!/bin/bash
# benches/offline_compare.sh — the offline folder check against hyperlink on real documentation.
#
# Folders: a generated site (PAGES pages, default 10000, from the shared bench kit), the Rust
# documentation (`rustup doc --path`), Debian's postgresql-doc-15 HTML (installed with apt-get
# when missing and allowed) and an empty two-file folder. For each folder and each pairing
#   default     linkpatrol --no-config --no-status --internal-only -o csv DIR   vs hyperlink DIR
#   one thread  the same with -t 1                                             vs hyperlink -j 1 DIR
# it runs one untimed pair (the folder into the page cache), then ROUNDS alternating pairs under
# /usr/bin/time and prints the medians: wall time, CPU
# (user+sys), peak RSS, minor page faults, voluntary context switches, and ours ÷ hyperlink.
# Then, once per folder, `strace -f -c` counts of the system calls that name a path or a file
# (openat, statx, readlink, fstat/newfstatat, read) divided by the folder's file count.
# No network: everything is local files.
#
# env: LP (our binary; default target/release/linkpatrol, built if missing), HL (hyperlink,
#      `cargo install hyperlink`), ROUNDS (default 3), OUT (default /tmp/offline-compare),
#      FOLDERS (space-separated names to run, default "generated rust postgres empty"),
#      INSTALL (1: apt-get install postgresql-doc-15 when missing; default 1 when root).
set -uo pipefail
# shellcheck source=support/kit.sh
. "$(dirname "$0")/support/kit.sh"
PAGES=${1:-10000}
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-/tmp/offline-compare}
HL=${HL:-$(command -v hyperlink || echo "$HOME/.cargo/bin/hyperlink")}
FOLDERS=${FOLDERS:-generated rust postgres empty}
INSTALL=${INSTALL:-$([[ $(id -u) == 0 ]] && echo 1 || echo 0)}
mkdir -p "$OUT"

[[ -x $HL ]] || { echo "offline_compare.sh: hyperlink not found (cargo install hyperlink)" >&2; exit 2; }
if [[ ! -x $LP ]]; then
    (cd "$REPO" && cargo build --release --bin linkpatrol) || exit 2
fi

folder_of() {
    case $1 in
    generated)
        local site=/tmp/bench-site/n$PAGES
        [[ -f $site/index.html ]] || python3 "$BENCH/gen_site.py" "$site" --pages "$PAGES" \
            --port 18080 --force > /dev/null || return 1
        echo "$site" ;;
    rust)
        local index
        index=$(rustup doc --path 2>/dev/null) || return 1
        dirname "$index" ;;
    postgres)
        local pg=/usr/share/doc/postgresql-doc-15/html
        if [[ ! -d $pg && $INSTALL == 1 ]]; then
            apt-get install -y -q postgresql-doc-15 > "$OUT/apt.log" 2>&1 || return 1
        fi
        [[ -d $pg ]] && echo "$pg" ;;
    empty)
        local dir=$OUT/empty
        mkdir -p "$dir"
        printf '<!doctype html><a href="b.html">b</a>\n' > "$dir/a.html"
        printf '<!doctype html><a href="a.html">a</a>\n' > "$dir/b.html"
        echo "$dir" ;;
    esac
}

# One timed run: prints "wall cpu rss_kb minflt vcs".
timed() {
    /usr/bin/time -f '%e %U %S %M %R %w' -o "$OUT/time.txt" "$@" > /dev/null 2> "$OUT/stderr.txt"
    tail -n 1 "$OUT/time.txt" | awk '{printf "%s %.2f %s %s %s\n", $1, $2 + $3, $4, $5, $6}'
}

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

printf '%-10s %-10s %-10s %8s %8s %9s %8s %6s\n' folder pairing tool wall_s cpu_s rss_kb minflt vcs
for name in $FOLDERS; do
    dir=$(folder_of "$name") || { echo "$name: not available, skipped"; continue; }
    for pairing in default one-thread; do
        if [[ $pairing == default ]]; then
            ours=("$LP" --no-config --no-status --internal-only -o csv "$dir")
            theirs=("$HL" "$dir")
        else
            ours=("$LP" --no-config --no-status --internal-only -t 1 -o csv "$dir")
            theirs=("$HL" -j 1 "$dir")
        fi
        : > "$OUT/ours.txt"
        : > "$OUT/theirs.txt"
        # Untimed first runs: the folder in the page cache for both (the Rust docs are 0.8 GB).
        timed "${ours[@]}" > /dev/null
        timed "${theirs[@]}" > /dev/null
        for ((r = 0; r < ROUNDS; r++)); do
            timed "${ours[@]}" >> "$OUT/ours.txt"
            timed "${theirs[@]}" >> "$OUT/theirs.txt"
        done
        declare -A med=()
        for tool in ours theirs; do
            for col in 1 2 3 4 5; do
                med[$tool$col]=$(cut -d' ' -f"$col" "$OUT/$tool.txt" | median)
            done
            label=$([[ $tool == ours ]] && echo linkpatrol || echo hyperlink)
            printf '%-10s %-10s %-10s %8s %8s %9s %8s %6s\n' "$name" "$pairing" "$label" \
                "${med[${tool}1]}" "${med[${tool}2]}" "${med[${tool}3]}" "${med[${tool}4]}" \
                "${med[${tool}5]}"
        done
        awk -v n="$name" -v p="$pairing" -v w1="${med[ours1]}" -v w2="${med[theirs1]}" \
            -v c1="${med[ours2]}" -v c2="${med[theirs2]}" -v r1="${med[ours3]}" \
            -v r2="${med[theirs3]}" 'BEGIN {
                printf "%-10s %-10s ours/theirs wall %.2fx  cpu %.2fx  rss %.2fx\n", n, p,
                    (w2 > 0 ? w1 / w2 : 0), (c2 > 0 ? c1 / c2 : 0), (r2 > 0 ? r1 / r2 : 0)}'
        unset med
    done
    if command -v strace > /dev/null; then
        files=$(find "$dir" -type f | wc -l)
        strace -f -c -o "$OUT/strace-$name.txt" "$LP" --no-config --no-status --internal-only \
            -t 1 -o csv "$dir" > /dev/null 2>&1
        awk -v files="$files" -v name="$name" '
            $NF ~ /^(openat|statx|newfstatat|fstat|readlink|read|close)$/ {calls[$NF] = $4}
            END {
                printf "%-10s syscalls per file (%d files, -t 1):", name, files
                for (c in calls) printf " %s %.2f", c, calls[c] / files
                printf "\n"
            }' "$OUT/strace-$name.txt"
    fi
done
