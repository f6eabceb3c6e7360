"""Adding a family is its own package and one registry line, nothing else: a family the
platform has never seen (defined here, registered as ``register`` would) is at once in the
catalogue and on the families page, generated, listed, started and answered over the API,
played by the runner, ranked in a live round (quota, no reference until the close, an
abandoned attempt failed at the close) and counted on the board by the scheduled recompute,
with no line of the platform written for it."""

from __future__ import annotations

import random
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine.core.families import base
from engine.core.families.base import Family, FamilyInstance, Kind, Parameter, Score
from engine.models import FamilyAttempt, FamilyTask
from leaderboard import rounds
from leaderboard.family_board import family_rows
from leaderboard.models import Round
from tests.rounds.helpers import prepare

pytestmark = pytest.mark.django_db(transaction=True)


class Parity(Family):
    """Is a sum of a few numbers even or odd? (A family only this test knows.)"""

    name = "parity"
    title = "Parity of a sum"
    kinds = {
        "sum": Kind(
            "sum",
            "Parity of a sum",
            "even or odd",
            (Parameter("terms", 3, 2, 9, "numbers to add"),),
            {"easy": {"terms": 3}, "hard": {"terms": 9}},
        )
    }

    def _generate(self, kind, params, seed):
        numbers = [random.Random(seed * 31 + i).randint(1, 999) for i in range(params["terms"])]
        text = f"Is {' + '.join(map(str, numbers))} even or odd?"
        return {"text": text}, {"answer": "even" if sum(numbers) % 2 == 0 else "odd"}

    def score(self, instance: FamilyInstance, answer: str) -> Score:
        right = answer.strip().casefold() == instance.hidden["answer"]
        return Score(right, 1.0 if right else 0.0)

    def reference_answer(self, instance: FamilyInstance) -> str:
        return instance.hidden["answer"]


@pytest.fixture
def parity(monkeypatch):
    base.all_families()  # the built-in families first, as the platform has them
    monkeypatch.setitem(base.FAMILIES, "parity", Parity())  # register(Parity()): one line
    return base.FAMILIES["parity"]


def _api(user) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


def _run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_new_family_is_played_everywhere_with_no_platform_change(
    parity, grove, clock, make_user, rebuild_board
):
    # The catalogue, the API's and the page's.
    listed = Client().get("/api/v1/families/").json()
    entry = next(family for family in listed if family["name"] == "parity")
    assert entry["play"] == "/api/v1/family-attempts/"
    assert entry["kinds"][0]["levels"] == {"easy": {"terms": 3}, "hard": {"terms": 9}}
    page = Client().get("/families/").content.decode()
    assert re.search(r'<tr data-family="parity" data-kind="sum">', page)

    # Generated, listed with public seeds (practice), started and answered over the API.
    _run("generate_family_tasks", "--family", "parity", "--kind", "sum", "--level", "easy",
         "--count", "3")  # fmt: skip
    alice = make_user("alice")
    api = _api(alice)
    tasks = api.get("/api/v1/family-tasks/?family=parity").json()["results"]
    assert len(tasks) == 3 and all(task["seed"] is not None for task in tasks)
    assert all("answer" not in task["public"] for task in tasks)
    task = FamilyTask.objects.get(pk=tasks[0]["id"])
    started = api.post("/api/v1/family-attempts/", {"task": task.pk}, format="json")
    assert started.status_code == 201 and "hidden" not in started.json()
    assert set(started.json()["public"]) == {"kind", "answer_format", "text"}
    url = f"/api/v1/family-attempts/{started.json()['id']}/answer/"
    answered = api.post(url, {"answer": task.hidden["answer"].upper()}, format="json").json()
    assert answered["result"]["correct"] is True

    # A visitor's practice from the families page: the same form as every family's.
    visitor = Client()
    opened = visitor.post(
        "/families/play/", {"family": "parity", "kind": "sum", "level": "easy"}, follow=True
    )
    shown = opened.content.decode()
    assert opened.status_code == 200 and re.search(r"Is \d+ \+ \d+ \+ \d+ even or odd\?", shown)
    assert re.fullmatch(r"/families/attempts/\d+/", opened.redirect_chain[-1][0])
    # A text answer gets a text box (a phone's digit keys only for a whole number).
    box = re.search(r'<input type="text" id="answer"[^>]*>', shown).group(0)
    assert "inputmode" not in box

    # The runner, with the built-in reference player.
    _run("run_family_tasks", "--model", "reference", "--family", "parity", "--kind", "sum",
         "--count", "4")  # fmt: skip
    assert FamilyAttempt.objects.filter(model_name="reference", task__family="parity").count() == 4

    # Ranked in a live round that declares it.
    prepare("2025-01", "grove", "4x6", 1, 500, "--ranked-games", "2",
            "--family-task", "parity/sum/easy:2")  # fmt: skip
    rounds.do_rotate(target=Round.objects.get(name="2025-01"))
    ranked_url = "/api/v1/ranked-family-attempts/"
    spec = {"model": "parity-solver", "family": "parity", "kind": "sum", "level": "easy"}
    first = api.post(ranked_url, spec, format="json")
    assert first.status_code == 201, first.content
    attempt = first.json()["attempt"]
    ranked_task = FamilyTask.objects.get(pk=attempt["task"])
    assert ranked_task.origin == FamilyTask.Origin.RANKED
    reply = api.post(
        f"/api/v1/family-attempts/{attempt['id']}/answer/",
        {"answer": ranked_task.hidden["answer"]},
        format="json",
    )
    assert reply.json()["result"] == {
        "answer": ranked_task.hidden["answer"],
        "correct": True,
        "value": 1.0,
        "reference_secret": True,
    }
    second = api.post(ranked_url, spec, format="json")
    assert second.status_code == 201
    assert api.post(ranked_url, spec, format="json").status_code == 409  # the quota: 2
    # Nothing of the live round on the board yet.
    rebuild_board(full=True)
    assert not [row for row in family_rows("2025-01", family="parity")]

    clock(2025, 3, 2)
    prepare("2025-03", "grove", "4x6", 1, 900)
    rounds.do_rotate(target=Round.objects.get(name="2025-03"))
    abandoned = FamilyAttempt.objects.get(pk=second.json()["attempt"]["id"])
    assert (abandoned.finished, abandoned.correct) == (True, False)

    # The board: the runner's reference row and the ranked model's row, verified.
    rebuild_board(full=True)
    rows = {row.player: row for row in family_rows(family="parity")}
    assert rows["reference"].attempts == 4 and rows["reference"].success_rate == 1.0
    assert rows["parity-solver"].attempts == 2 and rows["parity-solver"].success_rate == 0.5
    in_round = {row.player for row in family_rows("2025-01", family="parity")}
    assert "parity-solver" in in_round
    board = Client().get("/leaderboard/families/").content.decode()
    assert '<option value="parity" selected>' in board
    for player in ("reference", "parity-solver"):
        assert f'<tr data-player="{player}" data-kind="sum" data-level="easy">' in board
