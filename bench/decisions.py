#!/usr/bin/env python3
"""Answering from the lock screen, measured (issue 73).

With WAITS awaitDecision calls held at once (one per approval, each on its own
connection, as that many waiting hooks hold them), printed per store:
  - the gateway's memory per held wait (resident memory with them held, less before,
    ÷ WAITS: the connection and the wait together), and its CPU while they are held;
  - the gateway's other answers (registerSubscription, one connection per call)
    p50 / p99 with the waits held ÷ the same before them, in the same run;
  - decideEvent → the waiting call's answer, p50 / p99, for SAMPLES of the held waits;
  - decideEvent → a real `pushgate hook` PermissionRequest printing the decision
    (its own check of the signature included), p50 / p99 over HOOKS runs, while the
    WAITS are still held.
On PostgreSQL the waits and the hooks are held by one gateway process and every
decision goes through another, on the same database (what a phone behind a load
balancer does); a wait there learns of a decision by its 50 ms poll.

    swift build -c release --product pushgate
    python3 bench/decisions.py --pushgate .build/release/pushgate [--store sqlite|postgres|both]
        [--waits 1000] [--samples 200] [--hooks 50]

Decisions are signed with PyPI's cryptography (Tests/decisions/phone_signer.py).
"""
import argparse
import asyncio
import json
import logging
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "ha"))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "decisions"))
from ha_parts import SECRET, SERVER_KEY, Emulator, Gateway, SingleServer, cpu_model, database  # noqa: E402
import phone_signer  # noqa: E402

CWD = "/srv/agents/decisions-bench"
PHONE = "bench-phone"
TOKEN = "d1" * 32


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def milliseconds(values):
    return f"p50 {percentile(values, 0.5) * 1000:.1f} ms, p99 {percentile(values, 0.99) * 1000:.1f} ms"


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def waits_held(gateway):
    status, text, _ = gateway.call("/metrics", timeout=10)
    match = re.search(r"^pushgate_decision_waits (\d+)", text, re.MULTILINE) if status == 200 else None
    return int(match.group(1)) if match else -1


def until(what, condition, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what}")
        time.sleep(0.02)


def checked(gateway, function, body):
    status, text, _ = gateway.call("/" + function, body, timeout=30)
    if status != 200:
        raise SystemExit(f"{function} answered {status}: {text[:300]}")
    return json.loads(text)


def decision_body(key, event_id, decision="allow"):
    return phone_signer.sign(types.SimpleNamespace(
        private=key["private"], server_key=SERVER_KEY, event_id=event_id, installation_id=PHONE,
        decision=decision, signed_at=int(time.time()), message=None, suggestion=None))


def other_answers(gateway, count, tag):
    """`count` registrations of other phones, one connection each: their latencies."""
    took = []
    for n in range(count):
        status, text, seconds = gateway.call("/registerSubscription", {
            "cwd": CWD + "-others", "installation_id": f"{tag}-{n:04d}", "apns_token": f"{n:064x}"})
        if status != 200:
            raise SystemExit(f"registerSubscription answered {status}: {text[:300]}")
        took.append(seconds)
    return took


class HeldWaits:
    """`event_ids`' awaitDecision calls, each on a connection of its own, held on an
    event loop of a thread; when each answered."""

    def __init__(self, port, event_ids):
        self.port = port
        self.answered = {}
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.tasks = [asyncio.run_coroutine_threadsafe(self._wait(event_id), self.loop) for event_id in event_ids]

    async def _wait(self, event_id):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        body = json.dumps({"event_id": event_id, "wait": 300}).encode()
        writer.write(b"POST /awaitDecision HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                     + f"Authorization: Bearer {SECRET}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        self.answered[event_id] = (time.monotonic(), head.split(b" ", 2)[1].decode())
        writer.close()

    def stop(self):
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # the unanswered waits are dropped on purpose
        for task in self.tasks:
            task.cancel()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


def hook_run(pushgate, waiting, deciding, key, n, emulator, directory):
    """One `pushgate hook` PermissionRequest on `waiting`, allowed through `deciding`:
    seconds from the decideEvent call to the hook's printed line (read as it comes,
    whether or not decideEvent has answered the phone yet), and to decideEvent's answer."""
    emulator.clear()
    command = f"make deploy-{n}-{time.time_ns()}"
    event = {"session_id": "9e0c6d1a-0000-4000-8000-00000000bench", "cwd": CWD,
             "transcript_path": os.path.join(directory, "none.jsonl"), "hook_event_name": "PermissionRequest",
             "permission_mode": "default", "tool_name": "Bash",
             "tool_input": {"command": command, "description": "Run " + command}, "permission_suggestions": []}
    environment = dict(os.environ, CODEAGENTS_PUSH_SECRET=SECRET,
                       CODEAGENTS_PUSH_GATEWAY_BASE_URL=f"http://127.0.0.1:{waiting.port}")
    before = waits_held(waiting)
    hook = subprocess.Popen([pushgate, "hook", "--decision-wait", "60", "--pins", os.path.join(directory, "pins.json")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    hook.stdin.write(json.dumps(event).encode())
    hook.stdin.close()
    event_id = None

    def pushed():
        nonlocal event_id
        for entry in json.loads(emulator._get("/inbox")):
            payload = entry.get("payload", {})
            if payload.get("type") == "approval_requested" and command in json.dumps(payload):
                event_id = payload.get("event_id")
        return event_id is not None
    until("the hook's approval at the emulator", pushed, 30)
    until("the hook waiting", lambda: waits_held(waiting) > before, 30)
    body = decision_body(key, event_id)
    printed = {}

    def read_line():
        printed["line"] = hook.stdout.readline()
        printed["at"] = time.monotonic()
    reader = threading.Thread(target=read_line, daemon=True)
    reader.start()
    started = time.monotonic()
    checked(deciding, "decideEvent", body)
    answered = time.monotonic() - started
    reader.join(timeout=30)
    hook.wait(timeout=30)
    line = printed.get("line", b"")
    if b'"allow"' not in line:
        raise SystemExit(f"the hook printed {line!r}: {hook.stderr.read()[-500:]!r}")
    return printed["at"] - started, answered


def measure(label, pushgate, database_url, processes, arguments, directory):
    emulator = Emulator(pushgate, os.path.join(directory, "emulator"))
    limits = {"PUSHGATE_MAX_WAITING_DECISIONS": str(arguments.waits + 100),
              "PUSHGATE_MAX_CONNECTIONS": str(arguments.waits + 1000),
              "PUSHGATE_MAX_CONNECTIONS_PER_ADDRESS": str(arguments.waits + 500)}
    gateways = [Gateway(pushgate, database_url, emulator, os.path.join(directory, f"gateway-{n}.log"), **limits)
                for n in range(processes)]
    waiting, deciding = gateways[0], gateways[-1]
    held = None
    try:
        key = phone_signer.keygen()
        checked(waiting, "registerSubscription", {"cwd": CWD, "installation_id": PHONE, "apns_token": TOKEN,
                                                  "decision_key": key["public"]})
        # The phone is paired on the agent's machine (issue 82): its pin, as pushgate pair leaves it.
        with open(os.path.join(directory, "pins.json"), "w") as pins:
            json.dump({"pins": {PHONE: key["public"]}}, pins)
        event_ids = [f"bench-{n:05d}" for n in range(arguments.waits)]
        for event_id in event_ids:
            checked(waiting, "triggerEvent", {"cwd": CWD, "type": "approval_requested", "event_id": event_id,
                                              "body": "Deploy?"})
        other_answers(waiting, 20, "warm")
        time.sleep(2)
        cpu_before, at = cpu_seconds(waiting.process.pid), time.monotonic()
        time.sleep(5)
        idle_cpu = (cpu_seconds(waiting.process.pid) - cpu_before) / (time.monotonic() - at)
        alone = other_answers(waiting, arguments.others, "alone")
        # After the answers alone: what they left in memory is not the waits'.
        time.sleep(2)
        rss_before = waiting.resident_mib()

        held = HeldWaits(waiting.port, event_ids)
        until(f"{arguments.waits} waits held", lambda: waits_held(waiting) == arguments.waits)
        time.sleep(2)
        rss_held, cpu_before, at = waiting.resident_mib(), cpu_seconds(waiting.process.pid), time.monotonic()
        time.sleep(5)
        held_cpu = (cpu_seconds(waiting.process.pid) - cpu_before) / (time.monotonic() - at)
        beside = other_answers(waiting, arguments.others, "beside")

        answered = []
        for event_id in event_ids[:arguments.samples]:
            body = decision_body(key, event_id)
            started = time.monotonic()
            checked(deciding, "decideEvent", body)
            until("the waiting call's answer", lambda: event_id in held.answered, 30)
            at_answer, status = held.answered[event_id]
            if status != "200":
                raise SystemExit(f"awaitDecision answered {status}")
            answered.append(at_answer - started)
        hook_runs = [hook_run(pushgate, waiting, deciding, key, n, emulator, directory) for n in range(arguments.hooks)]
        hooks, phone_answers = [run[0] for run in hook_runs], [run[1] for run in hook_runs]
        per_wait_kb = (rss_held - rss_before) * 1024 / arguments.waits
        print(f"{label}:")
        print(f"  {arguments.waits} waits held: {per_wait_kb:.1f} KB resident each "
              f"({rss_before:.0f} → {rss_held:.0f} MiB); gateway CPU {held_cpu * 100:.1f}% held, "
              f"{idle_cpu * 100:.1f}% before")
        print(f"  other answers (registerSubscription × {arguments.others}): {milliseconds(beside)} held; "
              f"{milliseconds(alone)} before; p50 ratio {statistics.median(beside) / statistics.median(alone):.2f}, "
              f"p99 ratio {percentile(beside, 0.99) / percentile(alone, 0.99):.2f}")
        print(f"  decideEvent → the waiting call answered (× {len(answered)}): {milliseconds(answered)}")
        print(f"  decideEvent → pushgate hook's printed decision (× {len(hooks)}): {milliseconds(hooks)}; "
              f"decideEvent's own answer to the phone: {milliseconds(phone_answers)}")
    finally:
        if held:
            held.stop()
        for gateway in gateways:
            gateway.stop()
        emulator.stop()


def each_store(arguments, measure, postgres_label, name):
    """`measure` on SQLite (one process) and on PostgreSQL (two), as `--store` asks."""
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores; {arguments.pushgate}")
    with tempfile.TemporaryDirectory(prefix=f"pushgate-{name}.") as directory:
        if arguments.store in ("sqlite", "both"):
            measure("SQLite, one process", arguments.pushgate, os.path.join(directory, "pushgate.sqlite"), 1,
                    arguments, os.path.join(directory, "sqlite"))
        if arguments.store in ("postgres", "both"):
            server = SingleServer()
            try:
                measure(postgres_label, arguments.pushgate, database(server.url, f"{name}_bench"), 2, arguments,
                        os.path.join(directory, "postgres"))
            finally:
                server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushgate", default=os.path.join(HERE, "..", ".build", "release", "pushgate"))
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--waits", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--hooks", type=int, default=50)
    parser.add_argument("--others", type=int, default=1000)
    arguments = parser.parse_args()
    each_store(arguments, measure, "PostgreSQL, waits on one process, decisions through another", "decisions")


if __name__ == "__main__":
    main()
