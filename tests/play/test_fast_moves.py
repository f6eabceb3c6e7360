"""The lean route of a KUMO move (engine/fast_moves.py) says exactly what Django's says.

Two players play the same instance move for move, one through the ASGI application with the
lean route in front of Django, the other through Django's handler alone; every answer
(status, body, headers) must be the same, and the lean route must have answered the plain
moves itself. Whatever the lean route does not answer reaches Django with its body intact.
"""

from __future__ import annotations

import json
from io import StringIO

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.db import connections

from benchmark.asgi import application, django_asgi_app
from engine.fast_moves import FastMoves
from engine.models import Instance, PlaySession, PlayStep

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

# Headers that differ by the moment or by server, not by the route.
VARYING = {"date", "server"}


class Recorder:
    """Django's ASGI handler, counting the requests that reach it."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append(scope["path"])
        await django_asgi_app(scope, receive, send)


@pytest.fixture(autouse=True)
def _close_pool_threads_connections():
    yield
    # The routes reach the database from the event loop's thread pool, whose threads keep
    # their connections; PostgreSQL would refuse to drop the test database.
    connections.close_all()


def token_for(username: str) -> str:
    out = StringIO()
    call_command("create_api_token", username, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def client(app, token: str | None = None) -> httpx.AsyncClient:
    headers = {"authorization": f"Token {token}"} if token else {}
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver", headers=headers
    )


@sync_to_async
def two_players_on_one_instance(orchard):
    instance = Instance.objects.order_by("seed").first()
    tokens = {name: token_for(name) for name in ("lean", "django")}
    return instance, tokens


def headers_of(response: httpx.Response) -> dict:
    return {k: v for k, v in response.headers.items() if k not in VARYING | {"content-length"}}


def same_answer(one: httpx.Response, other: httpx.Response) -> None:
    assert one.status_code == other.status_code, (one.text, other.text)
    assert one.content == other.content
    assert one.headers["content-length"] == other.headers["content-length"]
    assert headers_of(one) == headers_of(other)


async def test_the_lean_route_answers_every_move_as_django_does(orchard):
    instance, tokens = await two_players_on_one_instance(orchard)
    recorder = Recorder()
    lean = client(FastMoves(recorder), tokens["lean"])
    plain = client(django_asgi_app, tokens["django"])
    sessions = {}
    for code in (201, 200):  # started, then the same session again
        answers = [
            await http.post("/api/v1/sessions/", json={"instance": instance.pk})
            for http in (lean, plain)
        ]
        bodies = [answer.json() for answer in answers]
        sessions = {"lean": bodies[0].pop("id"), "django": bodies[1].pop("id")}
        assert answers[0].status_code == answers[1].status_code == code
        assert bodies[0] == bodies[1] and bodies[0]["knowledge_book"] and bodies[0]["truths"]
        assert headers_of(answers[0]) == headers_of(answers[1])
    assert recorder.paths == []  # the starts were the lean route's

    actions = sorted(instance.actions)
    truths = sorted(instance.truths)
    wrong = next(truth for truth in truths if truth not in instance.valid_truths)
    moves = [
        ("actions", {"action": actions[0]}),  # accepted
        ("actions", {"action": actions[0]}),  # refused: taken already (400, counted)
        ("actions", {"action": "no such action", "client": {"pastes": 3}}),  # refused
        ("actions", {"action": "   "}),  # the service's own 400
        ("actions", {"action": actions[1]}),
        ("answer", {"truth": "nobody"}),  # refused: not a candidate
        ("answer", {"truth": wrong}),  # ends the game, wrong
        ("actions", {"action": actions[2]}),  # 409: the game has ended
        ("answer", {"truth": wrong}),  # 409
    ]
    for kind, body in moves:
        answers = [
            await http.post(f"/api/v1/sessions/{sessions[name]}/{kind}/", json=body)
            for name, http in (("lean", lean), ("django", plain))
        ]
        same_answer(*answers)
    assert recorder.paths == []  # every move above was the lean route's

    # Another player's session, and one that does not exist: the same 404.
    for mine, theirs in ((sessions["django"], sessions["lean"]), (10**9, 10**9)):
        answers = [
            await lean.post(f"/api/v1/sessions/{mine}/actions/", json={"action": "x"}),
            await plain.post(f"/api/v1/sessions/{theirs}/actions/", json={"action": "x"}),
        ]
        assert answers[0].status_code == 404
        same_answer(*answers)
    assert recorder.paths == []

    stored = await sync_to_async(
        lambda: {
            name: list(
                PlayStep.objects.filter(session_id=session_id)
                .order_by("index")
                .values_list("kind", "sent", "accepted", "error")
            )
            for name, session_id in sessions.items()
        }
    )()
    assert stored["lean"] == stored["django"] and len(stored["lean"]) == 6


@pytest.mark.parametrize(
    "body, headers",
    [
        (b'{"action": ', {}),  # not JSON
        (b'["a"]', {}),  # not an object
        (b"{}", {}),  # no action
        (b'{"action": ""}', {}),
        (b'{"action": true}', {}),
        (b'{"action": 7}', {}),  # DRF reads a number as its text: Django's call
        (json.dumps({"action": "x" * 501}).encode(), {}),
        (b'{"action": "a\\u0000b"}', {}),
        (b'{"action": "\\ud800"}', {}),
        (b'{"action": "a", "n": NaN}', {}),
        (b'{"action": "a"}', {"accept": "text/html"}),
        (b'{"action": "a"}', {"content-type": "text/plain"}),
        (b'{"action": "a"}', {"authorization": "Token not-a-token"}),
        (b'{"action": "a"}', {"authorization": "Bearer x"}),
        (b'{"action": "a"}', {"host": "evil.example"}),
    ],
)
async def test_anything_but_a_plain_move_reaches_django_with_its_body(orchard, body, headers):
    instance, tokens = await two_players_on_one_instance(orchard)
    recorder = Recorder()
    lean = client(FastMoves(recorder), tokens["lean"])
    plain = client(django_asgi_app, tokens["django"])
    ids = []
    for http in (lean, plain):
        ids.append((await http.post("/api/v1/sessions/", json={"instance": instance.pk})).json())
    recorder.paths.clear()
    sent = {"content-type": "application/json", **headers}
    answers = [
        await http.post(f"/api/v1/sessions/{started['id']}/actions/", content=body, headers=sent)
        for http, started in zip((lean, plain), ids, strict=True)
    ]
    assert len(recorder.paths) == 1  # Django answered it, having read the same body
    if answers[0].headers["content-type"].startswith("text/html"):
        # DRF's browsable page names the signed-in player, who differs here.
        assert answers[0].status_code == answers[1].status_code
    else:
        same_answer(*answers)
    assert answers[0].status_code in (200, 400, 401, 406, 415)
    if answers[0].status_code == 400 and "json" in answers[0].headers["content-type"]:
        assert answers[0].json()["error"]


async def test_a_start_the_lean_route_cannot_answer_is_djangos(orchard):
    instance, tokens = await two_players_on_one_instance(orchard)

    @sync_to_async
    def unplayable() -> int:
        hidden = Instance.objects.exclude(pk=instance.pk).order_by("seed").first()
        Instance.objects.filter(pk=hidden.pk).update(source=Instance.Source.PRACTICE)
        return hidden.pk

    hidden = await unplayable()
    recorder = Recorder()
    lean = client(FastMoves(recorder), tokens["lean"])
    plain = client(django_asgi_app, tokens["django"])
    for refused in (hidden, 10**9):
        answers = [
            await http.post("/api/v1/sessions/", json={"instance": refused})
            for http in (lean, plain)
        ]
        assert answers[0].status_code == 400
        assert (
            answers[0].json()["error"]
            == f'instance: Invalid pk "{refused}" - object does not exist.'
        )
        same_answer(*answers)
    # DRF reads a number given as text: Django's to answer.
    started = await lean.post("/api/v1/sessions/", json={"instance": str(instance.pk)})
    assert started.status_code == 201
    assert len(recorder.paths) == 3


async def test_a_study_participant_or_a_query_string_goes_to_django(orchard):
    instance, tokens = await two_players_on_one_instance(orchard)

    @sync_to_async
    def participant_session():
        from django.contrib.auth.models import User

        from humanstudy.models import Participant, TaskSet

        user = User.objects.get(username="lean")
        session = PlaySession.objects.create(player=user, instance=instance)
        Participant.objects.create(user=user, task_set=TaskSet.objects.create(name="empty"))
        return session.pk

    session_id = await participant_session()
    recorder = Recorder()
    lean = client(FastMoves(recorder), tokens["lean"])
    refused = await lean.post(f"/api/v1/sessions/{session_id}/actions/", json={"action": "a"})
    assert refused.status_code == 403 and "study participants" in refused.json()["error"]
    formatted = await lean.post(
        f"/api/v1/sessions/{session_id}/actions/?format=json", json={"action": "a"}
    )
    assert formatted.status_code == 403
    assert len(recorder.paths) == 2


@pytest.mark.parametrize(
    "setting, value",
    [
        ("USE_X_FORWARDED_HOST", True),
        ("SECURE_PROXY_SSL_HEADER", ("HTTP_X_FORWARDED_PROTO", "https")),
    ],
)
async def test_a_site_that_reads_other_headers_for_host_or_scheme_leaves_moves_to_django(
    orchard, settings, setting, value
):
    instance, tokens = await two_players_on_one_instance(orchard)
    setattr(settings, setting, value)
    recorder = Recorder()
    lean = client(FastMoves(recorder), tokens["lean"])
    started = await lean.post("/api/v1/sessions/", json={"instance": instance.pk})
    assert started.status_code == 201 and recorder.paths == ["/api/v1/sessions/"]


async def test_the_site_puts_the_lean_route_in_front_of_django():
    assert isinstance(application.application_mapping["http"], FastMoves)
