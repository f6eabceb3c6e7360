"""Models play family tasks (built-in baselines and a chat model behind the local fake
server) and the rows appear on the family board beside people's."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from benchmark.fake_llm import FakeChatServer, FakeResponse
from engine import families
from engine.core.families.base import get_family
from engine.models import FamilyAttempt, FamilyTask
from leaderboard.family_board import family_rows, wilson

pytestmark = pytest.mark.django_db(transaction=True)


def run(*args: str) -> str:
    out = StringIO()
    call_command("run_family_tasks", *args, stdout=out)
    return out.getvalue()


def test_the_wilson_interval():
    assert wilson(0, 0) == (0.0, 0.0)
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(10, 10)[1] == pytest.approx(1.0) and wilson(0, 10)[0] == pytest.approx(0.0)


def test_built_in_baselines_play_and_resume():
    out = run("--model", "reference", "--kind", "math", "--level", "easy", "--count", "4")
    assert "4 played, 4 correct, 0 parse error(s), 0 failed (API), 0 already stored" in out
    again = run("--model", "reference", "--kind", "math", "--level", "easy", "--count", "4")
    assert "0 played" in again and "4 already stored" in again
    blank = run("--model", "blank", "--kind", "math", "--level", "easy", "--count", "4")
    assert "4 played, 0 correct, 4 parse error(s)" in blank
    assert run("--model", "random", "--kind", "logic", "--count", "6", "--runs", "2").count(
        "12 played"
    )
    with pytest.raises(CommandError, match="not a built-in player"):
        run("--model", "gpt-9", "--kind", "math")
    with pytest.raises(CommandError, match="may hold only ASCII"):
        run("--model", "<b>x</b>", "--kind", "math")


def test_a_chat_model_behind_the_fake_server_is_scored_with_its_parse_errors():
    tasks = families.do_generate_family_tasks("simple", "counting", count=6, level="easy").tasks
    answers = {task.public["text"]: task.hidden["answer"] for task in tasks}
    replies = iter(range(100))

    def script(request):
        prompt = request.messages[-1]["content"]
        number = next(replies)
        if number % 3 == 0:  # a third of the replies never say "Answer:"
            return FakeResponse(content="Let me count them carefully.\nI lost count.\nSorry.")
        task_text = prompt.split("\n\nGive your final answer")[0]
        return FakeResponse(content=f"Counting...\nAnswer: {answers[task_text]}")

    with FakeChatServer(script) as server:
        out = run(
            "--model",
            "fake-counter",
            "--base-url",
            server.base_url,
            "--kind",
            "counting",
            "--level",
            "easy",
            "--count",
            "6",
            "--concurrency",
            "1",
        )
    assert "6 played, 4 correct, 2 parse error(s), 0 failed (API)" in out
    attempts = FamilyAttempt.objects.filter(model_name="fake-counter")
    assert attempts.count() == 6 and all(a.tokens > 0 for a in attempts)
    assert attempts.filter(parse_error__contains="no line").count() == 2


def test_a_runs_results_file_holds_every_reply_and_uploads_as_it_is(
    tmp_path, researcher, rebuild_board
):
    """``--out`` writes every attempt of the run (those kept from an earlier run too) with
    each reply as a turn; the file is the replies format the upload takes, so the same
    replies uploaded are scored the same, as self-reported rows."""
    tasks = families.do_generate_family_tasks("simple", "math", count=3, seed=70, level="easy")
    answers = {task.public["text"]: task.hidden["answer"] for task in tasks.tasks}
    first_text = tasks.tasks[0].public["text"]

    def script(request):
        text = request.messages[-1]["content"].split("\n\nGive your final answer")[0]
        if text == first_text:
            return FakeResponse(content="I cannot tell.\nNot at all.\nSorry.", reasoning="Hmm.")
        return FakeResponse(content=f"Adding up.\nAnswer: {answers[text]}")

    out = tmp_path / "run.jsonl"
    with FakeChatServer(script) as server:
        args = ("--model", "writer", "--base-url", server.base_url, "--kind", "math")
        more = ("--level", "easy", "--count", "3", "--seed", "70", "--out", str(out))
        printed = run(*args, *more)
        assert "3 attempt(s) written" in printed
        again = run(*args, *more)  # nothing new is played; the file still holds all three
    assert "0 played" in again
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["task"] for r in records) == sorted(t.pk for t in tasks.tasks)
    by_task = {r["task"]: r for r in records}
    failed = by_task[tasks.tasks[0].pk]
    assert failed["reply"].startswith("I cannot tell.") and failed["correct"] is False
    (only,) = failed["turns"]
    assert only["read"] is None and only["error"] and only["reasoning"] == "Hmm."
    assert only["tokens"]["prompt"] > 0 and only["tokens"]["completion"] > 0
    assert failed["tokens"] == only["tokens"]
    solved = by_task[tasks.tasks[1].pk]
    assert solved["correct"] is True and solved["turns"][0]["read"] == solved["answer"]
    assert all(r["model"] == "writer" and r["family"] == "simple" for r in records)

    from tests.leaderboard.test_family_uploads import upload

    # As written, but for the model's name (the runner's account owns "writer").
    lines = [{k: v for k, v in r.items() if k != "model"} for r in records]
    response = upload(researcher, "writer-offline", lines)
    assert response.status_code == 201, response.content
    from leaderboard.models import FamilyReply

    rescored = dict(FamilyReply.objects.values_list("task_id", "correct"))
    assert rescored == {r["task"]: r["correct"] for r in records}


def test_an_api_that_fails_stores_nothing_and_a_later_run_plays_it():
    with FakeChatServer(lambda request: FakeResponse(status=401)) as server:
        out = run(
            "--model",
            "broken",
            "--base-url",
            server.base_url,
            "--kind",
            "math",
            "--count",
            "2",
            "--timeout",
            "5",
        )
    assert "0 played" in out and "2 failed (API)" in out
    assert not FamilyAttempt.objects.filter(model_name="broken").exists()


def test_models_and_practice_side_by_side_on_the_family_board(make_user, rebuild_board):
    run("--model", "reference", "--kind", "travel", "--level", "easy", "--count", "3")
    run("--model", "random", "--kind", "travel", "--level", "easy", "--count", "3")
    person = make_user("walker")
    task = FamilyTask.objects.filter(kind="travel").first()
    attempt, _ = families.start_attempt(person, task)
    families.answer_attempt(
        attempt.pk, person, get_family("simple").reference_answer(task.to_core())
    )
    rebuild_board()  # the scheduled job: the answer marked its group stale
    rows = {(r.player, r.kind, r.level): r for r in family_rows()}
    assert rows[("reference", "travel", "easy")].success_rate == 1.0
    assert rows[("reference", "travel", "easy")].player_kind == "baseline"
    # An ordinary account's answer is practice: in no verified row, "People" included.
    assert ("People", "travel", "easy") not in rows
    practice = family_rows(verified=False)
    assert [(r.player, r.kind, r.attempts) for r in practice] == [
        ("Practice (unverified)", "travel", 1)
    ]
    page = Client().get("/leaderboard/families/").content.decode()
    assert 'data-player="reference"' in page and 'data-player="People"' not in page
    assert 'id="practice-board"' in page and "Practice (unverified)" in page
    assert 'data-figure="family-simple-travel"' in page
    # A person's attempt and the runner's never share a row or a slot.
    assert FamilyAttempt.objects.filter(player=person, model_name="").count() == 1
    assert re.search(r"Task families", page)
