"""A long steady run of mixed load: does the gateway stay flat?

    python3 bench/steady.py [--minutes 30] [--store sqlite|postgres] [--report-every 60]
                            [--disk-mb N --min-free-mb M]

A release-built gateway with the APNs emulator as the push service (a small inbox, so
the emulator's memory stays put), phones of --agents agents registered first, then
for --minutes, each kind of call at its own steady rate from threads of its own,
with the seed proxy's 2.5 s time-out:

- registerSubscription: a phone registers again with a new token (token rotation);
  --dead-share of the new tokens are dead (the emulator answers 410 Unregistered, the
  gateway deletes the device, and the phone registers again later);
- triggerReplyFinished to a random agent;
- triggerEvent approval_requested, and resolveEvent for it 5 to 30 s later;
- heartbeat from one of 20 sources.

Every --report-every seconds it prints one row: the gateway's resident memory, the
store's bytes on disk (SQLite: the database file and its log; PostgreSQL:
pg_database_size), the deliveries still due, and per kind the calls made, those not
answered 2xx within 2.5 s, and the p50 / p99 / max latency in ms. At the end: the
first and last rows side by side, the store's growth a minute, and the CPU model.

With --disk-mb (SQLite only), the store lives on a tmpfs of that size that only the
gateway sees (`unshare --mount`; needs root), with PUSHGATE_STORE_MIN_FREE_MB set to
--min-free-mb: the store's size then stops growing once the oldest history makes
room for the new.
"""

import argparse
import collections
import hashlib
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "ha"))
from ha_parts import (PROXY_TIMEOUT, ROOT, SECRET, Emulator, Gateway, SingleServer, cpu_model, database,  # noqa: E402
                      psql, stop_on_sigterm)

KINDS = ["register", "trigger", "approval", "resolve", "heartbeat"]


def health(gateway):
    connection = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=5)
    connection.request("GET", "/healthz")
    return json.loads(connection.getresponse().read())


class Caller(threading.Thread):
    """Calls of one kind at `rate` a second, from `workers` threads each with its own
    kept-alive connection; records (kind, ok, ms) into `log`."""

    def __init__(self, port, kind, rate, make_call, log, stopping, workers=4):
        super().__init__(daemon=True)
        self.port, self.kind, self.rate, self.make_call = port, kind, rate, make_call
        self.log, self.stopping, self.workers = log, stopping, workers
        self.slot = 0
        self.lock = threading.Lock()
        self.started = time.monotonic()

    def next_slot(self):
        with self.lock:
            self.slot += 1
            return self.started + self.slot / self.rate

    def run(self):
        threads = [threading.Thread(target=self.work, daemon=True) for _ in range(self.workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def work(self):
        connection = None
        while not self.stopping.is_set():
            due = self.next_slot()
            wait = due - time.monotonic()
            if wait > 0 and self.stopping.wait(wait):
                return
            call = self.make_call()
            if call is None:
                continue
            path, body = call
            started = time.monotonic()
            ok = False
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=PROXY_TIMEOUT)
                connection.request("POST", path, body=json.dumps(body), headers={
                    "Authorization": f"Bearer {SECRET}", "Content-Type": "application/json"})
                answer = connection.getresponse()
                answer.read()
                ok = 200 <= answer.status < 300
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = None
            self.log.append((self.kind, ok, (time.monotonic() - started) * 1000))


class Phones:
    """The phones and their tokens; approvals waiting to be resolved."""

    def __init__(self, agents, devices_per_agent, dead_share):
        self.agents = [f"/srv/agents/steady-{n:04d}" for n in range(agents)]
        self.phones = [(agent, f"phone-{a:04d}-{d}") for a, agent in enumerate(self.agents)
                       for d in range(devices_per_agent)]
        self.dead_share = dead_share
        self.serial = 0
        self.lock = threading.Lock()
        self.approvals = collections.deque()

    def token(self):
        with self.lock:
            self.serial += 1
            serial = self.serial
        digest = hashlib.sha256(str(serial).encode()).hexdigest()
        return ("dead" + digest[4:]) if random.random() < self.dead_share else digest

    def registration(self, phone):
        agent, installation = phone
        return "/registerSubscription", {"cwd": agent, "installation_id": installation, "apns_token": self.token(),
                                         "platform": "ios"}

    def rotation(self):
        return self.registration(random.choice(self.phones))

    def trigger(self):
        return "/triggerReplyFinished", {
            "cwd": random.choice(self.agents), "message_preview": "The run finished: 214 tests pass.",
            "conversation_id": f"c-{random.getrandbits(48):x}"}

    def approval(self):
        event_id = f"approval-{random.getrandbits(64):x}"
        with self.lock:
            self.approvals.append((time.monotonic() + random.uniform(5, 30), event_id))
        return "/triggerEvent", {"cwd": random.choice(self.agents), "type": "approval_requested",
                                 "body": "Run the migration?", "event_id": event_id}

    def resolution(self):
        with self.lock:
            if not self.approvals or self.approvals[0][0] > time.monotonic():
                return None
            _, event_id = self.approvals.popleft()
        return "/resolveEvent", {"event_id": event_id, "resolution": "approved"}

    @staticmethod
    def heartbeat():
        return "/heartbeat", {"source": f"host-{random.randrange(20)}"}


def store_bytes(url, gateway, disk_mb):
    if url.startswith("postgres://"):
        out = subprocess.run([psql(), "-qAtX", url, "-c", "SELECT pg_database_size(current_database())"],
                             capture_output=True, text=True)
        return int(out.stdout.strip() or 0)
    # A tmpfs only the gateway sees is reached through its own view of the files.
    path = f"/proc/{gateway.process.pid}/root{url}" if disk_mb else url
    return sum(os.path.getsize(path + suffix) for suffix in ("", "-wal") if os.path.exists(path + suffix))


def percentile(values, share):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report(rows, entries, minute, gateway, url, disk_mb):
    row = {"minute": minute, "rss": gateway.resident_mib(), "store": store_bytes(url, gateway, disk_mb) / 2**20}
    try:
        health_now = health(gateway)
        outbox = health_now.get("outbox", {})
        row["due"] = outbox.get("pending", 0) - outbox.get("scheduled", 0)
    except (OSError, ValueError):
        row["due"] = -1
    for kind in KINDS:
        latencies = [ms for k, ok, ms in entries if k == kind]
        failed = sum(1 for k, ok, _ in entries if k == kind and not ok)
        row[kind] = (len(latencies), failed, percentile(latencies, 0.5), percentile(latencies, 0.99),
                     max(latencies, default=0.0))
    rows.append(row)
    cells = " | ".join(f"{row[k][0]} / {row[k][1]} / {row[k][2]:.1f} / {row[k][3]:.1f} / {row[k][4]:.0f}"
                       for k in KINDS)
    print(f"| {minute:.1f} | {row['rss']:.1f} | {row['store']:.1f} | {row['due']} | {cells} |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushgate", default=os.path.join(ROOT, ".build", "release", "pushgate"))
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--report-every", type=float, default=60)
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--devices-per-agent", type=int, default=5)
    parser.add_argument("--triggers", type=float, default=25, help="a second")
    parser.add_argument("--registrations", type=float, default=10, help="a second")
    parser.add_argument("--approvals", type=float, default=1, help="a second, each resolved later")
    parser.add_argument("--heartbeats", type=float, default=5, help="a second")
    parser.add_argument("--dead-share", type=float, default=0.02)
    parser.add_argument("--disk-mb", type=int)
    parser.add_argument("--min-free-mb", type=int, default=16)
    arguments = parser.parse_args()
    stop_on_sigterm()
    if arguments.disk_mb and arguments.store != "sqlite":
        parser.error("--disk-mb is for the SQLite store")
    build = subprocess.run(["swift", "build", "--package-path", ROOT, "-c", "release", "--product", "pushgate"],
                           capture_output=True, text=True)
    if build.returncode != 0:
        sys.exit("the release build failed:\n" + build.stdout[-3000:] + build.stderr[-3000:])
    pushgate = os.path.abspath(arguments.pushgate)
    work = tempfile.mkdtemp(prefix="pushgate-steady.")
    os.chmod(work, 0o755)
    # A small inbox: the emulator's memory stays put.
    emulator = Emulator(pushgate, os.path.join(work, "emulator"), "--inbox-limit", "1000")
    server = SingleServer() if arguments.store == "postgres" else None
    gateway = None
    try:
        if server:
            url = database(server.url, "steady")
        else:
            folder = os.path.join(work, "store")
            os.makedirs(folder)
            url = os.path.join(folder, "pushgate.sqlite")
        settings = {"PUSHGATE_LOG_LEVEL": "warning", "PUSHGATE_MAX_DEVICES_PER_AGENT": "1000"}
        launcher = ()
        if arguments.disk_mb:
            settings["PUSHGATE_STORE_MIN_FREE_MB"] = str(arguments.min_free_mb)
            launcher = ("unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                        f"mount -t tmpfs -o size={arguments.disk_mb}m pushgate-bench '{folder}' && exec \"$0\" \"$@\"")
        gateway = Gateway(pushgate, url, emulator, os.path.join(work, "gateway.log"), launcher, **settings)
        phones = Phones(arguments.agents, arguments.devices_per_agent, arguments.dead_share)
        log = []
        setup = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=10)
        for phone in phones.phones:
            path, body = phones.registration(phone)
            setup.request("POST", path, body=json.dumps(body), headers={
                "Authorization": f"Bearer {SECRET}", "Content-Type": "application/json"})
            setup.getresponse().read()
        setup.close()
        print(f"{len(phones.phones)} phones of {arguments.agents} agents; a second: {arguments.triggers:g} triggers, "
              f"{arguments.registrations:g} registrations (token rotation, {arguments.dead_share:.0%} dead), "
              f"{arguments.approvals:g} approvals (each resolved 5-30 s later), {arguments.heartbeats:g} heartbeats; "
              f"{arguments.store}" + (f" on a {arguments.disk_mb} MB disk keeping {arguments.min_free_mb} MB free"
                                      if arguments.disk_mb else ""), flush=True)
        print("| minute | RSS MiB | store MiB | due | " + " | ".join(
            f"{k}: calls / failed / p50 / p99 / max ms" for k in KINDS) + " |")
        print("|" + "---:|" * (4 + len(KINDS)))
        stopping = threading.Event()
        callers = [
            Caller(gateway.port, "register", arguments.registrations, phones.rotation, log, stopping),
            Caller(gateway.port, "trigger", arguments.triggers, phones.trigger, log, stopping),
            Caller(gateway.port, "approval", arguments.approvals, phones.approval, log, stopping),
            Caller(gateway.port, "resolve", arguments.approvals, phones.resolution, log, stopping),
            Caller(gateway.port, "heartbeat", arguments.heartbeats, Phones.heartbeat, log, stopping),
        ]
        started = time.monotonic()
        for caller in callers:
            caller.start()
        rows = []
        seen = 0
        end = started + arguments.minutes * 60
        while time.monotonic() < end:
            time.sleep(min(arguments.report_every, max(0.0, end - time.monotonic())))
            entries = log[seen:]
            seen += len(entries)
            report(rows, entries, (time.monotonic() - started) / 60, gateway, url, arguments.disk_mb)
        stopping.set()
        for caller in callers:
            caller.join(timeout=10)
        first, last = rows[0], rows[-1]
        minutes = last["minute"] - first["minute"]
        growth = (last["store"] - first["store"]) / minutes if minutes > 0 else 0.0
        print(f"\nfirst → last row: RSS {first['rss']:.1f} → {last['rss']:.1f} MiB; trigger p99 "
              f"{first['trigger'][3]:.1f} → {last['trigger'][3]:.1f} ms; registration p99 "
              f"{first['register'][3]:.1f} → {last['register'][3]:.1f} ms; store {first['store']:.1f} → "
              f"{last['store']:.1f} MiB ({growth:.2f} MiB a minute); calls not answered 2xx within 2.5 s: "
              f"{sum(sum(row[k][1] for k in KINDS) for row in rows)} of {sum(sum(row[k][0] for k in KINDS) for row in rows)}")
        print(f"CPU: {cpu_model()}")
    finally:
        if gateway:
            gateway.stop()
        emulator.stop()
        if server:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
