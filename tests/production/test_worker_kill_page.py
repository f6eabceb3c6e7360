"""The play page in a real browser when the web worker holding its websocket is killed mid-game
(an out-of-memory kill, a crash): the recipe's server (uvicorn, two workers) replaces the
worker, the page reconnects by itself, shows the game as it stands and plays on; every move
is stored once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest
from playwright.sync_api import expect, sync_playwright

from engine import sessions
from engine.models import Instance
from tests.browser.test_play_page import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, orm
from tests.production.test_asgi_server import children, uvicorn
from tests.production.test_resilience import assert_every_move_stored_once, cookie_for
from tests.production.test_stack import ROOT, child_env, wait_for

pytestmark = [pytest.mark.production, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def workers_holding_connections(server_pid: int, port: int) -> set[int]:
    """The server's worker processes that hold an established connection on ``port``."""
    out = subprocess.run(
        ["ss", "-tnpH", "state", "established", f"( sport = :{port} )"],
        capture_output=True,
        text=True,
    ).stdout
    holders = {int(pid) for pid in re.findall(r"pid=(\d+)", out)}
    return holders & set(children(server_pid))


def test_the_play_page_resumes_its_game_after_its_web_worker_is_killed(
    orchard, make_user, tmp_path
):
    user = make_user("player")
    cookie = cookie_for(user)
    instance = Instance.objects.filter(domain=orchard).order_by("seed").first()
    session, _ = sessions.start_session(user, instance)
    first, second = instance.actions[:2]

    # The recipe's web process as deployed: DEBUG off, its static files collected and served
    # by whitenoise; plain HTTP on loopback (no TLS proxy in front).
    recipe = {
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(tmp_path / "static"),
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_COOKIES": "0",
        "SECURE_HSTS_SECONDS": "0",
    }
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env={**child_env(), **recipe},
        check=True,
    )
    with (
        uvicorn(workers=2, log=tmp_path / "uvicorn.log", **recipe) as (server, base, port),
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": base}])
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        connection = page.locator("#connection")

        page.goto(f"{base}/play/{session.pk}/")
        expect(connection).to_have_attribute("data-state", "connected", timeout=WAIT_MS)
        page.locator(f'button.action[data-action="{first}"]').click()
        expect(page.locator("#log li")).to_have_count(1, timeout=WAIT_MS)

        # The page's own connections: its websocket (and any kept-alive HTTP connection).
        killed = workers_holding_connections(server.pid, port)
        assert killed, "no worker holds the page's connections"
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        # The page notices, reconnects (to the other worker or a replacement) and is sent
        # the game as it stands: the move made before the kill is still there.
        expect(connection).not_to_have_attribute("data-state", "connected", timeout=WAIT_MS)
        expect(connection).to_have_attribute("data-state", "connected", timeout=60_000)
        expect(page.locator("#log li")).to_have_count(1)
        page.locator(f'button.action[data-action="{second}"]').click()
        expect(page.locator("#log li")).to_have_count(2, timeout=WAIT_MS)
        expect(page.locator("#log")).to_contain_text(second)
        wait_for(lambda: len(set(children(server.pid)) - killed) >= 2, "replacement workers")
        browser.close()

    assert errors == []
    orm(assert_every_move_stored_once, {session.pk: [first, second]})
