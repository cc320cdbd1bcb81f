#!/usr/bin/env bash
# Backup, export and import of a big store: N devices (default 1,000,000, under 100
# agents, half with APNs tokens, half with FCM tokens) seeded into a SQLite store, then
# timed with the peak resident memory of each command:
#
#   backup   pushgate backup of the SQLite store
#   export   SQLite → dump (JSON Lines)
#   import   dump → a new SQLite store, and → PostgreSQL (fsync on)
#   export   PostgreSQL → dump, checked equal to the first (but for the header)
#
# beside the bare bulk load of the same rows into each database in the same run
# (Python's sqlite3 executemany in one transaction; psql \copy), so each import
# prints as a ratio of what the database itself takes.
#
#   bench/transfer.sh [N]
#   STORES=sqlite bench/transfer.sh      skip PostgreSQL
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
devices="${1:-1000000}"
stores="${STORES:-sqlite postgres}"

command -v /usr/bin/time >/dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
}
"$root/scripts/install-deps" $([[ " $stores " == *" postgres "* ]] && echo --test)
swift build --package-path "$root" -c release --product pushgate >/dev/null 2>&1
pushgate="$root/.build/release/pushgate"

work="$(mktemp -d)"
chmod 755 "$work"  # the postgres user runs the cluster in it
cleanup() {
    [ -d "$work/postgres" ] && "$root/scripts/postgres-cluster" stop "$work/postgres" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

secret="transfer-benchmark-secret-0123456789"
server_key="$(printf '%s' "$secret" | sha256sum | cut -d' ' -f1)"
header='{"pushgate_dump":1,"exported_at":"2026-01-01T00:00:00.000Z"}'

if [[ " $stores " == *" postgres "* ]]; then
    postgres_server="$("$root/scripts/postgres-cluster" start "$work/postgres" durable)"
fi
database() { # store name → a new, empty store (its schema made by importing an empty dump)
    local url
    if [ "$1" = postgres ]; then
        psql -q "$postgres_server" -c "CREATE DATABASE \"$2\"" >/dev/null
        url="${postgres_server%/postgres*}/$2?sslmode=disable"
    else
        url="$work/$2.sqlite"
    fi
    echo "$header" | "$pushgate" import --database "$url" >/dev/null
    echo "$url"
}

# The documents registrations would have made, as TSV rows of the documents table.
python3 - "$work/rows.tsv" "$server_key" "$devices" <<'PY'
import hashlib, json, sys
out, server_key, devices = sys.argv[1], sys.argv[2], int(sys.argv[3])
now = "2026-11-22T00:00:00.000Z"
agents = 100
with open(out, "w") as f:
    def row(path, fields):
        parent, _, document_id = path.rpartition("/")
        f.write("\t".join((path, parent, parent.rpartition("/")[2], document_id,
                           json.dumps(fields, separators=(",", ":")))) + "\n")
    row(f"servers/{server_key}", {"createdAt": now, "lastSeenAt": now})
    for a in range(agents):
        cwd = f"/srv/bench/agent-{a:03d}"
        agent = f"servers/{server_key}/agents/{hashlib.sha256(cwd.encode()).hexdigest()}"
        row(agent, {"cwd": cwd, "agentDisplayName": f"agent {a}", "createdAt": now, "updatedAt": now})
        for i in range(a, devices, agents):
            token = {"apnsToken": f"{i:064x}"} if i % 2 == 0 else {"fcmToken": "c%010d:APA91b" % i + "x" * 140}
            row(f"{agent}/devices/install-{i:07d}",
                {**token, "platform": "ios" if i % 2 == 0 else "android", "appVersion": "2.4.1",
                 "createdAt": now, "updatedAt": now})
PY
records=$(wc -l < "$work/rows.tsv")

bulk_sqlite() { # file: the rows in one executemany transaction; prints seconds
    python3 - "$1" "$work/rows.tsv" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=FULL")
rows = (line.rstrip("\n").split("\t") for line in open(sys.argv[2]))
start = time.monotonic()
db.executemany("INSERT INTO documents (path, parent, collection_id, document_id, fields) VALUES (?,?,?,?,?)", rows)
db.commit()
print(f"{time.monotonic() - start:.2f}")
PY
}

bulk_postgres() { # url: the rows through \copy; prints seconds
    local start end
    start=$(date +%s.%N)
    psql -q "$1" -c "\\copy documents (path, parent, collection_id, document_id, fields) from '$work/rows.tsv'"
    end=$(date +%s.%N)
    echo "$start $end" | awk '{printf "%.2f\n", $2 - $1}'
}

printf '%-34s %10s %9s %11s %10s %8s\n' step records seconds records/s "peak RSS" "÷ bulk"
report() { # step seconds rss_kb [bulk_seconds]
    local ratio="-"
    [ -n "${4:-}" ] && ratio=$(awk -v s="$2" -v b="$4" 'BEGIN { printf "%.2f", b / s }')
    awk -v step="$1" -v n="$records" -v s="$2" -v kb="$3" -v r="$ratio" \
        'BEGIN { rss = kb > 0 ? sprintf("%7.0f MB", kb / 1024) : "         -"
                 printf "%-34s %10d %9.2f %11.0f %s %8s\n", step, n, s, n / s, rss, r }'
}
measure() { # step bulk_seconds command…: runs it under /usr/bin/time, reports
    local step="$1" bulk="$2"
    shift 2
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
        cat "$work/stderr" >&2
        exit 1
    }
    read -r seconds rss < "$work/time"
    report "$step" "$seconds" "$rss" "$bulk"
}

source_db="$(database sqlite source)"
seeded=$(bulk_sqlite "$source_db")
report "bulk load: SQLite (executemany)" "$seeded" 0  # in Python: no RSS of ours
measure "pushgate backup (SQLite)" "" "$pushgate" backup --database "$source_db" --to "$work/backup.sqlite"
measure "pushgate export (SQLite)" "" "$pushgate" export --database "$source_db" --to "$work/dump.jsonl"
ls -l "$work/dump.jsonl" | awk '{ printf "  dump: %.0f MB\n", $5 / 1048576 }'
measure "pushgate import (SQLite)" "$seeded" "$pushgate" import --database "$(database sqlite target)" "$work/dump.jsonl"

if [[ " $stores " == *" postgres "* ]]; then
    bulk_url="$(database postgres bulk)"
    copied=$(bulk_postgres "$bulk_url")
    report "bulk load: PostgreSQL (\\copy)" "$copied" 0
    target_url="$(database postgres target)"
    measure "pushgate import (PostgreSQL)" "$copied" "$pushgate" import --database "$target_url" "$work/dump.jsonl"
    measure "pushgate export (PostgreSQL)" "" "$pushgate" export --database "$target_url" --to "$work/again.jsonl"
    if cmp -s <(tail -n +2 "$work/dump.jsonl") <(tail -n +2 "$work/again.jsonl"); then
        echo "  the PostgreSQL export equals the SQLite one"
    else
        echo "  the PostgreSQL export DIFFERS from the SQLite one" >&2
        exit 1
    fi
fi
