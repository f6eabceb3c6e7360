"""Another family's game over its page's websocket (Channels' communicator, full ASGI
stack): moves through the same service as the form and the API, every open page sent the
game after every change, nothing hidden sent before the end, only the player's own game."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async as sync_to_async
from django.test import Client

from benchmark.asgi import application
from engine import families
from engine.models import FamilyAttempt

# The same clean-up after every test as the KUMO socket's tests (autouse).
from tests.play.test_websocket import Communicator, _close_the_sync_threads_connection  # noqa: F401

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@sync_to_async
def mastermind_attempt(make_user, username="player"):
    user = make_user(username)
    client = Client()
    client.force_login(user)
    (task,) = families.do_generate_family_tasks("games", "mastermind", seed=4, level="easy").tasks
    attempt, _ = families.start_attempt(user, task)
    return user, attempt, task.hidden["code"], client


@sync_to_async
def log_in(make_user, username):
    client = Client()
    client.force_login(make_user(username))
    return client.cookies["sessionid"].value


def connect(attempt_id: int, cookie: str | None) -> Communicator:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return Communicator(application, f"/ws/family-attempts/{attempt_id}/", headers=headers)


async def receive(communicator, seen: list) -> dict:
    message = await communicator.receive_json_from(timeout=5)
    seen.append(message)
    return message


async def receive_state(communicator, seen: list) -> dict:
    while True:
        message = await receive(communicator, seen)
        if message["type"] == "state":
            return message


async def test_a_game_is_played_over_its_socket_move_by_move(make_user):
    user, attempt, code, client = await mastermind_attempt(make_user)
    wrong = next(guess for guess in ("RRR", "GGG", "BBB") if guess != code)
    seen: list = []
    ws = connect(attempt.pk, client.cookies["sessionid"].value)
    assert (await ws.connect())[0]
    first = await receive_state(ws, seen)
    assert first["steps"] == 0 and not first["finished"] and "Move 1 of at most" in first["html"]

    report = {"pastes": 1, "keys": 3}
    await ws.send_json_to({"type": "move", "move": wrong, "client": report})
    state = await receive_state(ws, seen)
    assert state["steps"] == 1 and f"<strong>{wrong}</strong>" in state["html"]
    assert "Move 2 of at most" in state["html"]

    await ws.send_json_to({"type": "move", "move": "<b>no</b>"})
    error = await receive(ws, seen)
    assert error["type"] == "error" and error["message"]
    state = await receive_state(ws, seen)
    assert state["steps"] == 2 and "1 refused so far" in state["html"]
    assert "<b>no</b>" not in json.dumps(seen)  # refused moves are not shown back as HTML

    assert code not in json.dumps(seen)  # nothing hidden travels before the end
    await ws.send_json_to({"type": "move", "move": code})
    state = await receive_state(ws, seen)
    assert state["finished"] and state["html"] == ""
    await ws.disconnect()

    stored = await sync_to_async(FamilyAttempt.objects.get)(pk=attempt.pk)
    assert stored.finished_at is not None and stored.correct and stored.invalid_moves == 1
    steps = await sync_to_async(lambda: list(stored.steps.order_by("index")))()
    assert [(s.move, s.accepted) for s in steps] == [
        (wrong, True), ("<b>no</b>", False), (code, True)
    ]  # fmt: skip
    assert steps[0].client == report and steps[1].client is None


async def test_every_open_page_is_sent_a_move_made_in_another_tab_or_by_the_form(make_user):
    user, attempt, code, client = await mastermind_attempt(make_user)
    cookie = client.cookies["sessionid"].value
    seen: list = []
    first, second = connect(attempt.pk, cookie), connect(attempt.pk, cookie)
    assert (await first.connect())[0] and (await second.connect())[0]
    await receive_state(first, seen)
    await receive_state(second, seen)

    await first.send_json_to({"type": "move", "move": "RRR" if code != "RRR" else "GGG"})
    assert (await receive_state(first, seen))["steps"] == 1
    assert (await receive_state(second, seen))["steps"] == 1

    # A move by the page's form (no socket) reaches both pages too.
    posted = await sync_to_async(client.post)(
        f"/families/attempts/{attempt.pk}/", {"move": "BBB" if code != "BBB" else "YYY"}
    )
    assert posted.status_code == 302
    assert (await receive_state(first, seen))["steps"] == 2
    assert (await receive_state(second, seen))["steps"] == 2

    await sync_to_async(client.post)(f"/families/attempts/{attempt.pk}/", {"move": code})
    assert (await receive_state(first, seen))["finished"]
    assert (await receive_state(second, seen))["finished"]
    await first.disconnect()
    await second.disconnect()


async def test_only_the_players_own_game_opens(make_user):
    user, attempt, code, client = await mastermind_attempt(make_user)
    other = await log_in(make_user, "someone-else")
    for attempt_id, cookie, refused in [
        (attempt.pk, None, 4401),
        (attempt.pk, other, 4404),
        (attempt.pk + 1000, client.cookies["sessionid"].value, 4404),
    ]:
        ws = connect(attempt_id, cookie)
        connected, close_code = await ws.connect()
        assert not connected and close_code == refused
    moved = await sync_to_async(FamilyAttempt.objects.filter(steps__isnull=False).exists)()
    assert not moved


async def test_malformed_messages_are_answered_and_the_socket_stays_open(make_user):
    user, attempt, code, client = await mastermind_attempt(make_user)
    seen: list = []
    ws = connect(attempt.pk, client.cookies["sessionid"].value)
    assert (await ws.connect())[0]
    await receive_state(ws, seen)
    await ws.send_to(text_data="not json")
    assert (await receive(ws, seen))["message"] == "messages must be JSON"
    await ws.send_json_to(["move"])
    assert (await receive(ws, seen))["message"] == "messages must be JSON objects"
    await ws.send_json_to({"type": "answer", "answer": code})
    assert "unknown message type" in (await receive(ws, seen))["message"]
    await ws.send_json_to({"type": "move", "move": 42})
    assert (await receive(ws, seen))["message"] == "write a move first"
    await ws.send_json_to({"type": "sync"})
    assert (await receive_state(ws, seen))["steps"] == 0
    await ws.disconnect()
