"""Browser play over real websocket connections (Channels' communicator, full ASGI stack)."""

from __future__ import annotations

import asyncio
import json

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async as sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from benchmark.asgi import application
from engine import sessions
from engine.models import Instance, PlaySession

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest_asyncio.fixture(autouse=True)
async def _close_the_sync_threads_connection():
    yield
    # The consumer and these tests reach the database from asgiref's sync thread, whose
    # connection would stay open to the end of the session; PostgreSQL then refuses to drop
    # the test database ("being accessed by other users").
    await sync_to_async(connections.close_all)()
    # The Redis layer's connections belong to this test's event loop: close them in it. A
    # consumer's read left blocking on one otherwise sometimes kept the loop from closing.
    close_pools = getattr(get_channel_layer(), "close_pools", None)
    if close_pools is not None:
        await close_pools()


@sync_to_async
def logged_in_session(make_user, username="player"):
    user = make_user(username)
    client = Client()
    client.force_login(user)
    instance = Instance.objects.order_by("seed").first()
    session, _ = sessions.start_session(user, instance)
    cookie = client.cookies["sessionid"].value
    return user, session, instance, cookie


class Communicator(WebsocketCommunicator):
    """Channels' communicator with a connect timeout for a busy machine: a socket's first
    connection in a test opens a database connection and a Redis one for the test's event
    loop, which took over the default 1 s with other processes on both cores."""

    async def connect(self, timeout: float = 10):
        return await super().connect(timeout)


def connect(session_id: int, cookie: str | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return Communicator(application, f"/ws/play/{session_id}/", headers=headers)


async def receive_state(communicator) -> dict:
    while True:
        message = await communicator.receive_json_from(timeout=5)
        if message["type"] == "state":
            return message["state"]


async def test_it_sends_the_state_on_connect_and_after_each_move(orchard, make_user):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    connected, _ = await ws.connect()
    assert connected
    state = await receive_state(ws)
    assert state["steps"] == [] and sorted(state["truths"]) == sorted(instance.truths)

    action = instance.actions[0]
    await ws.send_json_to({"type": "action", "action": action})
    state = await receive_state(ws)
    assert state["steps"][0]["name"] == action
    assert state["steps"][0]["observation"] == instance.observations[action]

    await ws.send_json_to({"type": "action", "action": action})
    error = await ws.receive_json_from(timeout=5)
    assert error == {"type": "error", "message": f"'{action}' was already taken"}
    state = await receive_state(ws)
    assert state["invalid_moves"] == 1

    await ws.send_json_to({"type": "answer", "truth": instance.valid_truths[0]})
    state = await receive_state(ws)
    assert state["finished"] and state["result"]["correct"] is True
    assert state["result"]["valid_truth"] == instance.valid_truths[0]
    await ws.disconnect()


async def test_a_second_tab_sees_moves_and_a_reconnect_resumes(orchard, make_user):
    user, session, instance, cookie = await logged_in_session(make_user)
    first, second = connect(session.pk, cookie), connect(session.pk, cookie)
    assert (await first.connect())[0] and (await second.connect())[0]
    await receive_state(first)
    await receive_state(second)
    await first.send_json_to({"type": "action", "action": instance.actions[1]})
    assert (await receive_state(second))["steps"][0]["name"] == instance.actions[1]
    await first.disconnect()
    await second.disconnect()

    again = connect(session.pk, cookie)
    assert (await again.connect())[0]
    state = await receive_state(again)
    assert [step["name"] for step in state["steps"]] == [instance.actions[1]]
    await again.disconnect()


async def test_moves_tell_the_sessions_group_only_while_another_socket_watches(orchard, make_user):
    user, session, instance, cookie = await logged_in_session(make_user)
    layer = get_channel_layer()
    # A listener in the session's group that no socket counted: it hears what the group is
    # sent, which must be nothing while no page watches.
    listener = await layer.new_channel()
    await layer.group_add(sessions.group_name(session.pk), listener)
    watchers = sync_to_async(lambda: PlaySession.objects.get(pk=session.pk).watchers)

    async def heard() -> list[dict]:
        events = []
        while True:
            try:
                events.append(await asyncio.wait_for(layer.receive(listener), 0.5))
            except TimeoutError:
                return events

    client = Client()
    await sync_to_async(client.force_login)(user)
    post = sync_to_async(client.post)

    async def http_move(action: str, status: int = 200) -> None:
        response = await post(
            f"/api/v1/sessions/{session.pk}/actions/",
            {"action": action},
            content_type="application/json",
        )
        assert response.status_code == status

    await http_move(instance.actions[0])
    assert await heard() == [] and await watchers() == 0

    first, second = connect(session.pk, cookie), connect(session.pk, cookie)
    assert (await first.connect())[0]
    await receive_state(first)
    assert await watchers() == 1
    # The page's own move: its socket is sent the state; nobody else watches.
    await first.send_json_to({"type": "action", "action": instance.actions[1]})
    assert len((await receive_state(first))["steps"]) == 2
    assert await heard() == []
    # A move over HTTP while a page watches reaches it through the group.
    await http_move(instance.actions[2])
    assert [event["steps"] for event in await heard()] == [3]
    assert len((await receive_state(first))["steps"]) == 3
    # With a second page open, a page's own move reaches the other.
    assert (await second.connect())[0]
    await receive_state(second)
    assert await watchers() == 2
    await first.send_json_to({"type": "action", "action": instance.actions[3]})
    assert len((await receive_state(second))["steps"]) == 4
    assert [event["steps"] for event in await heard()] == [4]
    await first.disconnect()
    await second.disconnect()
    assert await watchers() == 0
    await http_move(instance.actions[0], 400)  # refused (taken already): told nobody
    assert await heard() == []


async def test_strangers_and_anonymous_users_are_refused(orchard, make_user):
    _, session, _, _ = await logged_in_session(make_user, "owner")
    _, _, _, stranger_cookie = await logged_in_session(make_user, "stranger")
    for cookie in (None, stranger_cookie):
        ws = connect(session.pk, cookie)
        connected, _ = await ws.connect()
        assert not connected
    count = sync_to_async(lambda: PlaySession.objects.get(pk=session.pk).steps.count())
    assert await count() == 0


async def test_bad_messages_get_clear_errors(orchard, make_user):
    _, session, _, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    await ws.connect()
    await receive_state(ws)
    await ws.send_json_to({"type": "dance"})
    assert (await ws.receive_json_from(timeout=5))["message"] == "unknown message type 'dance'"
    await ws.send_json_to(["action"])
    assert "JSON objects" in (await ws.receive_json_from(timeout=5))["message"]
    await ws.send_json_to({"type": "action"})
    assert "name the action" in (await ws.receive_json_from(timeout=5))["message"]
    await ws.disconnect()


async def test_no_websocket_message_reveals_secrets_before_the_end(orchard, make_user):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    await ws.connect()
    texts = [json.dumps(await ws.receive_json_from(timeout=5))]
    played = instance.actions[:2]
    # Two accepted moves (one state each), then two refused ones (an error and a state each).
    for action, replies in [(played[0], 1), (played[1], 1), (played[0], 2), ("nonsense", 2)]:
        await ws.send_json_to({"type": "action", "action": action})
        for _ in range(replies):
            texts.append(json.dumps(await ws.receive_json_from(timeout=5)))
    assert await ws.receive_nothing(timeout=0.3)
    for text in texts:
        assert "valid_truth" not in text
        for action, observation in instance.observations.items():
            if action not in played and isinstance(observation, float):
                assert json.dumps(observation) not in text
    await ws.disconnect()


async def test_the_state_a_move_broadcasts_is_the_state_read_afresh(orchard, make_user):
    user, session, instance, cookie = await logged_in_session(make_user)
    watcher = connect(session.pk, cookie)
    assert (await watcher.connect())[0]
    await receive_state(watcher)
    # A move over HTTP: the watching tab is sent the state that move built.
    client = Client()
    await sync_to_async(client.force_login)(user)
    response = await sync_to_async(client.post)(
        f"/api/v1/sessions/{session.pk}/actions/",
        {"action": instance.actions[1]},
        content_type="application/json",
    )
    assert response.status_code == 200
    pushed = await receive_state(watcher)
    fresh = await sync_to_async(
        lambda: sessions.session_state(PlaySession.objects.get(pk=session.pk))
    )()
    assert pushed == json.loads(json.dumps(fresh, default=str))
    await watcher.disconnect()


async def test_a_late_older_state_is_not_sent_after_a_newer_one(orchard, make_user):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    assert (await ws.connect())[0]
    before = await receive_state(ws)
    await ws.send_json_to({"type": "action", "action": instance.actions[0]})
    after = await receive_state(ws)
    assert len(after["steps"]) == 1
    # The event of an earlier move delivered late (another process, another Redis
    # connection): dropped, so the page never steps back.
    await get_channel_layer().group_send(
        sessions.group_name(session.pk),
        {"type": "session.changed", "session": session.pk, "state": before},
    )
    assert await ws.receive_nothing(timeout=0.5)
    await ws.send_json_to({"type": "sync"})
    assert len((await receive_state(ws))["steps"]) == 1
    await ws.disconnect()


@pytest.mark.production
async def test_threads_give_their_database_connections_back_to_the_pool(orchard, make_user):
    from benchmark.handlers import in_pool

    pool = connections["default"].pool
    assert pool is not None  # the production pass pools PostgreSQL connections
    user, session, instance, cookie = await logged_in_session(make_user)
    count = in_pool(lambda: PlaySession.objects.count())
    for _ in range(3 * pool.max_size):
        assert await count() == 1
    # Three sockets play a move each: every connection went back to the pool.
    for _ in range(3):
        ws = connect(session.pk, cookie)
        assert (await ws.connect())[0]
        await receive_state(ws)
        await ws.send_json_to({"type": "sync"})
        await receive_state(ws)
        await ws.disconnect()
    stats = pool.get_stats()
    # At most one stays out: Channels' authentication keeps one in its single shared thread.
    assert stats["pool_size"] - stats["pool_available"] <= 1, stats


async def test_a_moves_client_report_is_kept_cleaned_and_a_bad_one_costs_nothing(
    orchard, make_user
):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    assert (await ws.connect())[0]
    await receive_state(ws)
    report = {"pastes": 2, "hidden_ms": 1500.7, "keys": -4, "blur_count": True, "evil": "x" * 99}
    await ws.send_json_to({"type": "action", "action": instance.actions[0], "client": report})
    assert (await receive_state(ws))["actions_taken"] == 1
    await ws.send_json_to({"type": "action", "action": instance.actions[1], "client": [1, 2]})
    assert (await receive_state(ws))["actions_taken"] == 2
    await ws.disconnect()

    @sync_to_async
    def stored():
        return list(PlaySession.objects.get(pk=session.pk).steps.values_list("client", flat=True))

    # Known signals only, as bounded integers; a report that is not an object is dropped.
    assert await stored() == [{"pastes": 2, "hidden_ms": 1500, "keys": 0}, None]


async def test_a_timed_task_counts_down_and_ends_when_its_time_is_up(orchard, make_user):
    from django.utils import timezone

    user, session, instance, cookie = await logged_in_session(make_user)

    @sync_to_async
    def set_deadline(seconds: float):
        deadline = timezone.now() + timezone.timedelta(seconds=seconds)
        PlaySession.objects.filter(pk=session.pk).update(deadline_at=deadline)

    await set_deadline(90)
    ws = connect(session.pk, cookie)
    assert (await ws.connect())[0]
    state = await receive_state(ws)
    assert not state["finished"] and 85 <= state["seconds_left"] <= 90
    # The time runs out: the page's countdown asks for the state, and the task has ended.
    await set_deadline(-1)
    await ws.send_json_to({"type": "sync"})
    state = await receive_state(ws)
    assert state["finished"] and state["result"]["correct"] is False
    assert "seconds_left" not in state
    await ws.send_json_to({"type": "action", "action": instance.actions[0]})
    error = await ws.receive_json_from(timeout=5)
    while error["type"] == "state":  # the ending's broadcast may come first
        assert error["state"]["finished"]
        error = await ws.receive_json_from(timeout=5)
    assert error["type"] == "error" and "ended" in error["message"]
    await ws.disconnect()
