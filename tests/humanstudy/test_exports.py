"""The study's CSV exports never hand a spreadsheet a formula: what a participant typed is
written as text (a leading apostrophe), numbers stay numbers, and JSON keeps it exact."""

from __future__ import annotations

import csv
import json
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.test import Client

from engine import sessions
from humanstudy.models import Participant, TaskSet, TaskSetItem

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("http://evil.example/phish","open")'


@pytest.fixture
def admin_client_with_steps(orchard):
    """A participant who typed a formula and a signed sum as actions, then played properly."""
    instance = orchard.instances.order_by("seed").first()
    task_set = TaskSet.objects.create(name="@set")
    TaskSetItem.objects.create(task_set=task_set, instance=instance, position=1)
    user = User.objects.create_user("p-001", password="a long password here")
    Participant.objects.create(user=user, task_set=task_set)
    session, _ = sessions.start_session(user, instance)
    for typed in (FORMULA, "+1+1", "-2"):
        outcome = sessions.take_action(session.pk, user, typed)
        assert not outcome.accepted
    sessions.take_action(session.pk, user, instance.actions[0])
    admin = Client()
    admin.force_login(User.objects.create_superuser("boss", "b@example.org", "pw-boss-123"))
    return admin


def test_it_writes_typed_formulas_in_the_steps_csv_as_text(admin_client_with_steps):
    response = admin_client_with_steps.get("/study/export/steps.csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(StringIO(b"".join(response.streaming_content).decode())))
    assert [row["sent"] for row in rows][:3] == ["'" + FORMULA, "'+1+1", "'-2"]
    assert {row["task_set"] for row in rows} == {"'@set"}
    assert not any(
        value.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows for value in row.values()
    )
    # Numbers are left alone.
    assert [row["step"] for row in rows] == ["0", "1", "2", "3"]


def test_it_keeps_typed_text_exact_in_the_steps_json(admin_client_with_steps):
    steps = json.loads(admin_client_with_steps.get("/study/export/steps.json").content)
    assert [step["sent"] for step in steps][:3] == [FORMULA, "+1+1", "-2"]


def test_it_writes_the_task_set_in_the_participants_csv_as_text(admin_client_with_steps):
    response = admin_client_with_steps.get("/study/export/participants.csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(StringIO(response.content.decode())))
    assert [(row["participant"], row["task_set"]) for row in rows] == [("p-001", "'@set")]
