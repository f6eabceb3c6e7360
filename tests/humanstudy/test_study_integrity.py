"""The study's integrity (issue 23): its tasks are generated for it with secret seeds and
never listed or playable elsewhere; a recruitment label takes part once, whatever its case
or punctuation; the link cannot be farmed (per-address limit, target size); and a move
that came with no report from the page is recorded as such and flagged when most are."""

from __future__ import annotations

import csv
import json
import re
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from engine import sessions
from engine.core.families.kumo.generate import GenerationError, generate_instance
from engine.models import FamilyAttempt, FamilyTask, Instance, PlaySession, PlayStep
from humanstudy import actions
from humanstudy import reports as study_reports
from humanstudy.models import Participant, StudySettings, TaskSet, TaskSetItem
from humanstudy.scoring import QualityThresholds, quality_problems
from tests.humanstudy.conftest import (
    PAGE_REPORT,
    build_study,
    finish_questionnaire,
    log_in,
    pid,
    walk_to_tasks,
)

pytestmark = pytest.mark.django_db

PROLIFIC_ID = "5f1a2b3c4d5e6f7a8b9c0d1e"


@pytest.fixture
def sets_with_a_family_task(db):
    """The study fixture's three sets, one more with a family task, and no participants."""
    build_study(participants=0)
    call_command(
        "build_task_sets", "--count", "1", "--family-task", "simple/logic/easy", stdout=StringIO()
    )
    return TaskSetItem.objects.select_related("instance", "family_task")


def _listed_ids(client: APIClient, url: str) -> set[int]:
    ids: set[int] = set()
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        ids |= {row["id"] for row in response.json()["results"]}
        url = response.json()["next"]
    return ids


def join(label: str, address: str = "10.0.0.1") -> tuple[Client, object]:
    client = Client(REMOTE_ADDR=address)
    key = StudySettings.current().link_key
    return client, client.get(f"/study/join/{key}/", {"PROLIFIC_PID": label})


# -- 1. task-set tasks: secret seeds, in no public list, not playable outside the study ------


def test_study_tasks_are_in_no_public_list_and_cannot_be_started_outside_the_study(
    sets_with_a_family_task, play_family
):
    items = list(sets_with_a_family_task)
    instances = {item.instance for item in items if item.instance_id}
    tasks = {item.family_task for item in items if item.family_task_id}
    assert len(instances) == 4 * 10 and len(tasks) == 1  # each set its own fresh tasks
    assert {instance.source for instance in instances} == {Instance.Source.STUDY}
    assert {task.origin for task in tasks} == {FamilyTask.Origin.STUDY}
    # Public instances of the same domains and settings exist, and are listed.
    public = set(
        Instance.objects.filter(source=Instance.Source.GENERATED).values_list("pk", flat=True)
    )
    assert public

    out = StringIO()
    call_command("create_api_token", "researcher", stdout=out, stderr=StringIO())
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    listed = _listed_ids(api, "/api/v1/instances/?limit=1000")
    assert public <= listed and not listed & {i.pk for i in instances}
    task = next(iter(tasks))
    listed_tasks = _listed_ids(api, "/api/v1/family-tasks/?limit=1000")
    assert task.pk not in listed_tasks
    assert not _listed_ids(api, "/api/v1/family-tasks/?family=simple&kind=logic&level=easy") & {
        task.pk
    }

    # Starting a game or an attempt on them answers like a task that does not exist.
    instance = next(iter(instances))
    refused = api.post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    assert refused.status_code == 400 and "does not exist" in json.dumps(refused.json())
    refused = api.post("/api/v1/family-attempts/", {"task": task.pk}, format="json")
    assert refused.status_code == 400 and "does not exist" in json.dumps(refused.json())
    assert not PlaySession.objects.filter(instance__in=instances).exists()
    assert not FamilyAttempt.objects.filter(task=task).exists()

    # The families' page draws a stored task of the kind: never the study's.
    browser = Client()
    browser.force_login(User.objects.create_user("visitor1", password="pw-visitor-1"))
    play_family(browser, "simple", "logic", "easy")
    drawn = FamilyAttempt.objects.get(player__username="visitor1").task
    assert drawn != task and drawn.origin == FamilyTask.Origin.PUBLIC


def test_a_participant_never_sees_a_seed_that_regenerates_their_tasks(db):
    """The seed attack on the study: every integer a participant's pages and game states
    show is tried as a seed with the project's own generator; none rebuilds a task."""
    rows = build_study(participants=1)
    client = log_in(rows[0]["id"], rows[0]["password"])
    participant = Participant.objects.get(user__username=rows[0]["id"])
    shown = [client.get("/study/tasks/").content.decode()]
    for item in participant.task_set.items.all():
        location = client.post(f"/study/tasks/{item.position}/")["Location"]
        shown.append(client.get(location).content.decode())
    for session in PlaySession.objects.filter(player=participant.user):
        shown.append(json.dumps(sessions.session_state(session, include_book=True)))
    numbers = {int(n) for text in shown for n in re.findall(r"\d+", text) if len(n) < 19}

    instances = [item.instance for item in participant.task_set.items.select_related("instance")]
    assert len(instances) == 10
    for instance in instances:
        assert str(instance.seed) not in "".join(shown)
        assert instance.seed not in numbers
        core = instance.domain.to_core()
        for number in sorted(numbers)[:300]:
            try:
                rebuilt = generate_instance(core, instance.n_truths, instance.n_actions, number)
            except GenerationError:
                continue
            assert (list(rebuilt.truths), list(rebuilt.valid_truths)) != (
                instance.truths,
                instance.valid_truths,
            ) or sorted(rebuilt.observations.items()) != sorted(instance.observations.items())


def test_a_seeded_build_is_secret_keyed_not_public(db, settings):
    """``build_task_sets --seed`` repeats on the same server (same secret), and makes other
    tasks under another secret: the public number alone regenerates nothing."""
    build_study(participants=0)

    def build() -> list[int]:
        TaskSetItem.objects.all().delete()
        TaskSet.objects.all().delete()
        Instance.objects.filter(source=Instance.Source.STUDY).delete()
        call_command("build_task_sets", "--count", "1", "--seed", "11", stdout=StringIO())
        return sorted(TaskSetItem.objects.values_list("instance__seed", flat=True))

    first = build()
    assert build() == first
    settings.TASK_SEED_SECRET = "another server's secret"
    assert not set(build()) & set(first)
    assert 11 not in first and not set(first) & set(range(11, 11 + 100))


# -- 2. recruitment labels -------------------------------------------------------------------


def test_label_variants_are_one_participant_and_malformed_ones_are_refused(db):
    build_study(participants=0)
    client, response = join(PROLIFIC_ID.upper())
    assert response.status_code == 302
    participant = Participant.objects.get()
    assert participant.label == PROLIFIC_ID  # stored normalised: case folded

    # The same person with a variant of their link resumes; anyone else is refused.
    assert join(f" {PROLIFIC_ID}.")[1].status_code == 403
    _, resumed = (
        client,
        client.get(
            f"/study/join/{StudySettings.current().link_key}/", {"PROLIFIC_PID": f"{PROLIFIC_ID}."}
        ),
    )
    assert resumed["Location"] == "/study/"
    fullwidth = PROLIFIC_ID.translate({ord(c): ord(c) + 0xFEE0 for c in "0123456789abcdef"})
    for variant in (PROLIFIC_ID, f"{PROLIFIC_ID}.", f"'{PROLIFIC_ID}'\u200b", fullwidth):
        refused = join(variant)[1]
        assert refused.status_code == 403 and "already taken part" in refused.content.decode()

    # A suffix, a short or a non-hexadecimal ID never matches: a page says what is valid.
    for bad in (f"{PROLIFIC_ID}-1-1", PROLIFIC_ID[:20], "z" * 24, "5f1a 2b3c4d5e6f7a8b9c0d1e0"):
        refused = join(bad)[1]
        page = refused.content.decode()
        assert refused.status_code == 400
        assert "is not a valid participant ID" in page
        assert "24 characters, each a digit 0–9 or a letter a–f" in page
    assert Participant.objects.count() == 1


# -- 3. the link cannot be farmed --------------------------------------------------------------


@override_settings(STUDY_JOINS_PER_HOUR_PER_IP=2)
def test_joins_are_limited_per_address_and_hour(db):
    build_study(participants=0)
    assert join(pid("a1"))[1].status_code == 302
    assert join(pid("a2"))[1].status_code == 302
    refused = join(pid("a3"))[1]
    assert refused.status_code == 429
    assert "Too many sign-ups from your network" in refused.content.decode()
    assert not Participant.objects.filter(label=pid("a3")).exists()
    # Another address is counted apart; the address itself is never stored.
    assert join(pid("b1"), address="10.0.0.2")[1].status_code == 302
    assert not Participant.objects.filter(joined_from__contains="10.0.0").exists()
    with time_machine.travel(timezone.now() + timedelta(hours=1, minutes=1)):
        assert join(pid("a3"))[1].status_code == 302
    assert Participant.objects.count() == 4


def test_the_study_closes_at_its_target_size(db):
    build_study(participants=0)
    config = StudySettings.current()
    config.target_participants = 2
    config.save()
    first, _ = join(pid("first"), address="10.0.0.1")
    first.post("/study/consent/", {"choice": "decline"})  # a decliner takes no place
    assert join(pid("second"), address="10.0.0.2")[1].status_code == 302
    assert join(pid("third"), address="10.0.0.3")[1].status_code == 302
    full = join(pid("fourth"), address="10.0.0.4")[1]
    assert full.status_code == 403 and "The study is full" in full.content.decode()
    assert not Participant.objects.filter(label=pid("fourth")).exists()
    config.target_participants = 0  # no cap
    config.save()
    assert join(pid("fourth"), address="10.0.0.4")[1].status_code == 302


# -- 4. moves with no client report ------------------------------------------------------------


def _play_set(participant: Participant, client: Client, report) -> None:
    """Open every task of the set and answer it at once (after one action where there is
    one), each move with ``report`` (None: no report)."""
    for item in participant.task_set.items.select_related("instance"):
        location = client.post(f"/study/tasks/{item.position}/")["Location"]
        session = PlaySession.objects.get(pk=int(location.strip("/").split("/")[-1]))
        sessions.take_action(session.pk, participant.user, item.instance.actions[0], report)
        sessions.answer(session.pk, participant.user, item.instance.valid_truths[0], report)


def test_moves_with_no_client_report_are_recorded_as_such_and_flagged(db):
    rows = build_study(participants=2)
    config = StudySettings.current()
    config.min_median_seconds_per_move = 0  # bots' speed is not the point here
    config.save()
    silent = Participant.objects.get(user__username=rows[0]["id"])
    reporting = Participant.objects.get(user__username=rows[1]["id"])
    report = PAGE_REPORT
    for participant, sent in ((silent, None), (reporting, report)):
        client = Client()
        client.force_login(participant.user)
        walk_to_tasks(client)
        _play_set(participant, client, sent)
        finish_questionnaire(client)

    steps = PlayStep.objects.filter(
        session__player=silent.user, session__instance__source=Instance.Source.STUDY
    )
    assert steps.count() == 20 and not steps.exclude(client=None).exists()
    silent.refresh_from_db()
    reporting.refresh_from_db()
    assert silent.flagged
    assert any("20 of 20 moves came with no report" in r for r in silent.flag_reasons)
    assert not any("no report" in r for r in reporting.flag_reasons)
    assert actions.client_reports()[silent.user_id].unreported == 20
    assert actions.client_reports()[reporting.user_id].unreported == 0

    admin = Client()
    admin.force_login(User.objects.create_superuser("boss", "b@example.org", "pw-boss-1"))
    exported = csv.DictReader(
        StringIO(admin.get("/study/export/participants.csv").content.decode())
    )
    by_name = {row["participant"]: row for row in exported}
    assert by_name[silent.user.username]["moves_unreported"] == "20"
    assert by_name[silent.user.username]["moves"] == "20"
    assert by_name[reporting.user.username]["moves_unreported"] == "0"
    assert "no report" in by_name[silent.user.username]["flag_reasons"]
    steps_json = json.loads(admin.get("/study/export/steps.json").content)
    mine = [s for s in steps_json if s["participant"] == silent.user.username]
    assert mine and not any(s["client_reported"] for s in mine if s["position"] != "practice")
    monitor = {
        row["participant"]: row for row in admin.get("/study/monitor.json").json()["participants"]
    }
    assert monitor[silent.user.username]["moves_unreported"] == 20
    assert any("no report" in r for r in monitor[silent.user.username]["flag_reasons"])
    assert monitor[reporting.user.username]["moves_unreported"] == 0

    # The rule is off at 0, like the others.
    config.max_unreported_share = 0
    config.save()
    assert not actions.evaluate_participant(silent).flagged


def test_a_family_answer_with_no_report_is_stored_as_none(sets_with_a_family_task):
    made = StringIO()
    call_command("create_participants", "--count", "1", stdout=made, stderr=StringIO())
    row = next(csv.DictReader(StringIO(made.getvalue())))
    participant = Participant.objects.get(user__username=row["id"])
    participant.task_set = TaskSet.objects.get(items__family_task__isnull=False)
    participant.save(update_fields=["task_set"])
    client = log_in(row["id"], row["password"])
    position = participant.task_set.items.get(family_task__isnull=False).position
    location = client.post(f"/study/tasks/{position}/")["Location"]
    client.post(location, {"answer": "true"})  # the form without the page's report
    attempt = FamilyAttempt.objects.get(player=participant.user)
    assert attempt.finished_at is not None and attempt.client is None
    assert actions.client_reports()[participant.user_id].unreported == 1


def test_a_study_games_moves_are_steps_each_with_its_own_report(db):
    """A game of another family records every move sent as a step, refused ones too, each
    with its time and the page's report (None when none came); the quality filter and the
    export read the moves one by one, as they read a KUMO game's steps."""
    build_study(participants=0)
    call_command(
        "build_task_sets", "--count", "1", "--family-task", "games/mastermind/easy",
        stdout=StringIO(),
    )  # fmt: skip
    made = StringIO()
    call_command("create_participants", "--count", "1", stdout=made, stderr=StringIO())
    row = next(csv.DictReader(StringIO(made.getvalue())))
    participant = Participant.objects.get(user__username=row["id"])
    participant.task_set = TaskSet.objects.get(items__family_task__isnull=False)
    participant.save(update_fields=["task_set"])
    client = log_in(row["id"], row["password"])
    item = participant.task_set.items.get(family_task__isnull=False)
    location = client.post(f"/study/tasks/{item.position}/")["Location"]
    code = item.family_task.hidden["code"]
    wrong = [g for g in ("RRR", "GGG", "BBB", "YYY") if g != code][:2]
    pasted = json.dumps({**PAGE_REPORT, "pastes": 1, "hidden_ms": 4000})
    client.post(location, {"move": wrong[0], "client": pasted})
    client.post(location, {"move": "not a code", "client": json.dumps(PAGE_REPORT)})
    client.post(location, {"move": wrong[1]})  # no report: recorded as none
    client.post(location, {"move": code, "client": pasted})
    attempt = FamilyAttempt.objects.get(player=participant.user)
    assert attempt.finished and attempt.correct and attempt.invalid_moves == 1
    assert attempt.played_moves() == [*wrong, code] and attempt.client is None
    steps = list(attempt.steps.order_by("index"))
    assert [(s.index, s.move, s.accepted) for s in steps] == [
        (0, wrong[0], True), (1, "not a code", False), (2, wrong[1], True), (3, code, True)
    ]  # fmt: skip
    assert steps[1].error and not steps[0].error
    assert [s.client is None for s in steps] == [False, False, True, False]
    assert steps[0].client["pastes"] == 1 and steps[3].client["hidden_ms"] == 4000
    assert steps[0].created_at <= steps[1].created_at <= steps[2].created_at
    assert steps[0].created_at >= attempt.started_at

    (task,) = actions.study_tasks(participant)
    assert [m.kind for m in task.moves] == ["move"] * 4
    assert [m.reported for m in task.moves] == [True, True, False, True]
    assert [m.elapsed_ms for m in task.moves] == [s.elapsed_ms for s in steps]
    reports = actions.client_reports()[participant.user_id]
    assert (reports.moves, reports.unreported) == (4, 1)
    strict = QualityThresholds(min_median_seconds_per_move=0, max_unreported_share=0.2)
    assert any("1 of 4 moves came with no report" in p for p in quality_problems([task], strict))
    assert any("pasted 2 times" in p for p in quality_problems([task], QualityThresholds(
        min_median_seconds_per_move=0, max_pastes=1)))  # fmt: skip

    rows = [r for r in study_reports.step_rows() if r["family"] == "games"]
    assert [(r["step"], r["kind"], r["sent"], r["accepted"]) for r in rows] == [
        (0, "move", wrong[0], True), (1, "move", "not a code", False),
        (2, "move", wrong[1], True), (3, "move", code, True),
    ]  # fmt: skip
    assert [r["client_reported"] for r in rows] == [True, True, False, True]
    assert rows[0]["client_pastes"] == 1 and rows[2]["client_pastes"] == ""
    assert rows[0]["observation"] and rows[1]["observation"] == "" and rows[1]["error"]
    assert all(r["session_correct"] is True for r in rows)
