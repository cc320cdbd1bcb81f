"""Drives `pushgate fcm-emulator` with async-firebase (httpx over HTTP/2), an FCM v1
client nobody in this project wrote, changed in nothing but the endpoints (its
send and token URLs) and the trusted CA (SSL_CERT_FILE, which httpx reads), and
firebase-admin through an access token's expiry:

    python3 Tests/compat/fcm_clients.py --pushgate .build/debug/pushgate

Checks that a message using every part the library can build (Android, APNs and
Web Push configs, notification priority, light settings, vibrate timings…) passes
the emulator's v1 schema, that concurrent sends on one HTTP/2 connection are each
answered once, that the fault tokens surface as the library's own errors, and
that firebase-admin renews a token the emulator refuses as expired.
Prints one line per check; exits 1 naming those that failed.
"""

import argparse
import asyncio
import datetime
import json
import os
import ssl
import sys
import tempfile
import time
import urllib.error
import urllib.request
import warnings

from emulator_process import check, start, stop, summary

def raw_send(settings, access_token, fcm_token):
    """One send made by hand: its status and its Retry-After header, if any."""
    request = urllib.request.Request(
        settings["PUSHGATE_FCM_URL"] + "/v1/projects/pushgate-emulator/messages:send",
        data=json.dumps({"message": {"token": fcm_token, "data": {"k": "v"}}}).encode(),
        headers={"authorization": "Bearer " + access_token, "content-type": "application/json"})
    context = ssl.create_default_context(cafile=settings["PUSHGATE_FCM_CA_FILE"])
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            return response.status, response.headers.get("retry-after")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("retry-after")


def retry_after_checks(settings, access_token, expected):
    for fcm_token in ("quota-raw", "unavail-raw"):
        status, retry_after = raw_send(settings, access_token, fcm_token)
        check(f"{fcm_token}: {status} with Retry-After {expected}", retry_after == expected, (status, retry_after))


def inbox(url, ca_file):
    context = ssl.create_default_context(cafile=ca_file)
    with urllib.request.urlopen(url + "/inbox", context=context, timeout=10) as response:
        return json.loads(response.read())


async def client_checks(settings):
    from async_firebase import AsyncFirebaseClient, _credentials, errors
    from async_firebase.messages import (AndroidNotificationPriority, LightSettings, Message, Notification,
                                         Visibility)

    url = settings["PUSHGATE_FCM_URL"]
    # Its endpoints are a module constant and a class attribute; nothing else is changed.
    _credentials.TOKEN_URL = url + "/token"
    AsyncFirebaseClient.BASE_URL = url
    client = AsyncFirebaseClient(use_http2=True)
    client.creds_from_service_account_file(settings["PUSHGATE_FCM_CREDENTIALS"])

    everything = Message(
        token="async-firebase-everything",
        notification=Notification(title="Agent", body="Reply ready"),
        data={"type": "reply_finished"},
        android=client.build_android_config(
            priority="high", ttl=3600, collapse_key="agent", title="Agent", body="Reply ready", channel_id="replies",
            notification_priority=AndroidNotificationPriority.HIGH, visibility=Visibility.PUBLIC,
            vibrate_timings_millis=[100, 250.5], default_sound=True, notification_count=3, sticky=False,
            # Naive UTC, as the library wants: it appends the "Z" itself.
            event_timestamp=datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None), tag="agent",
            color="#336699",
            light_settings=LightSettings(color="#336699", light_on_duration_millis=500,
                                         light_off_duration_millis=1500),
            data={"k": "v"}),
        apns=client.build_apns_config(
            priority="high", ttl=3600, collapse_key="agent", title="Agent", alert="Reply ready", badge=1,
            sound="default", thread_id="agent", custom_data={"type": "reply_finished"}),
        webpush=client.build_webpush_config(data={"k": "v"}, title="Agent", body="Reply ready"),
    )
    response = await asyncio.wait_for(client.send(everything, dry_run=True), timeout=60)
    check("async-firebase: a message with every part it builds passes the v1 schema (dry run)",
          response.success, response.exception)

    # Given an aware time, the library writes "…+00:00Z", which no RFC 3339 reader (nor
    # Google's Timestamp) takes: refused, naming the field.
    aware = Message(token="async-firebase-aware", android=client.build_android_config(
        priority="high", title="Agent", event_timestamp=datetime.datetime.now(datetime.timezone.utc)))
    response = await asyncio.wait_for(client.send(aware, dry_run=True), timeout=60)
    check("async-firebase: a malformed event_time is refused as INVALID_ARGUMENT naming the field",
          isinstance(response.exception, errors.InvalidArgumentError)
          and "message.android.notification.event_time" in str(response.exception), repr(response.exception))

    responses = await asyncio.wait_for(asyncio.gather(*[
        client.send(Message(token="async-firebase-%02d" % n, notification=Notification(title="Agent", body="hi")))
        for n in range(20)]), timeout=60)
    check("async-firebase: 20 concurrent sends on one HTTP/2 connection accepted",
          all(r.success for r in responses), [r.exception for r in responses if not r.success])
    received = [e for e in inbox(url, settings["PUSHGATE_FCM_CA_FILE"])
                if str(e.get("token", "")).startswith("async-firebase-") and e.get("status") == 200]
    tokens = [e["token"] for e in received if e["token"] != "async-firebase-everything"]
    check("async-firebase: each answered once (the emulator received 20)",
          len(tokens) == 20 and len(set(tokens)) == 20, len(tokens))

    faults = [
        ("unregistered-async", errors.UnregisteredError),
        ("quota-async", errors.QuotaExceededError),
        ("mismatch-async", errors.SenderIdMismatchError),
        ("badarg-async", errors.InvalidArgumentError),
        ("unavail-async", errors.UnavailableError),
    ]
    for token, expected in faults:
        response = await asyncio.wait_for(client.send(Message(token=token, data={"k": "v"})), timeout=60)
        check(f"async-firebase: {token} raises {expected.__name__}", isinstance(response.exception, expected),
              repr(response.exception))
    # Without --retry-after, no 429 or 503 carries Retry-After, fault tokens included.
    retry_after_checks(settings, client._credentials.token, None)


def renewal_checks(settings):
    """firebase-admin (google-auth's session) against an emulator whose tokens die 5 s
    after issue though `expires_in` says an hour: the client must renew on the 401's
    ACCESS_TOKEN_EXPIRED and send again."""
    import firebase_admin
    from firebase_admin import credentials, messaging

    # firebase-admin 7.x deprecates `token` for `fid`; the seed's app sends tokens.
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    os.environ["REQUESTS_CA_BUNDLE"] = settings["PUSHGATE_FCM_CA_FILE"]
    messaging._MessagingService.FCM_URL = settings["PUSHGATE_FCM_URL"] + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(credentials.Certificate(settings["PUSHGATE_FCM_CREDENTIALS"]), name="renewal")
    message = lambda n: messaging.Message(token=f"renewal-{n}", notification=messaging.Notification(title="Agent"))
    messaging.send(message(1), app=app)
    # With --retry-after 7, every 429 and 503 carries it, fault tokens included.
    retry_after_checks(settings, app.credential.get_access_token().access_token, "7")
    time.sleep(6)
    try:
        messaging.send(message(2), app=app)
        error = None
    except Exception as raised:  # noqa: BLE001 - reported as the check's detail
        error = raised
    entries = inbox(settings["PUSHGATE_FCM_URL"], settings["PUSHGATE_FCM_CA_FILE"])
    refused = [e for e in entries if e.get("status") == 401]
    delivered = {e.get("token") for e in entries if e.get("status") == 200}
    check("firebase-admin: after its access token expired (401 ACCESS_TOKEN_EXPIRED), renewed and sent",
          error is None and refused and {"renewal-1", "renewal-2"} <= delivered, (repr(error), entries))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushgate", required=True)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        settings, process = start(arguments.pushgate, "fcm-emulator", directory, "PUSHGATE_FCM_URL")
        try:
            os.environ["SSL_CERT_FILE"] = settings["PUSHGATE_FCM_CA_FILE"]
            asyncio.run(client_checks(settings))
        finally:
            os.environ.pop("SSL_CERT_FILE", None)  # the CA goes with the directory
            stop(process)
    with tempfile.TemporaryDirectory() as directory:
        settings, process = start(
            arguments.pushgate, "fcm-emulator", directory, "PUSHGATE_FCM_URL", "--tokens-expire-after", "5",
            "--retry-after", "7")
        try:
            renewal_checks(settings)
        finally:
            stop(process)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
