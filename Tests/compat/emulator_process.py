"""What the compat scripts share: an emulator started as its own process (a free port,
a given directory, stopped by its pid) and a check that prints its verdict."""

import os
import signal
import subprocess
import time

FAILURES = []


def check(name, condition, detail=""):
    print(("ok    " if condition else "FAIL  ") + name + ("" if condition else f": {detail}"), flush=True)
    if not condition:
        FAILURES.append(name)


def start(pushgate, command, directory, url_setting, *options):
    """`pushgate <command>` in `directory`; its settings (gateway.env, once `url_setting`
    is in it) and its process. Gives up after 60 s with the emulator's log."""
    log = open(os.path.join(directory, "emulator.log"), "w")
    process = subprocess.Popen(
        [pushgate, command, "--port", "0", "--state-directory", directory, *options],
        stdout=log, stderr=subprocess.STDOUT)
    env_file = os.path.join(directory, "gateway.env")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if os.path.exists(env_file):
            settings = dict(line.strip().split("=", 1) for line in open(env_file) if "=" in line)
            if url_setting in settings:
                return settings, process
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"{command} did not start; its log: " + open(log.name).read())


def stop(process):
    """SIGTERM to the emulator's own pid; SIGKILL if it has not stopped in 15 s."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


def summary():
    """The exit status: 1, naming the failed checks, when any failed."""
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed: " + "; ".join(FAILURES))
        return 1
    print("every check passed")
    return 0
