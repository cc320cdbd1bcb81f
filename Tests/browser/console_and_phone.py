#!/usr/bin/env python3
"""The web pages in a real browser: Debian's headless Chromium, driven by Playwright.

Starts the APNs, FCM and Web Push emulators and a gateway pointed at them (real processes, free
loopback ports, each stopped by its own pid), registers devices, sends pushes, then
loads the gateway's /console and the emulators' phone page and checks what they show:
agents, device rows, the connection lights against a test clock, pending approvals,
the actions (approve, test push, remove), a wrong secret's error, and on the phone
each push's banner, a collapse id replacing the older push, the thread group, the
badge and the time-sensitive mark. Any Content-Security-Policy report or script
error fails it. A screenshot of each page is saved and named in the output.

    python3 Tests/browser/console_and_phone.py [--pushgate .build/debug/pushgate]
        [--chromium /usr/bin/chromium] [--screenshots DIR]
"""

import argparse
import base64
import contextlib
import datetime
import hashlib
import http.server
import json
import os
import re
import shutil
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from playwright.sync_api import expect, sync_playwright

SECRET = "console-browser-test-secret-0123456789"
SERVER_KEY = hashlib.sha256(SECRET.encode()).hexdigest()
IPHONE_TOKEN = "a1" * 32
IPAD_TOKEN = "b2" * 32
# The iPad's pushes are sealed (issue 63) for RFC 8291's example keys.
SEALING_KEYS = {"p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                "auth": "BTBZMqHH6r4Tts7J_aSIgg"}
BUILDER = "/srv/agents/builder"
DOCS = "/srv/agents/docs"
WEB_APP = "/srv/agents/web-app"


def rfc3339(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Process:
    """A started process whose output goes to a file; stopped by its own pid."""

    def __init__(self, name, arguments, directory, environment=None):
        self.log_path = os.path.join(directory, f"{name}.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            arguments, stdout=self.log, stderr=subprocess.STDOUT, env=environment, cwd=directory)
        self.name = name

    def wait_for(self, pattern, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with open(self.log_path) as log:
                match = re.search(pattern, log.read())
            if match:
                return match
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        with open(self.log_path) as log:
            raise SystemExit(f"{self.name} did not print {pattern!r}:\n{log.read()[-3000:]}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def call(base, path, body=None, method=None, secret=SECRET):
    request = urllib.request.Request(
        base + path, method=method or ("POST" if body is not None else "GET"),
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def must(answer, what):
    status, body = answer
    if status not in (200, 202):
        raise SystemExit(f"{what}: {status} {body}")
    return body


def start_emulator(pushgate, kind, directory):
    state = os.path.join(directory, kind)
    emulator = Process(kind, [pushgate, kind, "--port", "0", "--state-directory", state], directory)
    url = emulator.wait_for(r"emulator on (https://127\.0\.0\.1:\d+)").group(1)
    emulator.wait_for(r"Point a gateway at it")
    settings = {}
    with open(os.path.join(state, "gateway.env")) as env:
        for line in env.read().splitlines():
            name, _, value = line.partition("=")
            settings[name] = value
    return emulator, url, settings


def seed_sources(database, reference):
    """Sources last seen 2 min and 3 h before `reference`: written into the store's
    documents (store/LAYOUT.md) as a heartbeat would have written them then."""
    connection = sqlite3.connect(database, timeout=10)
    with connection:
        for name, age in [("ci-runner", datetime.timedelta(minutes=2)), ("old-box", datetime.timedelta(hours=3))]:
            digest = hashlib.sha256(name.encode()).hexdigest()
            seen = rfc3339(reference - age)
            parent = f"servers/{SERVER_KEY}/sources"
            connection.execute(
                "INSERT INTO documents (path, parent, collection_id, document_id, fields) VALUES (?, ?, 'sources', ?, ?)",
                (f"{parent}/{digest}", parent, digest, json.dumps({"source": name, "createdAt": seen, "lastSeenAt": seen})))
    connection.close()


def wait_for_inbox(url, count, seconds=15):
    context = ssl._create_unverified_context()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "/inbox/count", context=context, timeout=5) as response:
            if json.loads(response.read())["count"] >= count:
                return
        time.sleep(0.1)
    raise SystemExit(f"{url}/inbox did not reach {count} pushes")


def check_console(browser, base, reference, shots, problems):
    context = browser.new_context(viewport={"width": 1180, "height": 1000})
    page = context.new_page()
    watch(page, problems, "console")
    page.clock.set_fixed_time(reference)
    page.goto(base + "/console")

    # A secret nobody registered with: an error in words, still signed out.
    page.get_by_label("Push secret", exact=True).fill("nobody-registered-this-secret-0123456789")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("No subscription was ever registered")
    # A secret of the wrong form: the gateway's own 401 message.
    page.get_by_label("Push secret", exact=True).fill("short")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("refused this secret")
    expect(page.locator("#dashboard")).to_be_hidden()

    # Signed in with the keyboard alone: type, Enter.
    page.get_by_label("Push secret", exact=True).focus()
    page.keyboard.type(SECRET)
    page.keyboard.press("Enter")
    expect(page.locator("#dashboard")).to_be_visible()
    assert SECRET not in page.url, "the secret is in the URL"
    assert page.evaluate("sessionStorage.getItem('pushgate.secret')") == SECRET

    # The lights, against the test clock: heartbeat now, 2 min ago, 3 h ago.
    for source, status, text in [
        ("laptop", "connected", "connected · last call"),
        ("ci-runner", "recent", "recent · last call 2 min ago"),
        ("old-box", "not_connected", "not connected · last call 3 h ago"),
    ]:
        row = page.locator(f'#sources li[data-source="{source}"]')
        expect(row.locator(".light")).to_have_class(re.compile(rf"\b{status}\b"))
        expect(row).to_contain_text(text)
    expect(page.locator("#agent-side")).to_contain_text("The agent side is connected")

    agents = page.locator("#agents tbody tr")
    expect(agents).to_have_count(2)
    builder = page.locator("#agents tbody tr", has_text="builder@ci")
    expect(builder.locator("td").nth(1)).to_have_text("5")
    expect(builder).to_contain_text("delivered")
    expect(page.locator("#agents tbody tr", has_text="docs-writer").locator("td").nth(1)).to_have_text("1")

    events = page.locator("#events tbody tr")
    expect(events).to_have_count(2)
    expect(page.locator("#events tbody tr", has_text="deploy-42")).to_contain_text("in ")

    # The devices of one agent, opened from the keyboard.
    builder.get_by_role("button", name="Devices").focus()
    page.keyboard.press("Enter")
    devices = page.locator("#devices tbody tr")
    expect(devices).to_have_count(5)
    expect(page.locator("#devices-title")).to_have_text("Devices of builder@ci")
    # A browser's subscription: its push service's origin only, never the endpoint's path.
    expect(page.locator("#devices tbody tr", has_text="browser")).to_contain_text("Web Push https://127.0.0.1:")
    assert "/push/" not in page.locator("body").inner_text(), "an endpoint's path is shown"
    expect(page.locator("#devices tbody tr", has_text="pixel")).to_contain_text("FCM pixel-fc…")
    expect(page.locator("#devices tbody tr", has_text="iphone")).to_contain_text("APNs a1a1a1a1…")
    expect(page.locator("#devices tbody tr", has_text="ipad").locator(".sealed")).to_have_text("sealed")
    expect(page.locator("#devices tbody tr", has_text="iphone").locator(".sealed")).to_have_count(0)
    expect(page.locator("#devices tbody tr", has_text="iphone")).to_contain_text("delivered")
    expect(page.locator("#devices tbody tr", has_text="old-phone").locator(".reason")).to_have_text("UNAVAILABLE")
    assert "a1a1a1a1a" not in page.locator("body").inner_text(), "a whole token is shown"
    # The namespace's own figures, never the whole gateway's backlog.
    expect(page.locator('#own-figures [data-figure="Pending"]')).to_have_text(re.compile(r"^\d+$"))
    expect(page.locator('#own-figures [data-figure="Delivered"]')).to_have_text(re.compile(r"^[1-9]\d*$"))
    expect(page.locator('#own-figures [data-figure="Approvals waiting"]')).to_have_text("2")
    expect(page.locator("#own-figures")).to_contain_text("The gateway is delivering.")
    page.screenshot(path=os.path.join(shots, "console.png"), full_page=True)

    # Actions through the public functions.
    page.locator("#events tbody tr", has_text="deploy-42").get_by_role("button", name="Approve").click()
    expect(page.locator("#toast")).to_contain_text("deploy-42 approved")
    expect(events).to_have_count(1)
    # An event's timeline (issue 75), from its row: each installation's story.
    page.locator("#events tbody tr", has_text="migrate-7").get_by_role("button", name="Timeline").click()
    timeline = page.locator("#timeline")
    expect(timeline.locator("[data-timeline-event]")).to_have_text("migrate-7")
    expect(timeline.locator("table")).to_have_count(5)
    iphone = timeline.locator("table", has=page.locator("caption", has_text="Installation iphone"))
    expect(iphone.locator("tr.step").first).to_contain_text("accepted")
    sent = iphone.locator("tr.step", has_text="sent")
    expect(sent).to_contain_text("APNs")
    expect(sent.locator("td").nth(4)).to_have_text(re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-", re.I))
    pixel = timeline.locator("table", has=page.locator("caption", has_text="Installation pixel"))
    expect(pixel.locator("tr.step", has_text="sent").locator("td").nth(4)).to_have_text(
        re.compile(r"^projects/[^/]+/messages/.+"))
    browser_push = timeline.locator("table", has=page.locator("caption", has_text="Installation browser"))
    expect(browser_push.locator("tr.step", has_text="sent").locator("td").nth(4)).to_have_text(
        re.compile(r"^https://127\.0\.0\.1:\d+/"))
    old_phone = timeline.locator("table", has=page.locator("caption", has_text="Installation old-phone"))
    expect(old_phone).to_contain_text("UNAVAILABLE")
    # An unknown id, typed: the gateway's words.
    page.get_by_label("Event id").fill("no-such-event")
    page.get_by_label("Event id").press("Enter")
    expect(timeline.locator(".notice.error")).to_contain_text("No timeline for no-such-event")
    # A test push shows its own timeline.
    page.locator("#agents tbody tr", has_text="docs-writer").get_by_role("button", name="Send test push").click()
    expect(page.locator("#toast")).to_contain_text("Test push to docs-writer: 1 delivered")
    expect(timeline.locator("table")).to_have_count(1)
    expect(timeline.locator("caption")).to_have_text("Installation iphone")
    expect(timeline.locator("tr.step", has_text="sent")).to_contain_text("APNs")
    remove = page.locator("#devices tbody tr", has_text="ipad").get_by_role("button", name="Remove")
    remove.click()
    page.locator("#devices tbody tr", has_text="ipad").get_by_role("button", name="Confirm removal").click()
    expect(page.locator("#toast")).to_contain_text("Removed ipad")
    expect(devices).to_have_count(4)
    expect(builder.locator("td").nth(1)).to_have_text("4")

    # A phone-sized screen: nothing wider than the screen.
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#agents")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), "wider than a phone"
    page.screenshot(path=os.path.join(shots, "console-phone-size.png"), full_page=True)

    page.get_by_role("button", name="Sign out").click()
    expect(page.locator("#sign-in")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('pushgate.secret')") is None
    context.close()


def open_phone(browser, url, device, problems, name):
    """An emulator's phone page (its self-signed certificate accepted), one device chosen."""
    context = browser.new_context(ignore_https_errors=True, viewport={"width": 1180, "height": 1000})
    page = context.new_page()
    watch(page, problems, name)
    page.goto(url + "/")
    page.locator("#device").select_option(device)
    return context, page


def check_apns_phone(browser, url, shots, problems):
    context, page = open_phone(browser, url, IPHONE_TOKEN, problems, "APNs phone")
    banners = page.locator("#banners .banner")
    # The iPhone follows both agents: two replies (the second replaced the first),
    # one approval (the other, approved in the console, withdrawn by its event_resolved
    # push as the app's handler removes it), two nightly runs in their thread, the test push.
    expect(banners).to_have_count(5)
    reply = page.locator("#banners .banner", has_text="all green")
    expect(reply).to_contain_text("replaced 1 earlier")
    expect(page.locator("#banners .banner", has_text="12 tests passed")).to_have_count(0)
    approvals = page.locator("#banners .banner", has_text="Approval needed")
    expect(approvals).to_have_count(1)
    expect(approvals.first.locator(".mark")).to_have_text("Time sensitive")
    expect(page.locator("#banners .group[data-thread='nightly'] .banner")).to_have_count(2)
    # Two approvals raised the badge to 2; approving one in the console sent a badge
    # update (no banner) that lowered it to 1.
    expect(page.locator("#apps .app-icon .badge")).to_have_text("1")
    # The newest first: the test push sent from the console.
    expect(banners.first).to_contain_text("Sent from the Pushgate console.")
    reply.click()
    expect(page.locator("#raw")).to_contain_text("apns-collapse-id")
    expect(page.locator("#raw pre")).to_contain_text('"aps"')
    page.screenshot(path=os.path.join(shots, "phone.png"), full_page=True)
    # The iPad's pushes are sealed: its lock screen shows the neutral text, never the reply.
    page.locator("#device").select_option(IPAD_TOKEN)
    expect(page.locator("#banners .banner", has_text="New activity").first).to_be_visible()
    expect(page.locator("#banners .banner", has_text="all green")).to_have_count(0)
    context.close()


def start_hook(pushgate, base, directory, event, *options):
    """`pushgate hook` as an agent runs it: `event` on standard input, the gateway in
    its environment, the decision keys pinned in the test's folder."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CODEAGENTS_")} | {
        "CODEAGENTS_PUSH_SECRET": SECRET, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": base}
    event_file = os.path.join(directory, event["hook_event_name"] + ".json")
    with open(event_file, "w") as file:
        json.dump(event, file)
    with open(event_file) as stdin:
        return subprocess.Popen(
            [pushgate, "hook", *options, "--pins", os.path.join(directory, "pins.json")],
            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, cwd=directory)


@contextlib.contextmanager
def waiting_hook(pushgate, base, directory, event, *options):
    """`start_hook`'s process, killed if the steps in the block fail before it ends."""
    hook = start_hook(pushgate, base, directory, event, *options)
    try:
        yield hook
    finally:
        if hook.poll() is None:
            hook.kill()


def hook_output(hook):
    """What the hook printed for the agent, once it ended well, the secret not in its line."""
    stdout, stderr = hook.communicate(timeout=30)
    assert hook.returncode == 0, stderr
    assert SECRET.encode() not in stderr
    return json.loads(stdout)


def click_on_phone(page, pushgate, base, directory, event, shown, button, decided, shot=None):
    """A hook waiting on `event`; on the phone page, the push showing `shown` answered by
    clicking `button` (a screenshot first, when named), which the page says `decided`:
    what the hook then printed for its agent."""
    with waiting_hook(pushgate, base, directory, event, "--decision-wait", "90") as hook:
        push = page.locator(".decidable", has_text=shown)
        expect(push).to_be_visible(timeout=20000)
        if shot:
            page.screenshot(path=shot, full_page=True)
        push.get_by_role("button", name=button).click()
        expect(push.locator(".decided")).to_have_text(decided)
        return hook_output(hook)


def pair_phone(page, base, pushgate, directory):
    """Issue 82: `pushgate pair` on the agent's machine shows a code; the person types
    it on the phone page (spaced, in lower case, as a person might); pair pins the
    phone and prints the fingerprint the page shows."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CODEAGENTS_")} | {
        "CODEAGENTS_PUSH_SECRET": SECRET, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": base}
    pairing = subprocess.Popen(
        [pushgate, "pair", "--json", "--wait", "120", "--pins", os.path.join(directory, "pins.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, cwd=directory, text=True)
    try:
        opened = json.loads(pairing.stdout.readline())
        typed = " ".join(opened["code"][index:index + 4] for index in range(0, len(opened["code"]), 4)).lower()
        fingerprint = page.locator("#fingerprint")
        expect(fingerprint).to_have_text(re.compile(r"^[0-9A-F]{4}( [0-9A-F]{4}){4}$"), timeout=20_000)
        page.locator("#pair-code").fill(typed)
        page.get_by_role("button", name="Pair this phone").click()
        expect(page.locator("#toast")).to_contain_text("Pairing sent", timeout=30_000)
        stdout, stderr = pairing.communicate(timeout=30)
    finally:
        if pairing.poll() is None:
            pairing.kill()
    assert pairing.returncode == 0, stderr
    paired = json.loads(stdout.strip().splitlines()[-1])
    assert paired["device_name"] == "Emulator phone", paired
    assert paired["fingerprint"] == fingerprint.text_content(), (paired, fingerprint.text_content())


def check_phone_decides(browser, base, pushgate, url, directory, shots, problems):
    """Issue 73: the emulator registered as a phone from its page's form, paired with
    the agent's machine from it (issue 82), an agent's PermissionRequest hook waiting,
    Allow clicked on the phone page: the hook prints allow for its agent."""
    agent = "/srv/agents/deployer"
    context, page = open_phone(browser, url, "", problems, "APNs phone, deciding")
    page.locator("#phone-gateway").fill(base)
    page.locator("#phone-secret").fill(SECRET)
    page.locator("#phone-cwd").fill(agent)
    page.get_by_role("button", name="Register this phone").click()
    expect(page.locator("#toast")).to_contain_text("This phone is registered", timeout=30_000)
    expect(page.locator("#phone-status")).to_contain_text(agent)
    assert SECRET not in page.content(), "the secret is not kept on the page"
    phone = json.loads(urllib.request.urlopen(url + "/phone", context=ssl._create_unverified_context(), timeout=10).read())
    assert SECRET not in json.dumps(phone), "GET /phone never shows the secret"
    pair_phone(page, base, pushgate, directory)

    event = {"session_id": "b7c1d2e3-0000-4444-8888-123456789abc", "cwd": agent,
             "hook_event_name": "PermissionRequest", "permission_mode": "default", "tool_name": "Bash",
             "tool_input": {"command": "kubectl rollout restart deploy/api", "description": "Restart the API"}}
    said = click_on_phone(page, pushgate, base, directory, event, "Restart the API", "Allow", "Allowed from this phone",
                          os.path.join(shots, "phone-approval.png"))
    assert said == {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}, said
    context.close()


def check_phone_replies(browser, base, pushgate, url, directory, shots, problems):
    """Issue 74: an agent's Stop hook waiting for the person's words; a reply typed in
    the phone page's text box reaches it as the Stop hook's block; a question nobody
    waited for, answered there too, is listed once at GET /replies."""
    agent = "/srv/agents/deployer"
    context, page = open_phone(browser, url, "", problems, "APNs phone, replying")
    event = {"session_id": "c8d2e3f4-0000-4444-8888-123456789abc", "cwd": agent, "hook_event_name": "Stop",
             "stop_hook_active": False, "permission_mode": "default",
             "last_assistant_message": "Migrations written. Which database should I run them on?"}
    words = "The staging one, please"
    with waiting_hook(pushgate, base, directory, event, "--reply-wait", "90") as hook:
        reply = page.locator(".decidable", has_text="Which database should I run them on?")
        expect(reply).to_be_visible(timeout=20000)
        reply.get_by_role("textbox").fill(words)
        page.screenshot(path=os.path.join(shots, "phone-reply.png"), full_page=True)
        reply.get_by_role("button", name="Send").click()
        expect(reply.locator(".decided")).to_have_text("Answered from this phone")
        said = hook_output(hook)
    assert said == {"decision": "block", "reason": words}, said

    question = must(call(base, "/triggerEvent", {
        "cwd": agent, "type": "question_asked", "body": "Tag the release as 2.1.0?"}), "question")
    asked = page.locator(".decidable", has_text="Tag the release as 2.1.0?")
    expect(asked).to_be_visible(timeout=20000)
    asked.get_by_role("textbox").fill("Yes, and push the tag")
    asked.get_by_role("button", name="Send").click()
    expect(asked.locator(".decided")).to_have_text("Answered from this phone")
    replies_path = "/replies?cwd=" + urllib.parse.quote(agent, safe="")
    status, unread = call(base, replies_path)
    assert status == 200 and [(r["event_id"], r["message"]) for r in unread["replies"]] == [
        (question["event_id"], "Yes, and push the tag")], unread
    status, again = call(base, replies_path)
    assert status == 200 and again["replies"] == [], "an answer is handed over once"
    context.close()


def check_phone_choices(browser, base, pushgate, url, directory, shots, problems):
    """Issue 84: questions with choices answered from the phone page. Claude Code's
    AskUserQuestion (through the PermissionRequest hook) shows its options as buttons;
    the one clicked goes back as updatedInput.answers. An MCP server's form elicitation
    shows its fields; the content filled in goes back as the Elicitation hook's accept,
    checked against the schema. An approval with a permission suggestion offers Always."""
    agent = "/srv/agents/deployer"
    context, page = open_phone(browser, url, "", problems, "APNs phone, choosing")
    asked = {"questions": [{"question": "Which database should the migration use?", "header": "Database",
                            "options": [{"label": "PostgreSQL", "description": "The production one"},
                                        {"label": "SQLite", "description": "A local file"}],
                            "multiSelect": False}]}
    event = {"session_id": "d9e3f4a5-0000-4444-8888-123456789abc", "cwd": agent,
             "hook_event_name": "PermissionRequest", "permission_mode": "default", "tool_name": "AskUserQuestion",
             "tool_input": asked}
    said = click_on_phone(page, pushgate, base, directory, event, "Which database should the migration use?", "SQLite",
                          "Answered from this phone", os.path.join(shots, "phone-choices.png"))
    assert said == {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {
        "behavior": "allow", "updatedInput": {**asked, "answers": {
            "Which database should the migration use?": "SQLite"}}}}}, said

    form = {"hook_event_name": "Elicitation", "session_id": "d9e3f4a5-0000-4444-8888-123456789abc", "cwd": agent,
            "mcp_server_name": "deploy-tools", "message": "Where should the release go?", "mode": "form",
            "elicitation_id": "elicit-1", "requested_schema": {
                "type": "object", "required": ["environment", "replicas"], "properties": {
                    "environment": {"type": "string", "title": "Environment", "enum": ["staging", "production"]},
                    "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 10},
                    "notify": {"type": "boolean", "title": "Tell the team"}}}}
    with waiting_hook(pushgate, base, directory, form, "--decision-wait", "90") as hook:
        filled = page.locator(".decidable", has_text="Where should the release go?")
        expect(filled).to_be_visible(timeout=20000)
        filled.get_by_label("Environment").select_option("staging")
        filled.get_by_label("Replicas").fill("3")
        filled.get_by_label("Tell the team").check()
        page.screenshot(path=os.path.join(shots, "phone-form.png"), full_page=True)
        filled.get_by_role("button", name="Send").click()
        expect(filled.locator(".decided")).to_have_text("Answered from this phone")
        said = hook_output(hook)
    assert said == {"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {
        "environment": "staging", "replicas": 3, "notify": True}}}, said

    suggestion = {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "make test:*"}],
                  "behavior": "allow", "destination": "localSettings"}
    approval = {"session_id": "d9e3f4a5-0000-4444-8888-123456789abc", "cwd": agent,
                "hook_event_name": "PermissionRequest", "permission_mode": "default", "tool_name": "Bash",
                "tool_input": {"command": "make test", "description": "Run the unit tests"},
                "permission_suggestions": [suggestion]}
    said = click_on_phone(page, pushgate, base, directory, approval, "Run the unit tests", "Always",
                          "Always allowed from this phone")
    assert said == {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {
        "behavior": "allow", "updatedPermissions": [suggestion]}}}, said
    context.close()


def check_live_activity(browser, base, url, shots, problems):
    """An agent's run on the lock screen (issue 64): started by push, then ended by the
    run's completion; the phone page shows each activity's latest state."""
    live, watcher = "/srv/live-agent", "c4" * 32
    start_token, activity_token = "d5" * 32, "e6" * 32
    must(call(base, "/registerSubscription", {
        "cwd": live, "installation_id": "watcher", "agent_display_name": "live@ci", "apns_token": watcher,
        "activity_start_token": start_token}), "register the watcher")
    before = inbox_count(url)
    must(call(base, "/triggerEvent", {
        "cwd": live, "type": "run_started", "progress": {"step": "reading the code"}}), "run_started")
    wait_for_inbox(url, before + 1)
    context, page = open_phone(browser, url, "", problems, "APNs phone, a Live Activity started")
    started = page.locator(f"#activities .activity[data-device='{start_token}']")
    expect(started).to_contain_text("live@ci")
    expect(started.locator(".phase")).to_have_text("Running")
    expect(started.locator(".step")).to_have_text("reading the code")
    context.close()
    must(call(base, "/registerActivity", {
        "cwd": live, "installation_id": "watcher", "activity_token": activity_token}), "registerActivity")
    must(call(base, "/triggerEvent", {"cwd": live, "type": "run_completed", "body": "All green"}), "run_completed")
    # The run's own push and the activity's end.
    wait_for_inbox(url, before + 3)
    context, page = open_phone(browser, url, "", problems, "APNs phone, a Live Activity ended")
    # One activity: the start's card gave way to the activity it created.
    expect(page.locator("#activities .activity")).to_have_count(1)
    ended = page.locator(f"#activities .activity[data-device='{activity_token}']")
    expect(ended).to_contain_text("live@ci")
    expect(ended).to_have_attribute("data-ended", "true")
    expect(ended).to_contain_text("Done")
    expect(ended.locator(".preview")).to_have_text("All green")
    # An activity's pushes are no banners, and its topic no app on the lock screen.
    expect(page.locator("#apps .app-icon[data-app$='.push-type.liveactivity']")).to_have_count(0)
    page.screenshot(path=os.path.join(shots, "phone-live-activity.png"), full_page=True)
    context.close()


def inbox_count(url):
    context = ssl._create_unverified_context()
    with urllib.request.urlopen(url + "/inbox/count", context=context, timeout=5) as response:
        return json.loads(response.read())["count"]


def check_fcm_phone(browser, url, shots, problems):
    context, page = open_phone(browser, url, "pixel-fcm-token-0001", problems, "FCM phone")
    banners = page.locator("#banners .banner")
    expect(banners.first).to_be_visible()
    expect(page.locator("#banners .banner", has_text="Approval needed")).to_have_count(2)
    # The failed sends to another device are listed apart, not drawn as arrived.
    page.locator("#device").select_option("")
    expect(page.locator("#refused")).to_contain_text("UNAVAILABLE")
    banners.first.click()
    expect(page.locator("#raw pre")).to_contain_text('"token"')
    page.screenshot(path=os.path.join(shots, "phone-fcm.png"), full_page=True)
    context.close()


def check_webpush_phone(browser, url, subscription, shots, problems):
    device = subscription["endpoint"].rsplit("/", 1)[1]
    context, page = open_phone(browser, url, device, problems, "Web Push phone")
    # The browser follows the builder: two replies (the second replaced the first:
    # one Topic), two approvals (Urgency: high), opened by the emulator; the one the
    # console approved replaced by a visible line under its Topic (a browser never
    # gets a push that shows nothing: issue 72).
    expect(page.locator("#banners .banner")).to_have_count(3)
    reply = page.locator("#banners .banner", has_text="all green")
    expect(reply).to_contain_text("replaced 1 earlier")
    approvals = page.locator("#banners .banner", has_text="Approval needed")
    expect(approvals).to_have_count(1)
    expect(approvals.first.locator(".mark")).to_have_text("Time sensitive")
    approved = page.locator("#banners .banner", has_text="Approved")
    expect(approved).to_have_count(1)
    expect(approved).to_contain_text("replaced 1 earlier")
    reply.click()
    expect(page.locator("#raw")).to_contain_text("aes128gcm")
    expect(page.locator("#raw pre")).to_contain_text('"server_key"')
    page.screenshot(path=os.path.join(shots, "phone-webpush.png"), full_page=True)
    context.close()


def serve_web_app(gateway):
    """A web app's origin of its own (a loopback port), as a real one is: a page that
    registers its service worker and tells it where to confirm, and a service worker
    that imports Pushgate's from the gateway (`gateway["url"]`, known once it runs).
    Answers the server and its origin."""
    files = {
        "/sw.js": ("text/javascript", 'importScripts("{url}/pushgate-sw.js");\n'),
        "/index.html": ("text/html", """<!doctype html><meta charset="utf-8"><title>starting</title>
<script>
const config = JSON.parse(decodeURIComponent(location.hash.slice(1)));
const base64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
// The app's own decision key signs what the person typed (the worker holds none).
// "Always" (issue 84) is signed over the suggestion it applies: allow_always:0.
async function answer(given, decision = "answer") {
    const encoder = new TextEncoder();
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(config.secret)));
    const serverKey = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
    const signedAt = Math.floor(Date.now() / 1000);
    const line = decision === "allow_always" ? "allow_always:0" : decision;
    const text = ["pushgate-decision-v1", serverKey, given.event_id, config.installationID, line, String(signedAt),
        given.reply ?? ""].join("\\n");
    const key = await crypto.subtle.importKey("jwk", config.key, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
    const signature = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, encoder.encode(text)));
    const body = { event_id: given.event_id, installation_id: config.installationID, decision, message: given.reply,
        signed_at: signedAt, signature: base64url(signature) };
    if (decision === "allow_always") body.suggestion = 0;
    const response = await fetch(config.gateway + "/decideEvent", {
        method: "POST", headers: { Authorization: `Bearer ${config.secret}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
    });
    document.title = "answered " + response.status;
}
navigator.serviceWorker.addEventListener("message", (event) => {
    const given = event.data?.pushgate;
    if (given === "configured") document.title = "configured";
    else if (given?.action === "answer" && typeof given.reply === "string") answer(given);
    // The app shows the approval with its "Always" (what it does, in words); the person picks it.
    else if (given?.action === "open" && given.allow_always) {
        document.title = "always offered: " + given.allow_always;
        setTimeout(() => answer(given, "allow_always"), 100);
    }
});
navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then((registration) => {
    const { key, ...where } = config;
    registration.active.postMessage({ pushgate: where });
}).catch((error) => { document.title = "failed: " + error; });
</script>"""),
    }

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            kind, text = files.get(self.path.split("?")[0], (None, None))
            if kind is None:
                self.send_error(404)
                return
            body = (text.format(url=gateway["url"]) if self.path == "/sw.js" else text).encode()
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def timeline_until(base, event_id, installation, state, seconds=20):
    """The states of `installation`'s timeline of `event_id` once `state` is among
    them, or as they are after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        status = must(call(base, "/eventStatus", {"event_id": event_id}), "eventStatus")
        states = [step["state"] for entry in status["installations"] if entry["installation_id"] == installation
                  for step in entry["timeline"]]
        if state in states or time.monotonic() > deadline:
            return states
        time.sleep(0.1)


def webpush_plaintext(webpush_url, found, seconds=15):
    """The first plaintext the push service took for which `found(payload)` holds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        entries = json.loads(urllib.request.urlopen(
            webpush_url + "/inbox", context=ssl._create_unverified_context(), timeout=5).read())
        entries = entries.get("entries", entries) if isinstance(entries, dict) else entries
        plaintext = next((e["payload"] for e in entries if isinstance(e.get("payload"), dict) and found(e["payload"])),
                         None)
        if plaintext is not None:
            return plaintext
        time.sleep(0.1)
    return None


def web_app_key():
    """A decision key for the web app: its private half as a JWK (what the app's page
    keeps), its public half as registerSubscription's decision_key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    key = ec.generate_private_key(ec.SECP256R1())
    numbers = key.private_numbers()

    def encode(number):
        return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode()

    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    jwk = {"kty": "EC", "crv": "P-256", "x": encode(numbers.public_numbers.x), "y": encode(numbers.public_numbers.y),
           "d": encode(numbers.private_value)}
    return jwk, base64.urlsafe_b64encode(public).rstrip(b"=").decode()


def check_service_worker(browser, base, webpush_url, app_origin, pushgate, directory, problems):
    """Pushgate's service worker in a web app (issue 75): a push delivered to it is
    shown and confirmed, and the event's timeline says "delivered". Issue 83: a reply's
    text field shown through the real worker, and the words typed there handed to the
    app's page, which signs them, reach the waiting Stop hook."""
    subscription = json.loads(urllib.request.urlopen(urllib.request.Request(
        webpush_url + "/subscriptions", data=b"", method="POST"),
        context=ssl._create_unverified_context(), timeout=10).read())
    jwk, decision_key = web_app_key()
    must(call(base, "/registerSubscription", {
        "cwd": WEB_APP, "installation_id": "web-app", "webpush": subscription, "platform": "web",
        "decision_key": decision_key, "device_name": "Web app"}), "register web-app")
    # A preflight from the app's origin is allowed; another origin's gets no CORS header.
    for origin, allowed in [(app_origin, True), ("http://127.0.0.1:1", False)]:
        request = urllib.request.Request(base + "/receipts", method="OPTIONS", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                headers = response.headers
        except urllib.error.HTTPError as error:
            headers = error.headers
        assert (headers.get("Access-Control-Allow-Origin") == origin) == allowed, (origin, dict(headers))

    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=app_origin)
    page = context.new_page()
    watch(page, problems, "web app")
    config = {"gateway": base, "secret": SECRET, "installationID": "web-app", "key": jwk}
    page.goto(app_origin + "/index.html#" + urllib.parse.quote(json.dumps(config)))
    expect(page).to_have_title("configured", timeout=20_000)

    answer = must(call(base, "/triggerReplyFinished", {"cwd": WEB_APP, "message_preview": "Built for the web"}), "reply")
    event_id = answer["event_id"]
    # What the browser would have decrypted: the plaintext the push service took.
    plaintext = webpush_plaintext(webpush_url, lambda payload: payload.get("data", {}).get("event_id") == event_id)
    assert plaintext is not None, f"the push of {event_id} did not reach the push service"

    # Chromium hands the push to the service worker as its push service would.
    cdp = context.new_cdp_session(page)
    registrations = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"]))
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not registrations and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    registration = next(r for r in registrations if r["scopeURL"].startswith(app_origin))

    def deliver(payload):
        cdp.send("ServiceWorker.deliverPushMessage", {
            "origin": app_origin, "registrationId": registration["registrationId"], "data": json.dumps(payload)})

    deliver(plaintext)

    page.wait_for_function(
        "async () => (await (await navigator.serviceWorker.ready).getNotifications()).some(n => n.body === 'Built for the web')",
        polling=100, timeout=20_000)
    states = timeline_until(base, event_id, "web-app", "delivered")
    assert states[:2] == ["accepted", "sent"] and "delivered" in states, states

    # The person clicks it: headless Chromium clicks no notification, so the worker
    # is handed the click event its browser would dispatch, for the notification shown.
    worker = next((w for w in context.service_workers if w.url.startswith(app_origin)), None) \
        or context.wait_for_event("serviceworker", timeout=10_000)
    worker.evaluate("""async () => {
        const [shown] = await self.registration.getNotifications();
        self.dispatchEvent(new NotificationEvent("notificationclick", { notification: shown }));
    }""")
    states = timeline_until(base, event_id, "web-app", "opened")
    assert states[-1] == "opened", states
    check_reply_field(page, worker, deliver, base, webpush_url, decision_key, pushgate, directory)
    check_always_in_the_app(page, worker, deliver, base, webpush_url, pushgate, directory)
    context.close()


def check_always_in_the_app(page, worker, deliver, base, webpush_url, pushgate, directory):
    """Issue 84: an approval that offers "Always" reaches the browser with its two
    buttons (Allow, Deny); a click on the notification itself hands the app's page what
    "Always" does, and the page's signed allow_always reaches the waiting hook, which
    prints the suggestion as updatedPermissions."""
    suggestion = {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm run build:*"}],
                  "behavior": "allow", "destination": "session"}
    event = {"session_id": "a1b2c3d4-0000-4444-8888-0123456789ab", "cwd": WEB_APP,
             "hook_event_name": "PermissionRequest", "permission_mode": "default", "tool_name": "Bash",
             "tool_input": {"command": "npm run build", "description": "Build the web app"},
             "permission_suggestions": [suggestion]}
    with waiting_hook(pushgate, base, directory, event, "--decision-wait", "90") as hook:
        plaintext = webpush_plaintext(webpush_url, lambda payload: "Build the web app" in payload.get("body", ""))
        assert plaintext is not None, "the approval did not reach the push service"
        assert [action["action"] for action in plaintext["actions"]] == ["allow", "deny"], plaintext
        assert plaintext["data"]["allow_always"] == "Always allow Bash(npm run build:*) for this session", plaintext
        deliver(plaintext)
        page.wait_for_function(
            """async () => (await (await navigator.serviceWorker.ready).getNotifications())
                .some((n) => n.body.includes("Build the web app"))""", polling=100, timeout=20_000)
        worker.evaluate("""async () => {
            const shown = (await self.registration.getNotifications()).find((n) => n.body.includes("Build the web app"));
            self.dispatchEvent(new NotificationEvent("notificationclick", { notification: shown }));
        }""")
        expect(page).to_have_title("answered 200", timeout=20_000)
        said = hook_output(hook)
    assert said == {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {
        "behavior": "allow", "updatedPermissions": [suggestion]}}}, said


def check_reply_field(page, worker, deliver, base, webpush_url, decision_key, pushgate, directory):
    """Issue 83: an agent's Stop hook waits for the person's words; its answerable
    reply shows a text field through the real worker (Chromium's `type: "text"`
    action), and what is typed there (the click's `reply`) goes to the app's page,
    which signs it: the hook prints it as the Stop hook's block. The web app is pinned
    as `pushgate pair` pins (pairing itself is the phone page's test)."""
    pins_file = os.path.join(directory, "pins.json")
    with open(pins_file) as file:
        pins = json.load(file)
    pins["pins"]["web-app"] = decision_key
    with open(pins_file, "w") as file:
        json.dump(pins, file)
    words = "Ship it to staging first"
    event = {"session_id": "a1b2c3d4-0000-4444-8888-0123456789ab", "cwd": WEB_APP, "hook_event_name": "Stop",
             "stop_hook_active": False, "last_assistant_message": "The web build is ready. Where should it go?"}
    with waiting_hook(pushgate, base, directory, event, "--reply-wait", "90") as hook:
        plaintext = webpush_plaintext(webpush_url, lambda payload: "Where should it go?" in payload.get("body", ""))
        assert plaintext is not None, "the answerable reply did not reach the push service"
        assert plaintext["actions"] == [
            {"action": "answer", "title": "Reply", "type": "text", "placeholder": "Answer the agent"}], plaintext
        deliver(plaintext)
        shown = page.wait_for_function(
            """async () => {
                const shown = (await (await navigator.serviceWorker.ready).getNotifications())
                    .find((n) => n.body.includes("Where should it go?"));
                return shown && shown.actions.map((a) => ({ action: a.action, type: a.type, placeholder: a.placeholder }));
            }""", polling=100, timeout=20_000).json_value()
        assert shown == [{"action": "answer", "type": "text", "placeholder": "Answer the agent"}], shown
        # The person types in the field and sends it: the click Chromium would dispatch.
        worker.evaluate("""async (words) => {
            const shown = (await self.registration.getNotifications()).find((n) => n.body.includes("Where should it go?"));
            self.dispatchEvent(new NotificationEvent("notificationclick", { notification: shown, action: "answer", reply: words }));
        }""", words)
        expect(page).to_have_title("answered 200", timeout=20_000)
        said = hook_output(hook)
    assert said == {"decision": "block", "reason": words}, said


def watch(page, problems, name):
    """Collects script errors and CSP reports: a page that breaks its own policy fails.
    Chromium also logs each answer of 4xx as an error: the wrong secrets' are expected."""
    page.on("pageerror", lambda error: problems.append(f"{name}: {error}"))
    page.on("console", lambda message: message.type == "error"
            and not message.text.startswith("Failed to load resource")
            and problems.append(f"{name}: {message.text}"))


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pushgate", default=os.path.join(root, ".build/debug/pushgate"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--screenshots", help="also copy the screenshots here")
    arguments = parser.parse_args()
    pushgate = os.path.abspath(arguments.pushgate)

    directory = tempfile.mkdtemp(prefix="pushgate-browser-")
    shots = os.path.join(directory, "screenshots")
    os.makedirs(shots)
    processes = []
    app_server = None
    try:
        apns, apns_url, apns_settings = start_emulator(pushgate, "apns-emulator", directory)
        processes.append(apns)
        fcm, fcm_url, fcm_settings = start_emulator(pushgate, "fcm-emulator", directory)
        processes.append(fcm)
        webpush, webpush_url, webpush_settings = start_emulator(pushgate, "webpush-emulator", directory)
        processes.append(webpush)
        browser_subscription = json.loads(urllib.request.urlopen(urllib.request.Request(
            webpush_url + "/subscriptions", data=b"", method="POST"),
            context=ssl._create_unverified_context(), timeout=10).read())
        database = os.path.join(directory, "pushgate.sqlite")
        gateway_url = {"url": None}
        app_server, app_origin = serve_web_app(gateway_url)
        environment = {
            key: value for key, value in os.environ.items() if not key.startswith("PUSHGATE_")
        } | apns_settings | fcm_settings | webpush_settings | {
            "PUSHGATE_PORT": "0", "PUSHGATE_DATABASE": database, "PUSHGATE_METRICS_LISTEN": "off",
            "PUSHGATE_DELIVERY_MAX_ATTEMPTS": "2", "PUSHGATE_CORS_ORIGINS": app_origin,
        }
        gateway = Process("gateway", [pushgate, "serve"], directory, environment)
        processes.append(gateway)
        port = gateway.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        base = f"http://127.0.0.1:{port}"
        gateway_url["url"] = base

        for cwd, name, installation, token in [
            (BUILDER, "builder@ci", "iphone", {"apns_token": IPHONE_TOKEN}),
            (BUILDER, "builder@ci", "ipad", {"apns_token": IPAD_TOKEN, "platform": "ipados",
                                              "payload_keys": SEALING_KEYS}),
            (BUILDER, "builder@ci", "pixel", {"fcm_token": "pixel-fcm-token-0001", "platform": "android"}),
            (BUILDER, "builder@ci", "old-phone", {"fcm_token": "unavail-old-phone-0001", "platform": "android"}),
            (BUILDER, "builder@ci", "browser", {"webpush": browser_subscription, "platform": "web"}),
            (DOCS, "docs-writer", "iphone", {"apns_token": IPHONE_TOKEN}),
        ]:
            must(call(base, "/registerSubscription", {
                "cwd": cwd, "installation_id": installation, "agent_display_name": name,
                "bundle_id": "com.example.app", "app_version": "3.2", **token}), f"register {installation}")
        must(call(base, "/heartbeat", {"source": "laptop"}), "heartbeat")
        reference = datetime.datetime.now(datetime.timezone.utc)
        seed_sources(database, reference)

        must(call(base, "/triggerReplyFinished", {"cwd": BUILDER, "message_preview": "Build finished: 12 tests passed"}), "reply")
        must(call(base, "/triggerReplyFinished", {"cwd": BUILDER, "message_preview": "Build finished again: all green"}), "reply")
        for event_id, body in [("deploy-42", "Deploy to production?"), ("migrate-7", "Run the migration?")]:
            must(call(base, "/triggerEvent", {"cwd": BUILDER, "type": "approval_requested", "event_id": event_id, "body": body}), event_id)
        for event_id, body in [("n1", "Nightly docs build done"), ("n2", "Nightly link check done")]:
            must(call(base, "/triggerEvent", {
                "cwd": DOCS, "type": "run_completed", "event_id": event_id, "thread_id": "nightly", "body": body}), event_id)
        # iPhone: 2 replies + 2 approvals + 2 runs; iPad: 2 + 2.
        wait_for_inbox(apns_url, 10)
        # The browser: 2 replies + 2 approvals.
        wait_for_inbox(webpush_url, 4)

        problems = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=arguments.chromium, args=["--no-sandbox"])
            check_console(browser, base, reference, shots, problems)
            check_apns_phone(browser, apns_url, shots, problems)
            check_live_activity(browser, base, apns_url, shots, problems)
            check_phone_decides(browser, base, pushgate, apns_url, directory, shots, problems)
            check_phone_replies(browser, base, pushgate, apns_url, directory, shots, problems)
            check_phone_choices(browser, base, pushgate, apns_url, directory, shots, problems)
            check_fcm_phone(browser, fcm_url, shots, problems)
            check_webpush_phone(browser, webpush_url, browser_subscription, shots, problems)
            check_service_worker(browser, base, webpush_url, app_origin, pushgate, directory, problems)
            browser.close()
        if problems:
            raise SystemExit("the pages reported errors:\n" + "\n".join(problems))
        if arguments.screenshots:
            os.makedirs(arguments.screenshots, exist_ok=True)
            for name in os.listdir(shots):
                shutil.copy(os.path.join(shots, name), arguments.screenshots)
        print(f"browser test passed; screenshots in {shots}: {', '.join(sorted(os.listdir(shots)))}")
    finally:
        if app_server:
            app_server.shutdown()
        for process in reversed(processes):
            process.stop()


if __name__ == "__main__":
    main()
