#!/usr/bin/env python3
"""Phone or keyboard, measured (issue 84): how soon `pushgate channel` tells Claude Code.

A real `pushgate channel` process spoken to as Claude Code speaks to it (JSON-RPC lines
on its standard input and output: initialize, then the channel's notifications), with a
phone registered and paired, printed per store:
  - a phone's decision → the channel's `notifications/claude/channel/permission`:
    Claude Code relays a permission dialog (`permission_request`), the channel pushes
    the approval, the phone's signed allow goes to `decideEvent`; timed from that call
    to the verdict's line on the channel's standard output, p50 / p99 over DECISIONS;
  - a phone's words → the session: `sayToAgent` with the phone's signed words, timed to
    the `notifications/claude/channel` line carrying them, p50 / p99 over WORDS.
On PostgreSQL the channel long-polls one gateway process and the phone's calls go
through another on the same database (what a phone behind a load balancer does).

    swift build -c release --product pushgate
    python3 bench/channel.py --pushgate .build/release/pushgate [--store sqlite|postgres|both]
        [--decisions 50] [--words 50]

Signed with PyPI's cryptography (Tests/decisions/phone_signer.py).
"""
import argparse
import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "ha"))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "decisions"))
from ha_parts import SECRET, SERVER_KEY, Emulator, Gateway  # noqa: E402
import phone_signer  # noqa: E402
from decisions import checked, each_store, milliseconds, until  # noqa: E402

CWD = "/srv/agents/channel-bench"
PHONE = "bench-phone"
TOKEN = "c4" * 32
LETTERS = "abcdefghijkmnopqrstuvwxyz"  # Claude Code's request ids: a-z without l


class Channel:
    """`pushgate channel` as Claude Code runs it: each line it prints, with when."""

    def __init__(self, pushgate, port, pins):
        environment = dict(os.environ, CODEAGENTS_PUSH_SECRET=SECRET,
                           CODEAGENTS_PUSH_GATEWAY_BASE_URL=f"http://127.0.0.1:{port}")
        self.process = subprocess.Popen([pushgate, "channel", "--pins", pins, "--cwd", CWD],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env=environment)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        hello = self.next(lambda message: message.get("id") == 1)
        if "claude/channel" not in hello["result"]["capabilities"].get("experimental", {}):
            raise SystemExit(f"no channel capability: {hello}")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self):
        for line in self.process.stdout:
            self.lines.put((time.monotonic(), json.loads(line)))

    def send(self, message):
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def next(self, wanted, seconds=30):
        """The first line printed that `wanted` takes: its message, and when it came."""
        deadline = time.monotonic() + seconds
        while True:
            at, message = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if wanted(message):
                message["_at"] = at
                return message

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


def decision(channel, emulator, deciding, key, request_id):
    """A relayed dialog allowed from the phone: seconds from decideEvent to the verdict."""
    emulator.clear()
    channel.send({"jsonrpc": "2.0", "method": "notifications/claude/channel/permission_request", "params": {
        "request_id": request_id, "tool_name": "Bash", "description": f"Run step {request_id}",
        "input_preview": json.dumps({"command": f"make {request_id}"})}})
    found = {}

    def pushed():
        for entry in json.loads(emulator._get("/inbox")):
            event_id = entry.get("payload", {}).get("event_id", "")
            if event_id.startswith(f"channel-{request_id}-"):
                found["event_id"] = event_id
        return "event_id" in found
    until("the channel's approval at the emulator", pushed, 30)
    body = phone_signer.sign(types.SimpleNamespace(
        private=key["private"], server_key=SERVER_KEY, event_id=found["event_id"], installation_id=PHONE,
        decision="allow", signed_at=int(time.time()), message=None, suggestion=None))
    started = time.monotonic()
    checked(deciding, "decideEvent", body)
    verdict = channel.next(lambda message: message.get("method") == "notifications/claude/channel/permission")
    if verdict["params"] != {"request_id": request_id, "behavior": "allow"}:
        raise SystemExit(f"the channel sent {verdict}")
    return verdict["_at"] - started


def words(channel, deciding, key, n):
    """A phone's words: seconds from sayToAgent to the session's notification."""
    said = f"Step {n}: also run the linter."
    body = phone_signer.say(types.SimpleNamespace(
        private=key["private"], server_key=SERVER_KEY, message_id=f"bench-{n}-{time.time_ns()}",
        installation_id=PHONE, cwd=CWD, signed_at=int(time.time()), message=said))
    started = time.monotonic()
    checked(deciding, "sayToAgent", body)
    heard = channel.next(lambda message: message.get("method") == "notifications/claude/channel")
    if heard["params"]["content"] != said:
        raise SystemExit(f"the channel sent {heard}")
    return heard["_at"] - started


def measure(label, pushgate, database_url, processes, arguments, directory):
    emulator = Emulator(pushgate, os.path.join(directory, "emulator"))
    gateways = [Gateway(pushgate, database_url, emulator, os.path.join(directory, f"gateway-{n}.log"))
                for n in range(processes)]
    listening, deciding = gateways[0], gateways[-1]
    channel = None
    try:
        key = phone_signer.keygen()
        checked(listening, "registerSubscription", {"cwd": CWD, "installation_id": PHONE, "apns_token": TOKEN,
                                                    "decision_key": key["public"]})
        pins = os.path.join(directory, "pins.json")
        with open(pins, "w") as file:
            json.dump({"pins": {PHONE: key["public"]}}, file)
        channel = Channel(pushgate, listening.port, pins)
        ids = ("".join(letters) for letters in itertools.product(LETTERS, repeat=5))
        # A first of each, unmeasured: connections opened, code paths warm.
        decision(channel, emulator, deciding, key, next(ids))
        words(channel, deciding, key, 0)
        decided = [decision(channel, emulator, deciding, key, next(ids)) for _ in range(arguments.decisions)]
        heard = [words(channel, deciding, key, n + 1) for n in range(arguments.words)]
        print(f"{label}:")
        print(f"  a phone's decision → the channel's permission notification (× {len(decided)}): "
              f"{milliseconds(decided)}")
        print(f"  a phone's words → the session's channel notification (× {len(heard)}): {milliseconds(heard)}")
    finally:
        if channel:
            channel.stop()
        for gateway in gateways:
            gateway.stop()
        emulator.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushgate", default=os.path.join(HERE, "..", ".build", "release", "pushgate"))
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--decisions", type=int, default=50)
    parser.add_argument("--words", type=int, default=50)
    arguments = parser.parse_args()
    each_store(arguments, measure, "PostgreSQL, the channel on one process, the phone through another", "channel")


if __name__ == "__main__":
    main()
