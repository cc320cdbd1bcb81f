"""The scripts that run programs as another user work from a folder that user cannot
enter, and leave nothing running on any way out.

    python3 Tests/scripts/clean_exits.py

Copies scripts/ into a new folder closed to others (mode 0700, as a clone in /root
is) and runs them from there, as a first-time user would:

- scripts/postgres-cluster start, a query, stop: then nothing it started runs;
- scripts/ha-cluster start, a write through haproxy, stop: then nothing runs;
- scripts/ha-cluster start sent SIGTERM once Patroni runs (a time-out, Ctrl-C): it
  stops what it started;
- scripts/reaper over a stage that starts a PostgreSQL server and a detached process,
  then fails: nothing is left once the reaper exits, with the stage's status;
- scripts/reaper sent SIGTERM while its stage runs: the same.

Every process a check starts carries a mark in its environment (the postgres user's
too); what is left is found by it in /proc. Prints one line per check; exits 1 naming
those that failed.
"""

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "compat"))
from emulator_process import check, summary  # noqa: E402

MARK = "PUSHGATE_CLEAN_EXITS_MARK"


def psql():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
    return found[-1] if found else "psql"


class Run:
    """One check's processes: started with their own mark, found by it afterwards."""

    def __init__(self, folder):
        self.folder = folder
        self.mark = uuid.uuid4().hex
        self.environment = dict(os.environ, **{MARK: self.mark})

    def script(self, *arguments, timeout=300):
        return subprocess.run([os.path.join(self.folder, "scripts", arguments[0]), *arguments[1:]],
                              cwd=self.folder, env=self.environment, capture_output=True, text=True,
                              timeout=timeout)

    def popen(self, *arguments):
        return subprocess.Popen([os.path.join(self.folder, "scripts", arguments[0]), *arguments[1:]],
                                cwd=self.folder, env=self.environment, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def left(self, grace=3):
        """The marked processes still running after `grace` seconds: [(pid, command)]."""
        deadline = time.monotonic() + grace
        while True:
            found = []
            needle = f"{MARK}={self.mark}".encode()
            for entry in os.listdir("/proc"):
                if not entry.isdigit() or int(entry) == os.getpid():
                    continue
                try:
                    with open(f"/proc/{entry}/environ", "rb") as environ:
                        if needle not in environ.read().split(b"\0"):
                            continue
                    with open(f"/proc/{entry}/stat") as stat:
                        if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                            continue
                    with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                        found.append((int(entry), cmdline.read().replace(b"\0", b" ").decode(errors="replace")[:80]))
                except OSError:
                    continue
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.2)

    def finish(self, what, data, grace=3):
        """Checks that nothing marked runs once `what` happened; stops, by their own
        pids, whatever a failed check left (so the next ones run clean); removes `data`."""
        left = self.left(grace)
        check(f"{what}: nothing it started runs", not left, left)
        for pid, _ in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(data, ignore_errors=True)


def cluster_folder():
    folder = tempfile.mkdtemp(prefix="pushgate-clean-exits.")
    os.chmod(folder, 0o755)  # the postgres user works in it
    return folder


def round_trip(run, script, statement):
    """`script start`, `statement` through the URL it prints (its answer: 42), `script
    stop`: each works from the closed folder, and nothing it started runs after."""
    data = cluster_folder()
    started = run.script(script, "start", data)
    check(f"{script} starts from a folder closed to others", started.returncode == 0, started.stderr[-1500:])
    if started.returncode == 0:
        answer = subprocess.run([psql(), "-qAtX", started.stdout.strip(), "-c", statement],
                                capture_output=True, text=True)
        check(f"{script}: the database takes the statement", answer.stdout.strip() == "42", answer.stderr)
    stopped = run.script(script, "stop", data)
    check(f"{script} stops", stopped.returncode == 0, stopped.stderr[-800:])
    run.finish(f"{script} stopped", data)


def ha_cluster_interrupted(run):
    data = cluster_folder()
    process = run.popen("ha-cluster", "start", data)
    deadline = time.monotonic() + 120
    while not glob.glob(os.path.join(data, "node1", "patroni.pid")) and process.poll() is None:
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    time.sleep(1)  # Patroni under way: bootstrapping its PostgreSQL
    interrupt(process, "ha-cluster start")
    run.finish("ha-cluster start sent SIGTERM", data, grace=5)


def interrupt(process, what):
    """SIGTERM, as a time-out sends it; the process must end with 143 within 2 minutes."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    check(f"{what} sent SIGTERM ends with 143", process.returncode == 143, process.returncode)


# A stage that starts a PostgreSQL server (no trap of its own stops it) and a process
# that detaches itself, then fails.
FAILING_STAGE = """
set -e
scripts/postgres-cluster start "$1" >/dev/null
setsid sleep 600 </dev/null >/dev/null 2>&1 &
echo started
exit 3
"""


def reaper_after_failure(run):
    data = cluster_folder()
    out = run.script("reaper", "bash", "-c", FAILING_STAGE, "stage", data)
    check("reaper: a failed stage's status is the run's", out.returncode == 3, (out.returncode, out.stderr[-800:]))
    check("reaper: names what it stops", "left behind" in out.stderr and "sleep 600" in out.stderr, out.stderr[-800:])
    run.finish("reaper over a failed stage", data)


def reaper_interrupted(run):
    data = cluster_folder()
    process = run.popen("reaper", "bash", "-c", FAILING_STAGE.replace("exit 3", "sleep 600"), "stage", data)
    check("reaper: the stage started", process.stdout.readline().strip() == "started")
    interrupt(process, "reaper")
    run.finish("reaper sent SIGTERM", data)


def main():
    closed = tempfile.mkdtemp(prefix="pushgate-closed-clone.")
    os.chmod(closed, 0o700)
    shutil.copytree(os.path.join(ROOT, "scripts"), os.path.join(closed, "scripts"))
    if os.geteuid() == 0:
        entered = subprocess.run(["runuser", "-u", "postgres", "--", "test", "-x", closed])
        check("the copy's folder is closed to the postgres user, as a clone in /root", entered.returncode != 0)
    else:
        print("note: not root, so nothing runs as another user; the checks of what is left still run")
    try:
        round_trip(Run(closed), "postgres-cluster", "SELECT 40 + 2")
        round_trip(Run(closed), "ha-cluster",
                   "CREATE TABLE probe (n int); INSERT INTO probe VALUES (42); SELECT n FROM probe")
        for step in (ha_cluster_interrupted, reaper_after_failure, reaper_interrupted):
            step(Run(closed))
    finally:
        shutil.rmtree(closed, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
