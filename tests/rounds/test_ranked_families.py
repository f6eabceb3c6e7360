"""Ranked attempts of the task families during a live round: a fresh task for each attempt,
a quota per (family, kind, level), right or wrong and the score at once but never the
reference until the round closes, an abandoned attempt counted as failed at close, the
owner's account alone may play them, and ``run_family_tasks --ranked`` plays them for a
model behind an API."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from benchmark.fake_llm import FakeChatServer, FakeResponse
from engine.core.families.base import get_family
from engine.models import FamilyAttempt, FamilyTask
from leaderboard import rounds
from leaderboard.models import RankedFamilyAttempt, Round
from tests.rounds.helpers import prepare

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/v1/ranked-family-attempts/"


def _api(user) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


def _live_round(*family_tasks: str, ranked: int = 2) -> Round:
    extra = [arg for spec in family_tasks for arg in ("--family-task", spec)]
    prepare("2025-01", "grove", "4x6", 1, 500, "--ranked-games", str(ranked), *extra)
    target = Round.objects.get(name="2025-01")
    rounds.do_rotate(target=target)
    return target


def _close(clock) -> None:
    clock(2025, 3, 2)
    prepare("2025-03", "grove", "4x6", 1, 900)
    rounds.do_rotate(target=Round.objects.get(name="2025-03"))


def _start(api: APIClient, model: str, spec: str):
    family, kind, level = spec.split("/")
    return api.post(
        URL, {"model": model, "family": family, "kind": kind, "level": level}, format="json"
    )


def test_a_puzzle_quota_no_reference_during_the_round_and_failed_when_abandoned(
    clock, grove, make_user, settings
):
    settings.RANKED_MAX_OPEN_GAMES = 1
    _live_round("puzzles/sudoku/easy:1")
    alice, bob = make_user("alice"), make_user("bob")
    api, other = _api(alice), _api(bob)

    first = _start(api, "solver-1", "puzzles/sudoku/easy")
    assert first.status_code == 201, first.content
    body = first.json()
    assert (body["number"], body["of"], body["round"], body["model"]) == (
        1,
        2,
        "2025-01",
        "solver-1",
    )
    attempt_id = body["attempt"]["id"]
    ranked = RankedFamilyAttempt.objects.get(attempt_id=attempt_id)
    task = ranked.task
    assert task.origin == FamilyTask.Origin.RANKED and "seed" not in str(body["attempt"])
    assert ranked.attempt.model_name == "solver-1" and ranked.attempt.player == alice
    # Its task is no one else's: not listed, not startable, the attempt not playable.
    assert api.get("/api/v1/family-tasks/?family=puzzles").json()["count"] == 1  # the pinned one
    assert task.pk not in [t["id"] for t in api.get("/api/v1/family-tasks/").json()["results"]]
    assert (
        other.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").status_code == 400
    )
    solution = task.hidden["solution"]
    sent = {"answer": solution}
    assert (
        other.post(f"/api/v1/family-attempts/{attempt_id}/answer/", sent, format="json").status_code
        == 404
    )
    assert _start(other, "solver-1", "puzzles/sudoku/easy").status_code == 403
    # At most RANKED_MAX_OPEN_GAMES open at once.
    crowded = _start(api, "solver-1", "puzzles/sudoku/easy")
    assert crowded.status_code == 409 and "unfinished ranked attempts" in crowded.json()["error"]

    answered = api.post(f"/api/v1/family-attempts/{attempt_id}/answer/", sent, format="json")
    assert answered.status_code == 200, answered.content
    result = answered.json()["result"]
    assert result == {
        "answer": result["answer"],
        "correct": True,
        "value": 1.0,
        "reference_secret": True,
    }
    reference = get_family("puzzles").reference_answer(task.to_core())
    assert reference not in answered.content.decode()
    again = api.post(f"/api/v1/family-attempts/{attempt_id}/answer/", sent, format="json")
    assert again.status_code == 409  # never replayed
    page = Client()
    page.force_login(alice)
    html = page.get(f"/families/attempts/{attempt_id}/").content.decode()
    assert "Correct" in html and "shown when the round closes" in html and reference not in html

    second = _start(api, "solver-1", "puzzles/sudoku/easy")
    assert second.status_code == 201 and second.json()["number"] == 2
    abandoned = second.json()["attempt"]["id"]
    assert second.json()["attempt"]["public"]["text"] != body["attempt"]["public"]["text"]
    over = _start(api, "solver-1", "puzzles/sudoku/easy")
    assert over.status_code == 409 and "all 2 ranked attempts" in over.json()["error"]
    undeclared = _start(api, "solver-1", "puzzles/sudoku/hard")
    assert undeclared.status_code == 400 and "puzzles/sudoku/easy" in undeclared.json()["error"]
    listed = api.get(URL + "?model=solver-1").json()
    assert sorted(row["number"] for row in listed) == [1, 2] and other.get(URL).json() == []

    _close(clock)
    left = FamilyAttempt.objects.get(pk=abandoned)
    assert (left.finished, left.correct, left.value) == (True, False, 0.0)
    assert left.details["error"] == "not finished when the round closed"
    # After the close the owner sees everything.
    shown = api.get(f"/api/v1/family-attempts/{attempt_id}/").json()["result"]
    assert shown["reference_answer"] == reference and shown["correct"] is True
    late = api.post(f"/api/v1/family-attempts/{abandoned}/answer/", sent, format="json")
    assert late.status_code == 409
    assert api.get(f"/api/v1/family-attempts/{abandoned}/").json()["result"]["correct"] is False
    # The next round declares no sudoku: no attempt of it there.
    refused = _start(api, "solver-1", "puzzles/sudoku/easy")
    assert refused.status_code == 400 and "round 2025-03 has no tasks" in refused.json()["error"]


def test_a_game_is_played_by_moves_and_an_unfinished_one_fails_at_close(clock, grove, make_user):
    _live_round("games/wordle/easy:1")
    alice = make_user("alice")
    api = _api(alice)
    won = _start(api, "solver-1", "games/wordle/easy").json()
    task = FamilyTask.objects.get(pk=won["attempt"]["task"])
    secret = task.hidden["secret"]
    moved = api.post(f"/api/v1/family-attempts/{won['attempt']['id']}/moves/", {"move": secret})
    assert moved.status_code == 200, moved.content
    state = moved.json()
    assert state["finished"] and state["result"]["correct"] is True
    assert "reference_answer" not in state["result"] and "details" not in state["result"]

    left = _start(api, "solver-1", "games/wordle/easy").json()
    task = FamilyTask.objects.get(pk=left["attempt"]["task"])
    guess = next(word for word in task.hidden["reference"] if word != task.hidden["secret"])
    path = f"/api/v1/family-attempts/{left['attempt']['id']}/moves/"
    played = api.post(path, {"move": guess}).json()
    assert not played["finished"] and "result" not in played
    assert task.hidden["secret"] not in str(played)
    assert _start(api, "solver-1", "games/wordle/easy").status_code == 409

    # A model attempt that is not ranked (the runner's) stays the runner's.
    runner_row = FamilyAttempt.objects.create(player=alice, task=task, model_name="other", run=3)
    assert (
        api.post(f"/api/v1/family-attempts/{runner_row.pk}/moves/", {"move": guess}).status_code
        == 404
    )

    _close(clock)
    ended = FamilyAttempt.objects.get(pk=left["attempt"]["id"])
    assert (ended.correct, ended.value, ended.answer) == (False, 0.0, guess)
    assert ended.details["error"] == "not finished when the round closed"
    result = api.get(f"/api/v1/family-attempts/{won['attempt']['id']}/").json()["result"]
    assert result["reference_answer"]  # the owner sees the reference after the close


def test_run_family_tasks_ranked_plays_the_quota_through_the_service(clock, grove, tmp_path):
    _live_round("simple/counting/easy:1", ranked=2)
    replies = iter(range(100))

    def script(request):
        if next(replies) == 0:
            return FakeResponse(content="I lost count.\nSorry, really.\nNo idea.")
        return FakeResponse(content="Counting...\nAnswer: 3")

    def run(*args: str) -> str:
        out = StringIO()
        call_command("run_family_tasks", *args, stdout=out)
        return out.getvalue()

    with pytest.raises(CommandError, match="give --base-url"):
        run("--model", "reference", "--kind", "counting", "--ranked")
    with FakeChatServer(script) as server:
        args = ("--model", "fake-counter", "--base-url", server.base_url, "--kind", "counting",
                "--level", "easy", "--ranked")  # fmt: skip
        results = tmp_path / "ranked.jsonl"
        out = run(*args, "--out", str(results))
        assert "fake-counter ranked on simple/counting/easy: 2 played" in out
        # Right or wrong and the score, every reply as a turn; no details during the round.
        records = [json.loads(line) for line in results.read_text().splitlines()]
        assert [r["secret"] for r in records] == [True, True] and "details" not in records[0]
        assert [r["correct"] for r in records] == [
            a.correct for a in FamilyAttempt.objects.order_by("pk")
        ]
        assert records[0]["turns"][0]["error"] and records[1]["turns"][0]["read"] == "3"
        assert "1 parse error(s), 0 failed (API)" in out
        assert "0 played" in run(*args)  # the quota is used up
    rows = RankedFamilyAttempt.objects.select_related("attempt", "task").order_by("number")
    assert [row.number for row in rows] == [1, 2]
    for row in rows:
        assert row.attempt.finished and row.attempt.model_name == "fake-counter"
        assert row.attempt.player.username == "runner" and row.task.origin == "ranked"
        assert row.attempt.tokens > 0
    assert rows[0].attempt.parse_error
