"""Results files of the task families: uploaded over the API, re-scored by the family on
the server, shown as self-reported rows of the family board; a bad file is a 422 with every
problem by line and stores nothing; a hidden task is refused like a missing one."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from engine import families
from engine.core.families import base
from engine.core.families.base import Family, FamilyError, Kind, ParsedReply, Score
from engine.models import FamilyTask
from leaderboard import actions, rounds
from leaderboard.models import FamilyBoardRow, FamilyReply, Round, RoundFamilyTask, Submission
from tests.rounds.helpers import prepare

pytestmark = pytest.mark.django_db(transaction=True)

LR2_FILES = Path(__file__).parent / "lr2bench_files"


def token_client(username: str) -> APIClient:
    out = StringIO()
    call_command("create_api_token", username, stdout=out, stderr=StringIO())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    return client


def upload(client: APIClient, model: str, content: bytes | list[dict], **fields):
    if isinstance(content, list):
        content = "".join(json.dumps(line) + "\n" for line in content).encode()
    return client.post(
        "/api/v1/family-submissions/",
        {
            "model": model,
            "family": "simple",
            "file": SimpleUploadedFile("replies.jsonl", content),
            **fields,
        },
        format="multipart",
    )


def math_tasks(count: int = 3, seed: int = 40) -> list[FamilyTask]:
    return families.do_generate_family_tasks(
        "simple", "math", count=count, seed=seed, level="easy"
    ).tasks


def right(task: FamilyTask) -> str:
    return f"Let me add them up.\nAnswer: {task.hidden['answer']}"


def wrong(task: FamilyTask) -> str:
    return f"Answer: {task.hidden['answer'] + 1}"


def family_board(**params) -> list[dict]:
    response = Client().get("/api/v1/family-leaderboard/", params)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def clock(time_machine):
    time_machine.move_to(datetime(2025, 1, 1, 9, 0, tzinfo=UTC), tick=False)

    def move_to(year: int, month: int, day: int) -> None:
        time_machine.move_to(datetime(year, month, day, 9, 0, tzinfo=UTC), tick=False)

    return move_to


def test_an_uploaded_file_is_rescored_by_the_family_and_shown_self_reported(
    researcher, rebuild_board
):
    first, second, third = math_tasks()
    lines = [
        # Claims in the file are never read: only the server's score counts.
        {"task": first.pk, "reply": right(first), "correct": False, "score": 0},
        {"task": second.pk, "reply": wrong(second), "correct": True, "score": 1},
        {"task": third.pk, "reply": "Hmm.\nI am not sure\nat all.", "tokens": {"completion": 30}},
        {"task": first.pk, "run": 1, "reply": right(first), "model": "Offline-Model"},
    ]
    response = upload(researcher, "offline-model", lines, provider="lab")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["family"], body["domain"], body["verified"]) == (
        "done",
        "simple",
        None,
        False,
    )
    assert body["trajectory_count"] == 4
    replies = {(r.task_id, r.run): r for r in FamilyReply.objects.all()}
    assert replies[(first.pk, 0)].correct is True and replies[(first.pk, 1)].correct is True
    assert replies[(second.pk, 0)].correct is False
    assert replies[(third.pk, 0)].parse_error and replies[(third.pk, 0)].correct is False
    assert replies[(third.pk, 0)].completion_tokens == 30
    # The status endpoint KUMO's files use reads it back; it is the uploader's own.
    detail = researcher.get(f"/api/v1/submissions/{body['id']}/").json()
    assert detail["status"] == "done" and detail["family"] == "simple"
    listed = researcher.get("/api/v1/family-submissions/").json()
    assert [row["id"] for row in listed] == [body["id"]]

    rebuild_board()
    rows = family_board(family="simple")
    assert len(rows) == 1
    row = rows[0]
    assert (row["player"], row["verified"], row["self_reported"], row["label"]) == (
        "offline-model",
        False,
        True,
        "self-reported",
    )
    assert (row["attempts"], row["correct"], row["owner"]) == (4, 2, "researcher")
    assert row["parse_error_rate"] == pytest.approx(0.25)
    assert family_board(family="simple", verified="1") == []
    page = Client().get("/leaderboard/families/", {"family": "simple"}).content.decode()
    verified_part, reported_part = page.split('id="self-reported"')
    assert 'data-player="offline-model"' not in verified_part
    assert reported_part.count('data-player="offline-model"') == 1
    assert "self-reported" in reported_part.split("</table>")[0].lower()
    # Never in the profile across families, which reads verified rows only.
    assert "offline-model" not in Client().get("/leaderboard/profile/").content.decode()


def test_a_bad_file_is_refused_with_every_problem_by_line_and_stores_nothing(
    researcher, rebuild_board
):
    (task,) = math_tasks(1)
    content = (
        json.dumps({"task": task.pk, "reply": right(task)})
        + "\n{not json\n"
        + json.dumps({"task": task.pk})
        + "\n"
        + json.dumps({"task": 987_654, "reply": "Answer: 3"})
        + "\n"
        + json.dumps({"task": task.pk, "reply": "Answer: 3", "model": "someone-else"})
        + "\n"
        + json.dumps({"task": task.pk, "reply": "Answer: 4"})
        + "\n"
        + json.dumps({"item": 3, "reply": "Answer: 4"})
        + "\n"
    ).encode()
    response = upload(researcher, "offline-model", content)
    assert response.status_code == 422, response.content
    errors = response.json()["errors"]
    assert [error.split(":")[0] for error in errors] == [
        "line 2",
        "line 3",
        "line 5",
        "line 6",
        "line 7",
    ]
    assert "not valid JSON" in errors[0] and "missing 'reply'" in errors[1]
    assert "not the upload's model" in errors[2] and "already appears on line 1" in errors[3]
    assert "'item' needs a 'kind'" in errors[4]
    assert not FamilyReply.objects.exists()
    # Once the lines read, every task is looked up: the missing one, and an item key with
    # no imported task behind it.
    content = "".join(
        json.dumps(line) + "\n"
        for line in [
            {"task": task.pk, "reply": right(task)},
            {"task": 987_654, "reply": "Answer: 3"},
            {"item": 3, "kind": "math", "level": "easy", "reply": "Answer: 4"},
        ]
    ).encode()
    response = upload(researcher, "offline-model", content)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [error.split(":")[0] for error in errors] == ["line 2", "line 3"]
    assert "no task 987654 of family simple that a results file may answer" in errors[0]
    assert not FamilyReply.objects.exists()
    rebuild_board(full=True)
    assert not FamilyBoardRow.objects.exists()
    # The family must take replies: not KUMO's games, nor a game played move by move.
    for family in ("kumo", "games", "nosuch"):
        refused = upload(researcher, "offline-model", content, family=family)
        assert refused.status_code == 400, (family, refused.content)


def _normalised(error: str) -> str:
    return re.sub(r"\d+", "N", error)


def test_hidden_tasks_are_refused_like_missing_ones_and_a_published_round_opens_them(
    clock, orchard, small_domain_data, rebuild_board
):
    from engine.actions import do_import_domain
    from engine.core.families.kumo.domain_io import domain_from_json

    do_import_domain(domain_from_json(small_domain_data), source="json", name="grove")
    prepare("2025-01", "grove", "4x6", 1, 500, "--family-task", "simple/math/easy:2")
    live = Round.objects.get(name="2025-01")
    rounds.do_rotate(target=live)
    pinned = list(
        FamilyTask.objects.filter(
            pk__in=RoundFamilyTask.objects.filter(round=live).values("task_id")
        )
    )
    study = families.do_generate_family_tasks(
        "simple", "math", count=1, seed=123_456, level="easy", origin=FamilyTask.Origin.STUDY
    ).tasks[0]
    ranked = families.do_generate_family_tasks(
        "simple", "math", count=1, seed=654_321, level="easy", origin=FamilyTask.Origin.RANKED
    ).tasks[0]
    (public,) = math_tasks(1)
    attacker = token_client("attacker")
    hidden = [*pinned, study, ranked]
    lines = [{"task": task.pk, "reply": right(task)} for task in hidden]
    lines.append({"task": 999_999, "reply": "Answer: 1"})
    lines.append({"task": public.pk, "reply": right(public)})
    response = upload(attacker, "harvester", lines)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert len(errors) == len(hidden) + 1
    # Every refusal reads the same, a missing task's included: nothing tells them apart.
    assert len({_normalised(error) for error in errors}) == 1
    for task in hidden:
        assert str(task.hidden["answer"]) not in _normalised(errors[0])
    assert not FamilyReply.objects.exists()
    rebuild_board(full=True)
    assert family_board() == []

    # Closed and published: the round's tasks are answerable like any public task.
    clock(2025, 3, 2)
    prepare("2025-03", "grove", "4x6", 1, 900)
    rounds.do_rotate(target=Round.objects.get(name="2025-03"), publish=True)
    opened = upload(attacker, "harvester", [{"task": t.pk, "reply": right(t)} for t in pinned])
    assert opened.status_code == 201, opened.content
    rebuild_board()
    (row,) = family_board(family="simple")
    assert (row["player"], row["self_reported"], row["attempts"], row["correct"]) == (
        "harvester",
        True,
        2,
        2,
    )
    assert row["round"] is None


def test_model_names_follow_the_boards_rules(researcher, make_user):
    (task,) = math_tasks(1)
    lines = [{"task": task.pk, "reply": right(task)}]
    assert upload(researcher, "Shared-Name", lines).status_code == 201
    other = token_client("other")
    for name in ("shared-name", "SHARED-NAME", "People", "reference"):
        refused = upload(other, name, lines)
        assert refused.status_code == 403, (name, refused.content)
    assert upload(other, "bad<name>", lines).status_code == 400
    assert Submission.objects.filter(family="simple").count() == 1


def test_a_newer_file_replaces_the_older_in_its_groups_and_withdrawing_restores_it(
    researcher, rebuild_board
):
    easy = math_tasks(2)
    hard = families.do_generate_family_tasks("simple", "math", count=1, seed=70, level="hard").tasks
    older = upload(
        researcher,
        "m1",
        [{"task": t.pk, "reply": wrong(t)} for t in easy]
        + [{"task": t.pk, "reply": right(t)} for t in hard],
    ).json()
    newer = upload(researcher, "m1", [{"task": t.pk, "reply": right(t)} for t in easy]).json()
    again = upload(researcher, "m1", [{"task": t.pk, "reply": right(t)} for t in easy])
    assert again.status_code == 200 and again.json()["id"] == newer["id"]
    rebuild_board()
    by_level = {row["level"]: row for row in family_board(family="simple")}
    assert (by_level["easy"]["attempts"], by_level["easy"]["correct"]) == (2, 2)
    assert (by_level["hard"]["attempts"], by_level["hard"]["correct"]) == (1, 1)

    withdrawn = researcher.post(f"/api/v1/submissions/{newer['id']}/withdraw/")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    rebuild_board()
    by_level = {row["level"]: row for row in family_board(family="simple")}
    assert (by_level["easy"]["attempts"], by_level["easy"]["correct"]) == (2, 0)
    assert by_level["hard"]["attempts"] == 1
    assert researcher.post(f"/api/v1/submissions/{older['id']}/withdraw/").status_code == 200
    rebuild_board()
    assert family_board(family="simple") == []


def test_a_file_left_to_the_job_is_scored_there(researcher):
    (task,) = math_tasks(1)
    accepted = actions.submit_family_results(
        User.objects.get(username="researcher"),
        model="queued",
        family="simple",
        fmt="family",
        content=(json.dumps({"task": task.pk, "reply": right(task)}) + "\n").encode(),
        background=True,
    )
    # The job ran (in-process here) after commit, under the same lease as KUMO's files.
    submission = Submission.objects.get(pk=accepted.submission.pk)
    assert submission.status == Submission.Status.DONE and submission.attempts == 1
    assert FamilyReply.objects.filter(submission=submission, correct=True).count() == 1


# -- LR²Bench's own files, through a stand-in of the lr2bench family ----------------------


class SudokuStandIn(Family):
    """Stands in for the lr2bench family (imported LR²Bench tasks, params {"item": tag}):
    one kind, LR²Bench's ``sudoku``, level ``4_4_easy``; a reply's last <Answer> block,
    read as a grid, is right when every cell is."""

    name = "lr2-standin"
    title = "LR²Bench stand-in"
    kinds = {
        "sudoku": Kind(
            "sudoku",
            "Sudoku",
            "a grid",
            (),
            {"4_4_easy": {}},
        )
    }

    def _generate(self, kind, params, seed):  # pragma: no cover - imported only
        raise FamilyError("imported tasks only")

    def parse_reply(self, instance, text):
        blocks = re.findall(r"<Answer>(.*?)</Answer>", text or "", re.S | re.I)
        if not blocks:
            return ParsedReply(None, "no <Answer>…</Answer> block in the reply")
        return ParsedReply(blocks[-1].strip())

    def score(self, instance, answer):
        try:
            grid = json.loads(answer)
        except json.JSONDecodeError:
            return Score(False, 0.0, {"unread": "not a grid"})
        return Score(grid == instance.hidden["answer"], float(grid == instance.hidden["answer"]))

    def reference_answer(self, instance):
        return json.dumps(instance.hidden["answer"])


@pytest.fixture
def lr2_tasks(monkeypatch, db):
    monkeypatch.setitem(base.FAMILIES, SudokuStandIn.name, SudokuStandIn())
    recorded = json.loads((LR2_FILES / "tasks_and_figures.json").read_text())
    for seed, item in enumerate(recorded["tasks"]):
        FamilyTask.objects.create(
            family=SudokuStandIn.name,
            kind="sudoku",
            level="4_4_easy",
            origin=FamilyTask.Origin.IMPORTED,
            params={"item": item["tag"]},
            params_key=families.params_key({"item": item["tag"]}),
            seed=seed,
            public={"kind": "sudoku", "text": str(item["grid"]), "answer_format": "a grid"},
            hidden={"answer": item["answer"]},
        )
    return recorded["figures"]["4_4_easy"]


def lr2_upload(client, name: str, content: bytes, **fields):
    return client.post(
        "/api/v1/family-submissions/",
        {
            "model": "lr2-model",
            "family": SudokuStandIn.name,
            "format": "lr2bench",
            "file": SimpleUploadedFile(name, content),
            **fields,
        },
        format="multipart",
    )


def test_lr2benchs_response_file_is_accepted_as_it_is(researcher, lr2_tasks, rebuild_board):
    content = (LR2_FILES / "response.jsonl").read_bytes()
    # The file names neither its type nor its level (they are its directory's names).
    missing = lr2_upload(researcher, "response.jsonl", content)
    assert missing.status_code == 422
    assert "give the upload's 'kind' and 'level'" in missing.json()["errors"][0]
    response = lr2_upload(researcher, "response.jsonl", content, kind="sudoku", level="4_4_easy")
    assert response.status_code == 201, response.content
    assert response.json()["trajectory_count"] == 6
    tokens = FamilyReply.objects.values_list("prompt_tokens", "completion_tokens")
    assert all(prompt > 0 and completion > 0 for prompt, completion in tokens)
    rebuild_board()
    (row,) = family_board(family=SudokuStandIn.name)
    # LR²Bench's own Exact Match over the same replies (its 2-merge_answer.py).
    assert row["success_rate"] == pytest.approx(lr2_tasks["EM"])
    assert row["self_reported"] is True and row["parse_error_rate"] == pytest.approx(1 / 6)


def test_lr2benchs_extracted_answers_are_accepted_as_they_are(researcher, lr2_tasks, rebuild_board):
    answers = (LR2_FILES / "answer.json").read_bytes()
    response = lr2_upload(researcher, "answer.json", answers, kind="sudoku")
    assert response.status_code == 201, response.content
    rebuild_board()
    (row,) = family_board(family=SudokuStandIn.name)
    assert row["success_rate"] == pytest.approx(lr2_tasks["EM"])
    # Two records hold LR²Bench's "no answer" placeholder: parse errors, as its CR says.
    assert 1 - row["parse_error_rate"] == pytest.approx(lr2_tasks["CR"])

    # 2-merge_answer.py's submission.json: every type's records under "results".
    merged = json.dumps(
        {"config": {"model_name": "lr2-model"}, "results": {"sudoku": json.loads(answers)}},
        indent=4,
    ).encode()
    again = lr2_upload(researcher, "submission.json", merged)
    assert again.status_code == 201, again.content
    assert again.json()["trajectory_count"] == 6
    # An item LR²Bench has but this platform did not import is refused, by record.
    unknown = json.loads(answers)
    unknown[2]["tag"] = "Z999"
    refused = lr2_upload(researcher, "answer.json", json.dumps(unknown).encode(), kind="sudoku")
    assert refused.status_code == 422
    assert refused.json()["errors"] == [
        "record 3: no sudoku/4_4_easy item 'Z999' of family lr2-standin that a results "
        "file may answer (a task listed at /api/v1/family-tasks/; a round's tasks only once "
        "the round has published them)"
    ]


def test_a_generated_puzzle_file_reaches_the_board_with_lr2bench_figures(researcher, rebuild_board):
    """A generated family scored by subtasks (the puzzles) goes through the same upload and
    board job: its self-reported row carries CR, S-Acc, EM and PM-0.5."""
    sudoku = base.get_family("puzzles")
    tasks = families.do_generate_family_tasks("puzzles", "sudoku", count=2, level="easy").tasks
    first, second = tasks
    reference = sudoku.reference_answer(first.to_core())
    lines = [
        {"task": first.pk, "reply": sudoku.reply_with(first.to_core(), reference)},
        {"task": second.pk, "reply": "No idea."},
    ]
    response = upload(researcher, "grid-model", lines, family="puzzles")
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "done"
    rebuild_board()
    (row,) = [r for r in family_board(family="puzzles") if r["player"] == "grid-model"]
    assert row["self_reported"] and not row["verified"]
    assert row["cr"] == pytest.approx(0.5) and row["em"] == pytest.approx(0.5)
    assert 0 < row["s_acc"] < 1


@pytest.mark.parametrize("field", ["family", "kind", "level", "round"])
def test_the_family_board_api_refuses_a_nul_or_overlong_name_with_a_400(field):
    overlong = Client().get("/api/v1/family-leaderboard/", {field: "x" * 101})
    assert overlong.status_code == 400 and field in overlong.json()["fields"]
    # A NUL is refused before the view, as in every address (tests/play/test_nul_addresses.py).
    nul = Client().get("/api/v1/family-leaderboard/", {field: "sim\x00ple"})
    assert nul.status_code == 400 and "NUL character" in nul.json()["error"]
