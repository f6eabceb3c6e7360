"""One cap on refused moves for every family's games (engine.limits): each refused move is
stored as a step, so a game ends once PLAY_MAX_REFUSED_MOVES of its moves were refused — a
KUMO game unsolved, another family's game scored on the moves it accepted — and a player
cannot grow a game's record without end."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine import families
from engine.models import FamilyAttempt, Instance, PlaySession

pytestmark = pytest.mark.django_db


def _client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def test_a_kumo_game_ends_unsolved_at_the_cap_of_refused_moves(orchard, make_user, settings):
    settings.PLAY_MAX_REFUSED_MOVES = 3
    client = _client(make_user("spammer"))
    instance = Instance.objects.order_by("seed").first()
    session_id = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()[
        "id"
    ]
    url = f"/api/v1/sessions/{session_id}"
    first = instance.actions[0]
    assert client.post(f"{url}/actions/", {"action": first}, format="json").status_code == 200
    for count in (1, 2):
        refused = client.post(f"{url}/actions/", {"action": "Ask The Farmer"}, format="json")
        assert refused.status_code == 400 and "finished" not in refused.json()
        assert refused.json()["invalid_moves"] == count
    last = client.post(f"{url}/answer/", {"truth": "Woolly Bear"}, format="json")
    assert last.status_code == 400
    body = last.json()
    assert body["finished"] is True and body["invalid_moves"] == 3
    assert "Woolly Bear" in body["error"] and "3 of its moves were refused" in body["error"]

    session = PlaySession.objects.get(pk=session_id)
    assert session.finished and session.correct is False and session.answer == ""
    assert session.actions_taken == 1
    assert list(session.steps.values_list("accepted", flat=True)) == [True, False, False, False]
    # The game is over: nothing more is taken, nor stored.
    valid = instance.valid_truths[0]
    assert client.post(f"{url}/answer/", {"truth": valid}, format="json").status_code == 409
    assert session.steps.count() == 4
    record = client.get(f"{url}/").json()
    assert record["finished"] and record["result"]["correct"] is False


def test_another_familys_game_ends_scored_at_the_cap_of_refused_moves(make_user, settings):
    settings.PLAY_MAX_REFUSED_MOVES = 2
    user = make_user("spammer")
    client = _client(user)
    task = families.do_generate_family_tasks("games", "mastermind", count=1, level="easy").tasks[0]
    started = client.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").json()
    url = f"/api/v1/family-attempts/{started['id']}/moves/"
    guess = "RRR" if task.hidden["code"] != "RRR" else "GGG"
    assert client.post(url, {"move": guess}, format="json").status_code == 200
    first = client.post(url, {"move": "XYZ"}, format="json")
    assert first.status_code == 400 and "refused" not in first.json()["error"]
    assert "finished" not in first.json()
    second = client.post(url, {"move": "XYZ"}, format="json")
    assert second.status_code == 400 and second.json()["finished"] is True  # as KUMO's says
    assert "2 of its moves were refused" in second.json()["error"]

    attempt = FamilyAttempt.objects.get(pk=started["id"])
    assert attempt.finished and attempt.correct is False
    assert attempt.played_moves() == [guess] and attempt.invalid_moves == 2
    assert attempt.details["invalid_moves"] == 2
    assert list(attempt.steps.values_list("accepted", flat=True)) == [True, False, False]
    state = client.get(f"/api/v1/family-attempts/{started['id']}/").json()
    assert state["finished"] and state["result"]["correct"] is False
    assert client.post(url, {"move": task.hidden["code"]}, format="json").status_code == 409
    assert attempt.steps.count() == 3


def test_the_default_cap_leaves_ordinary_slips_alone(orchard, make_user):
    client = _client(make_user("careless"))
    instance = Instance.objects.order_by("seed").first()
    session_id = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()[
        "id"
    ]
    url = f"/api/v1/sessions/{session_id}"
    for _ in range(20):
        assert client.post(f"{url}/actions/", {"action": "nope"}, format="json").status_code == 400
    done = client.post(f"{url}/answer/", {"truth": instance.valid_truths[0]}, format="json")
    assert done.status_code == 200 and done.json()["correct"] is True


def test_the_cap_is_a_documented_setting():
    out = StringIO()
    call_command("diffsettings", "--all", stdout=out)
    assert "PLAY_MAX_REFUSED_MOVES = 200" in out.getvalue()
