"""A gateway that answers every POST after a delay: what Codex's notify program meets
when the gateway is slow (issue 83). Prints its port on the first line, then, for each
request, one line `<path> <body>` once it has answered.

    python3 slow_gateway.py <seconds>

Stopped by its own pid.
"""

import http.server
import json
import sys
import time


class SlowHandler(http.server.BaseHTTPRequestHandler):
    delay = 0.0

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        time.sleep(self.delay)
        answer = json.dumps({"success_count": 1, "device_count": 1}).encode()
        self.send_response(202)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        print(self.path, body.decode("utf-8", "replace"), flush=True)

    def log_message(self, *arguments):
        pass


def main() -> int:
    SlowHandler.delay = float(sys.argv[1])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
