#!/usr/bin/env bash
# Fan-out benchmark: one trigger to N devices, delivered over APNs or FCM (HTTP/2 +
# TLS) to a stand-in, next to the stand-in's own ceiling measured with h2load in the
# same run.
#
#   bench/fanout.sh [N …]              default: 1000 10000 100000
#   PROVIDER=fcm bench/fanout.sh       devices with FCM tokens, delivered through FCM HTTP v1
#                                      to ../shared/bench/fcm-nginx (default: apns)
#   STAND_IN=emulator bench/fanout.sh  the project's APNs emulator instead of nginx
#                                      (it verifies every JWT; far slower than nginx; APNs only)
#   CONNECTIONS=2                      the gateway's connections to the service (and h2load's)
#   BASELINE=<git revision>            also measure that revision's build, in the same run
#                                      (on each store)
#   BASELINE_BINARY=<path>             the same with a gateway binary built already
#   RECOVERY=0                         skip the kill -9 recovery measurement
#   ROUNDS=K                           the whole comparison K times, each after a ceiling of
#                                      its own, then the median ratio per build and size
#                                      (throughput mode)
#   STORES="sqlite postgres"           the stores to measure, side by side in one run
#                                      (PostgreSQL: a throw-away cluster, fsync on)
#   WARMUP=N                           before the measured sizes, one unmeasured trigger to
#                                      N devices of another agent on each gateway (each build,
#                                      each round): the process's first fan-out also pays its
#                                      one-off costs (type metadata, statements prepared, the
#                                      heap grown, TLS handshakes), some 20 ms, a tenth of a
#                                      10,000-device trigger's CPU (throughput mode; default 0)
#   SEALED=1                           every device registered payload keys (issue 63):
#                                      each push is sealed for them; after each row, the
#                                      sealing floor (bench/webpush-floor: a P-256 key pair,
#                                      ECDH, HKDF and AES-GCM of the plaintext's size, CPU
#                                      alone) and the gateway's CPU per push ÷ it
#   MODE=answer                        the proxy's view: the gateway's own trigger wait
#                                      (2 s) and lease, the stand-in logging every push
#   MODE=latency                       300 triggers to single-device agents, one at a time
#   PROFILE=DIR                        record the gateway with `perf record -g` during each
#                                      trigger: DIR/<label>-<N>.perf.data (throughput mode);
#                                      PROFILE_ALL=1 records every process (the database, nginx),
#                                      PROFILE_CALL_GRAPH=dwarf,16384 unwinds Swift's async frames,
#                                      PROFILE_FREQUENCY=Hz samples more often (default 999: a
#                                      10,000-device trigger is then some 200 samples)
#
# Prints, per N: the trigger's wall time (request to answer, which comes after the
# last push's answer), pushes per second, that ÷ the ceiling, the gateway's CPU time
# (user + system, every thread) per push during the trigger — steadier from run to
# run than the rate, which the machine's other load moves — its peak resident memory
# so far, then the stand-in's CPU time per push, the database server's (PostgreSQL's
# postmaster and backends; "-" on SQLite, which runs inside the gateway), and the
# share of the machine's CPUs none of the three used during the trigger. MODE=answer
# prints, per N: the time to the answer and to the first push at the stand-in, pushes
# per second until the last push, ÷ the ceiling, the pushes sent twice, and the peak
# memory. MODE=latency prints the p50 and p99 of client send → that push at the
# stand-in. (APNs through nginx only.)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
stand_in="${STAND_IN:-nginx}"
provider="${PROVIDER:-apns}"
fcm_stand_in="$root/../shared/bench/fcm-nginx"
connections="${CONNECTIONS:-2}"
stores="${STORES:-sqlite postgres}"
mode="${MODE:-throughput}"
rounds="${ROUNDS:-1}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a whole number from 1, not '$rounds'" >&2; exit 2; }
warmup="${WARMUP:-0}"
sealed="${SEALED:-0}"
[[ "$sealed" =~ ^[01]$ ]] || { echo "SEALED must be 0 or 1, not '$sealed'" >&2; exit 2; }
[[ "$warmup" =~ ^[0-9]+$ ]] || { echo "WARMUP must be a number of devices, not '$warmup'" >&2; exit 2; }

need=()
command -v nginx >/dev/null || need+=(nginx-light)
[ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] || need+=(libnginx-mod-http-echo)
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
"$root/scripts/install-deps"
[ -r /proc/self/schedstat ] || { echo "bench/fanout.sh reads each thread's CPU time from /proc/<pid>/task/*/schedstat, which this kernel does not give" >&2; exit 1; }

# The ceiling is the stand-in's best: h2load over the gateway's connections with 100
# and with 1,000 streams per connection, on one thread and on two; the highest rate
# wins and is printed with its setting. One setting alone (-m 1000 -t 2) was up to a
# third below the best on some CPUs (issue 48), which flattered the gateway's ratio.
# h2load's arguments (headers, payload, URL) → sets ceiling and ceiling_setting.
best_ceiling() {
    ceiling=""
    ceiling_setting=""
    local streams threads rate
    for streams in 100 1000; do
        for threads in 1 2; do
            [ "$threads" -le "$connections" ] || continue
            rate="$(h2load -n 200000 -c "$connections" -m "$streams" -t "$threads" "$@" 2>/dev/null \
                | awk '/^finished in/ {gsub(",", "", $4); print $4}')" || rate=""
            [ -n "$rate" ] || continue
            if [ -z "$ceiling" ] || awk -v a="$rate" -v b="$ceiling" 'BEGIN { exit !(a > b) }'; then
                ceiling="$rate"
                ceiling_setting="-m $streams -t $threads"
            fi
        done
    done
}
swift build --package-path "$root" -c release --product pushgate >/dev/null 2>&1
pushgate="$root/.build/release/pushgate"
if [ "$sealed" = 1 ]; then
    swift build --package-path "$root/bench/webpush-floor" --scratch-path "$root/.build-webpush-floor" -c release \
        >/dev/null 2>&1
    floor="$root/.build-webpush-floor/release/WebPushFloor"
fi

work="$(mktemp -d)"
chmod 755 "$work"  # the postgres user runs the cluster in it
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill -TERM "$(cat "$work/nginx.pid")" 2>/dev/null || true
    [ -f "$work/fcm/logs/nginx.pid" ] && FCM_PREFIX="$work/fcm" sh "$fcm_stand_in/stop.sh" >/dev/null || true
    wait 2>/dev/null || true
    [ -d "$work/postgres" ] && "$root/scripts/postgres-cluster" stop "$work/postgres" || true
    rm -rf "$work"
}
trap cleanup EXIT
source "$root/bench/lib.sh"

if [ "$provider" = fcm ]; then
    # FCM: the stand-in makes its own CA and service account (token_uri = its /token).
    fcm_port="$(free_port)"
    FCM_PREFIX="$work/fcm" FCM_PORT="$fcm_port" sh "$fcm_stand_in/start.sh" >/dev/null
    stand_in_pids="$(cat "$work/fcm/logs/nginx.pid") $(pgrep -P "$(cat "$work/fcm/logs/nginx.pid")" | tr '\n' ' ')"
    export PUSHGATE_FCM_CREDENTIALS="$work/fcm/conf/certs/service-account.json" \
        PUSHGATE_FCM_URL="https://127.0.0.1:$fcm_port" PUSHGATE_FCM_CA_FILE="$work/fcm/conf/certs/ca.crt" \
        PUSHGATE_FCM_CONNECTIONS="$connections"
    # The ceiling: h2load sends what the gateway sends (a message of the same shape
    # and size, the same headers) over the same number of connections.
    python3 - "$work/payload.json" <<'PY'
import json, sys
agent = "0" * 64
alert = {"title": "bench-agent", "body": "Benchmark reply: all tests pass."}
json.dump({"message": {
    "android": {"collapse_key": agent, "priority": "high"},
    "apns": {"headers": {"apns-collapse-id": agent, "apns-priority": "10", "apns-push-type": "alert"},
             "payload": {"aps": {"alert": alert, "content-available": 1, "sound": "default", "thread-id": agent}}},
    "data": {"cwd": "/bench/agent", "server_key": "0" * 64, "type": "reply_finished"},
    "notification": alert,
    "token": "c%010d:APA91b" % 1 + "x" * 140}}, open(sys.argv[1], "w"), separators=(",", ":"))
PY
    measure_ceiling() {
        best_ceiling -d "$work/payload.json" \
            -H 'authorization: Bearer ya29.standin-bench' -H 'content-type: application/json' \
            "https://127.0.0.1:$fcm_port/v1/projects/pushgate-standin/messages:send"
    }
else
# The provider key the gateway signs with (the stand-in does not check it).
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey_BENCH00001.p8" 2>/dev/null
export PUSHGATE_APNS_KEY_PATH="$work/AuthKey_BENCH00001.p8" PUSHGATE_APNS_KEY_ID=BENCH00001 \
    PUSHGATE_APNS_TEAM_ID=BENCHTEAM0 PUSHGATE_APNS_TOPIC=com.example.bench PUSHGATE_APNS_CONNECTIONS="$connections"

apns_port="$(free_port)"
if [ "$stand_in" = nginx ]; then
    stand_in_certificates "$work"
    mkdir -p "$work/tmp"
    access_log=off
    [ "$mode" = throughput ] || access_log="$work/access.log pushes buffer=256k flush=1s"
    sed "s#@DIR@#$work#g; s#@PORT@#$apns_port#g; s#@ACCESS_LOG@#$access_log#g" \
        "$root/bench/apns-nginx/nginx.conf.template" >"$work/nginx.conf"
    nginx -p "$work/" -c "$work/nginx.conf" -e "$work/error.log"
    export PUSHGATE_APNS_CA_FILE="$work/ca.crt"
    stand_in_pid_file="$work/nginx.pid"
    sleep 0.3
    stand_in_pid="$(cat "$stand_in_pid_file")"
    stand_in_pids="$(pgrep -P "$stand_in_pid" | tr '\n' ' ') $stand_in_pid"
else
    "$pushgate" apns-emulator --port "$apns_port" --state-directory "$work/emulator" \
        --verify-key "$PUSHGATE_APNS_KEY_PATH" --key-id BENCH00001 --team-id BENCHTEAM0 --inbox-limit 1000 \
        >"$work/emulator.log" 2>&1 &
    pids+=($!)
    stand_in_pids=$!
    wait_for "$work/emulator.log" "PUSHGATE_APNS_URL"
    export PUSHGATE_APNS_CA_FILE="$work/emulator/ca.pem"
fi
export PUSHGATE_APNS_URL="https://127.0.0.1:$apns_port"

# The ceiling: h2load sends the same requests the gateway sends (headers and a
# payload of the same size) over the same number of connections.
payload='{"aps":{"alert":{"body":"Benchmark reply: all tests pass.","title":"bench-agent"},"sound":"default"},"cwd":"/bench/agent","server_key":"0000000000000000000000000000000000000000000000000000000000000000","type":"reply_finished"}'
printf '%s' "$payload" >"$work/payload.json"
jwt="eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIMDAwMDEifQ.eyJpYXQiOjE3OTUzMjM4NzIsImlzcyI6IkJFTkNIVEVBTTAifQ.$(printf 'x%.0s' $(seq 86))"
measure_ceiling() {
    best_ceiling -d "$work/payload.json" \
        -H "authorization: bearer $jwt" -H 'apns-topic: com.example.bench' -H 'apns-push-type: alert' \
        -H 'apns-priority: 10' -H 'apns-expiration: 1895323872' -H "apns-collapse-id: $(printf '%064d' 0)" \
        -H 'apns-id: 6f1c2a8e-5b7d-4e3a-9c1f-0a2b3c4d5e6f' -H 'content-type: application/json' \
        "https://127.0.0.1:$apns_port/3/device/$(printf 'ab%.0s' $(seq 32))"
}

fi
measure_ceiling

secret="benchmark-secret-0123456789abcdefgh"
server_key="$(printf '%s' "$secret" | sha256sum | cut -d' ' -f1)"
# The answer waits for the whole first try, so that it marks the last push (but
# where the proxy's view is measured).
[ "$mode" != throughput ] || export PUSHGATE_TRIGGER_WAIT=600
# Speed is measured, not the rate limits or the caps on growth.
export PUSHGATE_RATE_PER_SECRET=0 PUSHGATE_RATE_PER_ADDRESS=0 PUSHGATE_NEW_NAMESPACES_PER_ADDRESS=0 \
    PUSHGATE_HEALTH_RATE_PER_ADDRESS=0 PUSHGATE_HEALTH_DETAILS=on \
    PUSHGATE_MAX_DEVICES_PER_AGENT=10000000 PUSHGATE_METRICS_LISTEN=off

if [[ " $stores " == *" postgres "* ]]; then
    postgres_server="$("$root/scripts/postgres-cluster" start "$work/postgres" durable)"
fi

database() { # store label → the gateway's PUSHGATE_DATABASE (a new PostgreSQL database per label)
    if [ "$1" = postgres ]; then
        psql -q "$postgres_server" -c "CREATE DATABASE \"$2\"" >/dev/null 2>&1 || true
        echo "${postgres_server%/postgres*}/$2?sslmode=disable"
    else
        echo "$work/$2.sqlite"
    fi
}

seed() { # database cwd n [first]: N device documents straight into the store (registering
         # 100,000 through the API would measure registrations, not the fan-out),
         # numbered (and their tokens) from `first`
    python3 - "$1" "$server_key" "$2" "$3" "$provider" "${4:-0}" "$sealed" <<'PY'
import hashlib, json, sqlite3, subprocess, sys
db, server_key, cwd, n, provider = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
first = int(sys.argv[6])
# SEALED=1: RFC 8291's example receiver keys on every device (each push still gets
# its own ephemeral key and salt, as it would for keys of its own).
keys = ({"payloadKeys": {"p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                         "auth": "BTBZMqHH6r4Tts7J_aSIgg"}} if sys.argv[7] == "1" else {})
# FCM registration tokens are ~160 characters: "<instance id>:APA91b<…>".
token_field = "fcmToken" if provider == "fcm" else "apnsToken"
token = (lambda i: "c%010d:APA91b" % i + "x" * 140) if provider == "fcm" else (lambda i: f"{i:064x}")
agent_key = hashlib.sha256(cwd.encode()).hexdigest()
parent = f"servers/{server_key}/agents/{agent_key}/devices"
now = "2026-11-22T00:00:00.000Z"
rows = [(f"{parent}/device-{i:06d}", parent, "devices", f"device-{i:06d}",
         json.dumps({token_field: token(i), "platform": "ios", "createdAt": now, "updatedAt": now, **keys}))
        for i in range(first, first + n)]
# The server and agent documents a registration makes: a trigger reaches only a registered namespace.
rows.append((f"servers/{server_key}", "servers", "servers", server_key, json.dumps({"createdAt": now, "lastSeenAt": now})))
rows.append((f"servers/{server_key}/agents/{agent_key}", f"servers/{server_key}/agents", "agents", agent_key,
             json.dumps({"cwd": cwd, "createdAt": now, "updatedAt": now})))
if db.startswith("postgres://"):
    # Through a scratch table: the server and agent documents may be there already.
    # Then the statistics autovacuum would gather within a minute of a bulk load:
    # without them PostgreSQL reads a whole agent to return each page of it.
    columns = "(path, parent, collection_id, document_id, fields)"
    text = "".join("\t".join(row) + "\n" for row in rows)
    subprocess.run(["psql", "-q", db, "-c", "CREATE TEMP TABLE seed (LIKE documents INCLUDING DEFAULTS)",
                    "-c", f"\\copy seed {columns} from stdin",
                    "-c", f"INSERT INTO documents {columns} SELECT {columns[1:-1]} FROM seed ON CONFLICT DO NOTHING",
                    "-c", "ANALYZE documents"],
                   input=text, text=True, check=True)
else:
    c = sqlite3.connect(db, timeout=30)
    c.executemany("INSERT OR REPLACE INTO documents (path, parent, collection_id, document_id, fields) VALUES (?,?,?,?,?)", rows)
    c.commit()
PY
}

pending() { # database → deliveries pending in its outbox
    if [[ "$1" == postgres://* ]]; then
        psql -Atq "$1" -c "select count(*) from outbox_deliveries where state = 'pending'"
    else
        python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from outbox_deliveries where state=\"pending\"").fetchone()[0])' "$1"
    fi
}

start_gateway() { # binary label database → sets gateway_pid, gateway_port
    gateway_port="$(free_port)"
    "$1" serve --port "$gateway_port" --database "$3" >>"$work/$2.log" 2>&1 &
    gateway_pid=$!
    pids+=("$gateway_pid")
    wait_for "$work/$2.log" "listening on 127.0.0.1:$gateway_port"
}

open_gateway() { # binary label store → a gateway on a new database of that store (one per round); sets db
    db="$(database "$3" "$2-$round")"
    start_gateway "$1" "$2" "$db"
}

stop_gateway() { kill -TERM "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true; }

# The machine's CPU is shared by three: the gateway, the stand-in, and (on PostgreSQL)
# the database server, whose postmaster and backends are counted.
database_pids() { # store
    [ "$1" = postgres ] || return 0
    local postmaster
    postmaster="$(head -n 1 "$work/postgres/data/postmaster.pid")"
    echo "$postmaster" $(pgrep -P "$postmaster")
}
machine_cpu_snapshot() { # suffix store
    cpu_snapshot "$work/cpu-gateway-$1" "$gateway_pid"
    cpu_snapshot "$work/cpu-stand-in-$1" $stand_in_pids
    cpu_snapshot "$work/cpu-database-$1" $(database_pids "$2")
}

trigger() { # cwd [extra JSON] → prints the answer
    curl -s --max-time 600 "http://127.0.0.1:$gateway_port/triggerReplyFinished" \
        -H "Authorization: Bearer $secret" -H 'Content-Type: application/json' \
        -d "{\"cwd\": \"$1\", \"message_preview\": \"Benchmark reply: all tests pass.\"${2:-}}"
}

profile_start() { # name: perf on the gateway until profile_stop, when PROFILE names a directory
    [ -n "${PROFILE:-}" ] || return 0
    mkdir -p "$PROFILE"
    perf record -F "${PROFILE_FREQUENCY:-999}" ${PROFILE_CALL_GRAPH:+--call-graph "$PROFILE_CALL_GRAPH"} -g \
        $([ "${PROFILE_ALL:-0}" = 1 ] && echo -a || echo -p "$gateway_pid") -o "$PROFILE/$1.perf.data" 2>/dev/null &
    perf_pid=$!
    sleep 0.5  # perf attaches to every thread before the trigger starts
}
profile_stop() { [ -z "${PROFILE:-}" ] || { kill -INT "$perf_pid"; wait "$perf_pid" || true; }; }

measure() { # binary label store: one trigger per size; prints a row each
    open_gateway "$@"
    if [ "$warmup" -gt 0 ]; then
        seed "$db" "/bench/warmup" "$warmup"
        trigger "/bench/warmup" >/dev/null
    fi
    for n in "${sizes[@]}"; do
        cwd="/bench/agent-$n"
        seed "$db" "$cwd" "$n"
        profile_start "$2-$n"
        machine_cpu_snapshot before "$3"
        start=$(date +%s.%N)
        answer="$(trigger "$cwd")"
        end=$(date +%s.%N)
        machine_cpu_snapshot after "$3"
        profile_stop
        delivered="$(printf '%s' "$answer" | python3 -c 'import json,sys; a=json.load(sys.stdin); print(a["success_count"])')"
        rss_kb="$(awk '/VmHWM/ {print $2}' "/proc/$gateway_pid/status")"
        awk -v l="$2" -v n="$n" -v s="$start" -v e="$end" -v c="${ceiling:-0}" -v d="$delivered" -v r="$rss_kb" \
            -v cpu="$(cpu_seconds "$work/cpu-gateway-before" "$work/cpu-gateway-after")" \
            -v stand_in="$(cpu_seconds "$work/cpu-stand-in-before" "$work/cpu-stand-in-after")" \
            -v database="$(cpu_seconds "$work/cpu-database-before" "$work/cpu-database-after")" \
            -v store="$3" -v cores="$(nproc)" -v rows="$work/rows" 'BEGIN {
            t = e - s; rate = n / t
            db = (store == "postgres" ? sprintf("%.1f", database / n * 1e6) : "-")
            idle = 100 * (1 - (cpu + stand_in + database) / (t * cores))
            printf "%-18s %10d %12.3f %14.0f %10s %10d %12.1f %10.1f MiB %9.1f %9s %5.0f %%\n", l, n, t, rate, (c > 0 ? sprintf("%.2f", rate / c) : "n/a"), d, cpu / n * 1e6, r / 1024, stand_in / n * 1e6, db, idle
            printf "%s %d %.4f %.2f %.2f %s %.1f\n", l, n, (c > 0 ? rate / c : 0), cpu / n * 1e6, stand_in / n * 1e6, db, idle >> rows }'
        if [ "$sealed" = 1 ]; then
            # A sealed reply's plaintext ({"title","body","data"}) is some 330 bytes here.
            awk -v f="$("$floor" 330 20000 | awk '{print $1}')" -v n="$n" \
                -v cpu="$(cpu_seconds "$work/cpu-gateway-before" "$work/cpu-gateway-after")" \
                'BEGIN { printf "%-18s sealing floor %.1f µs a push; gateway CPU per push ÷ floor %.2f\n", "", f, cpu / n * 1e6 / f }'
        fi
    done
    stop_gateway
}

pushes_logged() { wc -l <"$work/access.log"; }
new_access_log() { # empties the stand-in's log once what it buffered (the ceiling's requests) is written
    sleep 1.2
    : >"$work/access.log"
}

measure_answer() { # binary label store: one trigger per size as the proxy sends it; prints a row each
    open_gateway "$@"
    for n in "${sizes[@]}"; do
        cwd="/bench/answer-$n"
        seed "$db" "$cwd" "$n"
        new_access_log
        start=$(date +%s.%N)
        trigger "$cwd" >/dev/null
        answered=$(date +%s.%N)
        # Every push logged, or none for 10 s (some never came).
        last=-1 still=0
        while [ "$still" -lt 100 ]; do
            count="$(pushes_logged)"
            [ "$count" -ge "$n" ] && sleep 2 && break  # and whatever comes twice after it
            if [ "$count" = "$last" ]; then still=$((still + 1)); else still=0 last="$count"; fi
            sleep 0.1
        done
        sleep 1.2  # nginx writes its log buffer every second
        rss_kb="$(awk '/VmHWM/ {print $2}' "/proc/$gateway_pid/status")"
        python3 - "$work/access.log" "$2" "$n" "$start" "$answered" "${ceiling:-0}" "$rss_kb" <<'PY'
import sys
log, label, n, start, answered, ceiling, rss_kb = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:])
times, tokens = [], set()
for line in open(log):
    msec, token = line.split()
    times.append(float(msec))
    tokens.add(token)
first, last = min(times), max(times)
rate = len(tokens) / (last - start)
print(f"{label:<18} {n:>10} {answered - start:>10.3f} {first - start:>12.3f} {rate:>12.0f} "
      f"{(f'{rate / ceiling:.2f}' if ceiling else 'n/a'):>9} {len(tokens):>10} {len(times) - len(tokens):>8} "
      f"{rss_kb / 1024:>9.1f} MiB")
PY
    done
    stop_gateway
}

measure_latency() { # binary label store: 300 triggers to single-device agents, one after another
    open_gateway "$@"
    for i in $(seq 0 299); do seed "$db" "/bench/latency-$i" 1 "$i"; done
    new_access_log
    python3 - "$gateway_port" "$secret" "$work/sends" <<'PY'
import http.client, json, sys, time
port, secret, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
connection = http.client.HTTPConnection("127.0.0.1", port)
with open(out, "w") as sends:
    for i in range(300):
        body = json.dumps({"cwd": f"/bench/latency-{i}", "message_preview": "Benchmark reply: all tests pass."})
        sent = time.time()
        connection.request("POST", "/triggerReplyFinished", body,
                           {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"})
        connection.getresponse().read()
        sends.write(f"{i:064x} {sent}\n")
        time.sleep(0.01)
PY
    sleep 1.5
    python3 - "$work/access.log" "$work/sends" "$2" <<'PY'
import statistics, sys
pushed = {}
for line in open(sys.argv[1]):
    msec, token = line.split()
    pushed.setdefault(token, float(msec))
sent = dict(line.split() for line in open(sys.argv[2]))
latencies = sorted((pushed[token] - float(at)) * 1000 for token, at in sent.items() if token in pushed)
p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
print(f"{sys.argv[3]:<18} {len(latencies):>6} of {len(sent)} pushed   p50 {statistics.median(latencies):6.1f} ms   p99 {p99:6.1f} ms")
PY
    stop_gateway
}

printf '\nprovider: %s, stand-in: %s, gateway: %s connections, ceiling (h2load, same requests, %s connections, best of -m 100|1000 -t 1|2: %s): %s requests/s\n\n' \
    "$provider" "$stand_in" "$connections" "$connections" "${ceiling_setting:-n/a}" "${ceiling:-n/a}"
case "$mode" in
throughput)
    printf '%-18s %10s %12s %14s %10s %10s %12s %14s %9s %9s %7s\n' "build / store" devices "trigger (s)" "pushes/s" "÷ ceiling" delivered \
        "CPU µs/push" "peak RSS" "stand-in" database idle ;;
answer)
    printf '%-18s %10s %10s %12s %12s %9s %10s %8s %13s\n' "build / store" devices "answer (s)" "1st push (s)" \
        "pushes/s" "÷ ceiling" devices twice "peak RSS" ;;
latency) ;;
*) echo "MODE must be throughput, answer or latency, not '$mode'" >&2; exit 2 ;;
esac
[ "$mode" = throughput ] || [ "$provider$stand_in" = apnsnginx ] \
    || { echo "MODE=$mode needs the nginx APNs stand-in" >&2; exit 2; }
run() { # binary label store
    case "$mode" in
    throughput) measure "$@" ;;
    answer) measure_answer "$@" ;;
    latency) measure_latency "$@" ;;
    esac
}

# BASELINE=<git revision>: the same benchmark on that revision's build, in the same
# run, on each store just before the current build.
# BASELINE_BINARY=<path>: a gateway built already (a variant being tried) instead.
if [ -n "${BASELINE_BINARY:-}" ]; then
    baseline="$BASELINE_BINARY"
    BASELINE="$BASELINE_BINARY"
elif [ -n "${BASELINE:-}" ]; then
    baseline="$("$root/bench/build-baseline.sh" "$BASELINE")"
fi
# ROUNDS=K: the whole comparison K times, each round after a ceiling of its own;
# then the median per build and size, which one disturbed round does not move.
round=1
for round in $(seq "$rounds"); do
    if [ "$round" -gt 1 ]; then
        measure_ceiling
        printf 'round %d, ceiling: %s requests/s (%s)\n' "$round" "${ceiling:-n/a}" "${ceiling_setting:-n/a}"
    fi
    for store in $stores; do
        [ -z "${BASELINE:-}" ] || run "$baseline" "baseline-$store" "$store"
        run "$pushgate" "current-$store" "$store"
    done
done
if [ "$rounds" -gt 1 ] && [ "$mode" = throughput ]; then
    printf '\nmedian of %d rounds:\n%-18s %10s %10s %12s %9s %9s %7s\n' "$rounds" "build / store" devices "÷ ceiling" \
        "CPU µs/push" "stand-in" database idle
    python3 - "$work/rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, n, *figures = line.split()
    rows.setdefault((label, int(n)), []).append(figures)
def median(values, column, form):
    column = [float(v[column]) for v in values if v[column] != "-"]
    return form.format(statistics.median(column)) if column else "-"
for (label, n), values in rows.items():
    ratios = ", ".join(f"{float(v[0]):.2f}" for v in values)
    print(f"{label:<18} {n:>10} {median(values, 0, '{:.2f}'):>10} {median(values, 1, '{:.1f}'):>12} "
          f"{median(values, 2, '{:.1f}'):>9} {median(values, 3, '{:.1f}'):>9} {median(values, 4, '{:.0f}'):>5} %"
          f"   (rounds: {ratios})")
PY
fi

# Recovery: kill -9 the gateway right after it accepted a 20,000-device trigger,
# start it again, and time until the outbox is empty (the lease must run out first).
if [ "${RECOVERY:-1}" = 1 ] && [ "$mode" = throughput ]; then
    lease="${PUSHGATE_OUTBOX_LEASE:-15}"
    echo
    for store in $stores; do
        db="$(database "$store" "recovery-$store")"
        start_gateway "$pushgate" "recovery-$store" "$db"
        seed "$db" /bench/recovery 20000
        trigger /bench/recovery ', "wait": false' >/dev/null
        sleep 0.2
        kill -KILL "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true
        killed=$(date +%s.%N)
        left="$(pending "$db")"
        start_gateway "$pushgate" "recovery-$store" "$db"
        until [ "$(curl -s "http://127.0.0.1:$gateway_port/healthz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["outbox"]["pending"])')" = 0 ]; do
            sleep 0.1
        done
        done_at=$(date +%s.%N)
        stop_gateway
        awk -v s="$store" -v k="$killed" -v d="$done_at" -v l="$lease" -v p="$left" 'BEGIN {
            printf "recovery (%s): %d of 20000 deliveries pending at the kill; all delivered %.1f s after it (lease %d s)\n", s, p, d - k, l }'
    done
fi
