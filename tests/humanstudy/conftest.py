"""The study fixture and the steps every participant walks, shared by the study's tests."""

from __future__ import annotations

import csv
import hashlib
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from engine import sessions
from engine.models import PlaySession
from humanstudy.models import StudySettings

STUDY_DOMAINS = ("chemical", "education", "fantasy", "medical", "music")
DOMAINS_DIR = Path(__file__).resolve().parents[2] / "engine" / "domains"


def build_study(participants: int = 3) -> list[dict]:
    """The five shipped study domains, with the Hard setting made smaller (an admin
    setting) so that the suite does not spend its time on optimal search; three task sets,
    a practice task, and ``participants`` ID/password participants (their CSV rows)."""
    config = StudySettings.current()
    config.hard_truths, config.hard_actions = 6, 8
    config.save()
    for name in STUDY_DOMAINS:
        call_command("import_domain", str(DOMAINS_DIR / f"{name}.json"), stdout=StringIO())
        for truths, actions in ((4, 6), (6, 8)):
            call_command(
                "generate_tasks",
                name,
                "--truths",
                str(truths),
                "--actions",
                str(actions),
                "--count",
                "2",
                stdout=StringIO(),
            )
    call_command("build_task_sets", "--count", "3", "--seed", "7", stdout=StringIO())
    # One more Easy instance that no task set uses: the practice task.
    call_command(
        "generate_tasks",
        "chemical",
        "--truths",
        "4",
        "--actions",
        "6",
        "--count",
        "3",
        stdout=StringIO(),
    )
    if not participants:
        return []
    out = StringIO()
    call_command("create_participants", "--count", str(participants), stdout=out, stderr=StringIO())
    return list(csv.DictReader(StringIO(out.getvalue())))


def pid(name: str) -> str:
    """A valid recruitment label (24 hexadecimal digits, as Prolific's IDs) named by
    ``name``, so that tests can speak of "finisher1" and still join by the study's rules."""
    return hashlib.sha256(name.encode()).hexdigest()[:24]


@pytest.fixture
def study(db):
    return build_study()


def log_in(username: str, password: str, *, walk: bool = True) -> Client:
    """Sign in with ID and password; with ``walk``, go through consent, instructions and
    the practice task to the task set, as every participant must."""
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302, "login failed"
    assert response["Location"] == "/study/"
    if walk:
        walk_to_tasks(client)
    return client


# What the play page reports with a careful player's move (static/js/play_signals.js): tests
# that play through the session service send it, as the page would; a move sent without it
# counts as unreported (the quality filter's max_unreported_share).
PAGE_REPORT = {
    "pastes": 0,
    "copies": 0,
    "hidden_count": 0,
    "hidden_ms": 0,
    "blur_count": 0,
    "blur_ms": 0,
    "keys": 4,
    "first_input_ms": 2500,
}

RIGHT_ANSWERS = {"valid": "one", "actions": "costs", "outcome": "guide", "colour": "purple"}


def walk_to_tasks(client: Client) -> None:
    """Consent, the comprehension check (right at once) and the practice task, by the pages."""
    assert client.get("/study/")["Location"] == "/study/consent/"
    assert "What the study records" in client.get("/study/consent/").content.decode()
    assert client.post("/study/consent/", {"choice": "agree"})["Location"] == "/study/"
    assert client.get("/study/")["Location"] == "/study/instructions/"
    assert client.post("/study/instructions/", RIGHT_ANSWERS)["Location"] == "/study/"
    assert client.get("/study/")["Location"] == "/study/practice/"
    location = client.post("/study/practice/", {"do": "start"})["Location"]
    assert location.startswith("/play/")
    session = PlaySession.objects.get(pk=int(location.strip("/").split("/")[-1]))
    sessions.answer(session.pk, session.player, session.instance.truths[0])
    assert client.post("/study/practice/", {"do": "continue"})["Location"] == "/study/"
    assert client.get("/study/")["Location"] == "/study/tasks/"


def finish_questionnaire(client: Client) -> str:
    """Answer the end questionnaire attentively; returns the completion page."""
    page = client.get("/study/", follow=True).content.decode()
    assert "Before you finish" in page  # the last task ended: on to the questionnaire
    answers = {"difficulty": "3", "help": "no", "attention": "sometimes", "comment": ""}
    assert client.post("/study/questionnaire/", answers)["Location"] == "/study/"
    return client.get("/study/", follow=True).content.decode()
