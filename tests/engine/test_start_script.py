"""The README's set-up command on a fresh copy of the project: ``./start.sh`` migrates a
new SQLite database, loads the demo, makes a live demo round with the built-in baselines'
verified ranked games, and serves a leaderboard that shows them."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="a test of the embedded default's set-up: it runs in the embedded pass",
)


def _fresh_copy(target: Path) -> None:
    """The project's files as a clone would have them (tracked and new, not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    # The installed environment and the compiled search are reused (installing is what the
    # first start measures apart: benchmarks/startup.py), everything else starts empty.
    (target / ".venv").symlink_to(ROOT / ".venv")
    for built in (ROOT / "engine/core/families/kumo").glob("_fastsearch*.so"):
        shutil.copy2(built, target / "engine/core/families/kumo" / built.name)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_start_sh_leaves_a_live_round_with_verified_baseline_rows(tmp_path):
    copy = tmp_path / "kumo"
    copy.mkdir()
    _fresh_copy(copy)
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SQLITE_PATH")
    }
    env["PORT"] = str(port)
    log = (tmp_path / "start.log").open("w")
    process = subprocess.Popen(
        ["./start.sh"], cwd=copy, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        page = ""
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/leaderboard/") as answer:
                    page = answer.read().decode()
                break
            except OSError:
                time.sleep(1)
        assert page, (tmp_path / "start.log").read_text()[-3000:]
        assert "demo" in page
        for baseline in ("oracle", "greedy", "random"):
            assert f'data-model="{baseline}"' in page, baseline
        assert (copy / "db.sqlite3").exists()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()
