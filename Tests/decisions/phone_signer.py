#!/usr/bin/env python3
"""A phone's decision key and its signature, made with PyPI's `cryptography` (code
nobody here wrote), for the end-to-end tests of issue 73.

    phone_signer.py keygen
        {"private": "<base64url P-256 scalar>", "public": "<base64url 65-byte X9.63 point>"}
    phone_signer.py sign --private B64 --server-key HEX --event-id ID \
            --installation-id ID --decision allow|allow_always|deny|answer --signed-at SECONDS [--message TEXT]
            [--suggestion N]
        the body of POST /decideEvent, signed: ECDSA P-256 / SHA-256 over
        pushgate-decision-v1\\n<server_key>\\n<event_id>\\n<installation_id>\\n<decision>\\n<signed_at>\\n<message>,
        the signature raw r||s (64 bytes) in base64url.
    phone_signer.py pair --private B64 --server-key HEX --link LINK --installation-id ID \
            --signed-at SECONDS [--code CODE]
        the body of POST /completePairing (issue 82), signed over
        pushgate-pair-v1\\n<server_key>\\n<pairing_id>\\n<installation_id>\\n<code>\\n<signed_at>,
        the pairing and the code read from the link (pushgate://pair?gateway=…&pairing=…&code=…)
        with Python's urllib; --code signs another code instead (a guess).
    phone_signer.py say --private B64 --server-key HEX --message-id ID --installation-id ID \
            --cwd CWD --signed-at SECONDS --message TEXT
        the body of POST /sayToAgent (issue 84), signed as a decision with the decision line
        say:<sha256(cwd)>: words to that agent only.
    phone_signer.py fingerprint --public B64
        {"fingerprint": "3F2A 91C0 77B1 04DE 5A6C"}: SHA-256 of the 65-byte key, 10 bytes.
"""
import argparse
import base64
import hashlib
import json
import sys
import urllib.parse

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def keygen():
    key = ec.generate_private_key(ec.SECP256R1())
    scalar = key.private_numbers().private_value.to_bytes(32, "big")
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {"private": b64url(scalar), "public": b64url(point)}


def sign(arguments):
    key = ec.derive_private_key(int.from_bytes(unb64url(arguments.private), "big"), ec.SECP256R1())
    # An "always allow" is signed over the suggestion it applies (issue 84): allow_always:<index>.
    line = arguments.decision + (f":{arguments.suggestion}" if arguments.suggestion is not None else "")
    text = "\n".join(["pushgate-decision-v1", arguments.server_key, arguments.event_id, arguments.installation_id,
                      line, str(arguments.signed_at), arguments.message or ""])
    r, s = decode_dss_signature(key.sign(text.encode("utf-8"), ec.ECDSA(hashes.SHA256())))
    body = {"event_id": arguments.event_id, "installation_id": arguments.installation_id,
            "decision": arguments.decision, "signed_at": arguments.signed_at,
            "signature": b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))}
    if arguments.suggestion is not None:
        body["suggestion"] = arguments.suggestion
    if arguments.message is not None:
        body["message"] = arguments.message
    return body


def say(arguments):
    key = ec.derive_private_key(int.from_bytes(unb64url(arguments.private), "big"), ec.SECP256R1())
    agent_key = hashlib.sha256(arguments.cwd.encode("utf-8")).hexdigest()
    text = "\n".join(["pushgate-decision-v1", arguments.server_key, arguments.message_id, arguments.installation_id,
                      "say:" + agent_key, str(arguments.signed_at), arguments.message])
    r, s = decode_dss_signature(key.sign(text.encode("utf-8"), ec.ECDSA(hashes.SHA256())))
    return {"cwd": arguments.cwd, "installation_id": arguments.installation_id, "message_id": arguments.message_id,
            "message": arguments.message, "signed_at": arguments.signed_at,
            "signature": b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))}


def pair(arguments):
    key = ec.derive_private_key(int.from_bytes(unb64url(arguments.private), "big"), ec.SECP256R1())
    link = urllib.parse.urlsplit(arguments.link)
    query = urllib.parse.parse_qs(link.query)
    pairing_id = query["pairing"][0]
    code = (arguments.code or query["code"][0]).upper().replace("-", "").replace(" ", "")
    text = "\n".join(["pushgate-pair-v1", arguments.server_key, pairing_id, arguments.installation_id, code,
                      str(arguments.signed_at)])
    r, s = decode_dss_signature(key.sign(text.encode("utf-8"), ec.ECDSA(hashes.SHA256())))
    return {"pairing_id": pairing_id, "installation_id": arguments.installation_id,
            "signed_at": arguments.signed_at, "signature": b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))}


def fingerprint(arguments):
    digest = hashlib.sha256(unb64url(arguments.public)).hexdigest().upper()[:20]
    return {"fingerprint": " ".join(digest[index:index + 4] for index in range(0, 20, 4))}


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("keygen")
    signing = commands.add_parser("sign")
    signing.add_argument("--private", required=True)
    signing.add_argument("--server-key", required=True)
    signing.add_argument("--event-id", required=True)
    signing.add_argument("--installation-id", required=True)
    signing.add_argument("--decision", required=True, choices=["allow", "allow_always", "deny", "answer"])
    signing.add_argument("--suggestion", type=int)
    signing.add_argument("--signed-at", required=True, type=int)
    signing.add_argument("--message")
    pairing = commands.add_parser("pair")
    pairing.add_argument("--private", required=True)
    pairing.add_argument("--server-key", required=True)
    pairing.add_argument("--link", required=True)
    pairing.add_argument("--installation-id", required=True)
    pairing.add_argument("--signed-at", required=True, type=int)
    pairing.add_argument("--code")
    saying = commands.add_parser("say")
    for name in ["--private", "--server-key", "--message-id", "--installation-id", "--cwd", "--message"]:
        saying.add_argument(name, required=True)
    saying.add_argument("--signed-at", required=True, type=int)
    printing = commands.add_parser("fingerprint")
    printing.add_argument("--public", required=True)
    arguments = parser.parse_args()
    made = {"keygen": lambda: keygen(), "sign": lambda: sign(arguments), "pair": lambda: pair(arguments), "say": lambda: say(arguments),
            "fingerprint": lambda: fingerprint(arguments)}
    print(json.dumps(made[arguments.command]()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
