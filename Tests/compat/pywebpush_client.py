"""Sends Web Pushes through the Pushgate Web Push emulator with pywebpush (PyPI), a
sender nobody here wrote, and prints what came of each as one JSON object.

    python3 pywebpush_client.py EMULATOR_URL CA_FILE VAPID_KEY_PEM

Subscribes three times (POST /subscriptions), then: a push to the first (expects
201), the first marked gone and pushed again (410), a push signed with another key
to a subscription made for the first key (403), and a 5,000-byte payload (refused
by pywebpush itself or 413).
"""

import json
import os
import sys
import tempfile

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from pywebpush import WebPushException, webpush


def application_server_key(pem_path):
    vapid = Vapid.from_file(pem_path)
    point = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    import base64
    return base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def status_of(call):
    try:
        return call().status_code
    except WebPushException as error:
        return error.response.status_code if error.response is not None else str(error)
    except Exception as error:  # pywebpush refuses some payloads before sending
        return type(error).__name__


def main():
    url, ca_file, key_path = sys.argv[1:4]
    os.environ["REQUESTS_CA_BUNDLE"] = ca_file
    claims = {"sub": "mailto:compat@example.com"}
    bound = requests.post(
        url + "/subscriptions", json={"application_server_key": application_server_key(key_path)}, timeout=10).json()
    other = requests.post(url + "/subscriptions", timeout=10).json()
    message = json.dumps({"title": "pywebpush", "body": "hello from a sender nobody here wrote", "data": {"n": "1"}})

    def push(subscription, data=message, key=key_path):
        return lambda: webpush(subscription, data, vapid_private_key=key, vapid_claims=dict(claims), ttl=60)

    result = {"sent": status_of(push(bound))}
    # Another VAPID key than the one the subscription was made for.
    with tempfile.NamedTemporaryFile("wb", suffix=".pem", delete=False) as stranger:
        stranger.write(ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    result["other_key"] = status_of(push(bound, key=stranger.name))
    result["too_large"] = status_of(push(other, data="x" * 5000))
    requests.post(url + "/subscriptions/" + bound["endpoint"].rsplit("/", 1)[1] + "/gone", timeout=10)
    result["gone"] = status_of(push(bound))
    result["endpoint"] = bound["endpoint"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
