#!/usr/bin/env python3
"""A phone's decision key and its signature, made with PyPI's `cryptography` (code
nobody here wrote), for the end-to-end tests of issue 73.

    phone_signer.py keygen
        {"private": "<base64url P-256 scalar>", "public": "<base64url 65-byte X9.63 point>"}
    phone_signer.py sign --private B64 --server-key HEX --event-id ID \
            --installation-id ID --decision allow|deny|answer --signed-at SECONDS [--message TEXT]
        the body of POST /decideEvent, signed: ECDSA P-256 / SHA-256 over
        pushgate-decision-v1\\n<server_key>\\n<event_id>\\n<installation_id>\\n<decision>\\n<signed_at>\\n<message>,
        the signature raw r||s (64 bytes) in base64url.
"""
import argparse
import base64
import json
import sys

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
    text = "\n".join(["pushgate-decision-v1", arguments.server_key, arguments.event_id, arguments.installation_id,
                      arguments.decision, str(arguments.signed_at), arguments.message or ""])
    r, s = decode_dss_signature(key.sign(text.encode("utf-8"), ec.ECDSA(hashes.SHA256())))
    body = {"event_id": arguments.event_id, "installation_id": arguments.installation_id,
            "decision": arguments.decision, "signed_at": arguments.signed_at,
            "signature": b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))}
    if arguments.message is not None:
        body["message"] = arguments.message
    return body


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("keygen")
    signing = commands.add_parser("sign")
    signing.add_argument("--private", required=True)
    signing.add_argument("--server-key", required=True)
    signing.add_argument("--event-id", required=True)
    signing.add_argument("--installation-id", required=True)
    signing.add_argument("--decision", required=True, choices=["allow", "deny", "answer"])
    signing.add_argument("--signed-at", required=True, type=int)
    signing.add_argument("--message")
    arguments = parser.parse_args()
    print(json.dumps(keygen() if arguments.command == "keygen" else sign(arguments)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
