"""The ASGI server of the production recipe (deploy/): uvicorn with several worker processes
serving HTTP and websockets, and a worker killed under it replaced without losing anything."""

from __future__ import annotations

import asyncio
import atexit
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
import websockets
from django.test import Client

from engine import sessions
from engine.models import Instance, PlaySession
from tests.production.test_stack import ROOT, child_env, stop_group, wait_for

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@functools.cache
def collected_static() -> str:
    """The site's static files collected once per test process into a directory of its
    own, as the recipe collects them before it serves: with DEBUG off every HTML page
    (a 404 page too) names its files through the collected manifest, and renders a server
    error without one. Removed when the process exits."""
    root = tempfile.mkdtemp(prefix="kumo-static-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env={**child_env(), "DEBUG": "0", "STATIC_ROOT": root},
        check=True,
    )
    return root


@contextmanager
def uvicorn(workers: int = 2, log: Path | None = None, args: tuple[str, ...] = (), **env: str):
    """uvicorn serving the test database on a free port; ``args`` adds options, ``env``
    settings (DEBUG=…). With DEBUG off it serves the collected static files
    (:func:`collected_static`) unless ``env`` names its own STATIC_ROOT.

    Its output goes to ``log`` (a file nobody must drain; a pipe left unread would block a
    server that logs much), or nowhere.
    """
    if env.get("DEBUG") == "0" and "STATIC_ROOT" not in env:
        env = {"STATIC_ROOT": collected_static(), **env}
    port = free_port()
    output = open(log, "w") if log else subprocess.DEVNULL  # closed below
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "benchmark.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--lifespan",
            "off",
            "--no-access-log",
            *args,
        ],
        cwd=ROOT,
        env={**child_env(), **env},
        stdout=output,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _get(f"{base}/health/") is not None, "uvicorn to answer", limit=60)
        yield process, base, port
    finally:
        stop_group(process)
        if log:
            output.close()


def _get(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        return json.loads(error.read())
    except OSError:
        return None


def children(pid: int) -> list[int]:
    """The server's worker processes (not multiprocessing's resource tracker beside them)."""
    out = subprocess.run(
        ["ps", "-ww", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True
    )
    return [int(line.split()[0]) for line in out.stdout.splitlines() if "spawn_main" in line]


async def play_over_websocket(port: int, session_id: int, cookie: str, action: str) -> dict:
    headers = {"Cookie": f"sessionid={cookie}", "Origin": f"http://127.0.0.1:{port}"}
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ws/play/{session_id}/", additional_headers=headers
    ) as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert first["type"] == "state" and first["state"]["steps"] == []
        await ws.send(json.dumps({"type": "action", "action": action}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if message["type"] == "state" and message["state"]["steps"]:
                return message["state"]


def test_uvicorn_workers_serve_http_and_websockets_and_survive_a_worker_kill(orchard, make_user):
    user = make_user("player")
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"].value
    instances = list(Instance.objects.filter(domain=orchard).order_by("seed"))
    session, _ = sessions.start_session(user, instances[0])

    with uvicorn(workers=2) as (server, base, port):
        health = _get(f"{base}/health/")
        assert health["checks"]["database"]["ok"] and health["checks"]["redis"]["ok"]
        state = asyncio.run(play_over_websocket(port, session.pk, cookie, instances[0].actions[0]))
        assert (
            state["steps"][0]["observation"] == instances[0].observations[instances[0].actions[0]]
        )

        # Kill one worker process outright: the server replaces it and keeps answering.
        workers = children(server.pid)
        assert len(workers) >= 2
        os.kill(workers[0], signal.SIGKILL)
        wait_for(lambda: len(set(children(server.pid)) - {workers[0]}) >= 2, "a new worker")
        answered = [_get(f"{base}/health/") for _ in range(20)]
        assert all(body is not None and body["checks"]["database"]["ok"] for body in answered)
        second, _ = sessions.start_session(user, instances[1])
        state = asyncio.run(play_over_websocket(port, second.pk, cookie, instances[1].actions[0]))
        assert state["actions_taken"] == 1
    # Every move is in the database once: nothing lost, nothing doubled.
    assert sorted(PlaySession.objects.values_list("actions_taken", flat=True)) == [1, 1]
