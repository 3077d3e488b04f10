# benches/support/kit.sh — what the whole-crawl scripts (compare.sh, state_runs.sh) share, sourced
# by them: where the repository and the shared bench kit are (REPO; BENCH, LP unless given), and
# `kit_ready NAME`, which stops the script (exit 2, the message naming NAME) when the kit or
# nginx is missing and builds our binary when LP is not there yet.
# shellcheck shell=bash
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH=${BENCH:-$REPO/../shared/bench}
[[ -f $BENCH/gen_site.py ]] || BENCH=/work/shared/bench
LP=${LP:-$REPO/target/release/linkpatrol}

kit_ready() {
    local name=$1
    [[ -f $BENCH/gen_site.py ]] || { echo "$name: bench kit not found at $BENCH" >&2; exit 2; }
    command -v nginx > /dev/null || [[ -x /usr/sbin/nginx ]] \
        || { echo "$name: nginx is not installed (apt-get install -y nginx)" >&2; exit 2; }
    if [[ ! -x $LP ]]; then
        (cd "$REPO" && cargo build --release --bin linkpatrol) || exit 2
    fi
}
