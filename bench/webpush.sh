#!/usr/bin/env bash
# Web Push benchmark (issue 62): one trigger to N subscriptions on two origins (two
# nginx stand-ins of a push service: HTTP/2 + TLS, 201 for every push), and, in the
# same run, the floor: one P-256 key pair + one ECDH + HKDF + one AES-128-GCM seal of
# a payload of the same size, timed alone with swift-crypto (bench/webpush-floor).
#
#   bench/webpush.sh [N]          default: 10000
#   ROUNDS=K                      the trigger and the floor K times (default 3); the
#                                 median ratio is the figure
#   CONNECTIONS=1                 the gateway's connections to each origin
#   WARMUP=N                      one unmeasured trigger to N other subscriptions first
#                                 (default 500: TLS handshakes, the first VAPID tokens)
#   PROFILE=DIR                   record the gateway with `perf record -g` during each
#                                 trigger: DIR/webpush-<round>.perf.data
#
# Prints, per round: the floor (µs of CPU a push), the trigger's wall time, pushes a
# second, the gateway's CPU per push (every thread, user + system, during the
# trigger), that ÷ the floor, the subscriptions the stand-ins saw (each once?); then
# the median ratio and the CPU's model. Goal: the gateway's CPU per push ≤ 1.5 × the
# floor, every subscription once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-10000}"
rounds="${ROUNDS:-3}"
warmup="${WARMUP:-500}"
connections="${CONNECTIONS:-1}"
[[ "$n" =~ ^[1-9][0-9]*$ && "$rounds" =~ ^[1-9][0-9]*$ && "$warmup" =~ ^[0-9]+$ ]] \
    || { echo "usage: [ROUNDS=K] [WARMUP=N] bench/webpush.sh [N]" >&2; exit 2; }

need=()
command -v nginx >/dev/null || need+=(nginx-light)
[ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] || need+=(libnginx-mod-http-echo)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
"$root/scripts/install-deps"
python3 -c 'import cryptography' 2>/dev/null || python3 -m pip install --quiet cryptography
source "$root/bench/lib.sh"

swift build --package-path "$root" -c release --product pushgate >/dev/null 2>&1
swift build --package-path "$root/bench/webpush-floor" --scratch-path "$root/.build-webpush-floor" -c release \
    >/dev/null 2>&1
pushgate="$root/.build/release/pushgate"
floor="$root/.build-webpush-floor/release/WebPushFloor"

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill -TERM "$(cat "$work/nginx.pid")" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

stand_in_certificates "$work"
mkdir -p "$work/tmp"
port1="$(free_port)"
port2="$(free_port)"
sed "s#@DIR@#$work#g; s#@PORT1@#$port1#g; s#@PORT2@#$port2#g" "$root/bench/webpush-nginx/nginx.conf.template" \
    >"$work/nginx.conf"
nginx -p "$work/" -c "$work/nginx.conf" -e "$work/error.log"

"$pushgate" keygen --vapid "$work/vapid.pem" >/dev/null
export PUSHGATE_WEBPUSH_VAPID_KEY_PATH="$work/vapid.pem" PUSHGATE_WEBPUSH_SUBJECT="mailto:bench@example.com" \
    PUSHGATE_WEBPUSH_CA_FILE="$work/ca.crt" PUSHGATE_WEBPUSH_ALLOW_PRIVATE_ENDPOINTS=on \
    PUSHGATE_WEBPUSH_CONNECTIONS="$connections" \
    PUSHGATE_TRIGGER_WAIT=600 PUSHGATE_RATE_PER_SECRET=0 PUSHGATE_RATE_PER_ADDRESS=0 \
    PUSHGATE_NEW_NAMESPACES_PER_ADDRESS=0 PUSHGATE_MAX_DEVICES_PER_AGENT=10000000 PUSHGATE_METRICS_LISTEN=off

secret="benchmark-secret-0123456789abcdefgh"
server_key="$(printf '%s' "$secret" | sha256sum | cut -d' ' -f1)"

seed() { # database cwd n: N subscriptions (each its own keys), alternating between the two origins
    python3 - "$1" "$server_key" "$2" "$3" "$port1" "$port2" <<'PY'
import base64, hashlib, json, os, sqlite3, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
db, server_key, cwd, n, port1, port2 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
agent_key = hashlib.sha256(cwd.encode()).hexdigest()
parent = f"servers/{server_key}/agents/{agent_key}/devices"
now = "2026-11-27T00:00:00.000Z"
rows = []
for i in range(n):
    point = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    port = port1 if i % 2 == 0 else port2
    # The stored form, as a registration writes it.
    token = json.dumps({"endpoint": f"https://127.0.0.1:{port}/push/{agent_key[:8]}-{i:07d}",
                        "p256dh": b64(point), "auth": b64(os.urandom(16))}, separators=(",", ":"))
    rows.append((f"{parent}/device-{i:07d}", parent, "devices", f"device-{i:07d}",
                 json.dumps({"webpushToken": token, "platform": "web", "createdAt": now, "updatedAt": now})))
rows.append((f"servers/{server_key}", "servers", "servers", server_key, json.dumps({"createdAt": now, "lastSeenAt": now})))
rows.append((f"servers/{server_key}/agents/{agent_key}", f"servers/{server_key}/agents", "agents", agent_key,
             json.dumps({"cwd": cwd, "createdAt": now, "updatedAt": now})))
c = sqlite3.connect(db, timeout=30)
c.executemany("INSERT OR REPLACE INTO documents (path, parent, collection_id, document_id, fields) VALUES (?,?,?,?,?)", rows)
c.commit()
PY
}

trigger() { # cwd → the answer
    curl -s --max-time 600 "http://127.0.0.1:$gateway_port/triggerReplyFinished" \
        -H "Authorization: Bearer $secret" -H 'Content-Type: application/json' \
        -d "{\"cwd\": \"$1\", \"message_preview\": \"Benchmark reply: all tests pass.\"}"
}

# The plaintext the gateway seals for this trigger: {"title","body","data"} of the
# same push, measured once from the Web Push payload's shape.
payload_bytes="$(python3 -c '
import json, sys
print(len(json.dumps({"title": "agent-0", "body": "Benchmark reply: all tests pass.",
    "data": {"type": "reply_finished", "server_key": "0" * 64, "cwd": "/bench/agent-0"}}, separators=(",", ":"))))')"

printf '%-6s %10s %10s %12s %14s %10s %12s\n' round floor_µs wall_s pushes/s gateway_µs/push ratio seen_once
rows="$work/rows"
for round in $(seq "$rounds"); do
    db="$work/round-$round.sqlite"
    gateway_port="$(free_port)"
    "$pushgate" serve --port "$gateway_port" --database "$db" >>"$work/gateway-$round.log" 2>&1 &
    gateway_pid=$!
    pids+=("$gateway_pid")
    wait_for "$work/gateway-$round.log" "listening on 127.0.0.1:$gateway_port"
    if [ "$warmup" -gt 0 ]; then
        seed "$db" "/bench/warmup" "$warmup"
        trigger "/bench/warmup" >/dev/null
    fi
    cwd="/bench/agent-$round"
    seed "$db" "$cwd" "$n"
    sleep 1.5  # nginx writes its log buffer every second: the warm-up's lines, then an empty log
    : >"$work/access.log"
    floor_us="$("$floor" "$payload_bytes" 20000 | awk '{print $1}')"
    if [ -n "${PROFILE:-}" ]; then
        mkdir -p "$PROFILE"
        perf record -F "${PROFILE_FREQUENCY:-999}" -g -p "$gateway_pid" -o "$PROFILE/webpush-$round.perf.data" \
            2>/dev/null &
        perf_pid=$!
        sleep 0.5  # perf attaches to every thread before the trigger starts
    fi
    cpu_snapshot "$work/cpu-before" "$gateway_pid"
    start=$(date +%s.%N)
    answer="$(trigger "$cwd")"
    end=$(date +%s.%N)
    cpu_snapshot "$work/cpu-after" "$gateway_pid"
    [ -z "${PROFILE:-}" ] || { kill -INT "$perf_pid"; wait "$perf_pid" || true; }
    sleep 1.5
    delivered="$(printf '%s' "$answer" | python3 -c 'import json,sys; print(json.load(sys.stdin)["success_count"])')"
    seen="$(awk '{print $2}' "$work/access.log" | sort | uniq -c | awk -v n="$n" '
        { pushes += $1; if ($1 == 1) once++ } END { printf "%d/%d%s", once, n, (pushes == n ? "" : " (" pushes " pushes)") }')"
    awk -v r="$round" -v f="$floor_us" -v s="$start" -v e="$end" -v n="$n" -v d="$delivered" -v seen="$seen" \
        -v cpu="$(cpu_seconds "$work/cpu-before" "$work/cpu-after")" -v rows="$rows" 'BEGIN {
        t = e - s; per = cpu / n * 1e6
        printf "%-6s %10.2f %10.3f %12.0f %14.2f %10.2f %12s%s\n", r, f, t, n / t, per, per / f, seen, (d == n ? "" : "  delivered " d)
        print per / f >> rows }'
    kill -TERM "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true
done
sort -n "$rows" | awk '{ v[NR] = $1 } END { m = (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)
    printf "median gateway CPU per push ÷ floor: %.2f (goal ≤ 1.5)\n", m }'
echo "CPU: $(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}'), $(nproc) cores"
