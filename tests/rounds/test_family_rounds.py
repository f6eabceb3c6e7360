"""Tasks of the other families in a round: prepared with secret seeds and pinned,
hidden until the round goes live, played by the runner and by people with the score and
the reference kept on the server until the round's tasks are published, never generated
again in public, and shown per round on the family board."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine import families
from engine.core.families.base import FamilyError, get_family
from engine.models import FamilyTask
from leaderboard import rounds
from leaderboard.family_board import family_rows
from leaderboard.models import Round, RoundFamilyTask
from tests.rounds.helpers import prepare

pytestmark = pytest.mark.django_db(transaction=True)


def _runner(*args: str) -> str:
    out = StringIO()
    call_command("run_family_tasks", *args, stdout=out)
    return out.getvalue()


def test_a_round_pins_fresh_family_tasks_and_keeps_their_answers(
    clock, grove, make_user, rebuild_board, tmp_path
):
    prepare("2025-01", "grove", "4x6", 1, 500, "--family-task", "puzzles/sudoku/easy:3",
            "--family-task", "simple/math/easy:2")  # fmt: skip
    target = Round.objects.get(name="2025-01")
    assert target.status == Round.Status.PREPARED and target.total_instances == 1 + 5
    pinned = FamilyTask.objects.filter(
        pk__in=RoundFamilyTask.objects.filter(round=target).values("task_id")
    )
    assert sorted(t.kind for t in pinned) == ["math", "math", "sudoku", "sudoku", "sudoku"]
    # Secret seeds (a keyed hash of the round's seed), stored as the round's own tasks.
    assert sorted(t.seed for t in pinned.filter(kind="sudoku")) == sorted(
        rounds.round_seeds(target, "puzzles", "sudoku", "easy", 3)
    )
    assert not pinned.filter(seed__in=range(500, 503)).exists()
    assert set(pinned.values_list("origin", flat=True)) == {FamilyTask.Origin.ROUND}
    user = make_user("solver")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    sudoku = pinned.filter(kind="sudoku").first()
    # Not live: invisible and unplayable, and the seeds cannot be generated in public.
    assert api.get("/api/v1/family-tasks/?family=puzzles").json()["count"] == 0
    refused = api.post("/api/v1/family-attempts/", {"task": sudoku.pk}, format="json")
    assert refused.status_code == 400
    # (Even by someone who knew a secret seed, and the refusal does not repeat it.)
    with pytest.raises(FamilyError, match="of a round whose tasks are not published") as refused:
        families.do_generate_family_tasks(
            "puzzles", "sudoku", count=1, seed=sudoku.seed, level="easy"
        )
    assert str(sudoku.seed) not in str(refused.value)
    with pytest.raises(CommandError, match="not live yet"):
        _runner("--model", "reference", "--family", "puzzles", "--kind", "sudoku",
                "--round", "2025-01")  # fmt: skip

    rounds.do_rotate(target=target)  # live
    assert api.get("/api/v1/family-tasks/?family=puzzles").json()["count"] == 3
    results = tmp_path / "round.jsonl"
    out = _runner("--model", "reference", "--family", "puzzles", "--kind", "sudoku",
                  "--level", "easy", "--round", "2025-01", "--out", str(results))  # fmt: skip
    assert "3 played, 3 correct" in out
    # The run's results file holds no verdict while the round keeps its answers.
    ids = set(pinned.values_list("pk", flat=True))
    for record in map(json.loads, results.read_text().splitlines()):
        assert record["secret"] is True and record["task"] in ids
        assert not {"correct", "value", "details"} & set(record)
    attempt = api.post("/api/v1/family-attempts/", {"task": sudoku.pk}, format="json").json()
    answer = api.post(
        f"/api/v1/family-attempts/{attempt['id']}/answer/",
        {"answer": sudoku.hidden["solution"]},
        format="json",
    ).json()
    assert answer["result"] == {"answer": answer["result"]["answer"], "secret": True}
    reference = get_family("puzzles").reference_answer(sudoku.to_core())
    page = Client()
    page.force_login(user)
    html = page.get(f"/families/attempts/{attempt['id']}/").content.decode()
    assert "Answer recorded" in html and "A right answer" not in html
    assert reference not in api.get(f"/api/v1/family-attempts/{attempt['id']}/").content.decode()

    # The board while the round is live: nothing of it, only a notice.
    rebuild_board()
    assert family_rows("2025-01") == [] and family_rows() == []
    live = Client().get("/leaderboard/families/?round=2025-01")
    assert live.status_code == 200 and 'id="live-round-note"' in live.content.decode()
    assert 'id="family-board"' not in live.content.decode()
    assert Client().get("/leaderboard/families/?round=nope").status_code == 404

    # Closed and published: the result comes out, and the round's own rows.
    clock(2025, 3, 2)
    prepare("2025-03", "grove", "4x6", 1, 900)
    rounds.do_rotate(target=Round.objects.get(name="2025-03"), publish=True)
    shown = api.get(f"/api/v1/family-attempts/{attempt['id']}/").json()["result"]
    assert shown["correct"] is True and shown["reference_answer"] == reference
    board = {r.player: r for r in family_rows("2025-01")}
    assert board["reference"].attempts == 3 and set(board) == {"reference"}
    practice = family_rows("2025-01", verified=False)
    assert [(r.kind, r.attempts, r.correct) for r in practice] == [("sudoku", 1, 1)]
    page = Client().get("/leaderboard/families/?round=2025-01").content.decode()
    assert 'id="round-note"' in page and 'data-player="reference"' in page


def test_round_family_tasks_are_new_to_everyone(clock, grove):
    # Public tasks at the very seeds the round would use (as if the secret had leaked).
    seeds = rounds.round_seeds(Round(seed=700), "simple", "counting", "easy", 2)
    families.do_generate_family_tasks("simple", "counting", seeds=seeds, level="easy")
    with pytest.raises(CommandError, match="already belongs to the public tasks") as refused:
        prepare("2025-01", "grove", "4x6", 1, 700, "--family-task", "simple/counting/easy:2")
    assert not any(str(seed) in str(refused.value) for seed in seeds)
    target = Round.objects.get(name="2025-01")
    assert target.status == Round.Status.FAILED and not target.family_pins.exists()
    with pytest.raises(CommandError, match="FAMILY/KIND/LEVEL:COUNT"):
        prepare("2025-02", "grove", "4x6", 1, 800, "--family-task", "simple/counting")
    with pytest.raises(CommandError, match="no level 'giant'"):
        prepare("2025-02", "grove", "4x6", 1, 800, "--family-task", "simple/counting/giant:3")
