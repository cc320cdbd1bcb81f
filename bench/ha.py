"""Gateways on a Patroni cluster beside one gateway on a single PostgreSQL, in one run.

    python3 bench/ha.py [--pushgate .build/release/pushgate] [--devices 20000] [--seconds 10]

Starts one PostgreSQL (scripts/postgres-cluster, fsync on) and the cluster of
scripts/ha-cluster (two nodes under Patroni, synchronous replication, haproxy), the
APNs emulator as the stand-in, and for each of: one gateway on the single server,
one gateway on the cluster, two gateways on the cluster (each configuration on a new
database) measures

- the fan-out rate: one trigger to an agent of --devices devices, answered once every
  push was tried (PUSHGATE_TRIGGER_WAIT=600), devices ÷ seconds;
- triggers per second: wrk (-t2 -c16, --seconds) sending triggerReplyFinished for 50
  agents of one device each, to every gateway of the configuration at once, summed;

then the failover's unavailability window on the two-gateway cluster: triggers sent
every 50 ms while the primary's postmaster is killed with SIGKILL, the window from
the kill until they are accepted again for good. Prints a table and the CPU model.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "ha"))
from ha_parts import (ROOT, SECRET, Calls, Cluster, Emulator, Gateway, SingleServer, accepted_again,  # noqa: E402
                      cpu_model, database, seed_devices, stop_on_sigterm)

FAN_OUT_CWD = "/srv/agents/fan-out"


def wrk_rate(gateways, seconds):
    """Triggers per second, summed over one wrk per gateway run at once; fails on any non-2xx."""
    environment = dict(os.environ, BENCH_SECRET=SECRET)
    processes = [subprocess.Popen(
        ["wrk", "-t2", "-c16", f"-d{seconds}s", "-s", os.path.join(ROOT, "bench", "trigger.lua"),
         f"http://127.0.0.1:{gateway.port}"], stdout=subprocess.PIPE, text=True, env=environment)
        for gateway in gateways]
    total = 0.0
    for process in processes:
        out, _ = process.communicate(timeout=seconds + 60)
        if "Non-2xx" in out or "Socket errors" in out:
            raise RuntimeError("wrk saw errors:\n" + out)
        total += float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    return total


def measure(label, server_url, count, pushgate, emulator, work, devices, seconds):
    url = database(server_url, re.sub(r"\W+", "_", label).lower())
    gateways = [Gateway(pushgate, url, emulator, os.path.join(work, f"{label}-{index}.log"),
                        PUSHGATE_TRIGGER_WAIT="600") for index in range(count)]
    try:
        seed_devices(url, FAN_OUT_CWD, devices)
        for agent in range(50):
            seed_devices(url, f"/srv/agents/agent-{agent}", 1)
        started = time.monotonic()
        status, text, _ = gateways[0].call("/triggerReplyFinished", {
            "cwd": FAN_OUT_CWD, "message_preview": "Benchmark reply: all tests pass."}, timeout=600)
        fan_out_seconds = time.monotonic() - started
        if status != 200 or '"pending_count":0' not in text.replace(" ", ""):
            raise RuntimeError(f"the fan-out's trigger answered {status}: {text[:300]}")
        return devices / fan_out_seconds, wrk_rate(gateways, seconds)
    finally:
        for gateway in gateways:
            gateway.stop()


def failover_window(cluster, pushgate, emulator, work):
    """Seconds from SIGKILL of the primary's postmaster until triggers are accepted again for good."""
    url = database(cluster.url, "failover_window")
    gateways = [Gateway(pushgate, url, emulator, os.path.join(work, f"failover-{index}.log")) for index in range(2)]
    try:
        seed_devices(url, "/srv/agents/probe", 1)

        def trigger(number):
            status, text, seconds = gateways[number % 2].call("/triggerReplyFinished", {
                "cwd": "/srv/agents/probe", "message_preview": f"probe {number}"})
            return status, text, seconds, None

        probes = Calls("trigger", trigger, 0.05)
        time.sleep(2)
        killed_at = time.monotonic()
        cluster.kill_primary()
        # Until 40 triggers in a row were accepted after the last refusal (or two minutes).
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            failures = [started for started, status, *_ in probes.records if started >= killed_at and status != 200]
            last = max(failures, default=killed_at)
            if sum(1 for started, status, *_ in probes.records if started > last and status == 200) >= 40:
                break
            time.sleep(0.2)
        probes.stop()
        window, refused = accepted_again(probes.records, killed_at)
        if window is None:
            raise RuntimeError("triggers were not accepted again within two minutes of the kill")
        return window, refused
    finally:
        for gateway in gateways:
            gateway.stop()
        cluster.wait_for_replicas(120)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushgate", default=os.path.join(ROOT, ".build", "release", "pushgate"))
    parser.add_argument("--devices", type=int, default=20_000)
    parser.add_argument("--seconds", type=int, default=10)
    arguments = parser.parse_args()
    if arguments.pushgate == os.path.join(ROOT, ".build", "release", "pushgate"):
        subprocess.run(["swift", "build", "--package-path", ROOT, "-c", "release", "--product", "pushgate"],
                       check=True, stdout=subprocess.DEVNULL)
    stop_on_sigterm()
    work = tempfile.mkdtemp(prefix="pushgate-bench-ha.")
    started = []  # stopped in reverse order however the run ends
    rows = []
    try:
        single = SingleServer()
        started.append(single)
        cluster = Cluster()
        started.append(cluster)
        emulator = Emulator(arguments.pushgate, os.path.join(work, "emulator"), "--inbox-limit", "1000")
        started.append(emulator)
        for label, server, count in (("single PostgreSQL, 1 gateway", single.url, 1),
                                     ("Patroni cluster, 1 gateway", cluster.url, 1),
                                     ("Patroni cluster, 2 gateways", cluster.url, 2)):
            fan_out, triggers = measure(label, server, count, arguments.pushgate, emulator, work,
                                        arguments.devices, arguments.seconds)
            rows.append((label, fan_out, triggers))
            print(f"{label}: fan-out {fan_out:,.0f} pushes/s, {triggers:,.0f} triggers/s", flush=True)
        window, refused = failover_window(cluster, arguments.pushgate, emulator, work)
    finally:
        for part in reversed(started):
            part.stop()
    print()
    print(f"CPU: {cpu_model()}, {os.cpu_count()} CPUs; {arguments.devices} devices; wrk -t2 -c16 "
          f"-d{arguments.seconds}s per gateway")
    print(f"{'configuration':<32} {'fan-out pushes/s':>17} {'÷ single':>9} {'triggers/s':>11} {'÷ single':>9}")
    for label, fan_out, triggers in rows:
        print(f"{label:<32} {fan_out:>17,.0f} {fan_out / rows[0][1]:>9.2f} {triggers:>11,.0f} "
              f"{triggers / rows[0][2]:>9.2f}")
    print(f"failover (SIGKILL of the primary's postmaster, two gateways): triggers accepted again "
          f"{window:.2f} s after the kill ({refused} answered 503 or timed out in between)")


if __name__ == "__main__":
    main()
