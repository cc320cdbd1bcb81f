"""Rebuilds, with the real Firebase Admin Python SDK (firebase-admin from PyPI), the
message Pushgate sent an Android phone that can answer it (issue 83), and prints the
SDK's own encoding of it:

    python3 firebase_admin_android.py < message.json

Reads the `message` object the FCM emulator received. A data-only message is what
the SDK's `Message(data=…, android=AndroidConfig(collapse_key=…, priority=…),
token=…)` writes; the SDK refuses a value of `data` that is no string and a priority
other than `high` or `normal`. Any other key is refused here (a `notification` would
send the push to Android's tray, without the app's buttons). The Swift end-to-end test
compares the printed JSON with what Pushgate sent. Exits 1 with the reason on
standard error when the message is not one the SDK builds.
"""

import json
import sys
import warnings


def main() -> int:
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from firebase_admin import messaging

    sent = json.load(sys.stdin)
    extra = set(sent) - {"data", "android", "token"}
    if extra:
        print("not a data-only message: it has " + ", ".join(sorted(extra)), file=sys.stderr)
        return 1
    android = sent.get("android", {})
    if set(android) - {"collapse_key", "priority"}:
        print("android holds more than collapse_key and priority: %s" % sorted(android), file=sys.stderr)
        return 1
    try:
        message = messaging.Message(
            token=sent.get("token"), data=sent.get("data"),
            android=messaging.AndroidConfig(collapse_key=android.get("collapse_key"), priority=android.get("priority")))
        encoded = messaging._MessagingService.encode_message(message)
    except (ValueError, TypeError) as error:
        print("the SDK refuses it: %s" % error, file=sys.stderr)
        return 1
    print(json.dumps(encoded, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
