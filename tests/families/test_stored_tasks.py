"""Family tasks stored and played through the platform: the command, the API (public view
only until the answer), the pages, and one answer per attempt."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from engine.models import FamilyAttempt, FamilyTask

pytestmark = pytest.mark.django_db


def generate(*args: str) -> str:
    out = StringIO()
    call_command("generate_family_tasks", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def api(make_user):
    from rest_framework.authtoken.models import Token

    user = make_user("solver")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    client.user = user
    return client


def test_the_command_stores_tasks_deterministically_and_once():
    assert "3 new, 0 already stored" in generate(
        "--kind", "math", "--level", "hard", "--count", "3"
    )
    assert "0 new, 3 already stored" in generate(
        "--kind", "math", "--level", "hard", "--count", "3"
    )
    stored = list(FamilyTask.objects.order_by("seed"))
    assert [task.seed for task in stored] == [0, 1, 2]
    from engine.core.families.base import get_family

    fresh = get_family("simple").generate("math", 1, level="hard")
    assert stored[1].public == fresh.public and stored[1].hidden == fresh.hidden
    with pytest.raises(CommandError, match="no kind 'poems'"):
        generate("--kind", "poems")
    with pytest.raises(CommandError, match="depth must be between"):
        generate("--kind", "math", "--param", "depth=99")
    listing = json.loads(generate("--list"))
    simple = next(family for family in listing if family["name"] == "simple")
    assert [k["name"] for k in simple["kinds"]] == [
        *("counting", "logic", "math", "travel"),  # ours, then DeepMind's seven seed types
        *("character_count", "word_count", "mathgap_irrelevant", "mathgap_diverse"),
        *("travel_modes", "logic_evaluation", "logic_negation"),
    ]


def test_families_are_listed_to_anyone():
    body = Client().get("/api/v1/families/").json()
    simple = next(f for f in body if f["name"] == "simple")
    counting = simple["kinds"][0]
    assert counting["levels"]["hard"] == {"words": 3000, "letter": 1}
    assert {p["name"] for p in counting["parameters"]} == {"words", "letter"}


@pytest.mark.parametrize("kind", ["counting", "logic", "math", "travel"])
def test_an_attempt_over_the_api_shows_only_the_public_view_until_it_is_answered(api, kind):
    generate("--kind", kind, "--level", "medium", "--count", "2")
    listed = api.get("/api/v1/family-tasks/", {"family": "simple", "kind": kind}).json()
    assert listed["count"] == 2 and "hidden" not in listed["results"][0]
    task = FamilyTask.objects.get(pk=listed["results"][0]["id"])
    started = api.post("/api/v1/family-attempts/", {"task": task.pk}, format="json")
    assert started.status_code == 201
    state = started.json()
    assert "result" not in state and not state["finished"]
    assert json.dumps(task.hidden) not in json.dumps(state)
    assert api.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").status_code == 200
    attempt_id = state["id"]
    assert api.get(f"/api/v1/family-attempts/{attempt_id}/").json() == state

    from engine.core.families.base import get_family

    right = get_family("simple").reference_answer(task.to_core())
    answered = api.post(
        f"/api/v1/family-attempts/{attempt_id}/answer/", {"answer": right}, format="json"
    )
    assert answered.status_code == 200
    result = answered.json()["result"]
    assert result["correct"] and result["value"] == 1.0 and result["reference_answer"] == right
    again = api.post(
        f"/api/v1/family-attempts/{attempt_id}/answer/", {"answer": "x"}, format="json"
    )
    assert again.status_code == 409 and "ended" in again.json()["error"]
    attempt = FamilyAttempt.objects.get(pk=attempt_id)
    assert attempt.correct and attempt.answer == right and attempt.elapsed_ms is not None


def test_bad_answers_and_strangers_are_refused(api, make_user):
    generate("--kind", "math", "--count", "1")
    task = FamilyTask.objects.get()
    attempt_id = api.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").json()["id"]
    url = f"/api/v1/family-attempts/{attempt_id}/answer/"
    assert api.post(url, {"answer": "   "}, format="json").status_code == 400
    assert api.post(url, {"answer": "a\x00b"}, format="json").status_code == 400
    assert api.post(url, {}, format="json").json()["fields"]["answer"]
    stranger = APIClient()
    stranger.force_authenticate(make_user("stranger"))
    assert stranger.get(f"/api/v1/family-attempts/{attempt_id}/").status_code == 404
    assert stranger.post(url, {"answer": "3"}, format="json").status_code == 404
    assert not FamilyAttempt.objects.get(pk=attempt_id).finished
    wrong = api.post(url, {"answer": "-1"}, format="json").json()["result"]
    assert wrong["correct"] is False and wrong["value"] == 0.0


def test_the_pages_play_a_task_and_keep_the_answer_until_the_end(make_user, play_family):
    user = make_user("reader")
    client = Client()
    client.force_login(user)
    page = client.get("/families/").content.decode()
    assert 'data-kind="travel"' in page and 'value="hard"' in page
    location = play_family(client, "simple", "math")
    attempt = FamilyAttempt.objects.get(player=user)
    task = attempt.task
    before = client.get(location).content.decode()
    assert "A right answer" not in before and 'id="family-answer-form"' in before
    client.post(location, {"answer": str(task.hidden["answer"])})
    after = client.get(location).content.decode()
    assert "Correct" in after and str(task.hidden["answer"]) in after
    refused = client.post("/families/play/", {"family": "simple", "kind": "nope", "level": "x"})
    assert refused.status_code == 302 and refused["Location"] == "/families/"
    # A visitor's bad choice is refused before any guest account is made for them.
    visitor = Client()
    refused = visitor.post("/families/play/", {"kind": "math"})
    assert refused.status_code == 302 and refused["Location"] == "/families/"
    assert not User.objects.filter(visitor__isnull=False).exists()
