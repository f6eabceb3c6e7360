"""How long a new user waits: `./start.sh` on a fresh clone until the site serves its board.

Clones this repository (its committed HEAD) into a temporary folder, runs `./start.sh` there
on a free port, and times each phase from the script's own output until `/leaderboard/`
answers with the demo round's verified rows; then stops the server and removes the clone.

    .venv/bin/python benchmarks/first_start.py cold   # empty package caches: all downloaded
    .venv/bin/python benchmarks/first_start.py warm   # the usual caches (filled by a run)

Prints the machine's load average before and after, and the wall and CPU time of each phase:
installing (virtualenv and packages, the compiled search), migrating, the demo data (tasks
with their optimal-search values, the demo round and its baselines' games), and the first
page. Nothing is left behind: the server's process group is killed and waited for.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = (
    ("install", re.compile(r"Creating the virtual environment|Installing")),
    ("migrate", re.compile(r"^Operations to perform|^Running migrations")),
    ("demo data", re.compile(r"\((\w+)\.json, ")),
    ("server start", re.compile(r"The site is starting")),
)
DEADLINE_SECONDS = 1800


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def board_ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/leaderboard/", timeout=5) as reply:
            page = reply.read().decode("utf-8", "replace")
    except OSError:
        return False
    return reply.status == 200 and "oracle" in page


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(mode: str) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="kumo-first-start-"))
    clone = workdir / "kumo"
    env = dict(os.environ)
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "VIRTUAL_ENV"):
        env.pop(name, None)
    if mode == "cold":
        env["UV_CACHE_DIR"] = str(workdir / "uv-cache")
        env["PIP_CACHE_DIR"] = str(workdir / "pip-cache")
    port = free_port()
    env["PORT"] = str(port)
    env["PYTHONUNBUFFERED"] = "1"  # each phase's lines arrive when written
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    print(f"mode: {mode}; load average before: {os.getloadavg()}; {os.cpu_count()} cores")
    cpu_before = children_cpu()
    started = time.monotonic()
    marks: dict[str, float] = {}
    server = subprocess.Popen(
        ["./start.sh"],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    status = 1
    output: list[str] = []

    def read_output() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            output.append(line)
            for name, pattern in PHASES:
                if name not in marks and pattern.search(line):
                    marks[name] = time.monotonic() - started

    reader = threading.Thread(target=read_output, daemon=True)
    reader.start()
    try:
        while time.monotonic() - started < DEADLINE_SECONDS:
            if server.poll() is not None:
                print(f"start.sh stopped with status {server.returncode}:")
                print("".join(output[-30:]))
                break
            if "server start" in marks and board_ready(port):
                marks["board served"] = time.monotonic() - started
                status = 0
                break
            time.sleep(0.2)
        else:
            print(f"the board was not served within {DEADLINE_SECONDS} s")
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        shutil.rmtree(workdir, ignore_errors=True)
    labels = {
        "install": "installing begins",
        "migrate": "migrations begin",
        "demo data": "first domain's tasks stored",
        "server start": "server starting",
        "board served": "board served",
    }
    previous = 0.0
    for name, label in labels.items():
        if name in marks:
            print(f"  {label:>28} at {marks[name]:7.1f} s (+{marks[name] - previous:6.1f} s)")
            previous = marks[name]
    print(f"total: {previous:.1f} s wall, {children_cpu() - cpu_before:.1f} s CPU of the processes")
    print(f"load average after: {os.getloadavg()}")
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("cold", "warm"))
    return run(parser.parse_args().mode)


if __name__ == "__main__":
    sys.exit(main())
