"""Push services nobody trusts (issue 71), against a real gateway process.

With Web Push every subscription names its own server, so whoever can register a
browser subscription chooses where the gateway connects and how that server behaves.
Each scenario here plays such a server and checks what the gateway does:

- rebinding: a name checked where it resolves, then moved to loopback, spelled with
  capitals and a trailing dot, over HTTP/1.1 in the clear and over TLS (a server that
  picks HTTP/1.1 by ALPN): every push still goes to the address that was checked;
- slow: a server that answers its head, then a byte every two seconds, holds neither
  the other retries due meanwhile nor its own push past its deadline;
- flood: a server that floods PING or SETTINGS frames and never reads is cut off,
  and the gateway's memory stays where it was;
- idle: 600 idle sockets against the Web Push emulator under a 512-descriptor limit do
  not keep a real client out.

It runs itself in network and mount namespaces of its own (as root, `unshare`): a
loopback interface with addresses the gateway's rules take for public ones, and an
`/etc/hosts` of its own whose names the scenarios move. Run by `scripts/test`:

    python3 Tests/hostile/push_services.py --pushgate .build/debug/pushgate
"""

import argparse
import datetime
import http.client
import http.server
import json
import os
import resource
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

NAMESPACED = "PUSHGATE_HOSTILE_NAMESPACED"
SECRET = "hostile-push-services-secret-0123456789"
# Keys of RFC 8291's example: any subscription's, the servers here open nothing.
KEYS = {
    "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
    "auth": "BTBZMqHH6r4Tts7J_aSIgg",
}
# Public by the gateway's rules, on this namespace's loopback interface.
PUBLIC = {"rebind": "192.0.3.1", "slow": "192.0.3.2", "fine": "192.0.3.3", "flood": "192.0.3.4"}
HOSTS = None
FAILURES = []


def check(name, condition, detail=""):
    print(("ok    " if condition else "FAIL  ") + name + ("" if condition else f": {detail}"), flush=True)
    if not condition:
        FAILURES.append(name)


def wait_until(condition, seconds, step=0.05):
    """Whether `condition()` held within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def names(**entries):
    """Rewrites this namespace's /etc/hosts in place (the bind mount keeps its inode)."""
    with open(HOSTS, "w") as hosts:
        hosts.write("127.0.0.1 localhost\n")
        for name, address in entries.items():
            hosts.write(f"{address} {name}.example\n")


def enter_namespaces():
    """Runs this script again in namespaces of its own, unless it already is."""
    if os.environ.get(NAMESPACED) == "1":
        return
    environment = dict(os.environ, **{NAMESPACED: "1"})
    result = subprocess.run(["unshare", "--mount", "--net", sys.executable, *sys.argv], env=environment)
    sys.exit(result.returncode)


def set_up_network(directory):
    global HOSTS
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for address in PUBLIC.values():
        subprocess.run(["ip", "addr", "add", f"{address}/32", "dev", "lo"], check=True)
    HOSTS = os.path.join(directory, "hosts")
    names()
    subprocess.run(["mount", "--bind", HOSTS, "/etc/hosts"], check=True)


def certificates(directory):
    """A CA and a server certificate for every *.example name here (PEM files)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def build(subject, issuer, key, signer, ca, names=()):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(hours=1))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if names:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(name) for name in names]), critical=False)
        return builder.sign(signer, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hostile test CA")])
    ca = build(ca_name, ca_name, ca_key, ca_key, True)
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = build(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push services")]), ca_name, key, ca_key, False,
                 [f"{name}.example" for name in PUBLIC])
    paths = {name: os.path.join(directory, name + ".pem") for name in ("ca", "cert", "key")}
    with open(paths["ca"], "wb") as out:
        out.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths["cert"], "wb") as out:
        out.write(leaf.public_bytes(serialization.Encoding.PEM))
    with open(paths["key"], "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()))
    return paths


class PushService:
    """A push service over HTTP/1.1 (in the clear, or TLS choosing http/1.1 by ALPN)
    on one address: it counts the pushes it was sent, answers each per `behave`
    (`behave(n)`: the status of the n-th push, or "dribble": 201 with its head, then a
    byte every two seconds) and closes each connection after one push, so that every
    push makes a new connection."""

    def __init__(self, address, port, behave=lambda n: 201, tls=None):
        self.pushes = 0
        self.dribble_ended_at = None
        self.lock = threading.Lock()
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *arguments):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with service.lock:
                    service.pushes += 1
                    n = service.pushes
                answer = behave(n)
                if answer == "dribble":
                    self.send_response(201)
                    self.send_header("Content-Length", "60")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    try:
                        for _ in range(60):
                            self.wfile.write(b"x")
                            self.wfile.flush()
                            time.sleep(2)
                    except OSError:
                        pass  # the gateway gave up on it, as it must
                    service.dribble_ended_at = time.monotonic()
                    return
                self.send_response(answer)
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer((address, port), Handler)
        self.server.daemon_threads = True
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls["cert"], tls["key"])
            context.set_alpn_protocols(["http/1.1"])
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def count(self):
        with self.lock:
            return self.pushes

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class FloodingServer:
    """An HTTP/2 server (TLS, h2 by ALPN) that, once the handshake is over, sends
    SETTINGS, then PING (or SETTINGS) frames as fast as it can and never reads. It
    records when the gateway cut each connection off."""

    def __init__(self, address, port, tls, frame="ping"):
        self.cut_off = []
        self.sent = []
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls["cert"], tls["key"])
        context.set_alpn_protocols(["h2"])
        self.listener = socket.create_server((address, port))
        self.context = context
        self.frame = frame
        threading.Thread(target=self._accept, daemon=True).start()

    @staticmethod
    def _frame(kind, flags, payload):
        return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + (0).to_bytes(4, "big") + payload

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._flood, args=(connection,), daemon=True).start()

    def _flood(self, connection):
        try:
            tls = self.context.wrap_socket(connection, server_side=True)
        except OSError:
            return
        one = self._frame(0x6, 0, b"\0" * 8) if self.frame == "ping" else self._frame(0x4, 0, b"")
        burst = self._frame(0x4, 0, b"") + one * 2000
        sent = 0
        started = time.monotonic()
        try:
            while time.monotonic() - started < 120:
                tls.sendall(burst)
                sent += len(burst)
        except OSError:
            self.cut_off.append(time.monotonic() - started)
        self.sent.append(sent)
        tls.close()

    def stop(self):
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()


class Gateway:
    """`pushgate serve` on a free port with Web Push set up; ready once /healthz answers."""

    def __init__(self, pushgate, directory, ca_file):
        vapid = os.path.join(directory, "vapid.pem")
        subprocess.run([pushgate, "keygen", "--vapid", vapid], check=True, capture_output=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        environment = dict(os.environ)
        environment.update({
            "PUSHGATE_WEBPUSH_VAPID_KEY_PATH": vapid, "PUSHGATE_WEBPUSH_SUBJECT": "mailto:ops@example.com",
            "PUSHGATE_WEBPUSH_ALLOW_HTTP": "on", "PUSHGATE_WEBPUSH_CA_FILE": ca_file,
            "PUSHGATE_RATE_PER_SECRET": "0", "PUSHGATE_RATE_PER_ADDRESS": "0",
            "PUSHGATE_NEW_NAMESPACES_PER_ADDRESS": "0", "PUSHGATE_HEALTH_RATE_PER_ADDRESS": "0",
        })
        self.log = os.path.join(directory, "gateway.log")
        self.process = subprocess.Popen(
            [pushgate, "serve", "--port", str(self.port), "--database", os.path.join(directory, "pushgate.sqlite")],
            stdout=open(self.log, "w"), stderr=subprocess.STDOUT, env=environment)
        if not wait_until(lambda: self.call("/healthz")[0] == 200, 120, step=0.2):
            self.process.kill()
            raise SystemExit("the gateway did not start: " + open(self.log).read()[-2000:])

    def call(self, path, body=None):
        """(status, answer text); status 0 when no answer came."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            if body is None:
                connection.request("GET", path)
            else:
                connection.request("POST", path, body=json.dumps(body), headers={
                    "Authorization": f"Bearer {SECRET}", "Content-Type": "application/json"})
            answer = connection.getresponse()
            return answer.status, answer.read().decode(errors="replace")
        except (OSError, http.client.HTTPException) as error:
            return 0, str(error)
        finally:
            connection.close()

    def subscribe(self, cwd, installation, endpoint):
        return self.call("/registerSubscription", {
            "cwd": cwd, "installation_id": installation, "platform": "web",
            "webpush": {"endpoint": endpoint, "keys": KEYS}})

    def trigger(self, cwd, message):
        return self.call("/triggerReplyFinished", {"cwd": cwd, "message_preview": message})

    def resident_mib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def rebinding(gateway, tls):
    """A name checked where it resolves, then moved to loopback: every push still
    goes to the checked address, however the endpoint spells the name."""
    names(rebind=PUBLIC["rebind"])
    plain, plain_trap = PushService(PUBLIC["rebind"], 8000), PushService("127.0.0.1", 8000)
    secure, secure_trap = PushService(PUBLIC["rebind"], 8443, tls=tls), PushService("127.0.0.1", 8443, tls=tls)
    cwd = "/srv/rebind"
    for installation, endpoint in [
        ("plain", "http://REBIND.example:8000/push/plain"),
        ("secure", "https://Rebind.Example.:8443/push/secure"),
    ]:
        status, text = gateway.subscribe(cwd, installation, endpoint)
        check(f"rebinding: {endpoint} registered while it resolves to a public address", status == 200,
              f"{status} {text}")
    gateway.trigger(cwd, "first")
    check("rebinding: the first pushes reach the checked address, over HTTP/1.1 and over TLS",
          wait_until(lambda: plain.count() == 1 and secure.count() == 1, 30),
          f"{plain.count()} and {secure.count()}")
    # The name moves to loopback; the servers close every connection after one push,
    # so the next pushes make new connections.
    names(rebind="127.0.0.1")
    gateway.trigger(cwd, "second")
    check("rebinding: after the name moved, new connections still go to the address checked",
          wait_until(lambda: plain.count() == 2 and secure.count() == 2, 30),
          f"{plain.count()} and {secure.count()}")
    time.sleep(1)
    check("rebinding: nothing ever reaches loopback", plain_trap.count() == 0 and secure_trap.count() == 0,
          f"{plain_trap.count()} and {secure_trap.count()} pushes on loopback")
    status, text = gateway.subscribe(cwd, "late", "http://rebind.EXAMPLE.:8000/push/late")
    check("rebinding: a registration once the name leads to loopback is refused, naming the field",
          status == 400 and "webpush.endpoint" in text, f"{status} {text}")
    for server in (plain, plain_trap, secure, secure_trap):
        server.stop()


def slow(gateway):
    """A server that answers its head, then a byte every two seconds: the other
    retries due meanwhile go out on time, and its own push ends at its deadline."""
    names(slow=PUBLIC["slow"], fine=PUBLIC["fine"])
    dribbler = PushService(PUBLIC["slow"], 8000, behave=lambda n: 500 if n == 1 else "dribble")
    fine = PushService(PUBLIC["fine"], 8000, behave=lambda n: 503 if n == 1 else 201)
    gateway.subscribe("/srv/slow", "slow", "http://slow.example:8000/push/a")
    gateway.subscribe("/srv/fine", "fine", "http://fine.example:8000/push/b")
    gateway.trigger("/srv/slow", "to a slow service")
    check("slow: the slow service's retry is under way (its head sent, its body dribbling)",
          wait_until(lambda: dribbler.count() == 2, 30), f"{dribbler.count()} pushes")
    dribble_started = time.monotonic()
    gateway.trigger("/srv/fine", "to a fine service")
    started = time.monotonic()
    delivered = wait_until(lambda: fine.count() == 2, 30)
    took = time.monotonic() - started
    check("slow: another push's retry, due a second later, goes out while the slow one dribbles",
          delivered and took < 10, f"{fine.count()} pushes, the retry after {took:.1f} s")
    # The slow push's deadline: the connect and request time-outs (10 + 10 s).
    ended = wait_until(lambda: dribbler.dribble_ended_at is not None, 40, step=0.2)
    held = (dribbler.dribble_ended_at or time.monotonic()) - dribble_started
    check("slow: the dribbling push is given up at its deadline (within 25 s), not after its 60 bytes (120 s)",
          ended and held < 25, f"held {held:.1f} s")
    dribbler.stop()
    fine.stop()


def flood(gateway, tls, frame):
    """A server that floods PING (or SETTINGS) and never reads: cut off, the
    gateway's memory where it was."""
    names(flood=PUBLIC["flood"])
    port = 8443 if frame == "ping" else 8444
    server = FloodingServer(PUBLIC["flood"], port, tls, frame=frame)
    cwd = f"/srv/flood-{frame}"
    gateway.subscribe(cwd, "flooded", f"https://flood.example:{port}/push/f")
    before = gateway.resident_mib()
    gateway.trigger(cwd, "to a flooding service")
    cut = wait_until(lambda: len(server.cut_off) >= 1, 30, step=0.1)
    check(f"flood ({frame}): the gateway cuts the connection off within seconds", cut and server.cut_off[0] < 10,
          f"cut off after {server.cut_off[:1]} s, {server.sent[:1]} bytes sent")
    # Its retries reconnect and are cut off the same way; meanwhile memory stays put.
    time.sleep(5)
    grown = gateway.resident_mib() - before
    check(f"flood ({frame}): the gateway's memory stays where it was (+{grown:.0f} MiB, under 40)", grown < 40,
          f"+{grown:.0f} MiB")
    check(f"flood ({frame}): the gateway still answers /healthz", gateway.call("/healthz")[0] != 0)
    server.stop()


def idle(pushgate, directory):
    """600 idle sockets against the Web Push emulator under 512 descriptors: a real
    client still gets in."""
    state = os.path.join(directory, "emulator")
    os.makedirs(state, exist_ok=True)
    log = open(os.path.join(state, "emulator.log"), "w")

    def limited():
        resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512))

    process = subprocess.Popen(
        [pushgate, "webpush-emulator", "--port", "0", "--state-directory", state, "--idle-timeout", "2"],
        stdout=log, stderr=subprocess.STDOUT, preexec_fn=limited)
    env_file = os.path.join(state, "gateway.env")
    started = wait_until(lambda: os.path.exists(env_file) and "PUSHGATE_WEBPUSH_CA_FILE" in open(env_file).read(), 60)
    if not started:
        process.kill()
        check("idle: the emulator starts", False, open(log.name).read()[-1000:])
        return
    announced = open(log.name).read()
    port = int(announced.split("https://127.0.0.1:")[1].split()[0].rstrip(")").split("/")[0])
    ca_file = dict(line.strip().split("=", 1) for line in open(env_file) if "=" in line)["PUSHGATE_WEBPUSH_CA_FILE"]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    idle_sockets = []
    for _ in range(600):
        try:
            idle_sockets.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    context = ssl.create_default_context(cafile=ca_file)

    def client_gets_in():
        try:
            connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=3)
            connection.request("GET", "/inbox/count")
            return connection.getresponse().status == 200
        except (OSError, http.client.HTTPException):
            return False

    took = time.monotonic()
    got_in = wait_until(client_gets_in, 20, step=0.5)
    took = time.monotonic() - took
    check(f"idle: with {len(idle_sockets)} idle sockets open, a real client gets in (after {took:.1f} s)", got_in)
    still_open = list(idle_sockets)
    wait_until(lambda: not [still_open.remove(sock) for sock in list(still_open) if _closed_by_peer(sock)]
               and not still_open, 10, step=0.2)
    check("idle: the emulator closed every idle socket (over the address's cap at once, the rest when idle)",
          not still_open, f"{len(still_open)} of {len(idle_sockets)} still open")
    for sock in idle_sockets:
        sock.close()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def _closed_by_peer(sock):
    try:
        sock.settimeout(0.2)
        return sock.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushgate", required=True)
    arguments = parser.parse_args()
    pushgate = os.path.abspath(arguments.pushgate)
    enter_namespaces()
    with tempfile.TemporaryDirectory(prefix="pushgate-hostile-") as directory:
        set_up_network(directory)
        tls = certificates(directory)
        gateway = Gateway(pushgate, directory, tls["ca"])
        try:
            rebinding(gateway, tls)
            slow(gateway)
            flood(gateway, tls, "ping")
            flood(gateway, tls, "settings")
        finally:
            gateway.stop()
        idle(pushgate, directory)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed: " + "; ".join(FAILURES))
        return 1
    print("every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
