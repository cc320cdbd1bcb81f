#!/usr/bin/env python3
"""Opens what the gateway sent the APNs and FCM emulators for sealed devices (issue
63) with PyPI's http-ece, code nobody here wrote, and checks that each secret text
(the preview, the agent's name, its folder, the server key) is inside the record and
nowhere else in what the emulators received: not in a header, not in `aps`, not in
another data key.

    sealed_pushes.py --apns URL --apns-ca FILE --fcm URL --fcm-ca FILE \
        --keys keys.json --secret TEXT [--secret TEXT …]

keys.json maps each sealed device's token to its keys: {"<token>": {"private":
"<base64url of the 32-byte P-256 scalar>", "auth": "<base64url>"}}. Prints one JSON
object ({"opened": n, "leaks": [...], "missing": [...]}) and exits 1 unless every
sealed device's push opened, held every secret, and leaked none.
"""
import argparse
import base64
import json
import ssl
import sys
import urllib.request

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def inbox(url, ca):
    context = ssl.create_default_context(cafile=ca)
    with urllib.request.urlopen(url + "/inbox", context=context, timeout=10) as answer:
        return json.load(answer)


def without_records(value):
    """The entry as sent in clear: every `encrypted` member left out."""
    if isinstance(value, dict):
        return {key: without_records(member) for key, member in value.items() if key != "encrypted"}
    if isinstance(value, list):
        return [without_records(item) for item in value]
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apns", required=True)
    parser.add_argument("--apns-ca", required=True)
    parser.add_argument("--fcm", required=True)
    parser.add_argument("--fcm-ca", required=True)
    parser.add_argument("--keys", required=True)
    parser.add_argument("--secret", action="append", default=[])
    # What may be nowhere in clear, sealed or not: an unkeyed hash anyone could confirm
    # a guessed folder or event id with (issue 72).
    parser.add_argument("--not-in-clear", action="append", default=[])
    arguments = parser.parse_args()
    with open(arguments.keys, encoding="utf-8") as file:
        keys = json.load(file)

    sent = [(entry["device_token"], entry, (entry.get("payload") or {}).get("encrypted"))
            for entry in inbox(arguments.apns, arguments.apns_ca)]
    sent += [(entry["token"], entry, ((entry.get("message") or {}).get("data") or {}).get("encrypted"))
             for entry in inbox(arguments.fcm, arguments.fcm_ca)]
    opened, leaks, missing = 0, [], []
    for token, entry, encrypted in sent:
        if token not in keys:
            continue
        clear = json.dumps(without_records(entry), ensure_ascii=False)
        leaks += [f"{token[:8]}: {secret!r} in clear" for secret in arguments.secret + arguments.not_in_clear
                  if secret in clear]
        if encrypted is None:
            missing.append(f"{token[:8]}: no encrypted")
            continue
        scalar = int.from_bytes(b64url(keys[token]["private"]), "big")
        private_key = ec.derive_private_key(scalar, ec.SECP256R1())
        plaintext = http_ece.decrypt(b64url(encrypted), private_key=private_key,
                                     auth_secret=b64url(keys[token]["auth"]), version="aes128gcm")
        inside = json.dumps(json.loads(plaintext), ensure_ascii=False)
        missing += [f"{token[:8]}: {secret!r} not sealed" for secret in arguments.secret if secret not in inside]
        opened += 1
    print(json.dumps({"opened": opened, "leaks": leaks, "missing": missing}))
    return 0 if opened == len(keys) and not leaks and not missing else 1


if __name__ == "__main__":
    sys.exit(main())
