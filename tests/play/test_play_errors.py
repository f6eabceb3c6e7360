"""Every family's play refuses a request the same way (engine.limits.error_reply): 404 for a
play that is not the caller's, 409 for one that has ended — a move or an answer after its
time limit included, which ends it there — and 400 with the reason for a move refused. A
KUMO session and another family's attempt are asked the same things over the API."""

from __future__ import annotations

import pytest
from django.db.models import F
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine import families
from engine.models import FamilyAttempt, Instance, PlaySession

pytestmark = pytest.mark.django_db


def _client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def _kumo(client, orchard):
    """A started KUMO session's move address, its session and a legal action."""
    instance = Instance.objects.order_by("seed").first()
    started = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()
    session = PlaySession.objects.get(pk=started["id"])
    return f"/api/v1/sessions/{session.pk}/actions/", session, {"action": instance.actions[0]}


def _game(client):
    """A started Mastermind attempt's move address, its attempt and a legal move."""
    task = families.do_generate_family_tasks("games", "mastermind", count=1, level="easy").tasks[0]
    started = client.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").json()
    attempt = FamilyAttempt.objects.get(pk=started["id"])
    guess = "RRR" if task.hidden["code"] != "RRR" else "GGG"
    return f"/api/v1/family-attempts/{attempt.pk}/moves/", attempt, {"move": guess}


@pytest.mark.parametrize("family", ["kumo", "games"])
def test_one_answer_to_each_refusal_for_every_family(family, orchard, make_user):
    owner, other = _client(make_user("owner")), _client(make_user("other"))
    url, play, move = _kumo(owner, orchard) if family == "kumo" else _game(owner)
    bad = {next(iter(move)): "no such move at all"}

    not_yours = other.post(url, move, format="json")
    assert not_yours.status_code == 404 and set(not_yours.json()) == {"error"}

    refused = owner.post(url, bad, format="json")
    assert refused.status_code == 400 and refused.json()["error"]
    assert "finished" not in refused.json()

    # The time limit passes (a study task's): the next move finds the play ended, keeps
    # it ended, and says so as an ended play is answered.
    type(play).objects.filter(pk=play.pk).update(deadline_at=F("started_at"))
    late = owner.post(url, move, format="json")
    assert late.status_code == 409 and "time is up" in late.json()["error"]
    play.refresh_from_db()
    assert play.finished_at is not None and play.correct is False
    again = owner.post(url, move, format="json")
    assert again.status_code == 409 and set(again.json()) == {"error"}


def test_a_late_answer_is_answered_as_a_late_move(make_user):
    client = _client(make_user("late"))
    task = families.do_generate_family_tasks("simple", "counting", count=1, level="easy").tasks[0]
    started = client.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").json()
    FamilyAttempt.objects.filter(pk=started["id"]).update(deadline_at=F("started_at"))
    late = client.post(
        f"/api/v1/family-attempts/{started['id']}/answer/",
        {"answer": str(task.hidden["answer"])},
        format="json",
    )
    assert late.status_code == 409 and "time is up" in late.json()["error"], late.json()
    attempt = FamilyAttempt.objects.get(pk=started["id"])
    assert attempt.finished_at == attempt.deadline_at and attempt.correct is False
