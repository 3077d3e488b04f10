#!/bin/bash
# The state file's first and second runs of a 2,000-page site (ETags, so a second run gets
# 304s) whose pages link 200 external URLs (20 of them broken) on a slow host: 127.0.0.2
# answers after 150 ms and is asked at most 20 times a second (--host-rate). Alternates
# first and second runs ROUNDS times; prints wall time and peak RSS of each.
# Usage: benches/slow_host_state.sh [ROUNDS]   (LP=path for another binary)
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
LP=${LP:-target/release/linkpatrol}
SRV=target/tiny_server
rustc -O benches/support/tiny_server.rs -o "$SRV"
STATE=$(mktemp -d)
"$SRV" site 127.0.0.1:18510 2000 18511 200 &>/dev/null &
SITE=$!
"$SRV" slow 127.0.0.2:18511 150 &>/dev/null &
SLOW=$!
trap 'kill $SITE $SLOW; rm -rf "$STATE"' EXIT
sleep 0.3
for _ in $(seq "$ROUNDS"); do
  rm -f "$STATE/state.sqlite"
  for run in first second; do
    /usr/bin/time -f "$run run: %e s, %M KB" "$LP" --no-config --no-status -q \
      --max-requests-per-second 0 --host-rate '^127\.0\.0\.2:=20' \
      --cache-file "$STATE/state.sqlite" http://127.0.0.1:18510/s/0 >/dev/null || true
  done
done
