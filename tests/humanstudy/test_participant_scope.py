"""A study participant's login opens the study and nothing else: no API endpoint, no game
outside their task set, and only their task-set games enter the human baseline."""

from __future__ import annotations

import json
import re

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token

from benchmark.models import EvaluationRun
from engine import sessions
from engine.models import Instance, PlaySession
from humanstudy.models import Participant, TaskSet, TaskSetItem
from leaderboard.models import BoardRow, Trajectory
from leaderboard.recompute import HUMANS, recompute

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def participant(orchard):
    """P001, whose task set holds the first two orchard tasks (the third is not theirs)."""
    instances = list(Instance.objects.filter(domain=orchard).order_by("seed"))
    task_set = TaskSet.objects.create(name="set-0001")
    for position, instance in enumerate(instances[:2]):
        TaskSetItem.objects.create(task_set=task_set, instance=instance, position=position)
    user = User.objects.create_user("P001", password="a participant password")
    Participant.objects.create(user=user, task_set=task_set)
    client = Client()
    client.force_login(user)
    return user, client, instances


def api_paths(ids: dict[str, int]) -> list[str]:
    """Every URL pattern under /api/v1/, from the resolver, its parameters filled with the
    existing ids in ``ids`` (by parameter name), so a new endpoint is walked too."""
    found: list[str] = []

    def fill(parameter: re.Match) -> str:
        name = parameter.group(1)
        assert name in ids, f"give the walk an existing id for <{name}>"
        return str(ids[name])

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.startswith("api/v1/"):
                found.append("/" + re.sub(r"<(?:\w+:)?(\w+)>", fill, route))

    walk(get_resolver().url_patterns, "")
    return sorted(set(found))


@pytest.fixture
def existing_ids(participant, researcher) -> dict[str, int]:
    """An object behind every path parameter of the API: the participant's own task-set
    session, a researcher's scored submission, a runner run and a family attempt."""
    user, _, instances = participant
    session, _ = sessions.start_session(user, instances[0])
    lines = [
        {"seed": instance.seed, "run": 0, "actions": [], "answer": instance.valid_truths[0]}
        for instance in instances
    ]
    upload = SimpleUploadedFile(
        "results.jsonl", "".join(json.dumps(line) + "\n" for line in lines).encode()
    )
    submitted = researcher.post(
        "/api/v1/submissions/",
        {"model": "walker", "domain": "orchard", "truths": 5, "actions": 4, "format": "native"}
        | {"file": upload},
        format="multipart",
    )
    assert submitted.status_code == 201, submitted.content
    run = EvaluationRun.objects.create(
        model="oracle", created_by=User.objects.get(username="researcher")
    )
    from engine import families

    task = families.do_generate_family_tasks("simple", "math", count=1).tasks[0]
    attempt, _ = families.start_attempt(User.objects.get(username="researcher"), task)
    return {
        "session_id": session.pk,
        "submission_id": submitted.json()["id"],
        "pk": run.pk,
        "attempt_id": attempt.pk,
    }


def test_a_participants_login_opens_no_api_endpoint(participant, existing_ids):
    user, client, _ = participant
    paths = api_paths(existing_ids)
    assert "/api/v1/instances/" in paths and "/api/v1/leaderboard/" in paths
    assert f"/api/v1/sessions/{existing_ids['session_id']}/answer/" in paths
    assert "/api/v1/ranked-games/" in paths and len(paths) >= 10
    token = Token.objects.create(user=user)
    with_token = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    for path in paths:
        for caller in (client, with_token):
            for method in (caller.get, caller.post):
                response = method(path)
                assert response.status_code == 403, (path, method, response.status_code)
                assert "study participants cannot use the API" in response.json()["error"]
    # Nothing was played or answered on their behalf.
    assert not PlaySession.objects.filter(player=user, finished_at__isnull=False).exists()
    assert Client().get("/api/v1/leaderboard/").status_code == 200  # the board stays public


def test_a_researchers_login_is_not_refused_by_the_participant_rule(existing_ids):
    """The same walk with a (staff) researcher's session cookie: whatever each endpoint
    answers to an empty request (200, 400, 404, 405, 409), it is never a refusal."""
    user = User.objects.get(username="researcher")
    User.objects.filter(pk=user.pk).update(is_staff=True)
    client = Client()
    client.force_login(user)
    for path in api_paths(existing_ids):
        for method in (client.get, client.post):
            response = method(path)
            assert response.status_code not in (401, 403), (path, method, response.content)
    assert client.get("/api/v1/instances/").status_code == 200


def test_a_participant_plays_only_their_own_task_set_in_the_browser(participant):
    user, client, instances = participant
    own, _ = sessions.start_session(user, instances[0])
    other, _ = sessions.start_session(user, instances[2])  # a session they should not have
    assert client.get(f"/play/{own.pk}/").status_code == 200
    assert client.get(f"/play/{other.pk}/").status_code == 404


@pytest.mark.asyncio
async def test_the_websocket_refuses_a_participants_game_outside_their_task_set(participant):
    from tests.play.test_websocket import connect

    user, client, instances = participant
    own, other = await database_sync_to_async(
        lambda: (
            sessions.start_session(user, instances[0])[0],
            sessions.start_session(user, instances[2])[0],
        )
    )()
    cookie = client.cookies["sessionid"].value
    try:
        refused = connect(other.pk, cookie)
        connected, code = await refused.connect()
        assert not connected and code == 4404
        allowed = connect(own.pk, cookie)
        connected, _ = await allowed.connect()
        assert connected
        await allowed.disconnect()
    finally:
        await database_sync_to_async(connections.close_all)()


def test_the_human_baseline_counts_only_task_set_games(participant):
    user, _, instances = participant
    for instance in instances:  # two task-set games and one outside the set
        session, _ = sessions.start_session(user, instance)
        sessions.answer(session.pk, user, instance.valid_truths[0])
    Participant.objects.filter(user=user).update(selected_for_analysis=True)
    recompute(full=True)
    row = BoardRow.objects.get(model__name=HUMANS, domain__isnull=True, round__isnull=True)
    assert row.trajectories == 2 and row.verified
    baseline = Trajectory.objects.filter(model__name=HUMANS).values_list("instance_id", flat=True)
    assert sorted(baseline) == sorted([instances[0].pk, instances[1].pk])
    assert PlaySession.objects.filter(player=user, finished_at__isnull=False).count() == 3
