"""The result figures a player's state carries: only after the end, and exactly as metrics.py
computes them (over the websocket and the HTTP API alike)."""

from __future__ import annotations

import json

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async as sync_to_async
from django.db import connections

from engine import sessions
from engine.core.families.kumo.metrics import relative_action_count
from engine.models import PlaySession
from tests.play.test_websocket import connect, logged_in_session, receive_state

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

# What only a finished game may show: the answer and the efficiency figures.
END_OF_GAME_KEYS = {
    "result",
    "valid_truth",
    "observations",
    "optimal_actions",
    "expected_optimal_actions",
    "relative_action_count",
    "correct",
}


@pytest_asyncio.fixture(autouse=True)
async def _close_connections():
    yield
    await sync_to_async(connections.close_all)()


def keys_anywhere(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | set().union(*(keys_anywhere(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_anywhere(item) for item in value)) if value else set()
    return set()


async def test_the_result_figures_arrive_only_with_the_end_of_the_game(orchard, make_user):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    assert (await ws.connect())[0]
    states = [await receive_state(ws)]
    wrong = next(truth for truth in instance.truths if truth not in instance.valid_truths)
    for action in instance.actions[:2]:
        await ws.send_json_to({"type": "action", "action": action})
        states.append(await receive_state(ws))
    for state in states:
        assert not state["finished"]
        assert keys_anywhere(state) & END_OF_GAME_KEYS == set()
        assert "valid_truth" not in json.dumps(state)

    await ws.send_json_to({"type": "answer", "truth": wrong})
    final = await receive_state(ws)
    await ws.disconnect()
    assert final["finished"]
    result = final["result"]
    assert result["correct"] is False and result["answer"] == wrong
    assert result["actions_taken"] == 2
    assert result["expected_optimal_actions"] == pytest.approx(instance.expected_actions)
    assert result["optimal_actions"] == instance.oracle_actions
    assert result["relative_action_count"] == pytest.approx(
        relative_action_count(2, instance.oracle_actions)
    )
    assert result["valid_truth"] == instance.valid_truths[0]
    # A reconnect is sent the same final state, read afresh from the database.
    again = connect(session.pk, cookie)
    assert (await again.connect())[0]
    assert (await receive_state(again))["result"] == result
    await again.disconnect()


async def test_session_state_keeps_the_figures_until_the_end(orchard, make_user):
    user, session, instance, _ = await logged_in_session(make_user)

    @sync_to_async
    def state_now() -> dict:
        return sessions.session_state(PlaySession.objects.get(pk=session.pk), include_book=True)

    before = await state_now()
    assert keys_anywhere(before) & END_OF_GAME_KEYS == set()
    await sync_to_async(sessions.take_action)(session.pk, user, instance.actions[0])
    assert keys_anywhere(await state_now()) & END_OF_GAME_KEYS == set()
    await sync_to_async(sessions.answer)(session.pk, user, instance.valid_truths[0])
    after = await state_now()
    assert after["result"]["correct"] is True
    assert after["result"]["relative_action_count"] == pytest.approx(
        relative_action_count(1, instance.oracle_actions)
    )
