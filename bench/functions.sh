#!/usr/bin/env bash
# Measures the gateway's two functions with wrk against a release build, next to
# the same server's bare ceiling (GET /healthz) in the same run, so the ratios
# hold on a shared machine whose absolute speed drifts.
#
#   bench/functions.sh [seconds per run, default 10] [connections, default 32]
#   STORES="sqlite postgres"   the stores measured, one after the other in one run
#                              (PostgreSQL: a throw-away cluster with fsync on)
#   BASELINE=<git revision>    also measure that revision's build, on each store, in the same run
#   BASELINE_BINARY=<path>     the same with a gateway binary built already
#   PROFILE=DIR                records the gateway with `perf record -g` while it registers:
#                              DIR/<label>-register.perf.data
#
# Prints, per store, requests/s and p99 for /healthz, /registerSubscription (each a
# new device: three documents upserted in one transaction, fsync'd), and
# /triggerReplyFinished (log delivery to the devices the registrations made, one log
# line each, the log to a file), and each ÷ the ceiling.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-10}"
connections="${2:-32}"
stores="${STORES:-sqlite postgres}"

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
"$root/scripts/install-deps"
swift build --package-path "$root" -c release --product pushgate >/dev/null 2>&1 \
    || { echo "the release build failed: swift build -c release --product pushgate" >&2; exit 1; }

work="$(mktemp -d)"
chmod 755 "$work"  # the postgres user runs the cluster in it
pid=""
cleanup() {
    [ -n "$pid" ] && { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
    [ -d "$work/postgres" ] && "$root/scripts/postgres-cluster" stop "$work/postgres"
    rm -rf "$work"
}
trap cleanup EXIT
if [[ " $stores " == *" postgres "* ]]; then
    postgres_server="$("$root/scripts/postgres-cluster" start "$work/postgres" durable)"
fi

rate() { # wrk's requests/s, failing on any non-2xx answer or socket error
    local out
    out="$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "$@")"
    if grep -q 'Non-2xx' <<<"$out"; then echo "$out" >&2; echo "non-2xx answers" >&2; exit 1; fi
    awk '/Requests\/sec/ {print $2}' <<<"$out"
    awk '/ 99%/ {print $2}' <<<"$out" >"$work/p99"
}

measure() { # binary label store
    local binary="$1" label="$2" store="$3" database log port url
    if [ "$store" = postgres ]; then
        local name="bench_${label//-/_}"
        psql -q "$postgres_server" -c "CREATE DATABASE $name" >/dev/null
        database="${postgres_server%/postgres*}/$name?sslmode=disable"
    else
        database="$work/$label.sqlite"
    fi
    log="$work/gateway-$label.log"
    # The rate limits and caps are off: the functions' own speed is measured. The
    # device count is read from /metrics on the main port; /healthz keeps its details
    # (the outbox's counts read from the store), so the ceiling is the one of earlier runs.
    PUSHGATE_RATE_PER_SECRET=0 PUSHGATE_RATE_PER_ADDRESS=0 PUSHGATE_NEW_NAMESPACES_PER_ADDRESS=0 \
        PUSHGATE_HEALTH_RATE_PER_ADDRESS=0 PUSHGATE_HEALTH_DETAILS=on \
        PUSHGATE_MAX_DEVICES_PER_AGENT=10000000 PUSHGATE_METRICS_LISTEN=main \
        "$binary" serve --port 0 --database "$database" >"$log" 2>&1 &
    pid=$!
    port=""
    for _ in $(seq 100); do
        port="$(grep -o 'listening on 127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$' || true)"
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$log"; exit 1; }
    url="http://127.0.0.1:$port"

    ceiling="$(rate "$url/healthz")"; ceiling_p99="$(cat "$work/p99")"
    if [ -n "${PROFILE:-}" ]; then
        mkdir -p "$PROFILE"
        perf record -F 999 -g -p "$pid" -o "$PROFILE/$label-register.perf.data" 2>/dev/null &
        local perf_pid=$!
    fi
    register="$(rate -s "$root/bench/register.lua" "$url")"; register_p99="$(cat "$work/p99")"
    [ -z "${PROFILE:-}" ] || { kill -INT "$perf_pid"; wait "$perf_pid" || true; }
    devices="$(curl -s "$url/metrics" | awk '$1 == "pushgate_devices_stored" {print int($2)}')"
    trigger="$(rate -s "$root/bench/trigger.lua" "$url")"; trigger_p99="$(cat "$work/p99")"
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""

    printf '%-18s %-34s %12.0f %10s %12s\n' "$label" "GET /healthz (ceiling)" "$ceiling" "$ceiling_p99" "1.00"
    printf '%-18s %-34s %12.0f %10s %12.2f\n' "$label" "POST /registerSubscription" "$register" "$register_p99" "$(awk -v a="$register" -v b="$ceiling" "BEGIN {print a / b}")"
    printf '%-18s %-34s %12.0f %10s %12.2f\n' "$label" "POST /triggerReplyFinished" "$trigger" "$trigger_p99" "$(awk -v a="$trigger" -v b="$ceiling" "BEGIN {print a / b}")"
    awk -v s="$label" -v t="$trigger" -v d="$devices" 'BEGIN {
        printf "%-18s the registrations stored %d devices over 50 agents: each trigger fans out to ~%d, %.0f deliveries/s\n", s, d, d / 50, t * d / 50 }'
}

printf '%-18s %-34s %12s %10s %12s\n' "build / store" "endpoint (wrk -t2 -c$connections -d${seconds}s)" "requests/s" "p99" "÷ ceiling"
# BASELINE=<git revision>: the same benchmark on that revision's build, in the same
# run, before the current build on each store; BASELINE_BINARY=<path>: a build at hand.
baseline="${BASELINE_BINARY:-}"
if [ -z "$baseline" ] && [ -n "${BASELINE:-}" ]; then
    baseline="$("$root/bench/build-baseline.sh" "$BASELINE")"
fi
for store in $stores; do
    [ -z "$baseline" ] || measure "$baseline" "baseline-$store" "$store"
    measure "$root/.build/release/pushgate" "current-$store" "$store"
done
