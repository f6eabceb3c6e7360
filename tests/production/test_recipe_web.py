"""The web process exactly as deploy/Procfile starts it, with its shipped defaults: forwarded
headers count only from the configured proxy, and no access line is written unless asked."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import websockets
from django.test import Client

from engine import sessions
from engine.models import Instance, PracticeGame
from tests.production.test_asgi_server import free_port
from tests.production.test_stack import ROOT, child_env, stop_group, wait_for

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]

# Settings the recipe defaults, which the test's own environment must not change.
RECIPE = ("FORWARDED_ALLOW_IPS", "ACCESS_LOG", "PORT", "WEB_CONCURRENCY")


def procfile_web() -> str:
    for line in (ROOT / "deploy" / "Procfile").read_text().splitlines():
        if line.startswith("web: "):
            return line.removeprefix("web: ")
    raise AssertionError("deploy/Procfile has no web process")


@contextmanager
def procfile_server(log: Path, **env: str):
    with procfile_process(log, **env) as (_process, port):
        yield port


@contextmanager
def procfile_process(log: Path, **env: str):
    """The Procfile's web line run by a shell, as honcho or foreman run it, on a free port
    (one web worker: the machine is small); ``env`` adds settings."""
    port = free_port()
    settings = {k: v for k, v in child_env().items() if k not in RECIPE}
    settings.update({"PORT": str(port), "WEB_CONCURRENCY": "1", **env})
    # As in an activated virtualenv: the Procfile names uvicorn, not its path.
    settings["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{settings.get('PATH', '')}"
    with open(log, "w") as output:
        process = subprocess.Popen(
            ["sh", "-c", f"exec {procfile_web()}"],
            cwd=ROOT,
            env=settings,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_for(
                lambda: process.poll() is not None or _answers(port),
                "the web process to answer",
                limit=90,
            )
            assert process.poll() is None, log.read_text()
            yield process, port
        finally:
            stop_group(process)


def _answers(port: int) -> bool:
    try:
        httpx.get(f"http://127.0.0.1:{port}/health/", timeout=5)
    except httpx.HTTPError:
        return False
    return True


def start_practice(port: int, source: str, forwarded_for: str) -> httpx.Response:
    """A new visitor (fresh cookies) presses Play, connecting from ``source`` (another
    loopback address is another machine to the server) with an X-Forwarded-For header."""
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(
        base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=60
    ) as browser:
        home = browser.get("/domains/orchard/")
        assert home.status_code == 200
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', home.text)[1]
        return browser.post(
            "/play/",
            data={"csrfmiddlewaretoken": token, "domain": "orchard", "level": "easy"},
            headers={"X-Forwarded-For": forwarded_for},
        )


def counted_addresses() -> list[str]:
    return list(PracticeGame.objects.order_by("pk").values_list("ip_address", flat=True))


def test_a_forged_forwarded_for_from_an_untrusted_address_changes_no_count(orchard, tmp_path):
    log = tmp_path / "web.log"
    # One practice game per address an hour, so the count is what refuses the second game.
    with procfile_server(log, VISITOR_GAMES_PER_HOUR_PER_IP="1") as port:
        # 127.0.0.2 is not the configured proxy (FORWARDED_ALLOW_IPS, default 127.0.0.1):
        # its header is ignored and its own address is counted.
        first = start_practice(port, "127.0.0.2", "203.0.113.7")
        assert first.status_code == 302, first.text[:500]
        assert counted_addresses() == ["127.0.0.2"]
        # A new forged address does not buy another game: the same address is counted.
        second = start_practice(port, "127.0.0.2", "203.0.113.8")
        assert second.status_code == 429
        assert "Visitors from your address have started 1" in second.text
        assert counted_addresses() == ["127.0.0.2"]
        # The proxy (127.0.0.1) forwards its clients' addresses, and those are counted.
        proxied = start_practice(port, "127.0.0.1", "198.51.100.4")
        assert proxied.status_code == 302, proxied.text[:500]
        assert counted_addresses() == ["127.0.0.2", "198.51.100.4"]
    # No access line by default (ACCESS_LOG=0), while uvicorn's own messages still appear.
    text = log.read_text()
    assert "Started server process" in text
    assert "POST /play/" not in text and "GET /health/" not in text


def test_access_log_on_writes_a_line_per_request(orchard, tmp_path):
    log = tmp_path / "web.log"
    with procfile_server(log, ACCESS_LOG="1") as port:
        page = httpx.get(f"http://127.0.0.1:{port}/domains/orchard/", timeout=60)
        assert page.status_code == 200
    assert '"GET /domains/orchard/ HTTP/1.1" 200' in log.read_text()


def test_a_stop_drains_in_seconds_and_closes_websockets_for_the_page_to_reconnect(
    orchard, make_user, tmp_path
):
    """SIGTERM (what systemd sends on stop and restart) to the Procfile's web process with a
    game's websocket open: the socket is closed with 1012 ("service restart", on which
    static/js/play.js reconnects) and the process is gone within its 5 s drain, where
    30 s of "timeout graceful shutdown exceeded" used to pass first."""
    user = make_user("player")
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"].value
    instance = Instance.objects.filter(domain=orchard).order_by("seed").first()
    session, _ = sessions.start_session(user, instance)

    async def hold_a_game_then_stop(process, port) -> int:
        headers = {"Cookie": f"sessionid={cookie}", "Origin": f"http://127.0.0.1:{port}"}
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/play/{session.pk}/", additional_headers=headers
        ) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert first["type"] == "state"
            os.killpg(process.pid, signal.SIGTERM)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 30)
            return closed.value.rcvd.code

    # The shipped two web workers: the stop goes through uvicorn's supervisor to both.
    with procfile_process(tmp_path / "web.log", WEB_CONCURRENCY="2") as (process, port):
        assert asyncio.run(hold_a_game_then_stop(process, port)) == 1012
        # The drain is 5 s; the bound leaves room for a loaded machine, not for 30 s more.
        process.wait(timeout=20)
    assert "timeout graceful shutdown exceeded" not in (tmp_path / "web.log").read_text()
