"""The Redis channel layer sized and bounded: a burst past its connection pool waits instead
of failing, and a live update dropped from a full queue is healed."""

from __future__ import annotations

import asyncio
import copy
import logging
import threading

import pytest
from channels.db import database_sync_to_async as sync_to_async
from channels.layers import channel_layers, get_channel_layer
from channels_redis.core import RedisChannelLayer as PlainRedisChannelLayer
from django.conf import settings
from django.db import connections
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import MaxConnectionsError

from benchmark.channel_layer import RedisChannelLayer
from engine import sessions
from tests.play.test_websocket import (  # the autouse fixture closes the sync thread's DB
    _close_the_sync_threads_connection,  # noqa: F401
    connect,
    logged_in_session,
    receive_state,
)

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]

BURST = 60


def test_the_layer_is_sized_from_the_environment():
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    assert config["capacity"] == settings.CHANNEL_CAPACITY
    pool = get_channel_layer().create_pool(0)
    assert isinstance(pool, BlockingConnectionPool)
    assert pool.max_connections == settings.REDIS_MAX_CONNECTIONS
    assert pool.timeout == settings.REDIS_POOL_TIMEOUT


async def burst(layer, group: str) -> list[int]:
    """``BURST`` group messages sent at once to one socket's channel; what it receives."""
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    sends = [layer.group_send(group, {"type": "x.y", "n": n}) for n in range(BURST)]
    try:
        await asyncio.gather(*sends)
        return sorted([(await layer.receive(channel))["n"] for _ in range(BURST)])
    finally:
        await layer.flush()


@pytest.mark.asyncio
async def test_a_burst_past_the_pool_waits_for_a_connection_instead_of_failing():
    # channels_redis's own pool fails such a burst at once ...
    plain = PlainRedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "max_connections": 2}], capacity=BURST
    )
    with pytest.raises(MaxConnectionsError):
        await burst(plain, "burst-plain")
    await asyncio.sleep(1)  # the rest of its burst, still running, fails meanwhile
    await plain.flush()
    # ... where ours holds it to two connections and delivers every message once.
    ours = RedisChannelLayer(
        hosts=[{"address": settings.REDIS_URL, "max_connections": 2, "timeout": 30}],
        capacity=BURST,
    )
    assert await burst(ours, "burst-ours") == list(range(BURST))


@pytest.fixture
def capacity_one():
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"]["CONFIG"]["capacity"] = 1
    original = settings.CHANNEL_LAYERS
    settings.CHANNEL_LAYERS = layers
    channel_layers.backends.clear()
    yield
    settings.CHANNEL_LAYERS = original
    channel_layers.backends.clear()


async def states_until_quiet(ws) -> list[dict]:
    states = []
    while not await ws.receive_nothing(timeout=1):
        message = await ws.receive_json_from()
        if message["type"] == "state":
            states.append(message["state"])
    return states


@pytest.mark.asyncio
async def test_a_dropped_live_update_is_healed(orchard, make_user, capacity_one, caplog):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    connected, _ = await ws.connect()
    assert connected
    await receive_state(ws)

    # Another tab (or a program on the API) makes three moves while this process's loop is
    # held up, so its queue of one fills and the later updates are dropped.
    def other_tab(actions):
        try:
            for action in actions:
                sessions.take_action(session.pk, user, action)
        finally:
            connections.close_all()  # this thread's; PostgreSQL must drop the test database

    mover = threading.Thread(target=other_tab, args=(instance.actions[:3],))
    mover.start()
    mover.join()  # blocks this event loop: the consumer reads nothing meanwhile
    with caplog.at_level(logging.INFO, logger="channels_redis.core"):
        shown = await states_until_quiet(ws)
    # Updates were lost on the way (the queue of one was full) ...
    assert "over capacity" in caplog.text
    # ... and yet the page ends with every step: an update names the step count only and
    # the page reads the whole state for it, so the one that got through brings them all.
    assert shown and len(shown[-1]["steps"]) == 3

    # The page asks again when it is looked at: the whole state comes back.
    await ws.send_json_to({"type": "sync"})
    assert len((await receive_state(ws))["steps"]) == 3
    # And the next update carries every step, the dropped ones included.
    await sync_to_async(sessions.take_action)(session.pk, user, instance.actions[3])
    state = await receive_state(ws)
    assert [step["name"] for step in state["steps"]] == list(instance.actions[:4])
    await ws.disconnect()
