"""Drives `pushgate apns-emulator` with APNs clients nobody in this project wrote,
changed in nothing but the endpoint and the trusted CA:

- aioapns (asyncio; TLS without ALPN, then HTTP/2 at once, as Apple accepts),
- pyapns_client (httpx; HTTP/2 chosen by ALPN),
- a bare HTTP/2 connection made with the h2 library, to see the frames themselves.

    python3 Tests/compat/apns_clients.py --pushgate .build/debug/pushgate

Starts the emulator (a free port, a temporary directory, stopped by its pid), checks
that concurrent pushes on one connection are each answered once, that every error
reason surfaces as the library's own error, and what the wire looks like (a 200 ends
on its HEADERS; GOAWAY carries a reason; HTTP/1.1 reaches the pages only). Then what
no client may do to it: streams past the advertised 1,000 are refused one by one and
the connection goes on, a push whose answer never reached its client is not kept as
answered, a client that leaves streams unfinished and goes away leaves no connection
behind, and SIGTERM stops it within seconds whatever its clients do. Prints one line
per check; exits 1 naming those that failed.
"""

import argparse
import asyncio
import concurrent.futures
import http.client
import json
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse

from emulator_process import check, start, stop, summary

TOPIC = "com.example.app"
TOKEN = "ab" * 32
def inbox_count(url, context):
    parsed = urllib.parse.urlparse(url)
    connection = http.client.HTTPSConnection(parsed.hostname, parsed.port, context=context, timeout=10)
    connection.request("GET", "/inbox/count")
    return json.loads(connection.getresponse().read())["count"]


def inbox_entries(url, context):
    """What the emulator kept, newest first (`GET /inbox`)."""
    parsed = urllib.parse.urlparse(url)
    connection = http.client.HTTPSConnection(parsed.hostname, parsed.port, context=context, timeout=10)
    connection.request("GET", "/inbox")
    return json.loads(connection.getresponse().read())


def h2_connection(url, ca_file, alpn):
    """A TLS socket to the emulator (offering ALPN `alpn`, or none) and an h2 client on it."""
    import h2.config
    import h2.connection

    parsed = urllib.parse.urlparse(url)
    context = ssl.create_default_context(cafile=ca_file)
    if alpn:
        context.set_alpn_protocols(alpn)
    sock = context.wrap_socket(socket.create_connection((parsed.hostname, parsed.port), timeout=10),
                               server_hostname=parsed.hostname)
    connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    sock.sendall(connection.data_to_send())
    return sock, connection


def h2_events_until(sock, connection, done, seconds=10):
    """Reads frames until `done(events so far)` holds or the socket closes; returns the events."""
    events = []
    deadline = time.monotonic() + seconds
    while not done(events) and time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            break
        if not data:
            events.append("closed")
            break
        events.extend(connection.receive_data(data))
        sock.sendall(connection.data_to_send())  # PING and SETTINGS acks
    return events


def h2_push(sock, connection, headers, body, authorization):
    import h2.events

    stream = connection.get_next_available_stream_id()
    connection.send_headers(stream, [
        (":method", headers.pop(":method", "POST")), (":scheme", "https"),
        (":path", headers.pop(":path", "/3/device/" + TOKEN)), (":authority", "127.0.0.1"),
        ("authorization", authorization)] + list(headers.items()), end_stream=not body)
    if body:
        connection.send_data(stream, body, end_stream=True)
    sock.sendall(connection.data_to_send())
    ended = lambda events: any(isinstance(e, h2.events.StreamEnded) and e.stream_id == stream for e in events)
    events = [e for e in h2_events_until(sock, connection, ended) if getattr(e, "stream_id", stream) == stream]
    return events


def push_headers(authorization, token=TOKEN):
    return [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + token),
            (":authority", "127.0.0.1"), ("authorization", authorization), ("apns-topic", TOPIC),
            ("apns-push-type", "alert")]


def emulator_port_states(port, state):
    """How many of this machine's TCP sockets on local port `port` are in `state`
    (/proc/net/tcp's hex code: 08 is CLOSE-WAIT)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == state:
                count += 1
    return count


def wait_until(condition, seconds):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def jwt(settings):
    import jwt as pyjwt

    key = open(settings["PUSHGATE_APNS_KEY_PATH"]).read()
    return "bearer " + pyjwt.encode({"iss": settings["PUSHGATE_APNS_TEAM_ID"], "iat": int(time.time())}, key,
                                    algorithm="ES256", headers={"kid": settings["PUSHGATE_APNS_KEY_ID"]})


def wire_checks(settings):
    import h2.events

    url, ca_file = settings["PUSHGATE_APNS_URL"], settings["PUSHGATE_APNS_CA_FILE"]
    authorization = jwt(settings)
    payload = b'{"aps":{"alert":"hi"}}'
    for alpn in (None, ["h2"]):
        name = "ALPN h2" if alpn else "no ALPN (prior knowledge)"
        sock, connection = h2_connection(url, ca_file, alpn)
        events = h2_push(sock, connection, {"apns-topic": TOPIC, "apns-push-type": "alert"}, payload, authorization)
        response = next((e for e in events if isinstance(e, h2.events.ResponseReceived)), None)
        status = dict(response.headers).get(b":status") if response else None
        check(f"{name}: a push answers 200", status == b"200", events)
        check(f"{name}: the 200 ends on its HEADERS, no DATA frame",
              response is not None and response.stream_ended is not None
              and not any(isinstance(e, h2.events.DataReceived) for e in events), events)
        check(f"{name}: apns-id made", response is not None and len(dict(response.headers).get(b"apns-id", b"")) == 36)
        sock.close()

    sock, connection = h2_connection(url, ca_file, ["h2"])
    cases = [
        ({":method": "GET"}, b"", 405, "MethodNotAllowed"),
        ({":path": "/3/devices/" + TOKEN}, payload, 404, "BadPath"),
        ({"apns-topic": TOPIC, ":path": "/3/device/abcd"}, payload, 400, "BadDeviceToken"),
        ({"apns-topic": TOPIC, "apns-push-type": "voip"}, payload, 400, "TopicDisallowed"),
        ({"apns-topic": TOPIC + ".voip", "apns-push-type": "voip"}, b'{"aps":{},"x":"' + b"x" * 4600 + b'"}', 200, None),
        ({"apns-topic": TOPIC}, b'{"aps":{},"x":"' + b"x" * 4100 + b'"}', 413, "PayloadTooLarge"),
    ]
    for headers, body, status, reason in cases:
        label = " ".join(f"{k}={v[:24]}" for k, v in headers.items())
        events = h2_push(sock, connection, dict(headers), body, authorization)
        response = next((e for e in events if isinstance(e, h2.events.ResponseReceived)), None)
        got_status = int(dict(response.headers)[b":status"]) if response else None
        data = b"".join(e.data for e in events if isinstance(e, h2.events.DataReceived))
        got_reason = json.loads(data)["reason"] if data else None
        check(f"raw h2 {label}: {status} {reason}", (got_status, got_reason) == (status, reason),
              (got_status, got_reason))

    # Idle past --idle-timeout (8 s, roomy for a loaded machine between the requests
    # above): GOAWAY {"reason":"IdleTimeout"}, then the close.
    events = h2_events_until(sock, connection, lambda events: "closed" in events, seconds=40)
    goaways = [e for e in events if isinstance(e, h2.events.ConnectionTerminated)]
    check("idle: GOAWAY with reason IdleTimeout, then closed",
          goaways and json.loads(goaways[0].additional_data or b"{}").get("reason") == "IdleTimeout"
          and "closed" in events, events)
    sock.close()

    context = ssl.create_default_context(cafile=ca_file)
    context.set_alpn_protocols(["http/1.1"])
    parsed = urllib.parse.urlparse(url)
    http1 = http.client.HTTPSConnection(parsed.hostname, parsed.port, context=context, timeout=10)
    http1.request("POST", "/3/device/" + TOKEN, body=payload, headers={"authorization": authorization})
    answer = http1.getresponse()
    check("HTTP/1.1: the push API answers 505 (APNs speaks HTTP/2 only)", answer.status == 505, answer.status)
    answer.read()
    http1.request("GET", "/inbox/count")
    answer = http1.getresponse()
    check("HTTP/1.1: the inbox answers", answer.status == 200, answer.status)


async def aioapns_checks(settings, context):
    from aioapns import APNs, NotificationRequest, PushType
    from aioapns.connection import APNsProductionClientProtocol

    parsed = urllib.parse.urlparse(settings["PUSHGATE_APNS_URL"])
    # The endpoint is a class attribute; nothing else is changed.
    APNsProductionClientProtocol.APNS_SERVER = parsed.hostname
    APNsProductionClientProtocol.APNS_PORT = parsed.port
    client = APNs(key=open(settings["PUSHGATE_APNS_KEY_PATH"]).read(), key_id=settings["PUSHGATE_APNS_KEY_ID"],
                  team_id=settings["PUSHGATE_APNS_TEAM_ID"], topic=TOPIC, max_connections=1,
                  ssl_context=ssl.create_default_context(cafile=settings["PUSHGATE_APNS_CA_FILE"]))
    message = {"aps": {"alert": {"title": "Agent", "body": "Reply ready"}}}
    before = inbox_count(settings["PUSHGATE_APNS_URL"], context)
    results = await asyncio.wait_for(asyncio.gather(*[
        client.send_notification(NotificationRequest(device_token="%064x" % (n + 1), message=message,
                                                     push_type=PushType.ALERT))
        for n in range(50)]), timeout=60)
    after = inbox_count(settings["PUSHGATE_APNS_URL"], context)
    check("aioapns: 50 concurrent pushes on one connection all accepted",
          all(r.is_successful for r in results), [(r.status, r.description) for r in results if not r.is_successful])
    check("aioapns: each answered once (the emulator received 50)", after - before == 50, after - before)

    cases = [
        (dict(device_token="abcd"), "400", "BadDeviceToken"),
        (dict(device_token="dead" + "0" * 60), "410", "Unregistered"),
        (dict(collapse_key="c" * 65), "400", "BadCollapseId"),
        (dict(priority=7), "400", "BadPriority"),
        (dict(push_type=PushType.BACKGROUND, priority=10), "400", "BadPriority"),
        (dict(apns_topic="com.other.app"), "400", "TopicDisallowed"),
        (dict(message={"aps": {}, "x": "x" * 4100}), "413", "PayloadTooLarge"),
        (dict(push_type=PushType.VOIP, apns_topic=TOPIC + ".voip", message={"aps": {}, "x": "x" * 4600}), "200",
         None),
    ]
    for overrides, status, reason in cases:
        arguments = dict(device_token=TOKEN, message=message, push_type=PushType.ALERT)
        arguments.update(overrides)
        result = await asyncio.wait_for(client.send_notification(NotificationRequest(**arguments)), timeout=30)
        label = ", ".join(f"{k}={str(v)[:20]}" for k, v in overrides.items())
        check(f"aioapns {label}: {status} {reason}", (result.status, result.description) == (status, reason),
              (result.status, result.description))
        if reason == "Unregistered":
            check("aioapns: Unregistered carries its timestamp", bool(result.timestamp), result.timestamp)

    stranger = APNs(key=open(settings["PUSHGATE_APNS_KEY_PATH"]).read(), key_id="WRONGKEY01",
                    team_id=settings["PUSHGATE_APNS_TEAM_ID"], topic=TOPIC, max_connections=1,
                    ssl_context=ssl.create_default_context(cafile=settings["PUSHGATE_APNS_CA_FILE"]))
    result = await asyncio.wait_for(
        stranger.send_notification(NotificationRequest(device_token=TOKEN, message=message)), timeout=30)
    check("aioapns: a key id APNs does not know: 403 InvalidProviderToken",
          (result.status, result.description) == ("403", "InvalidProviderToken"), (result.status, result.description))


def pyapns_client_checks(settings, context):
    from pyapns_client import APNSClient, IOSNotification, IOSPayload, IOSPayloadAlert, exceptions

    # The endpoint is a class attribute; the CA is the client's own parameter.
    APNSClient.BASE_URLS = {APNSClient.MODE_PROD: settings["PUSHGATE_APNS_URL"]}

    def new_client(key_id=settings["PUSHGATE_APNS_KEY_ID"]):
        return APNSClient(mode=APNSClient.MODE_PROD, root_cert_path=settings["PUSHGATE_APNS_CA_FILE"],
                          auth_key_path=settings["PUSHGATE_APNS_KEY_PATH"], auth_key_id=key_id,
                          team_id=settings["PUSHGATE_APNS_TEAM_ID"])

    payload = IOSPayload(alert=IOSPayloadAlert(title="Agent", body="Reply ready"))

    # One client per thread: a pyapns_client shared by threads is not safe (its httpx
    # HTTP/2 connection takes stream ids and sends headers without a lock, and one
    # thread's retry closes the client under the others: encode/httpx#3072), so 20
    # threads make 20 connections at once, two pushes on each.
    def two_pushes(thread):
        client = new_client()
        try:
            for n in (2 * thread, 2 * thread + 1):
                client.push(IOSNotification(payload=payload, topic=TOPIC, push_type="alert"), "%064x" % (n + 100))
        finally:
            client.close()

    before = inbox_count(settings["PUSHGATE_APNS_URL"], context)
    with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
        pushes = [pool.submit(two_pushes, thread) for thread in range(20)]
        errors = [p.exception(timeout=60) for p in pushes]
    after = inbox_count(settings["PUSHGATE_APNS_URL"], context)
    check("pyapns_client: 40 pushes from 20 threads, each on its own connection, accepted",
          not any(errors), [repr(e) for e in errors if e])
    # pyapns_client itself sends a push again (up to 3 times, on a new connection) when
    # its connection fails or times out, as on a loaded machine: so each of the 40
    # tokens must have reached the emulator, and a few more requests are the client's.
    tokens = {entry.get("device_token") for entry in inbox_entries(settings["PUSHGATE_APNS_URL"], context)}
    wanted = {"%064x" % (n + 100) for n in range(40)}
    check("pyapns_client: each push reached the emulator (40 tokens, 40 requests or the client's retries)",
          wanted <= tokens and 40 <= after - before <= 120, (len(wanted - tokens), after - before))

    # Its own trimming shortens a long alert body to fit; a custom key it leaves as it is.
    big = IOSPayload(alert=IOSPayloadAlert(title="Agent", body="Reply ready"), custom={"x": "x" * 4100})
    cases = [
        ("abcd", IOSNotification(payload=payload, topic=TOPIC), exceptions.BadDeviceTokenException),
        ("dead" + "0" * 60, IOSNotification(payload=payload, topic=TOPIC), exceptions.UnregisteredException),
        (TOKEN, IOSNotification(payload=payload, topic="com.other.app"), exceptions.TopicDisallowedException),
        (TOKEN, IOSNotification(payload=payload, topic="bad topic"), exceptions.BadTopicException),
        (TOKEN, IOSNotification(payload=payload, topic=TOPIC, priority="7"), exceptions.BadPriorityException),
        (TOKEN, IOSNotification(payload=payload, topic=TOPIC, expiration="soon"),
         exceptions.BadExpirationDateException),
        (TOKEN, IOSNotification(payload=payload, topic=TOPIC, apns_id="not-a-uuid"), exceptions.BadMessageIdException),
        (TOKEN, IOSNotification(payload=payload, topic=TOPIC, push_type="banner"), exceptions.InvalidPushTypeException),
        (TOKEN, IOSNotification(payload=big, topic=TOPIC), exceptions.PayloadTooLargeException),
        (TOKEN, IOSNotification(payload=payload, topic=None), exceptions.MissingTopicException),
    ]
    client = new_client()  # the reasons one after another, on one client
    for token, notification, expected in cases:
        try:
            client.push(notification, token)
            raised = None
        except exceptions.APNSException as error:
            raised = error
        check(f"pyapns_client: {expected.__name__}", isinstance(raised, expected), repr(raised))
    client.close()

    # A key id the emulator does not know: the provider token is refused.
    stranger = new_client(key_id="WRONGKEY01")
    try:
        stranger.push(IOSNotification(payload=payload, topic=TOPIC), TOKEN)
        raised = None
    except exceptions.APNSException as error:
        raised = error
    check("pyapns_client: InvalidProviderTokenException", isinstance(raised, exceptions.InvalidProviderTokenException),
          repr(raised))
    stranger.close()


def stream_limit_checks(settings, context):
    """A client that opens more streams than the 1,000 advertised: each stream over the
    limit is refused (RST_STREAM REFUSED_STREAM, RFC 9113 §5.1.2), the connection goes
    on, its other pushes are answered, and the refused ones are not in the inbox."""
    import h2.errors
    import h2.events
    import h2.settings

    url = settings["PUSHGATE_APNS_URL"]
    authorization = jwt(settings)
    payload = b'{"aps":{"alert":"held"}}'
    sock, connection = h2_connection(url, settings["PUSHGATE_APNS_CA_FILE"], ["h2"])
    h2_events_until(sock, connection, lambda events: any(
        isinstance(e, h2.events.RemoteSettingsChanged) for e in events))
    advertised = connection.remote_settings.max_concurrent_streams
    check("the emulator advertises 1,000 concurrent streams", advertised == 1000, advertised)
    # A client that ignores the limit: h2 is told the emulator allows far more.
    values = dict(connection.remote_settings)
    values[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] = 1_000_000
    connection.remote_settings = h2.settings.Settings(client=False, initial_values=values)
    before = inbox_count(url, context)
    held = []
    for _ in range(1000):
        stream = connection.get_next_available_stream_id()
        connection.send_headers(stream, push_headers(authorization), end_stream=False)
        held.append(stream)
    over = []
    for _ in range(5):
        stream = connection.get_next_available_stream_id()
        connection.send_headers(stream, push_headers(authorization), end_stream=False)
        connection.send_data(stream, payload, end_stream=True)
        over.append(stream)
    sock.sendall(connection.data_to_send())
    refused = lambda events: sum(isinstance(e, h2.events.StreamReset) for e in events) >= len(over)
    ended = lambda events: "closed" in events or any(isinstance(e, h2.events.ConnectionTerminated) for e in events)
    events = h2_events_until(sock, connection, lambda events: refused(events) or ended(events), seconds=30)
    resets = [e for e in events if isinstance(e, h2.events.StreamReset)]
    check("streams over the limit: each refused with RST_STREAM REFUSED_STREAM",
          sorted(e.stream_id for e in resets) == over
          and all(e.error_code == h2.errors.ErrorCodes.REFUSED_STREAM for e in resets),
          [(e.stream_id, e.error_code) for e in resets] or events[-3:])
    check("streams over the limit: the connection goes on (no GOAWAY)", not ended(events), events[-3:])
    if ended(events):
        sock.close()
        return
    for stream in held:
        connection.send_data(stream, payload, end_stream=True)
    sock.sendall(connection.data_to_send())
    answered = {}

    def all_answered(events):
        for event in events[len(answered_events):]:
            answered_events.append(event)
            if isinstance(event, h2.events.ResponseReceived):
                answered[event.stream_id] = dict(event.headers).get(b":status")
        return len(answered) >= len(held) or ended(events)

    answered_events = []
    events = h2_events_until(sock, connection, all_answered, seconds=60)
    check("streams under the limit: all 1,000 answered 200 on the same connection",
          len(answered) == 1000 and set(answered.values()) == {b"200"}, (len(answered), events[-3:]))
    check("the inbox holds the 1,000 answered pushes, not the refused ones",
          inbox_count(url, context) - before == 1000, inbox_count(url, context) - before)
    sock.close()


def unanswered_checks(pushgate, directory):
    """A push answered after its client went away (the answer could not be written) is
    not kept as answered: `GET /inbox/count` counts it apart."""
    settings, process = start(pushgate, "apns-emulator", directory, "PUSHGATE_APNS_URL",
                              "--topic", TOPIC, "--latency", "1")
    try:
        url = settings["PUSHGATE_APNS_URL"]
        context = ssl.create_default_context(cafile=settings["PUSHGATE_APNS_CA_FILE"])
        sock, connection = h2_connection(url, settings["PUSHGATE_APNS_CA_FILE"], ["h2"])
        stream = connection.get_next_available_stream_id()
        connection.send_headers(stream, push_headers(jwt(settings)), end_stream=False)
        connection.send_data(stream, b'{"aps":{"alert":"gone"}}', end_stream=True)
        sock.sendall(connection.data_to_send())
        time.sleep(0.3)  # the push is in; its answer is a second away
        # Gone at once: a reset, as a client process that dies with unread data.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()

        def counts():
            parsed = urllib.parse.urlparse(url)
            http1 = http.client.HTTPSConnection(parsed.hostname, parsed.port, context=context, timeout=10)
            http1.request("GET", "/inbox/count")
            return json.loads(http1.getresponse().read())

        check("a push whose answer never reached its client is not kept as answered",
              wait_until(lambda: counts() == {"count": 0, "unanswered": 1}, 15), counts())
    finally:
        stop(process)


def wedge_checks(settings, process):
    """A client that leaves streams unfinished and goes away, and one that stays silent
    with streams unfinished: neither keeps a connection open for good, and SIGTERM
    stops the emulator within seconds."""
    url = settings["PUSHGATE_APNS_URL"]
    port = urllib.parse.urlparse(url).port
    authorization = jwt(settings)
    # Half-sent pushes, then the client's end closed (FIN), the socket kept: the
    # emulator's side would sit in CLOSE-WAIT while it waited for the bodies.
    sock, connection = h2_connection(url, settings["PUSHGATE_APNS_CA_FILE"], ["h2"])
    for _ in range(3):
        connection.send_headers(connection.get_next_available_stream_id(), push_headers(authorization))
    sock.sendall(connection.data_to_send())
    time.sleep(0.3)
    sock.shutdown(socket.SHUT_WR)
    check("a client gone with streams unfinished: the emulator closes its side within 10 s (no CLOSE-WAIT)",
          wait_until(lambda: emulator_port_states(port, "08") == 0, 10), emulator_port_states(port, "08"))
    sock.close()
    # Silent, with streams unfinished and the connection open: SIGTERM still stops it.
    silent, connection = h2_connection(url, settings["PUSHGATE_APNS_CA_FILE"], ["h2"])
    for _ in range(3):
        connection.send_headers(connection.get_next_available_stream_id(), push_headers(authorization))
    silent.sendall(connection.data_to_send())
    time.sleep(0.3)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    check("SIGTERM stops the emulator within 15 s with a silent client's streams unfinished",
          process.poll() is not None, f"still running {time.monotonic() - started:.0f} s later")
    silent.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushgate", required=True)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        settings, process = start(arguments.pushgate, "apns-emulator", directory, "PUSHGATE_APNS_URL",
                                  "--topic", TOPIC, "--idle-timeout", "8")
        try:
            context = ssl.create_default_context(cafile=settings["PUSHGATE_APNS_CA_FILE"])
            wire_checks(settings)
            asyncio.run(aioapns_checks(settings, context))
            pyapns_client_checks(settings, context)
            stream_limit_checks(settings, context)
            wedge_checks(settings, process)
        finally:
            stop(process)
    with tempfile.TemporaryDirectory() as directory:
        unanswered_checks(arguments.pushgate, directory)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
