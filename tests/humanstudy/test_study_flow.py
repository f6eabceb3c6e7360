"""A bot walks every page a participant and an admin see, as oTree's bots do."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from engine import sessions
from engine.models import PlaySession
from humanstudy.models import Participant, StudySettings, TaskSet
from tests.humanstudy.conftest import PAGE_REPORT, STUDY_DOMAINS, finish_questionnaire, log_in

pytestmark = pytest.mark.django_db


def test_task_sets_hold_five_easy_and_five_hard_tasks_over_the_five_domains(study):
    for task_set in TaskSet.objects.all():
        items = list(task_set.items.select_related("instance__domain"))
        assert len(items) == 10
        settings = sorted((i.instance.domain.name, i.instance.n_truths) for i in items)
        assert settings == sorted((d, n) for d in STUDY_DOMAINS for n in (4, 6))


def test_create_participants_prints_credentials_that_work(study):
    assert [set(row) for row in study] == [{"id", "password", "task_set", "link"}] * 3
    assert len({row["id"] for row in study}) == 3
    for row in study:
        participant = Participant.objects.get(user__username=row["id"])
        assert participant.task_set.name == row["task_set"]
        page = log_in(row["id"], row["password"]).get("/study/tasks/").content.decode()
        assert "Your tasks" in page


def play_set(client: Client, participant: Participant, *, careful: bool) -> None:
    """Play every task of the set through the pages and the session service."""
    for item in participant.task_set.items.order_by("position"):
        response = client.post(f"/study/tasks/{item.position}/")
        assert response.status_code == 302 and response["Location"].startswith("/play/")
        session = PlaySession.objects.get(player=participant.user, instance=item.instance)
        assert client.get(response["Location"]).status_code == 200
        instance = item.instance
        if careful:
            sessions.take_action(session.pk, participant.user, instance.actions[0], PAGE_REPORT)
            guess = instance.valid_truths[0]
        else:
            guess = sorted(t for t in instance.truths if t not in instance.valid_truths)[0]
        sessions.answer(session.pk, participant.user, guess, PAGE_REPORT)


def test_a_participant_plays_the_whole_set_and_sees_the_pay(study):
    row = study[0]
    client = log_in(row["id"], row["password"])
    participant = Participant.objects.get(user__username=row["id"])
    page = client.get("/study/tasks/").content.decode()
    assert "0 of 10" in page and "$25.00" in page and "Start task 1" in page

    # Steps carry real elapsed times; make them look like a careful human's.
    play_set(client, participant, careful=True)
    from engine.models import PlayStep

    PlayStep.objects.filter(session__player=participant.user).update(elapsed_ms=9000)
    assert client.get("/study/tasks/")["Location"] == "/study/"  # on to the questionnaire
    page = finish_questionnaire(client)
    # 25 + 1.0 × 15 − 10 actions × 0.1
    assert "$39.00" in page and "you have finished" in page
    participant.refresh_from_db()
    assert participant.completed_at is not None and not participant.flagged
    assert participant.completion_code and participant.completion_code in page
    assert participant.answers["help"] == "no"
    assert [check["passed"] for check in participant.attention] == [True, True]


def test_fast_random_play_is_flagged_and_forfeits_pay(study):
    row = study[1]
    client = log_in(row["id"], row["password"])
    participant = Participant.objects.get(user__username=row["id"])
    play_set(client, participant, careful=False)  # answers at once, all wrong
    call_command("select_for_analysis", "--seed", "1", stdout=StringIO())
    participant.refresh_from_db()
    assert participant.flagged
    assert any("answered before any action" in reason for reason in participant.flag_reasons)
    assert not participant.selected_for_analysis

    admin = Client()
    from django.contrib.auth.models import User

    admin.force_login(User.objects.create_superuser("boss", "b@example.org", "pw-boss-123"))
    overview = admin.get("/study/overview/").content.decode()
    assert (
        row["id"] in overview
        and "flagged:" in overview
        and "answered before any action" in overview
    )
    participants = list(
        csv.DictReader(StringIO(admin.get("/study/export/participants.csv").content.decode()))
    )
    mine = next(p for p in participants if p["participant"] == row["id"])
    assert mine["pay"] == "25.00" and mine["pay_due"] == "0" and mine["flagged"] == "True"

    steps_csv = b"".join(admin.get("/study/export/steps.csv").streaming_content).decode()
    steps = list(csv.DictReader(StringIO(steps_csv)))
    # The practice answer, then one answer per task.
    assert [s["position"] for s in steps] == ["practice"] + [str(p) for p in range(1, 11)]
    assert {s["participant"] for s in steps} == {row["id"]}
    steps_json = json.loads(admin.get("/study/export/steps.json").content)
    assert len(steps_json) == 11 and {s["kind"] for s in steps_json} == {"answer"}
    assert admin.get("/study/export/steps.xml").status_code == 404


def test_one_passing_participant_per_set_is_chosen_for_analysis(study):
    for row in study:
        participant = Participant.objects.get(user__username=row["id"])
        play_set(log_in(row["id"], row["password"]), participant, careful=True)
    from engine.models import PlayStep

    PlayStep.objects.update(elapsed_ms=9000)
    call_command("select_for_analysis", "--seed", "3", stdout=StringIO())
    chosen = Participant.objects.filter(selected_for_analysis=True)
    used_sets = Participant.objects.values_list("task_set", flat=True).distinct()
    assert chosen.count() == len(set(used_sets))
    assert len(set(chosen.values_list("task_set", flat=True))) == chosen.count()


def test_participants_see_only_their_own_sessions(study):
    first, second = study[0], study[1]
    owner = Participant.objects.get(user__username=first["id"])
    client = log_in(first["id"], first["password"])
    location = client.post("/study/tasks/1/")["Location"]
    stranger = log_in(second["id"], second["password"])
    assert stranger.get(location).status_code == 404
    in_set = owner.task_set.items.values("instance_id")
    assert PlaySession.objects.filter(player=owner.user, instance__in=in_set).count() == 1


def test_pages_need_login_and_staff(study):
    anonymous = Client()
    assert anonymous.get("/study/")["Location"].startswith("/accounts/login/")
    row = study[0]
    client = log_in(row["id"], row["password"])
    assert client.get("/study/overview/").status_code == 302  # to the admin login
    assert client.get("/study/tasks/1/").status_code == 405
    assert client.post("/study/tasks/99/").status_code == 302


def test_login_is_rate_limited(study):
    row = study[0]
    client = Client()
    for attempt in range(1, 6):
        response = client.post("/accounts/login/", {"username": row["id"], "password": "wrong"})
        # The fifth failure (LOGIN_FAILURE_LIMIT) is the one that locks the account.
        assert response.status_code == (429 if attempt == 5 else 200)
    locked = client.post("/accounts/login/", {"username": row["id"], "password": row["password"]})
    assert locked.status_code == 429
    assert "Too many failed log-in attempts" in locked.content.decode()


def test_pay_settings_are_admin_settings(study):
    config = StudySettings.current()
    config.per_action_cost = Decimal("0.50")
    config.save()
    row = study[0]
    participant = Participant.objects.get(user__username=row["id"])
    client = log_in(row["id"], row["password"])
    play_set(client, participant, careful=True)
    assert "$35.00" in finish_questionnaire(client)  # 25 + 15 − 10 × 0.5


def test_the_human_baseline_is_on_the_board_as_soon_as_participants_are_selected(
    study, django_capture_on_commit_callbacks
):
    from engine.models import PlayStep
    from leaderboard.models import BoardRow
    from leaderboard.recompute import HUMANS

    for row, careful in zip(study, (True, False, True), strict=True):
        participant = Participant.objects.get(user__username=row["id"])
        play_set(log_in(row["id"], row["password"]), participant, careful=careful)
    PlayStep.objects.update(elapsed_ms=9000)
    assert not BoardRow.objects.filter(model__name=HUMANS).exists()

    with django_capture_on_commit_callbacks(execute=True):
        call_command("select_for_analysis", "--seed", "3", stdout=StringIO())
    chosen = Participant.objects.filter(selected_for_analysis=True)
    assert chosen.exists() and not chosen.filter(flagged=True).exists()
    # No recompute by hand: the selection refreshed the human rows (careful play solves
    # every task, so every human row has success rate 1).
    rows = BoardRow.objects.filter(model__name=HUMANS, domain__isnull=True)
    assert rows.exists() and {row.success_rate for row in rows} == {1.0}
    before = chosen.count()
    assert sum(row.trajectories for row in rows) == 10 * before

    # A selected participant flagged later drops out of the baseline at once.
    picked = chosen.first()
    config = StudySettings.current()
    config.min_median_seconds_per_move = 60
    config.save()
    with django_capture_on_commit_callbacks(execute=True):
        from humanstudy.actions import evaluate_participant

        evaluate_participant(picked)
    picked.refresh_from_db()
    assert picked.flagged and not picked.selected_for_analysis
    remaining = BoardRow.objects.filter(model__name=HUMANS, domain__isnull=True)
    assert sum(row.trajectories for row in remaining) == 10 * (before - 1)
