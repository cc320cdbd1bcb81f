#!/usr/bin/env python3
"""`pushgate mcp` driven by PyPI's `mcp` client (code nobody here wrote, issues 74 and
83), in each of its modes — `legacy` (the initialize handshake, 2025-11-25),
`2026-07-28` (no session: each request carries its envelope) and `auto` (probes
`server/discover`): the tools listed, each with an output schema its structured
content follows (the client checks it); notify_user answering what became of the push on each device
(delivered at the APNs emulator, failed with its reason for a device no push
service serves, nobody subscribed); list_devices; ask_user answered by a phone's
signed words (PyPI's `cryptography`, Tests/decisions/phone_signer.py) and returned
to the agent — only because the phone is paired on the agent's machine (its pin
file); an answer from an installation not paired there refused; ask_user with no
answer in time, whose later answer GET /replies lists once; arguments it cannot read
answered as the tool's error (isError), not the protocol's; an ask_user the client
cancels never answered and its question withdrawn (resolved `cancelled`); the
protocol's own faults (params no object, an unknown method or tool, an unsupported
version, the other era's request) as JSON-RPC errors; a line of 4 MiB answered with a
JSON-RPC error at once, the server going on.

    python3 Tests/mcp/mcp_tools.py --pushgate .build/debug/pushgate
"""

import argparse
import asyncio
import contextlib
import json
import os
import re
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from mcp import Client, StdioServerParameters

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "compat"))
from emulator_process import check, start, stop, summary  # noqa: E402

SIGNER = os.path.join(HERE, "..", "decisions", "phone_signer.py")
SECRET = "mcp-tools-test-secret-0001-abcdefghij"
PHONE_TOKEN = "ab" * 32


def call(base, path, body=None):
    request = urllib.request.Request(
        base + path, method="POST" if body is not None else "GET",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {SECRET}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def signer(*arguments):
    made = subprocess.run([sys.executable, SIGNER, *arguments], capture_output=True, text=True, timeout=30)
    if made.returncode != 0:
        raise SystemExit(f"phone_signer.py failed: {made.stderr}")
    return made.stdout


def answer(base, server_key, key, event_id, words):
    """The phone's signed words, as the app sends them."""
    body = signer("sign", f"--private={key['private']}", f"--server-key={server_key}", f"--event-id={event_id}",
                  "--installation-id=phone", "--decision=answer", f"--signed-at={int(time.time())}",
                  f"--message={words}")
    return call(base, "/decideEvent", json.loads(body))


def question_event_id(apns_url, question, seconds=20):
    """The event id of the question the emulator got for the phone."""
    context = ssl._create_unverified_context()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with urllib.request.urlopen(apns_url + "/inbox", context=context, timeout=5) as response:
            for entry in json.loads(response.read()):
                payload = entry.get("payload") or {}
                body = ((payload.get("aps") or {}).get("alert") or {}).get("body", "")
                if entry.get("device_token") == PHONE_TOKEN and payload.get("type") == "question_asked" \
                        and body.endswith(question):
                    return payload["event_id"], payload
        time.sleep(0.1)
    raise SystemExit(f"the question {question!r} did not reach the emulator")


def text(result):
    """The tool's words: its first text block (the second holds its structured content's JSON)."""
    blocks = [item.text for item in result.content if getattr(item, "type", "") == "text"]
    return blocks[0] if blocks else ""


def environment_of(base):
    return {name: value for name, value in os.environ.items() if not name.startswith("CODEAGENTS_")} | {
        "CODEAGENTS_PUSH_SECRET": SECRET, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": base}


def server_of(pushgate, base, agent):
    return StdioServerParameters(command=pushgate, args=["mcp", "--pins", os.path.join(agent, "..", "pins.json")],
                                 env=environment_of(base), cwd=agent)


async def each_mode(pushgate, base, agent):
    """What every mode of the client sees: the era it speaks, the tools with their
    output schemas, a tool's bad arguments as the tool's error, structured content
    with its JSON in a text block."""
    for mode, version in [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28"), ("auto", "2026-07-28")]:
        async with Client(server_of(pushgate, base, agent), mode=mode, read_timeout_seconds=30) as client:
            check(f"{mode}: speaks {version}", client.protocol_version == version, client.protocol_version)
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            check(f"{mode}: the three tools, each with an output schema",
                  set(tools) == {"notify_user", "ask_user", "list_devices"}
                  and all(tool.output_schema for tool in tools.values()), set(tools))
            listed = await client.call_tool("list_devices", {})
            check(f"{mode}: list_devices' structured content, and the same JSON in a text block",
                  not listed.is_error and json.loads(listed.content[1].text) == listed.structured_content,
                  listed.content)
            bad = await client.call_tool("ask_user", {"question": "x", "wait": 99999})
            check(f"{mode}: a wait over an hour is the tool's error, with the reason",
                  bad.is_error and "'wait' must be seconds" in text(bad), text(bad))
            missing = await client.call_tool("notify_user", {"title": "no message"})
            check(f"{mode}: a missing argument is the tool's error", missing.is_error and "'message'" in text(missing),
                  text(missing))


async def drive(pushgate, base, apns_url, agent, server_key, key):
    async with Client(server_of(pushgate, base, agent), mode="auto", read_timeout_seconds=120) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        check("the three tools are listed", set(tools) == {"notify_user", "ask_user", "list_devices"}, set(tools))
        check("ask_user takes a question", "question" in tools["ask_user"].input_schema.get("required", []),
              tools["ask_user"].input_schema)

        sent = await session.call_tool("notify_user", {"message": "The nightly build is green.", "title": "CI"})
        words = text(sent)
        check("notify_user: the phone's push delivered", "phone (apns): delivered" in words, words)
        check("notify_user: the other device failed with its reason",
              re.search(r"pixel \(fcm\): failed: \S+", words) is not None, words)
        check("notify_user: not an error when a device got it", not sent.is_error, words)
        check("notify_user: counts in its structured answer",
              (sent.structured_content or {}).get("delivered") == 1, sent.structured_content)

        nobody = await session.call_tool("notify_user", {"message": "Anyone?", "cwd": "/srv/nobody-here"})
        check("notify_user: nobody subscribed is said, as an error",
              nobody.is_error and "Nobody is subscribed to /srv/nobody-here" in text(nobody), text(nobody))

        listed = await session.call_tool("list_devices", {})
        check("list_devices: the phone, which can answer", "- phone: ios, apns, can answer" in text(listed),
              text(listed))

        question = "Which database should the migration use?"
        asking = asyncio.create_task(session.call_tool("ask_user", {"question": question, "wait": 60}))
        event_id, payload = await asyncio.to_thread(question_event_id, apns_url, question)
        check("ask_user: the question carries the reply category",
              payload["aps"].get("category") == "PUSHGATE_REPLY", payload)
        status, decided = await asyncio.to_thread(answer, base, server_key, key, event_id, "The staging one")
        check("the phone's answer is taken", status == 200, decided)
        answered = await asyncio.wait_for(asking, 30)
        check("ask_user returns the person's words", text(answered) == "The staging one", text(answered))

        # With choices (issue 84): the push carries them; the phone's pick comes back as the label.
        picked = "Which region should the cluster run in?"
        asking = asyncio.create_task(session.call_tool(
            "ask_user", {"question": picked, "choices": ["eu-west-1", "us-east-1", "ap-south-1"], "wait": 60}))
        pick_id, payload = await asyncio.to_thread(question_event_id, apns_url, picked)
        offered = json.loads(payload.get("choices", "{}"))
        check("ask_user with choices: the push carries them",
              offered == {"questions": [{"question": picked, "options": ["eu-west-1", "us-east-1", "ap-south-1"],
                                         "multi_select": False}]}, payload)
        status, _ = await asyncio.to_thread(answer, base, server_key, key, pick_id, json.dumps({picked: "us-east-1"}))
        chosen = await asyncio.wait_for(asking, 30)
        check("ask_user with choices returns the label chosen", status == 200 and text(chosen) == "us-east-1",
              text(chosen))
        bad = await session.call_tool("ask_user", {"question": "x", "choices": ["only one"]})
        check("ask_user: one choice is the tool's error", bad.is_error and "'choices'" in text(bad), text(bad))

        # An installation not paired on this machine (a holder of the push secret's): refused.
        stranger = json.loads(signer("keygen"))
        call(base, "/registerSubscription", {"cwd": agent, "installation_id": "stranger",
                                             "apns_token": "cd" * 32, "decision_key": stranger["public"]})
        probe = "Wipe the staging database?"
        asking = asyncio.create_task(session.call_tool("ask_user", {"question": probe, "wait": 60}))
        probe_id, _ = await asyncio.to_thread(question_event_id, apns_url, probe)
        body = signer("sign", f"--private={stranger['private']}", f"--server-key={server_key}",
                      f"--event-id={probe_id}", "--installation-id=stranger", "--decision=answer",
                      f"--signed-at={int(time.time())}", "--message=yes, wipe it")
        status, _ = call(base, "/decideEvent", json.loads(body))
        check("the gateway takes the stranger's words (its registered key signed them)", status == 200, status)
        refused = await asyncio.wait_for(asking, 30)
        check("ask_user refuses words from a phone not paired here",
              refused.is_error and "not paired" in text(refused) and "yes, wipe it" not in text(refused),
              text(refused))
        check("ask_user: answered in its structured answer",
              (answered.structured_content or {}).get("answered") is True, answered.structured_content)

        late_question = "Deploy tonight?"
        unanswered = await session.call_tool("ask_user", {"question": late_question, "wait": 1})
        check("ask_user: no answer in time is said", text(unanswered).startswith("No answer in 1 s"),
              text(unanswered))
        late_id, _ = await asyncio.to_thread(question_event_id, apns_url, late_question)
        status, _ = await asyncio.to_thread(answer, base, server_key, key, late_id, "No, tomorrow")
        status, replies = call(base, "/replies?cwd=" + urllib.parse.quote(agent, safe=""))
        check("the late answer is listed at GET /replies",
              [(reply["event_id"], reply["message"]) for reply in replies.get("replies", [])]
              == [(late_id, "No, tomorrow")], replies)

        refused = await session.call_tool("ask_user", {"wait": 5})
        check("ask_user without a question is the tool's error", refused.is_error and "question" in text(refused),
              text(refused))

        # The client gives up on an ask_user: it sends notifications/cancelled.
        dropped = "Rotate the keys now?"
        asking = asyncio.create_task(session.call_tool("ask_user", {"question": dropped, "wait": 60}))
        dropped_id, _ = await asyncio.to_thread(question_event_id, apns_url, dropped)
        asking.cancel()
        try:
            await asking
        except asyncio.CancelledError:
            pass
        settled = await asyncio.to_thread(resolution_of, base, dropped_id)
        check("a cancelled ask_user withdraws its question (resolved cancelled)", settled == "cancelled", settled)


def resolution_of(base, event_id, seconds=20):
    """How the event was settled, once it is (awaitDecision answers at once)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, answer = call(base, "/awaitDecision", {"event_id": event_id, "wait": 0})
        if status == 200 and answer.get("resolution"):
            return answer["resolution"]
        time.sleep(0.2)
    return None


async def lines_of(pushgate, base, agent):
    """`pushgate mcp` as a subprocess spoken to line by line: send(message), next() answer."""
    server = await asyncio.create_subprocess_exec(
        pushgate, "mcp", "--pins", os.path.join(agent, "..", "pins.json"), stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=environment_of(base), cwd=agent,
        limit=1 << 24)

    async def send(message):
        server.stdin.write((message if isinstance(message, bytes) else json.dumps(message).encode()) + b"\n")
        await server.stdin.drain()

    async def next_answer():
        return json.loads(await asyncio.wait_for(server.stdout.readline(), 20))

    return server, send, next_answer


MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}


async def protocol_faults(pushgate, base, apns_url, agent):
    """The protocol's own faults, JSON-RPC errors as the specification numbers them,
    and a cancelled request never answered, line by line."""
    server, send, answer = await lines_of(pushgate, base, agent)
    try:
        await send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": MODERN_META}})
        first = await answer()
        check("2026-07-28 without a handshake: tools/list answered, resultType and its cache hints",
              first.get("id") == 1 and first["result"].get("resultType") == "complete"
              and first["result"].get("cacheScope") in ("public", "private")
              and isinstance(first["result"].get("ttlMs"), int), first)
        for request, code, what in [
            ({"method": "tools/list", "params": [1, 2]}, -32602, "params that is no object"),
            ({"method": "tools/call", "params": {"_meta": MODERN_META, "name": "wipe_disk"}}, -32602, "an unknown tool"),
            ({"method": "resources/list", "params": {"_meta": MODERN_META}}, -32601, "an unknown method"),
            ({"method": "tools/list", "params": {"_meta": {**MODERN_META,
                "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}, -32022, "an unsupported version"),
            ({"method": "tools/list", "params": {}}, -32602, "a 2026 request without its envelope"),
            ({"method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                 "clientInfo": {"name": "x", "version": "1"}}},
             -32022, "the handshake on a 2026 connection"),
        ]:
            await send({"jsonrpc": "2.0", "id": what, **request})
            got = await answer()
            check(f"{what}: JSON-RPC {code}", got.get("id") == what and got.get("error", {}).get("code") == code, got)
            if code == -32022:
                check(f"{what}: names the versions served",
                      got["error"].get("data", {}).get("supported") == ["2026-07-28"], got)

        # A cancelled ask_user: no answer ever, the next request answered, the question withdrawn.
        dropped = "Restart the database now?"
        await send({"jsonrpc": "2.0", "id": "ask", "method": "tools/call", "params": {
            "_meta": MODERN_META, "name": "ask_user", "arguments": {"question": dropped, "wait": 60}}})
        dropped_id, _ = await asyncio.to_thread(question_event_id, apns_url, dropped)
        await send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "ask"}})
        settled = await asyncio.to_thread(resolution_of, base, dropped_id)
        check("a cancelled request's question is withdrawn", settled == "cancelled", settled)
        await send({"jsonrpc": "2.0", "id": "after", "method": "ping", "params": {"_meta": MODERN_META}})
        got = await answer()
        check("a cancelled request is never answered: the next line is the ping's", got.get("id") == "after", got)
    finally:
        server.kill()
        await server.wait()

    # The handshake era refuses a request carrying the 2026 envelope.
    server, send, answer = await lines_of(pushgate, base, agent)
    try:
        await send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}})
        hello = await answer()
        check("initialize: 2025-11-25", hello.get("result", {}).get("protocolVersion") == "2025-11-25", hello)
        await send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": MODERN_META}})
        got = await answer()
        check("an enveloped request on a handshake connection: -32600", got.get("error", {}).get("code") == -32600, got)
    finally:
        server.kill()
        await server.wait()


async def overlong_line(pushgate, base, agent):
    """A 4 MiB line: a JSON-RPC error at once (its id unread), then the next request served."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("CODEAGENTS_")} | {
        "CODEAGENTS_PUSH_SECRET": SECRET, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": base}
    server = await asyncio.create_subprocess_exec(
        pushgate, "mcp", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=environment, cwd=agent, limit=1 << 24)
    started = time.monotonic()
    try:
        server.stdin.write(b"x" * (4 << 20) + b"\n")
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}
        server.stdin.write(json.dumps(initialize).encode() + b"\n")
        await server.stdin.drain()
        first = json.loads(await asyncio.wait_for(server.stdout.readline(), 20))
        second = json.loads(await asyncio.wait_for(server.stdout.readline(), 20))
        took = time.monotonic() - started
        check("a 4 MiB line: a JSON-RPC error, its id null",
              first.get("id") is None and first.get("error", {}).get("code") == -32600, first)
        check("then the next request is answered", second.get("id") == 1 and "result" in second, second)
        check("both within 5 s (linear reading)", took < 5, f"{took:.1f} s")
    finally:
        server.kill()
        await server.wait()


def register(base, agent, installations):
    """Each installation subscribed to the agent (its tokens and keys as given): the server key."""
    for installation, fields in installations.items():
        status, body = call(base, "/registerSubscription", {"cwd": agent, "installation_id": installation, **fields})
        if status != 200:
            raise SystemExit(f"register {installation}: {status} {body}")
    return body["server_key"]


@contextlib.contextmanager
def gateway_running(pushgate, directory):
    """A gateway on a free loopback port beside an APNs emulator, both stopped by their
    own process: (base URL, the emulator's settings)."""
    emulator_directory = os.path.join(directory, "apns")
    os.makedirs(emulator_directory)
    settings, emulator = start(pushgate, "apns-emulator", emulator_directory, "PUSHGATE_APNS_URL")
    log = open(os.path.join(directory, "gateway.log"), "w")
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PUSHGATE_")} \
        | settings | {"PUSHGATE_PORT": "0", "PUSHGATE_DATABASE": os.path.join(directory, "pushgate.sqlite"),
                      "PUSHGATE_METRICS_LISTEN": "off", "PUSHGATE_DELIVERY_MAX_ATTEMPTS": "1"}
    gateway = subprocess.Popen([pushgate, "serve"], stdout=log, stderr=subprocess.STDOUT, env=environment,
                               cwd=directory)
    try:
        deadline = time.monotonic() + 60
        port = None
        while port is None and time.monotonic() < deadline and gateway.poll() is None:
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(log.name).read())
            port = found and found.group(1)
            time.sleep(0.1)
        if port is None:
            raise SystemExit("the gateway did not start: " + open(log.name).read()[-3000:])
        yield f"http://127.0.0.1:{port}", settings
    finally:
        gateway.terminate()
        try:
            gateway.wait(timeout=15)
        except subprocess.TimeoutExpired:
            gateway.kill()
        stop(emulator)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushgate", required=True)
    arguments = parser.parse_args()
    pushgate = os.path.abspath(arguments.pushgate)
    with tempfile.TemporaryDirectory(prefix="pushgate-mcp-") as directory, \
            gateway_running(pushgate, directory) as (base, settings):
        agent = os.path.join(directory, "agent")
        os.makedirs(agent)
        key = json.loads(signer("keygen"))
        server_key = register(base, agent, {
            "phone": {"apns_token": PHONE_TOKEN, "decision_key": key["public"]},
            "pixel": {"fcm_token": "pixel-fcm-token-0001", "platform": "android"}})
        # The phone was paired on the agent's machine (pushgate pair leaves this file).
        with open(os.path.join(directory, "pins.json"), "w") as pins:
            json.dump({"pins": {"phone": key["public"]}}, pins)
        asyncio.run(asyncio.wait_for(overlong_line(pushgate, base, agent), 60))
        asyncio.run(asyncio.wait_for(each_mode(pushgate, base, agent), 120))
        asyncio.run(asyncio.wait_for(protocol_faults(pushgate, base, settings["PUSHGATE_APNS_URL"], agent), 120))
        asyncio.run(asyncio.wait_for(drive(pushgate, base, settings["PUSHGATE_APNS_URL"], agent, server_key, key),
                                     180))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
