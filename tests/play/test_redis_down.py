"""A committed move answers 200 even when the live-update channel (Redis) is unreachable."""

from __future__ import annotations

import pytest
from channels.layers import channel_layers

from engine.models import Instance, PlaySession
from tests.play.test_websocket import (  # the autouse fixture closes the sync thread's DB
    _close_the_sync_threads_connection,  # noqa: F401
    connect,
    logged_in_session,
    receive_state,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def unreachable_redis(settings):
    # Port 1 on the loopback: nothing listens there, so every connection is refused at once.
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "benchmark.channel_layer.RedisChannelLayer",
            "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]},
        }
    }
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


def test_a_move_with_redis_unreachable_is_answered_with_its_result(researcher, unreachable_redis):
    instance = Instance.objects.filter(domain__name="orchard").order_by("seed").first()
    started = researcher.post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    assert started.status_code == 201
    session_id = started.json()["id"]
    action = instance.actions[0]
    moved = researcher.post(
        f"/api/v1/sessions/{session_id}/actions/", {"action": action}, format="json"
    )
    assert moved.status_code == 200, moved.content
    assert moved.json()["observation"] == instance.observations[action]
    answered = researcher.post(
        f"/api/v1/sessions/{session_id}/answer/",
        {"truth": instance.valid_truths[0]},
        format="json",
    )
    assert answered.status_code == 200 and answered.json()["correct"] is True
    # Stored once each: a client has no reason to retry, and nothing was lost.
    session = PlaySession.objects.get(pk=session_id)
    assert (session.actions_taken, session.invalid_moves, session.correct) == (1, 0, True)
    assert session.steps.count() == 2


@pytest.mark.asyncio
async def test_a_websocket_opens_and_plays_with_redis_unreachable(
    orchard, make_user, unreachable_redis
):
    from channels.db import database_sync_to_async

    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    connected, _ = await ws.connect()
    assert connected  # not a 500 handshake
    assert (await receive_state(ws))["steps"] == []
    # The layer's receive fails over and over meanwhile; the socket stays open ...
    assert await ws.receive_nothing(timeout=2.5)
    # ... and a move is committed once and its new state sent to this socket.
    action = instance.actions[0]
    await ws.send_json_to({"type": "action", "action": action})
    state = await receive_state(ws)
    assert state["steps"][0]["observation"] == instance.observations[action]
    stored = await database_sync_to_async(PlaySession.objects.get)(pk=session.pk)
    assert (stored.actions_taken, stored.invalid_moves) == (1, 0)
    await ws.disconnect()
