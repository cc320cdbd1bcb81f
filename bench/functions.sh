#!/usr/bin/env bash
# Measures the gateway's two functions with wrk against a release build, next to
# the same server's bare ceiling (GET /healthz) in the same run, so the ratios
# hold on a shared machine whose absolute speed drifts.
#
#   bench/functions.sh [seconds per run, default 10] [connections, default 32]
#
# Prints requests/s and p99 for /healthz, /registerSubscription (each a new device:
# three documents upserted in one SQLite transaction, fsync'd), and
# /triggerReplyFinished (log delivery to the devices the registrations made, one log
# line each, the log to a file), and each ÷ the ceiling.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-10}"
connections="${2:-32}"

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
"$root/scripts/install-deps"
swift build --package-path "$root" -c release --product pushgate >/dev/null 2>&1

work="$(mktemp -d)"
log="$work/gateway.log"
"$root/.build/release/pushgate" serve --port 0 --database "$work/bench.sqlite" >"$log" 2>&1 &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
    port="$(grep -o 'listening on 127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$' || true)"
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$log"; exit 1; }
url="http://127.0.0.1:$port"

rate() { # wrk's requests/s, failing on any non-2xx answer or socket error
    local out
    out="$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "$@")"
    if grep -q 'Non-2xx' <<<"$out"; then echo "$out" >&2; echo "non-2xx answers" >&2; exit 1; fi
    awk '/Requests\/sec/ {print $2}' <<<"$out"
    awk '/ 99%/ {print $2}' <<<"$out" >"$work/p99"
}

ceiling="$(rate "$url/healthz")"; ceiling_p99="$(cat "$work/p99")"
register="$(rate -s "$root/bench/register.lua" "$url")"; register_p99="$(cat "$work/p99")"
devices="$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from documents where collection_id=?", ("devices",)).fetchone()[0])' "$work/bench.sqlite")"
trigger="$(rate -s "$root/bench/trigger.lua" "$url")"; trigger_p99="$(cat "$work/p99")"

printf '%-34s %12s %10s %12s\n' "endpoint (wrk -t2 -c$connections -d${seconds}s)" "requests/s" "p99" "÷ ceiling"
printf '%-34s %12.0f %10s %12s\n' "GET /healthz (ceiling)" "$ceiling" "$ceiling_p99" "1.00"
printf '%-34s %12.0f %10s %12.2f\n' "POST /registerSubscription" "$register" "$register_p99" "$(awk -v a="$register" -v b="$ceiling" "BEGIN {print a / b}")"
printf '%-34s %12.0f %10s %12.2f\n' "POST /triggerReplyFinished" "$trigger" "$trigger_p99" "$(awk -v a="$trigger" -v b="$ceiling" "BEGIN {print a / b}")"
awk -v t="$trigger" -v d="$devices" 'BEGIN {
    printf "the registrations stored %d devices over 50 agents: each trigger fans out to ~%d, %.0f deliveries/s\n", d, d / 50, t * d / 50 }'
