"""Drives the real Firebase Admin Python SDK (firebase-admin from PyPI) against
`pushgate fcm-emulator`: a client nobody in this project wrote.

    python3 firebase_admin_client.py <emulator url> <service-account.json> <ca.pem>

Prints one JSON object with what each call gave; exits 1 when the SDK raised
where it should not have. The Swift end-to-end test reads the JSON and checks it
against the emulator's inbox.
"""

import json
import warnings
import os
import sys


def main() -> int:
    url, credentials, ca_file = sys.argv[1:4]
    # requests (the SDK's transport, and google-auth's for the token) trusts the
    # emulator's CA through this; nothing here reaches the internet.
    os.environ["REQUESTS_CA_BUNDLE"] = ca_file

    # firebase-admin 7.x deprecates `token` for `fid`; the seed's app sends tokens.
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    import firebase_admin
    from firebase_admin import credentials as fb_credentials
    from firebase_admin import exceptions, messaging

    # No environment variable points the SDK elsewhere: its send URL is a class attribute.
    messaging._MessagingService.FCM_URL = url + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(fb_credentials.Certificate(credentials))
    result = {"sdk_version": firebase_admin.__version__}

    notification = messaging.Notification(title="Agent", body="Reply ready")
    single = messaging.Message(
        token="sdk-single-token", notification=notification, data={"type": "reply_finished", "n": "1"},
        apns=messaging.APNSConfig(headers={"apns-collapse-id": "agent-key"}),
        android=messaging.AndroidConfig(collapse_key="agent-key", priority="high"),
    )
    result["send"] = messaging.send(single, app=app)
    result["dry_run"] = messaging.send(
        messaging.Message(token="sdk-dry-run-token", notification=notification), dry_run=True, app=app)

    tokens = ["sdk-multicast-%03d" % n for n in range(500)]
    batch = messaging.send_each_for_multicast(
        messaging.MulticastMessage(tokens=tokens, notification=notification, data={"k": "v"}), app=app)
    result["multicast"] = {
        "success_count": batch.success_count, "failure_count": batch.failure_count,
        "message_ids": sum(1 for r in batch.responses if r.success and r.message_id),
    }
    # Why any failed, for the test's message (not compared).
    result["multicast_failures"] = sorted({
        "%s: %s" % (type(r.exception).__name__, str(r.exception)[:200]) for r in batch.responses if not r.success})

    expected = {
        "unregistered-sdk-token": messaging.UnregisteredError,
        "quota-sdk-token": messaging.QuotaExceededError,
        "mismatch-sdk-token": messaging.SenderIdMismatchError,
        "badarg-sdk-token": exceptions.InvalidArgumentError,
    }
    raised = {}
    for token, error_type in expected.items():
        try:
            messaging.send(messaging.Message(token=token, notification=notification), app=app)
            raised[token] = None
        except error_type as error:
            raised[token] = type(error).__name__
        except Exception as error:  # the wrong class: reported, the test fails on it
            raised[token] = "unexpected " + type(error).__name__ + ": " + str(error)
    result["errors"] = raised
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
