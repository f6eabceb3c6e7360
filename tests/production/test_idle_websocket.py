"""A play websocket left idle stays open on the Redis channel layer (the production pass).

With redis-py's default 5 s socket timeout racing the layer's 5 s blocking read, every idle
socket was closed (1011) after about 5 s; the settings give Redis a longer timeout.
"""

from __future__ import annotations

import asyncio

import pytest
from django.conf import settings

from tests.play.test_websocket import (  # the autouse fixture closes the sync thread's DB
    _close_the_sync_threads_connection,  # noqa: F401
    connect,
    logged_in_session,
    receive_state,
)

pytestmark = [
    pytest.mark.production,
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
]

IDLE_SECONDS = 60


async def test_an_idle_play_websocket_stays_open_for_a_minute(orchard, make_user):
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    assert backend == "benchmark.channel_layer.RedisChannelLayer"
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    connected, _ = await ws.connect()
    assert connected
    await receive_state(ws)

    await asyncio.sleep(IDLE_SECONDS)
    # Nothing arrived meanwhile (a closed socket would have sent websocket.close) ...
    assert await ws.receive_nothing(timeout=0.5)
    # ... and the same socket still carries a move and its new state.
    action = instance.actions[0]
    await ws.send_json_to({"type": "action", "action": action})
    state = await receive_state(ws)
    assert state["steps"][0]["observation"] == instance.observations[action]
    await ws.disconnect()
