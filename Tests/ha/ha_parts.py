"""What the failover test (Tests/ha/failover.py) and its benchmark (bench/ha.py) share:
the Patroni cluster of scripts/ha-cluster, the APNs emulator as the stand-in, gateway
processes on free loopback ports (each stopped by its own pid), devices seeded
straight into the store, and HTTP calls with the seed proxy's 2.5 s time-out."""

import glob
import hashlib
import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "compat"))
import emulator_process  # noqa: E402

SECRET = "ha-failover-secret-0123456789abcdefgh"
SERVER_KEY = hashlib.sha256(SECRET.encode()).hexdigest()
PROXY_TIMEOUT = 2.5


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def psql():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
    return found[-1] if found else "psql"


def sql(url, statement, stdin=None):
    """One psql command; its rows as lines."""
    out = subprocess.run([psql(), "-qAtX", url, "-c", statement], input=stdin, text=True,
                         capture_output=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"psql failed: {out.stderr.strip()}")
    return [line for line in out.stdout.splitlines() if line]


class Cluster:
    """scripts/ha-cluster in a temporary folder; `url` is haproxy's."""

    def __init__(self, nodes=2):
        self.directory = tempfile.mkdtemp(prefix="pushgate-ha.")
        os.chmod(self.directory, 0o755)
        try:
            self.url = self._script("start", str(nodes), timeout=300).strip()
        except BaseException:
            # The script stops what it started when it fails, but not when it is
            # killed (the time-out above kills it): stop by the pids it wrote down.
            self.stop()
            raise

    def _script(self, *arguments, timeout=180):
        out = subprocess.run([os.path.join(ROOT, "scripts", "ha-cluster"), arguments[0], self.directory,
                              *arguments[1:]], capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0 and arguments[0] != "primary":
            raise RuntimeError(f"scripts/ha-cluster {arguments[0]} failed: {out.stderr.strip()}")
        return out.stdout

    def primary_pid(self):
        text = self._script("primary").strip()
        return int(text) if text else None

    def kill_primary(self):
        """SIGKILL to the primary's postmaster; its pid."""
        pid = self.primary_pid()
        if pid is None:
            raise RuntimeError("the cluster has no primary to kill")
        os.kill(pid, signal.SIGKILL)
        return pid

    def wait_for_replicas(self, seconds=120):
        out = subprocess.run([os.path.join(ROOT, "scripts", "ha-cluster"), "wait-replicas", self.directory,
                              str(seconds)], timeout=seconds + 30)
        return out.returncode == 0

    def stop(self):
        self._script("stop")


def stop_on_sigterm():
    """A SIGTERM (a time-out, CI stopping the run) ends the script as an exception
    would, so that its `finally` blocks stop what it started; by default Python dies
    at once and leaves it all running."""
    signal.signal(signal.SIGTERM, lambda number, _frame: sys.exit(128 + number))


class SingleServer:
    """scripts/postgres-cluster (one PostgreSQL, fsync on, as the cluster's nodes)."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="pushgate-pg.")
        os.chmod(self.directory, 0o755)
        self.url = subprocess.run([os.path.join(ROOT, "scripts", "postgres-cluster"), "start", self.directory,
                                   "durable"], capture_output=True, text=True, check=True).stdout.strip()

    def stop(self):
        subprocess.run([os.path.join(ROOT, "scripts", "postgres-cluster"), "stop", self.directory], check=False)


def database(server_url, name):
    """A new database on the server at `server_url`; its URL."""
    sql(server_url, f'CREATE DATABASE "{name}"')
    return server_url.replace("/postgres?", f"/{name}?")


class Emulator:
    """`pushgate apns-emulator` (or, with `service="fcm"`, `pushgate fcm-emulator`): its
    settings for gateways, and its inbox. `options` come after the default inbox limit,
    so a later `--inbox-limit` wins."""

    def __init__(self, pushgate, directory, *options, service="apns"):
        os.makedirs(directory, exist_ok=True)
        prefix = f"PUSHGATE_{service.upper()}_"
        self.settings, self.process = emulator_process.start(
            pushgate, f"{service}-emulator", directory, prefix + "URL", "--inbox-limit", "200000", *options)
        self.url = self.settings[prefix + "URL"]
        self.context = ssl.create_default_context(cafile=self.settings[prefix + "CA_FILE"])

    def _get(self, path, method="GET"):
        parsed = urllib.parse.urlparse(self.url)
        connection = http.client.HTTPSConnection(parsed.hostname, parsed.port, context=self.context, timeout=30)
        connection.request(method, path)
        return connection.getresponse().read()

    def count(self):
        return json.loads(self._get("/inbox/count"))["count"]

    def tokens(self):
        """Every device token the inbox holds, once per push."""
        return [entry["device_token"] for entry in json.loads(self._get("/inbox"))]

    def clear(self):
        self._get("/inbox", method="DELETE")

    def stop(self):
        emulator_process.stop(self.process)


class Gateway:
    """`pushgate serve` on a free port, with the emulator as its push service and no
    rate limits; ready once `/healthz` answers. `launcher` comes before the command
    (the command is its last arguments: `unshare … sh -c '… exec "$0" "$@"'`), and
    must exec it, so that the pid stays the gateway's."""

    def __init__(self, pushgate, database_url, emulator, log_path, launcher=(), **settings):
        self.port = free_port()
        environment = dict(os.environ)
        environment.update(emulator.settings)
        environment.update({
            "PUSHGATE_RATE_PER_SECRET": "0", "PUSHGATE_RATE_PER_ADDRESS": "0",
            "PUSHGATE_NEW_NAMESPACES_PER_ADDRESS": "0", "PUSHGATE_HEALTH_RATE_PER_ADDRESS": "0",
            "PUSHGATE_HEALTH_DETAILS": "on", "PUSHGATE_MAX_DEVICES_PER_AGENT": "1000000",
            "PUSHGATE_METRICS_LISTEN": "main",
        })
        environment.update(settings)
        self.log_path = log_path
        self.process = subprocess.Popen(
            [*launcher, pushgate, "serve", "--port", str(self.port), "--database", database_url],
            stdout=open(log_path, "w"), stderr=subprocess.STDOUT, env=environment)
        deadline = time.monotonic() + 120
        while self.call("/healthz", timeout=1)[0] != 200:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError("the gateway did not start: " + open(log_path).read()[-2000:])
            time.sleep(0.1)

    def resident_mib(self):
        """Its resident memory now, MiB."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def call(self, path, body=None, timeout=PROXY_TIMEOUT):
        """(status, answer text, seconds); status 0 when no answer came within `timeout`."""
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            if body is None:
                connection.request("GET", path)
            else:
                connection.request("POST", path, body=json.dumps(body), headers={
                    "Authorization": f"Bearer {SECRET}", "Content-Type": "application/json"})
            answer = connection.getresponse()
            return answer.status, answer.read().decode(errors="replace"), time.monotonic() - started
        except (OSError, http.client.HTTPException) as error:
            return 0, str(error), time.monotonic() - started
        finally:
            connection.close()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def cpu_model():
    """`lscpu`'s model name, printed beside a benchmark's figures."""
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def agent_key(cwd):
    return hashlib.sha256(cwd.encode()).hexdigest()


def fan_out_token(index):
    return f"{index:064x}"


def seed_devices(database_url, cwd, count):
    """`count` APNs devices of the agent at `cwd` straight into the documents table
    (registering 20,000 through the API would test registrations, not the fan-out)."""
    now = "2026-11-26T00:00:00.000Z"
    parent = f"servers/{SERVER_KEY}/agents/{agent_key(cwd)}/devices"
    rows = [(f"{parent}/device-{i:06d}", parent, "devices", f"device-{i:06d}",
             json.dumps({"apnsToken": fan_out_token(i), "platform": "ios", "createdAt": now, "updatedAt": now}))
            for i in range(count)]
    rows.append((f"servers/{SERVER_KEY}", "servers", "servers", SERVER_KEY,
                 json.dumps({"createdAt": now, "lastSeenAt": now})))
    rows.append((f"servers/{SERVER_KEY}/agents/{agent_key(cwd)}", f"servers/{SERVER_KEY}/agents", "agents",
                 agent_key(cwd), json.dumps({"cwd": cwd, "createdAt": now, "updatedAt": now})))
    columns = "(path, parent, collection_id, document_id, fields)"
    text = "".join("\t".join(row) + "\n" for row in rows)
    out = subprocess.run([psql(), "-qX", database_url,
                          "-c", "CREATE TEMP TABLE seed (LIKE documents INCLUDING DEFAULTS)",
                          "-c", f"\\copy seed {columns} from stdin",
                          "-c", f"INSERT INTO documents {columns} SELECT {columns[1:-1]} FROM seed "
                                "ON CONFLICT DO NOTHING",
                          "-c", "ANALYZE documents"], input=text, text=True, capture_output=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(f"seeding failed: {out.stderr.strip()}")


def registered_installations(database_url, cwd):
    parent = f"servers/{SERVER_KEY}/agents/{agent_key(cwd)}/devices"
    return set(sql(database_url, f"SELECT document_id FROM documents WHERE parent = '{parent}'"))


class Calls:
    """Calls made in a loop on a thread until stopped: (started, status, seconds, extra)."""

    def __init__(self, name, make_call, pause):
        self.name, self.make_call, self.pause = name, make_call, pause
        self.records = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        number = 0
        while not self.stopping.is_set():
            started = time.monotonic()
            status, text, seconds, extra = self.make_call(number)
            self.records.append((started, status, seconds, extra, text[:200]))
            number += 1
            self.stopping.wait(self.pause)

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=30)


def accepted_again(records, killed_at):
    """From `Calls` records of triggers: (seconds from the kill until they were accepted
    again for good, or None; how many after the kill were not accepted)."""
    failed = [started for started, status, *_ in records if started >= killed_at and status != 200]
    last_failure = max(failed, default=killed_at)
    back = [started + seconds for started, status, seconds, *_ in records if started > last_failure and status == 200]
    return (min(back) - killed_at if back else None), len(failed)
