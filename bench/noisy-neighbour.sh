#!/usr/bin/env bash
# One namespace changing a token under 10,000 agents beside another registering as
# usual: the victim's registration p50/p99 alone and beside it, in one run
# (bench/noisy_neighbour.py says how; the README's "One namespace cannot tax the
# others' writes" has figures).
#
#   bench/noisy-neighbour.sh
#   SECONDS_PER_PHASE=20 NOISY_RATES="2 5" NOISY_CONNECTIONS=3 AGENTS=10000   (the defaults)
#   BASELINE_BINARY=<path>   also measure that gateway build first, in the same run
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
swift build --package-path "$root" -c release --product pushgate >/dev/null 2>&1 \
    || { echo "the release build failed: swift build -c release --product pushgate" >&2; exit 1; }
baseline=()
if [ -n "${BASELINE_BINARY:-}" ]; then
    [ -x "$BASELINE_BINARY" ] || { echo "BASELINE_BINARY is not an executable: $BASELINE_BINARY" >&2; exit 2; }
    baseline=(--baseline "$BASELINE_BINARY")
fi
exec python3 "$root/bench/noisy_neighbour.py" --pushgate "$root/.build/release/pushgate" "${baseline[@]}"
