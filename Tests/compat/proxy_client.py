"""A minimal stand-in for the CodeAgents agent proxy's call, as it ships today:
Python's urllib, a JSON body, the Bearer secret, a 2.5 s timeout, the status
checked and the body ignored.

    python3 proxy_client.py <gateway base url> <secret> <cwd>

Prints one JSON object: {"status": <HTTP status>, "seconds": <time to answer>}, or
{"error": "<what urllib raised>", "seconds": …} when the call failed or timed out
(what the proxy would log as a failure). Exit status 0 only for a 2xx answer.
"""

import json
import sys
import time
import urllib.error
import urllib.request


def main() -> int:
    base_url, secret, cwd = sys.argv[1:4]
    body = json.dumps(
        {"cwd": cwd, "conversation_id": "conv-proxy", "message_preview": "Refactored the parser; all tests pass."}
    ).encode("utf-8")
    request = urllib.request.Request(
        base_url.rstrip("/") + "/triggerReplyFinished",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + secret},
    )
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=2.5) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        print(json.dumps({"status": error.code, "seconds": time.monotonic() - started}))
        return 1
    except Exception as error:  # a timeout or a refused connection: the proxy's failure
        print(json.dumps({"error": repr(error), "seconds": time.monotonic() - started}))
        return 1
    print(json.dumps({"status": status, "seconds": time.monotonic() - started}))
    return 0 if 200 <= status < 300 else 1


if __name__ == "__main__":
    sys.exit(main())
