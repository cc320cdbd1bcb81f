#!/usr/bin/env bash
# What PostgreSQL spends storing a fan-out's tried pages, apart from the gateway: the
# database server's own time for 200 pages of 500 deliveries (100,000), each page one
# statement and one fsync'd commit, as the gateway stores them (issue 48).
#
#   bench/postgres-pages.sh            PAGES=200 ROUNDS=3 TOKENS=fcm|apns
#
# Three ways, each timed from psql on a throw-away cluster (fsync on), median of the
# rounds, the rows made by generate_series inside the server (no client in the way):
#   generate only    the page's rows made and counted, nothing stored (subtracted below)
#   one row each     `outbox_deliveries` as the migrations in store/postgres make it:
#                    the layout the gateway stores today
#   one row a page   an experiment, not a layout the gateway has: the page's
#                    installations, kinds, tokens and push ids as four arrays in one row
#                    (stored uncompressed, EXTERNAL: pglz on 100 KB rows costs more)
# Prints each one's µs a delivery, net of the generation, and the page row ÷ the rows.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pages="${PAGES:-200}"
rounds="${ROUNDS:-3}"
tokens="${TOKENS:-fcm}"
[[ "$pages" =~ ^[1-9][0-9]*$ ]] || { echo "PAGES must be a whole number from 1, not '$pages'" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a whole number from 1, not '$rounds'" >&2; exit 2; }
case "$tokens" in
fcm) token_sql="'fcm', 'fcmtoken' || md5(g::text) || md5((g + 1)::text) || md5((g + 2)::text) || md5((g + 3)::text) || ':' || g" ;;
apns) token_sql="'apns', md5(g::text) || md5((g + 1)::text)" ;;
*) echo "TOKENS must be fcm or apns, not '$tokens'" >&2; exit 2 ;;
esac

"$root/scripts/install-deps" --test
work="$(mktemp -d)"
chmod 755 "$work"  # the postgres user runs the cluster in it
cluster="$work/cluster"
trap '"$root/scripts/postgres-cluster" stop "$cluster" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
url="$("$root/scripts/postgres-cluster" start "$cluster" durable)"
sql() { psql "$url" -q -v ON_ERROR_STOP=1 "$@"; }
for migration in "$root"/store/postgres/*.sql; do sql -f "$migration" >/dev/null; done
sql -c "INSERT INTO outbox_notifications (id, server_key, agent_key, content, created_at, expires_at)
        VALUES ('n-bench', 's', 'a', '{}', 0, 0)"
sql -c 'CREATE TABLE page_rows (
            notification_id TEXT NOT NULL, first_installation_id TEXT COLLATE "C" NOT NULL,
            last_installation_id TEXT COLLATE "C" NOT NULL, finished_at BIGINT NOT NULL,
            installation_ids TEXT[] NOT NULL, token_kinds TEXT[] NOT NULL, tokens TEXT[] NOT NULL,
            push_ids TEXT[] NOT NULL, PRIMARY KEY (notification_id, first_installation_id));
        ALTER TABLE page_rows ALTER installation_ids SET STORAGE EXTERNAL, ALTER token_kinds SET STORAGE EXTERNAL,
            ALTER tokens SET STORAGE EXTERNAL, ALTER push_ids SET STORAGE EXTERNAL'

# One statement a page: its 500 deliveries as rows (installation, kind, token, push id).
page_rows() { # page
    echo "SELECT 'install-' || lpad(g::text, 8, '0') AS i, $token_sql AS t, gen_random_uuid()::text AS u
          FROM generate_series($(($1 * 500)), $(($1 * 500 + 499))) AS g"
}
for page in $(seq 0 $((pages - 1))); do
    echo "SELECT count(*) FROM ($(page_rows "$page")) AS page (i, k, t, u);" >>"$work/generate.sql"
    echo "INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, state,
              attempts, enqueued_at, next_attempt_at, finished_at)
          SELECT 'n-bench', i, k, t, u, 'delivered', 1, 0, 0, 1 FROM ($(page_rows "$page")) AS page (i, k, t, u);" \
        >>"$work/rows.sql"
    echo "INSERT INTO page_rows SELECT 'n-bench', min(i), max(i), 1, array_agg(i ORDER BY i), array_agg(k ORDER BY i),
              array_agg(t ORDER BY i), array_agg(u ORDER BY i) FROM ($(page_rows "$page")) AS page (i, k, t, u);" \
        >>"$work/pages.sql"
done

timed() { # script table → seconds, the table emptied and a checkpoint first
    [ -z "$2" ] || sql -c "TRUNCATE $2"
    sql -c CHECKPOINT
    local start end
    start=$(date +%s.%N)
    sql -f "$1" >/dev/null
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f\n", e - s }'
}

for round in $(seq 1 "$rounds"); do
    echo "generate $(timed "$work/generate.sql" "")" >>"$work/times"
    echo "rows $(timed "$work/rows.sql" outbox_deliveries)" >>"$work/times"
    echo "pages $(timed "$work/pages.sql" page_rows)" >>"$work/times"
done

echo "PostgreSQL $(psql "$url" -Atc 'SHOW server_version'), $pages pages of 500 $tokens deliveries, median of $rounds rounds"
python3 - "$work/times" "$pages" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    name, seconds = line.split()
    times.setdefault(name, []).append(float(seconds))
deliveries = int(sys.argv[2]) * 500
generate = statistics.median(times["generate"])
net = {name: (statistics.median(times[name]) - generate) / deliveries * 1e6 for name in ("rows", "pages")}
print(f"{'generate only':16s} {generate:8.3f} s")
for name, label in (("rows", "one row each"), ("pages", "one row a page")):
    print(f"{label:16s} {statistics.median(times[name]):8.3f} s  {net[name]:6.2f} µs a delivery (net)")
print(f"one row a page ÷ one row each: {net['pages'] / net['rows']:.2f}")
PY
