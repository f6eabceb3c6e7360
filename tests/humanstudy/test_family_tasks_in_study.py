"""Tasks of the other families in the study's task sets: built into sets, opened with the
study's time limit, answered on their page by participants only for their own set, counted
in progress, pay and the quality filter, exported, and kept off the family board when the
participant is flagged."""

from __future__ import annotations

import csv
import json
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.test import Client

from engine.core.families.base import get_family
from engine.models import FamilyAttempt, FamilyTask
from humanstudy import actions
from humanstudy.models import Participant, StudySettings, TaskSet, TaskSetItem
from leaderboard.family_board import family_rows
from tests.humanstudy.conftest import build_study, log_in

pytestmark = pytest.mark.django_db

SPECS = ["puzzles/sudoku/easy", "simple/logic/easy"]


@pytest.fixture
def mixed_study(db):
    build_study(participants=0)
    TaskSet.objects.all().delete()
    out = StringIO()
    call_command(
        "build_task_sets", "--count", "2", "--seed", "3",
        *[arg for spec in SPECS for arg in ("--family-task", spec)], stdout=out,
    )  # fmt: skip
    # More Easy instances of the first domain, so that one is left for the practice task.
    call_command(
        "generate_tasks", "chemical", "--truths", "4", "--actions", "6", "--count", "8",
        stdout=StringIO(),
    )  # fmt: skip
    made = StringIO()
    call_command("create_participants", "--count", "2", stdout=made, stderr=StringIO())
    return list(csv.DictReader(StringIO(made.getvalue())))


def _family_position(participant: Participant, kind: str) -> int:
    return participant.task_set.items.get(family_task__kind=kind).position


def test_sets_hold_kumo_games_and_fresh_family_tasks(mixed_study):
    for task_set in TaskSet.objects.all():
        items = list(task_set.items.all())
        assert len(items) == 12  # 5 domains × Easy and Hard, and the two family tasks
        assert sorted(i.family_task.kind for i in items if i.family_task_id) == ["logic", "sudoku"]
        assert all((i.instance_id is None) != (i.family_task_id is None) for i in items)
    used = list(
        TaskSetItem.objects.exclude(family_task=None).values_list("family_task_id", flat=True)
    )
    assert len(used) == len(set(used)) == 4  # no two sets share a family task
    with pytest.raises(CommandError, match="FAMILY/KIND/LEVEL"):
        call_command("build_task_sets", "--count", "1", "--family-task", "sudoku")
    with pytest.raises(CommandError, match="no level 'giant'"):
        call_command("build_task_sets", "--count", "1", "--family-task", "puzzles/sudoku/giant")


def test_a_participant_answers_a_family_task_of_their_set(mixed_study):
    row = mixed_study[0]
    client = log_in(row["id"], row["password"])
    participant = Participant.objects.get(user__username=row["id"])
    position = _family_position(participant, "sudoku")
    page = client.post(f"/study/tasks/{position}/")
    assert page.status_code == 302 and page["Location"].startswith("/families/attempts/")
    attempt = FamilyAttempt.objects.get(player=participant.user)
    limit = StudySettings.current().task_time_limit_seconds
    assert attempt.deadline_at == attempt.started_at + timedelta(seconds=limit)
    html = client.get(page["Location"]).content.decode()
    assert 'id="time-left"' in html and "play_signals.js" in html
    assert json.dumps(attempt.task.hidden["solution"]) not in html
    grid = attempt.task.hidden["solution"]
    form = {f"cell-{r}-{c}": str(v) for r, line in enumerate(grid) for c, v in enumerate(line)}
    form["client"] = json.dumps({"pastes": 1, "keys": 9, "hidden_ms": 1500})
    client.post(page["Location"], form)
    attempt.refresh_from_db()
    assert attempt.correct and attempt.client["pastes"] == 1 and attempt.client["keys"] == 9
    result = client.get(page["Location"]).content.decode()
    assert "Back to your tasks" in result and "Play another" not in result
    state = actions.progress(participant)
    done = [row for row in state.tasks if row.finished]
    assert [r.title for r in done] == ["sudoku"] and state.successes == 1 and state.actions == 0
    progress_page = client.get("/study/tasks/").content.decode()
    assert "sudoku" in progress_page and "solved" in progress_page

    # Another set's family task, or any other family task, is not theirs to play.
    other = TaskSetItem.objects.exclude(task_set=participant.task_set).exclude(family_task=None)
    foreign = other.first().family_task
    stranger = FamilyAttempt.objects.create(player=participant.user, task=foreign)
    assert client.get(f"/families/attempts/{stranger.pk}/").status_code == 403
    assert (
        client.post(
            "/families/play/", {"family": "simple", "kind": "math", "level": "easy"}
        ).status_code
        == 403
    )


def test_time_up_ends_a_family_task_unsolved(mixed_study):
    row = mixed_study[1]
    client = log_in(row["id"], row["password"])
    participant = Participant.objects.get(user__username=row["id"])
    location = client.post(f"/study/tasks/{_family_position(participant, 'logic')}/")["Location"]
    attempt = FamilyAttempt.objects.get(player=participant.user)
    with time_machine.travel(attempt.deadline_at + timedelta(seconds=1)):
        answer = "true" if attempt.task.hidden["answer"] else "false"
        client.post(location, {"answer": answer})
        page = client.get(location).content.decode()
    attempt.refresh_from_db()
    assert attempt.finished_at == attempt.deadline_at and attempt.correct is False
    assert "time ran out before an answer" in page and "Not correct" in page


def test_quality_pay_and_exports_count_family_tasks(mixed_study):
    row = mixed_study[0]
    participant = Participant.objects.get(user__username=row["id"])
    participant.stage = Participant.Stage.TASKS
    participant.save()
    for item in participant.task_set.items.select_related("family_task", "instance"):
        played = actions.open_task(participant, item.position)
        if item.family_task_id:
            family = get_family(item.family_task.family)
            from engine import families

            families.answer_attempt(
                played.pk, participant.user,
                family.reference_answer(item.family_task.to_core()), client={"pastes": 4},
            )  # fmt: skip
        else:
            from engine import sessions

            sessions.answer(played.pk, participant.user, item.instance.valid_truths[0])
    state = actions.progress(participant)
    assert state.complete and state.successes == 12 and state.actions == 0
    tasks = actions.study_tasks(participant)
    family_tasks = [t for t in tasks if not t.interactive]
    assert len(family_tasks) == 2
    assert {t.chance for t in family_tasks} == {0.0, 0.5}  # a grid; true or false
    evaluated = actions.evaluate_participant(participant)
    # Ten KUMO games answered blind trip the blind-answer rule; the two family tasks do
    # not count as blind (they have no actions), and their pastes count.
    assert any(
        "answered before any action" in r and "10 of 12" in r for r in evaluated.flag_reasons
    )
    assert any("pasted 8 times" in r for r in evaluated.flag_reasons)

    staff = Client()
    from django.contrib.auth.models import User

    staff.force_login(User.objects.create_superuser("boss", password="x"))
    export = staff.get("/study/export/steps.csv")
    text = b"".join(export.streaming_content).decode()
    rows = list(csv.DictReader(StringIO(text)))
    answers = [r for r in rows if r["family"] != "kumo"]
    assert sorted(r["family"] for r in answers) == ["puzzles", "simple"]
    assert all(r["score"] == "1.0" and r["client_pastes"] == "4" for r in answers)
    # A flagged participant's attempts stay off the family board's "People".
    from leaderboard.tasks import recompute_task

    recompute_task()
    assert family_rows() == [] and family_rows(verified=False)
    assert FamilyTask.objects.count() >= 4
