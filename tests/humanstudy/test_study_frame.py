"""A study for every family: the study's own frame (no site nav, log-out lands on a study
page), a friendly refusal of a task outside the set, the set's tasks described, the
currency shown with pay, comprehension keeping right answers, local times on the monitor,
whole links in the admin, and the bots refusing a set they cannot play before anyone
joins."""

from __future__ import annotations

import csv
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from engine.models import FamilyTask
from humanstudy import bots
from humanstudy.models import Participant, StudySettings, TaskSet
from tests.humanstudy.conftest import RIGHT_ANSWERS, build_study, log_in

pytestmark = pytest.mark.django_db

SITE_NAV = ('href="/families/"', "Leaderboard", "KUMO platform</a>")


def mixed_sets(*specs: str) -> list[dict]:
    build_study(participants=0)
    TaskSet.objects.all().delete()
    call_command(
        "build_task_sets", "--count", "1", "--seed", "3",
        *[arg for spec in specs for arg in ("--family-task", spec)], stdout=StringIO(),
    )  # fmt: skip
    call_command(
        "generate_tasks", "chemical", "--truths", "4", "--actions", "6", "--count", "4",
        stdout=StringIO(),
    )  # fmt: skip
    made = StringIO()
    call_command("create_participants", "--count", "1", stdout=made, stderr=StringIO())
    return list(csv.DictReader(StringIO(made.getvalue())))


def assert_study_frame(html: str) -> None:
    assert 'id="study-header"' in html
    for mark in SITE_NAV:
        assert mark not in html, mark


def test_a_participant_walks_in_the_study_frame_and_logs_out_to_a_study_page():
    row = mixed_sets("simple/logic/easy")[0]
    client = log_in(row["id"], row["password"], walk=False)
    consent = client.get("/study/consent/").content.decode()
    assert_study_frame(consent)
    # Its "Log out" sends the study's own page as where to land.
    assert '<input type="hidden" name="next" value="/study/logged-out/">' in consent
    client.post("/study/consent/", {"choice": "agree"})
    instructions = client.get("/study/instructions/").content.decode()
    assert_study_frame(instructions)
    # The set's tasks in words: the KUMO games by truths and actions, the family task by
    # its kind and level.
    assert "KUMO games with 4 candidates and 6 actions each" in instructions
    assert "Truth of a first-order formula in a small world (easy level)" in instructions
    assert 'id="other-tasks"' in instructions

    logout = client.post("/accounts/logout/", {"next": "/study/logged-out/"}, follow=True)
    assert logout.redirect_chain[-1][0] == "/study/logged-out/"
    page = logout.content.decode()
    assert "You have logged out" in page and "Django administration" not in page
    assert_study_frame(page)


def test_a_wrong_comprehension_answer_keeps_the_right_ones():
    row = mixed_sets()[0]
    client = log_in(row["id"], row["password"], walk=False)
    client.post("/study/consent/", {"choice": "agree"})
    answers = {**RIGHT_ANSWERS, "actions": "nothing"}
    page = client.post("/study/instructions/", answers)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="wrong-actions"' in html and 'id="wrong-valid"' not in html
    assert 'value="one" required checked' in html  # kept
    assert 'value="guide" required checked' in html
    assert 'value="purple" required checked' in html
    assert 'value="nothing" required checked' not in html  # cleared
    assert 'value="costs" required checked' not in html
    participant = Participant.objects.get(user__username=row["id"])
    assert participant.stage == "instructions" and participant.comprehension_attempts == 1


def test_pay_is_shown_in_the_study_currency():
    row = mixed_sets()[0]
    config = StudySettings.current()
    config.currency = "GBP"
    config.save()
    client = log_in(row["id"], row["password"])
    html = client.get("/study/tasks/").content.decode()
    assert "25.00 GBP + (tasks solved" in html and "0.10 GBP per action" in html
    assert '<dd id="pay-so-far">25.00 GBP</dd>' in html  # nothing solved, no actions yet
    assert "$" not in html
    config.currency = "£"
    config.save()
    assert '<dd id="pay-so-far">£25.00</dd>' in client.get("/study/tasks/").content.decode()


def test_a_task_outside_the_set_gets_a_friendly_page_in_the_study_frame():
    row = mixed_sets("simple/logic/easy")[0]
    client = log_in(row["id"], row["password"])
    refused = client.post("/families/play/", {"family": "simple", "kind": "logic", "level": "easy"})
    assert refused.status_code == 403
    html = refused.content.decode()
    assert "This task is not part of your study" in html and 'id="back-to-study"' in html
    assert_study_frame(html)
    before = FamilyTask.objects.count()
    assert client.get("/study/tasks/").status_code == 200
    assert FamilyTask.objects.count() == before


def test_the_family_task_page_of_the_study_has_no_site_nav():
    row = mixed_sets("simple/logic/easy")[0]
    client = log_in(row["id"], row["password"])
    participant = Participant.objects.get(user__username=row["id"])
    position = participant.task_set.items.get(family_task__kind="logic").position
    tasks = client.get("/study/tasks/").content.decode()
    assert_study_frame(tasks)
    assert "answer it once, on its page" in tasks
    page = client.post(f"/study/tasks/{position}/", follow=True)
    assert page.redirect_chain[-1][0].startswith("/families/attempts/")
    assert_study_frame(page.content.decode())


def test_staff_see_whole_links_and_local_times():
    mixed_sets()
    admin = Client()
    admin.force_login(User.objects.create_superuser("boss", "b@example.org", "pw-boss-1"))
    config = StudySettings.current()
    html = admin.get(f"/admin/humanstudy/studysettings/{config.pk}/change/").content.decode()
    assert f"http://testserver/study/join/{config.link_key}/?PROLIFIC_PID=" in html
    participant = Participant.objects.first()
    html = admin.get(f"/admin/humanstudy/participant/{participant.pk}/change/").content.decode()
    assert f"http://testserver/study/p/{participant.link_key}/" in html
    monitor = admin.get("/study/monitor/").content.decode()
    assert '<time id="generated-at" datetime="' in monitor
    assert monitor.count("<time datetime=") == Participant.objects.count()


def test_the_bots_refuse_a_set_they_cannot_play_before_anyone_joins():
    mixed_sets("puzzles/cryptogram/easy")
    before = Participant.objects.count()
    with pytest.raises(CommandError, match="cannot fill a cryptogram form"):
        call_command("study_bots", "--count", "2", "--url", "http://127.0.0.1:9", stdout=StringIO())
    assert Participant.objects.count() == before


@pytest.mark.parametrize("spec", ["puzzles/sudoku/easy", "puzzles/logic_grid/easy",
                                  "simple/logic/easy", "games/hanoi/easy"])  # fmt: skip
def test_a_bot_plan_sends_the_reference_through_the_task_page_form(spec):
    from engine.families import do_generate_family_tasks

    family, kind, level = spec.split("/")
    do_generate_family_tasks(family, kind, count=1, seed=4, level=level)
    task = FamilyTask.objects.get(family=family, kind=kind)
    plan = bots.family_plan(task)  # checks that the reference, sent so, is right
    assert plan.interactive == (family == "games")
    assert plan.reference and plan.random
