"""Every malformed websocket frame gets an error message; the socket stays open and still
takes a move afterwards."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async as sync_to_async

from engine.models import PlaySession
from tests.play.test_websocket import (  # the autouse fixture closes the sync thread's DB
    _close_the_sync_threads_connection,  # noqa: F401
    connect,
    logged_in_session,
    receive_state,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def error_for(ws, **frame) -> str:
    await ws.send_to(**frame)
    while True:
        message = await ws.receive_json_from(timeout=5)
        if message["type"] == "error":
            return message["message"]


async def test_malformed_frames_are_answered_and_the_socket_stays_open(orchard, make_user):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    connected, _ = await ws.connect()
    assert connected
    await receive_state(ws)

    cases = [
        ({"text_data": "this is not JSON"}, "messages must be JSON"),
        ({"bytes_data": b"\x00\x01binary"}, "binary frames are not understood"),
        ({"text_data": "[" * 100_000 + "]" * 100_000}, "a message may be at most"),
        ({"text_data": "[" * 30_000 + "]" * 30_000}, "nested too deeply"),
        ({"text_data": "[1, 2, 3]"}, "messages must be JSON objects"),
        ({"text_data": json.dumps({"type": {"nested": ["x"] * 5}})}, "unknown message type"),
        ({"text_data": json.dumps({"type": "action", "action": "Lea\x00f"})}, "NUL character"),
        ({"text_data": '{"type": "action", "action": "\\ud800"}'}, "unpaired surrogate"),
        ({"text_data": json.dumps({"type": "answer", "truth": ["a list"]})}, "name the truth"),
    ]
    for frame, expected in cases:
        message = await error_for(ws, **frame)
        assert expected in message, (frame.keys(), message)

    # Still open, and a real move goes through.
    action = instance.actions[0]
    await ws.send_json_to({"type": "action", "action": action})
    state = await receive_state(ws)
    while not state["steps"]:
        state = await receive_state(ws)
    assert state["steps"][-1]["observation"] == instance.observations[action]
    await ws.disconnect()
    stored = await sync_to_async(PlaySession.objects.get)(pk=session.pk)
    assert (stored.actions_taken, stored.invalid_moves) == (1, 0)
