"""benchmarks/production_load.py leaves no process behind: not when a run ends, nor when it
is stopped with SIGTERM halfway (production pass: it needs PostgreSQL and redis-server)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

pytestmark = pytest.mark.production

ROOT = Path(__file__).resolve().parents[2]
RUN_MARK = "KUMO_BENCH_RUN"


def benchmark(*args: str) -> subprocess.Popen:
    db = connection.settings_dict
    env = dict(
        os.environ,
        BENCH_POSTGRES=f"postgres://{db['USER'] or 'postgres'}:{db['PASSWORD'] or ''}"
        f"@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}",
    )
    return subprocess.Popen(
        [sys.executable, "benchmarks/production_load.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def started_by(run: int) -> list[str]:
    """Every live process whose environment carries the run's mark (all the benchmark
    starts, wherever they were reparented to), as "pid command"."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == run:
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if f"{RUN_MARK}={run}".encode() in environ:
            found.append(f"{entry.name} {command}")
    return found


def database_exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        return cursor.fetchone() is not None


@pytest.mark.django_db
def test_a_short_load_run_stops_everything_it_started():
    run = benchmark("load", "--players", "2", "--think", "0.5", "--duration", "3")
    output, _ = run.communicate(timeout=900)
    assert run.returncode == 0, output[-3000:]
    assert "bare PostgreSQL transaction" in output
    assert "web workers' CPU per move" in output
    assert started_by(run.pid) == []
    assert not database_exists(f"kumo_bench_{run.pid}")


@pytest.mark.django_db
def test_a_run_stopped_with_sigterm_stops_everything_it_started():
    run = benchmark("load", "--players", "2", "--think", "0.5", "--duration", "120")
    # Wait until the whole stack runs (web workers, Celery worker and its pool, Redis).
    lines = []
    for line in run.stdout:
        lines.append(line)
        if line.startswith("reference before"):
            break
    assert len([p for p in started_by(run.pid) if "uvicorn" in p or "spawn_main" in p]) >= 2, (
        "".join(lines)
    )
    assert any("celery" in process for process in started_by(run.pid))
    run.send_signal(signal.SIGTERM)
    output, _ = run.communicate(timeout=120)
    assert run.returncode != 0
    deadline = time.monotonic() + 10
    while started_by(run.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert started_by(run.pid) == [], "".join(lines) + output
    assert not database_exists(f"kumo_bench_{run.pid}")
