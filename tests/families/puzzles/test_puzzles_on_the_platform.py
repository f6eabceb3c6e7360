"""Constraint puzzles on the platform: the runner plays baselines and a chat model behind
the local fake server through each type, structured answers over the API, and the board's
four LR²Bench figures per type and size (pooled per level over LR²Bench's subtasks),
checked against values computed by hand."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from benchmark.fake_llm import FakeChatServer, FakeResponse
from engine import families
from engine.core.families.base import get_family
from engine.models import FamilyAttempt, FamilyTask
from leaderboard.family_board import family_rows

pytestmark = pytest.mark.django_db(transaction=True)
PUZZLES = get_family("puzzles")


def run(*args: str) -> str:
    out = StringIO()
    call_command("run_family_tasks", "--family", "puzzles", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("kind", sorted(PUZZLES.kinds))
def test_baselines_play_every_type(kind):
    assert "3 played, 3 correct, 0 parse error(s)" in run(
        "--model", "reference", "--kind", kind, "--level", "easy", "--count", "3"
    )
    out = run("--model", "random", "--kind", kind, "--level", "easy", "--count", "3")
    assert "3 played" in out and "0 parse error(s)" in out
    blank = run("--model", "blank", "--kind", kind, "--level", "easy", "--count", "3")
    assert "3 parse error(s)" in blank


@pytest.mark.parametrize("kind", sorted(PUZZLES.kinds))
def test_a_chat_model_behind_the_fake_server_through_every_type(kind):
    tasks = families.do_generate_family_tasks("puzzles", kind, count=2, level="easy").tasks
    by_text = {task.public["text"]: task for task in tasks}

    def script(request):
        prompt = request.messages[-1]["content"]
        task = next(t for text, t in by_text.items() if text in prompt)
        reference = PUZZLES.reference_answer(task.to_core())
        return FakeResponse(content=f"Working it out.\n<Answer>\n{reference}\n</Answer>")

    with FakeChatServer(script) as server:
        out = run(
            "--model", "fake-puzzler", "--base-url", server.base_url, "--kind", kind,
            "--level", "easy", "--count", "2", "--concurrency", "1",
        )  # fmt: skip
    assert "2 played, 2 correct, 0 parse error(s)" in out
    row = next(r for r in family_rows() if r.player == "fake-puzzler" and r.kind == kind)
    assert (row.subtasks.cr, row.subtasks.s_acc, row.subtasks.em, row.subtasks.pm05) == (
        1.0, 1.0, 1.0, 1.0,
    )  # fmt: skip
    assert all(a.tokens > 0 for a in FamilyAttempt.objects.filter(model_name="fake-puzzler"))


def test_a_chat_model_through_sudoku_and_the_four_figures_on_the_board():
    tasks = families.do_generate_family_tasks("puzzles", "sudoku", count=6, level="easy").tasks
    by_text = {task.public["text"]: task for task in tasks}
    calls = iter(range(100))

    def script(request):
        prompt = request.messages[-1]["content"]
        task = next(t for text, t in by_text.items() if text in prompt)
        solution = [row[:] for row in task.hidden["solution"]]
        number = next(calls)
        if number % 3 == 0:  # no answer block: a parse error
            return FakeResponse(content="I would fill in the grid but I ran out of room.")
        if number % 3 == 1:  # one empty cell wrong
            r, c = next(
                (r, c) for r in range(4) for c in range(4) if task.public["grid"][r][c] == 0
            )
            solution[r][c] = solution[r][c] % 4 + 1
            return FakeResponse(content=f"Done.\n<Answer>{json.dumps(solution)}</Answer>")
        return FakeResponse(content=f"Done.\n<Answer>\n{json.dumps(solution)}\n</Answer>")

    with FakeChatServer(script) as server:
        out = run(
            "--model", "fake-solver", "--base-url", server.base_url, "--kind", "sudoku",
            "--level", "easy", "--count", "6", "--concurrency", "1",
        )  # fmt: skip
    assert "6 played, 2 correct, 2 parse error(s)" in out
    row = next(r for r in family_rows() if r.player == "fake-solver")
    figures = row.subtasks
    # Pooled as LR²Bench pools a level: subtasks are each task's e empty cells; a parse
    # error gets 0 of e (its subtasks still count), one wrong cell e-1 of e, a right one e.
    right = total = 0
    for attempt in FamilyAttempt.objects.filter(model_name="fake-solver").select_related("task"):
        empty = attempt.task.public["lr2_subtasks"]
        total += empty
        right += 0 if attempt.parse_error else empty if attempt.correct else empty - 1
    assert figures.cr == pytest.approx(4 / 6)
    assert figures.s_acc == pytest.approx(right / total)
    assert figures.em == pytest.approx(2 / 6) and row.success_rate == pytest.approx(2 / 6)
    assert figures.pm05 == pytest.approx(4 / 6)
    assert figures.cr_low < figures.cr < figures.cr_high
    assert figures.s_acc_low < figures.s_acc < figures.s_acc_high
    page = Client().get("/leaderboard/families/").content.decode()
    assert 'id="lr2-board"' in page and f'data-metric="s_acc">{right / total:.3f}' in page
    assert 'data-metric="pm05">0.667' in page


def test_structured_answers_over_the_api(make_user):
    from rest_framework.authtoken.models import Token

    user = make_user("gridder")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    catalogue = Client().get("/api/v1/families/").json()
    puzzles = next(f for f in catalogue if f["name"] == "puzzles")
    assert all(k["metrics"] == ["cr", "s_acc", "em", "pm05"] for k in puzzles["kinds"])

    task = families.do_generate_family_tasks("puzzles", "logic_grid", count=1, level="medium")
    task = task.tasks[0]
    listed = client.get("/api/v1/family-tasks/?family=puzzles").json()
    assert "solution" not in json.dumps(listed) and "clue_codes" not in json.dumps(listed)
    attempt = client.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").json()
    assert "result" not in attempt
    rows = [dict(row) for row in task.hidden["solution"]]
    rows[0], rows[1] = dict(rows[0]), dict(rows[1])
    cat = [c for c in rows[0] if c != "names"][0]
    rows[0][cat], rows[1][cat] = rows[1][cat], rows[0][cat]
    url = f"/api/v1/family-attempts/{attempt['id']}/answer/"
    bad = client.post(url, {"answer": 12}, format="json")
    assert bad.status_code == 400 and "JSON list or object" in json.dumps(bad.json())
    answered = client.post(url, {"answer": rows}, format="json")
    assert answered.status_code == 200, answered.content
    result = answered.json()["result"]
    # LR²Bench's subtasks: 4 people × 3 attributes; the swap costs two of the 12 cells.
    assert result["details"]["right"] == 10 and result["details"]["subtasks"] == 12
    assert result["details"]["by_unit"]["right"] == 2 and result["details"]["pm05"] == 1
    assert not result["correct"] and json.loads(result["answer"]) == rows
    assert json.loads(result["reference_answer"]) == task.hidden["solution"]
    again = client.post(url, {"answer": rows}, format="json")
    assert again.status_code == 409

    # A text family refuses a structured answer, and keeps the attempt open.
    text_task = families.do_generate_family_tasks("simple", "math", count=1).tasks[0]
    other = client.post("/api/v1/family-attempts/", {"task": text_task.pk}, format="json")
    other_url = f"/api/v1/family-attempts/{other.json()['id']}/answer/"
    refused = client.post(other_url, {"answer": [1, 2]}, format="json")
    assert refused.status_code == 400 and "text answer" in refused.json()["error"]
    assert FamilyAttempt.objects.get(pk=other.json()["id"]).finished_at is None
    deep = '{"answer": ' + "[" * 5000 + "]" * 5000 + "}"
    too_deep = client.post(other_url, deep, content_type="application/json")
    assert too_deep.status_code == 400
    assert FamilyTask.objects.filter(family="puzzles").count() == 1


def test_a_logic_grid_page_does_not_rely_on_the_order_of_json_keys(make_user):
    """PostgreSQL's jsonb keeps an object's keys sorted by length, not as written: "ages"
    comes before "names". The matrix and the form read the people's names by key."""
    task = families.do_generate_family_tasks("puzzles", "logic_grid", count=1, level="easy").tasks[
        0
    ]
    variables = task.public["variables"]
    reordered = {key: variables[key] for key in sorted(variables, key=lambda k: k == "names")}
    assert next(iter(reordered)) != "names"
    task.public = {**task.public, "variables": reordered}
    task.save(update_fields=["public"])
    player = make_user("matrix")
    client = Client()
    client.force_login(player)
    attempt, _ = families.start_attempt(player, task)
    page = client.get(f"/families/attempts/{attempt.pk}/").content.decode()
    names = variables["names"]
    for e, name in enumerate(names):
        assert f'<th scope="row">{name}</th>' in page
        for category in variables:
            assert (f'name="pick-{e}-{category}"' in page) == (category != "names")
    form = {}
    for row in task.hidden["solution"]:
        e = names.index(row["names"])
        form.update({f"pick-{e}-{cat}": value for cat, value in row.items() if cat != "names"})
    client.post(f"/families/attempts/{attempt.pk}/", form)
    attempt.refresh_from_db()
    assert attempt.correct and attempt.details["em"] == 1
