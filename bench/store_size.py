"""What a device and a kept delivery cost on disk, on SQLite and on PostgreSQL.

    python3 bench/store_size.py [--pushgate .build/release/pushgate] [--devices 5000]
                                [--triggers 500] [--fan-out 100] [--stores sqlite postgres]

For each store: a release-built gateway on a new database, the FCM emulator as the
push service (the seed's app registers FCM tokens: 163 characters here, as Firebase
issues them). Registers --devices devices through the API (one agent each, as phones
of different users), measuring the store before and after; then --fan-out devices of
one agent, measuring again; then sends --triggers triggerReplyFinished to that agent
(each push delivered, then kept for the retention period, 7 days), measuring again.
Prints bytes per device (of an agent that exists), per agent with its one device, and
per kept delivery (its share of its notification included), and the CPU model.

The store's size: SQLite's pages in use (page_count - freelist_count, the
write-ahead log's pages counted where they belong), PostgreSQL's tables with their
indexes and TOAST (pg_total_relation_size) after a plain VACUUM, as a running
server holds them (space freed by the deliveries' updates is reused, not returned).
"""

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "ha"))
from ha_parts import (ROOT, Emulator, Gateway, SingleServer, cpu_model, database, psql,  # noqa: E402
                      stop_on_sigterm)

FAN_OUT_CWD = "/srv/agents/fan-out"


def fcm_token(index):
    """163 characters, as Firebase's registration tokens are: an instance id, a colon, 140 more."""
    head = f"{index:022x}"[:22]
    return head + ":APA91b" + (f"{index:08x}" * 18)[:134]


def store_bytes(url):
    """Bytes the store holds (see the module's description)."""
    if url.startswith("postgres://"):
        subprocess.run([psql(), "-qAtX", url, "-c", "VACUUM"], check=True, capture_output=True)
        out = subprocess.run([psql(), "-qAtX", url, "-c",
                              "SELECT sum(pg_total_relation_size(relid)) FROM pg_stat_user_tables"],
                             check=True, capture_output=True, text=True)
        return int(out.stdout.strip() or 0)
    connection = sqlite3.connect(f"file:{url}?mode=ro", uri=True)
    try:
        size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        free = connection.execute("PRAGMA freelist_count").fetchone()[0]
        return (pages - free) * size
    finally:
        connection.close()


def call(gateway, path, body):
    status, text, _ = gateway.call(path, body, timeout=60)
    if status != 200:
        raise RuntimeError(f"{path} answered {status}: {text[:300]}")
    return json.loads(text)


def measure(label, url, pushgate, emulator, work, arguments):
    gateway = Gateway(pushgate, url, emulator, os.path.join(work, f"gateway-{label}.log"))
    try:
        empty = store_bytes(url)
        for n in range(arguments.devices):
            call(gateway, "/registerSubscription", {
                "cwd": f"/srv/agents/agent-{n}", "installation_id": f"phone-{n:06d}", "fcm_token": fcm_token(n),
                "platform": "android", "agent_display_name": f"Agent {n}"})
        registered = store_bytes(url)
        for n in range(arguments.fan_out):
            call(gateway, "/registerSubscription", {
                "cwd": FAN_OUT_CWD, "installation_id": f"fan-{n:06d}", "fcm_token": fcm_token(10_000_000 + n),
                "platform": "android"})
        before = store_bytes(url)
        for n in range(arguments.triggers):
            answer = call(gateway, "/triggerReplyFinished", {
                "cwd": FAN_OUT_CWD, "message_preview": f"Run {n} finished: all 214 tests pass, the build is green.",
                "conversation_id": f"conversation-{n}"})
            if answer.get("success_count") != arguments.fan_out:
                raise RuntimeError(f"a trigger did not deliver to every device: {answer}")
        time.sleep(1)  # the last outcomes recorded
        after = store_bytes(url)
    finally:
        gateway.stop()
    return {
        "store": label,
        "agent": (registered - empty) / arguments.devices,
        "device": (before - registered) / arguments.fan_out,
        "delivery": (after - before) / (arguments.triggers * arguments.fan_out),
        "bytes": after,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushgate", default=os.path.join(ROOT, ".build", "release", "pushgate"))
    parser.add_argument("--devices", type=int, default=5_000)
    parser.add_argument("--triggers", type=int, default=500)
    parser.add_argument("--fan-out", type=int, default=100)
    parser.add_argument("--stores", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    arguments = parser.parse_args()
    stop_on_sigterm()
    if not os.path.exists(arguments.pushgate):
        subprocess.run(["swift", "build", "--package-path", ROOT, "-c", "release", "--product", "pushgate"],
                       check=True)
    pushgate = os.path.abspath(arguments.pushgate)
    work = tempfile.mkdtemp(prefix="pushgate-store-size.")
    emulator = Emulator(pushgate, os.path.join(work, "emulator"), "--inbox-limit", "1000", service="fcm")
    server = None
    rows = []
    try:
        for store in arguments.stores:
            if store == "postgres":
                server = server or SingleServer()
                url = database(server.url, "store_size")
            else:
                url = os.path.join(work, "pushgate.sqlite")
            rows.append(measure(store, url, pushgate, emulator, work, arguments))
    finally:
        emulator.stop()
        if server:
            server.stop()
    print(f"\n{arguments.devices} devices (FCM tokens, 163 characters), then {arguments.triggers} triggers to "
          f"{arguments.fan_out} devices ({arguments.triggers * arguments.fan_out} deliveries kept); CPU: {cpu_model()}")
    print("| store | bytes a device | bytes an agent with its one device | bytes a kept delivery | store at the end |")
    print("|---|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['store']} | {row['device']:,.0f} | {row['agent']:,.0f} | {row['delivery']:,.0f} "
              f"| {row['bytes'] / 2**20:,.1f} MiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
