"""The participant's path through the pages: study and personal links, consent, the
comprehension check, practice, time limits, the questionnaire and the completion code."""

from __future__ import annotations

import csv
from io import StringIO

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from engine import sessions
from engine.models import PlaySession
from humanstudy import path
from humanstudy.models import Participant, StudySettings
from humanstudy.scoring import (
    QualityThresholds,
    StudyMove,
    StudyTask,
    chance_p_value,
    quality_problems,
)
from tests.humanstudy.conftest import RIGHT_ANSWERS, pid, walk_to_tasks

pytestmark = pytest.mark.django_db


def study_link(label: str | None, key: str | None = None) -> str:
    key = key or StudySettings.current().link_key
    return f"/study/join/{key}/" + (f"?PROLIFIC_PID={label}" if label is not None else "")


def test_a_study_link_signs_in_a_new_participant_with_the_platforms_label(study):
    client = Client()
    response = client.get(study_link("5f1a2b3c4d5e6f7a8b9c0d1e"))
    assert response.status_code == 302 and response["Location"] == "/study/"
    participant = Participant.objects.get(label="5f1a2b3c4d5e6f7a8b9c0d1e")
    assert participant.stage == Participant.Stage.CONSENT and participant.task_set is not None
    assert not participant.user.has_usable_password()
    assert client.get("/study/")["Location"] == "/study/consent/"
    # The same person opening the link again resumes; anyone else with that label is refused.
    assert client.get(study_link("5f1a2b3c4d5e6f7a8b9c0d1e"))["Location"] == "/study/"
    again = Client().get(study_link("5f1a2b3c4d5e6f7a8b9c0d1e"))
    assert again.status_code == 403 and "already taken part" in again.content.decode()
    assert Participant.objects.filter(label="5f1a2b3c4d5e6f7a8b9c0d1e").count() == 1


@pytest.mark.parametrize(
    ("label", "key", "status", "message"),
    [
        (None, None, 400, "PROLIFIC_PID"),
        ("", None, 400, "PROLIFIC_PID"),
        ("<script>x</script>", None, 400, "24 characters, each a digit 0–9 or a letter a–f"),
        (pid("ok-label"), "wrong-key", 403, "not valid"),
    ],
)
def test_a_bad_study_link_is_refused_with_a_reason(study, label, key, status, message):
    before = Participant.objects.count()
    response = Client().get(study_link(label, key))
    assert response.status_code == status and message in response.content.decode()
    assert "<script>x" not in response.content.decode()
    assert Participant.objects.count() == before


def test_a_label_parameter_pattern_and_a_closed_link_follow_the_settings(study):
    config = StudySettings.current()
    config.label_parameter = "workerId"
    config.label_pattern = "[0-9a-z]{6,14}"  # MTurk's worker IDs, case folded
    config.label_help = "6 to 14 letters and digits (an MTurk worker ID)"
    config.save()
    key = config.link_key
    assert Client().get(f"/study/join/{key}/?workerId=A1B2C3").status_code == 302
    assert Participant.objects.filter(label="a1b2c3").exists()
    refused = Client().get(f"/study/join/{key}/?workerId=A1-B2")
    assert refused.status_code == 400 and "an MTurk worker ID" in refused.content.decode()
    config.link_key = "new-key"  # closes the old link
    config.save()
    assert Client().get(f"/study/join/{key}/?workerId=D4E5F6").status_code == 403


def test_a_personal_link_signs_in_without_a_password(study):
    # create_participants prints each participant's link.
    participant = Participant.objects.get(user__username=study[0]["id"])
    assert study[0]["link"] == f"/study/p/{participant.link_key}/"
    client = Client()
    response = client.get(study[0]["link"])
    assert response["Location"] == "/study/"
    assert client.get("/study/")["Location"] == "/study/consent/"
    assert Client().get("/study/p/not-a-key/").status_code == 404


def test_the_admin_shows_the_study_link_to_give_the_platform(study, admin_client):
    config = StudySettings.current()
    page = admin_client.get(f"/admin/humanstudy/studysettings/{config.pk}/change/")
    assert f"/study/join/{config.link_key}/?PROLIFIC_PID=" in page.content.decode()


def test_declining_consent_ends_politely_and_opens_nothing(study):
    client = Client()
    client.get(study_link(pid("decliner1")))
    assert client.post("/study/consent/", {"choice": "decline"})["Location"] == "/study/"
    page = client.get("/study/", follow=True).content.decode()
    assert "chose not to take part" in page
    participant = Participant.objects.get(label=pid("decliner1"))
    assert participant.stage == "declined" and participant.declined_at is not None
    for url in ("/study/instructions/", "/study/practice/", "/study/tasks/", "/study/complete/"):
        assert client.get(url)["Location"] == "/study/declined/"
    client.post("/study/tasks/1/")
    assert not PlaySession.objects.filter(player=participant.user).exists()


def test_no_step_can_be_skipped(study):
    client = Client()
    client.get(study_link(pid("skipper1")))
    for url in ("/study/instructions/", "/study/practice/", "/study/tasks/"):
        assert client.get(url)["Location"] == "/study/consent/"
    client.post("/study/tasks/1/")
    participant = Participant.objects.get(label=pid("skipper1"))
    assert not PlaySession.objects.filter(player=participant.user).exists()
    # Nor the practice before the instructions are understood.
    client.post("/study/consent/", {"choice": "agree"})
    assert client.post("/study/practice/", {"do": "start"})["Location"] == "/study/instructions/"


def test_the_comprehension_check_repeats_until_understood(study):
    client = Client()
    client.get(study_link(pid("learner1")))
    client.post("/study/consent/", {"choice": "agree"})
    wrong = {**RIGHT_ANSWERS, "actions": "nothing", "colour": "red"}
    response = client.post("/study/instructions/", wrong)
    page = response.content.decode()
    assert response.status_code == 200 and "What does each action you take do" in page
    participant = Participant.objects.get(label=pid("learner1"))
    assert participant.stage == "instructions" and participant.comprehension_attempts == 1
    # The attention item is judged at the first try only, and never blocks.
    assert participant.attention == [{"check": "instructions:colour", "passed": False}]
    assert client.post("/study/instructions/", RIGHT_ANSWERS)["Location"] == "/study/"
    participant.refresh_from_db()
    assert participant.stage == "practice" and participant.comprehension_attempts == 2
    assert participant.attention == [{"check": "instructions:colour", "passed": False}]


def test_the_practice_task_is_neither_paid_nor_part_of_the_set(study):
    client = Client()
    client.get(study_link(pid("practiser1")))
    participant = Participant.objects.get(label=pid("practiser1"))
    walk_to_tasks(client)
    practice = path.practice_instance()
    assert not participant.task_set.items.filter(instance=practice).exists()
    session = PlaySession.objects.get(player=participant.user, instance=practice)
    assert session.finished and session.deadline_at is None
    page = client.get("/study/tasks/").content.decode()
    assert "0 of 10" in page and "$25.00" in page


def test_a_task_ends_unsolved_when_its_time_is_up(study):
    config = StudySettings.current()
    config.task_time_limit_seconds = 60
    config.save()
    client = Client()
    client.get(study_link(pid("slowpoke1")))
    walk_to_tasks(client)
    participant = Participant.objects.get(label=pid("slowpoke1"))
    location = client.post("/study/tasks/1/")["Location"]
    session = PlaySession.objects.get(pk=int(location.strip("/").split("/")[-1]))
    assert session.deadline_at is not None
    state = sessions.session_state(session)
    assert 0 < state["seconds_left"] <= 60
    instance = session.instance
    sessions.take_action(session.pk, participant.user, instance.actions[0])
    with time_machine.travel(timezone.now() + timezone.timedelta(seconds=61)):
        with pytest.raises(sessions.TimeUp):
            sessions.take_action(session.pk, participant.user, instance.actions[1])
    session.refresh_from_db()
    assert session.finished and session.correct is False and session.answer == ""
    assert session.finished_at == session.deadline_at and session.actions_taken == 1
    # Re-opening keeps the deadline; the task shows as done, not solved.
    client.post("/study/tasks/1/")
    session.refresh_from_db()
    assert session.deadline_at is not None
    assert "not solved" in client.get("/study/tasks/").content.decode()


def test_an_open_task_past_its_time_counts_as_done_without_another_move(study):
    config = StudySettings.current()
    config.task_time_limit_seconds = 60
    config.save()
    client = Client()
    client.get(study_link(pid("walkaway1")))
    walk_to_tasks(client)
    client.post("/study/tasks/2/")
    with time_machine.travel(timezone.now() + timezone.timedelta(minutes=5)):
        page = client.get("/study/tasks/").content.decode()
    assert "1 of 10" in page


def test_completion_gives_a_code_and_the_return_link(study):
    config = StudySettings.current()
    config.return_url = "https://app.example.org/submissions/complete?cc={code}"
    config.save()
    client = Client()
    client.get(study_link(pid("finisher1")))
    walk_to_tasks(client)
    participant = Participant.objects.get(label=pid("finisher1"))
    for item in participant.task_set.items.order_by("position"):
        session = path.open_task(participant, item.position)
        sessions.answer(session.pk, participant.user, item.instance.valid_truths[0])
    assert client.get("/study/", follow=True).request["PATH_INFO"] == "/study/questionnaire/"
    refused = client.post("/study/questionnaire/", {"difficulty": "9"})
    assert refused.status_code == 200 and "please answer" in refused.content.decode()
    answers = {"difficulty": "2", "help": "no", "attention": "often", "comment": "<b>hi</b>"}
    client.post("/study/questionnaire/", answers)
    page = client.get("/study/", follow=True).content.decode()
    participant.refresh_from_db()
    code = participant.completion_code
    assert participant.stage == "complete" and len(code) == 8 and code in page
    assert f"https://app.example.org/submissions/complete?cc={code}" in page
    assert participant.answers == {"difficulty": "2", "help": "no", "comment": "<b>hi</b>"}
    # The attention item of the questionnaire was failed: the filter says so.
    assert any("attention check" in reason for reason in participant.flag_reasons)
    # A fixed code for everyone, as a recruitment platform gives it.
    config.completion_code = "C1ABCDEF"
    config.save()
    other = Client()
    other.get(study_link(pid("finisher2")))
    second = Participant.objects.get(label=pid("finisher2"))
    path.complete(second)
    second.refresh_from_db()
    assert second.completion_code == "C1ABCDEF"


def test_a_participant_who_signs_in_anywhere_lands_on_their_study_page(study):
    row = study[0]
    client = Client()
    response = client.post(
        "/accounts/login/?next=/leaderboard/",
        {"username": row["id"], "password": row["password"], "next": "/leaderboard/"},
    )
    assert response["Location"] == "/study/"
    assert client.get("/")["Location"] == "/study/"


def test_the_participants_export_holds_the_path(study):
    client = Client()
    client.get(study_link(pid("exported1")))
    walk_to_tasks(client)
    from django.contrib.auth.models import User

    admin = Client()
    admin.force_login(User.objects.create_superuser("boss", "b@example.org", "pw-boss-123"))
    rows = list(
        csv.DictReader(StringIO(admin.get("/study/export/participants.csv").content.decode()))
    )
    mine = next(row for row in rows if row["label"] == pid("exported1"))
    assert mine["stage"] == "tasks" and mine["consented_at"] and mine["practice_done_at"]
    assert mine["comprehension_attempts"] == "1" and mine["attention_failed"] == "0"


def task(n_truths: int, correct: bool, moves: list[StudyMove] | None = None) -> StudyTask:
    return StudyTask(n_truths, correct, 2, moves or [StudyMove("action", 9000)])


def test_the_chance_test_is_exact():
    # Two 4-truth tasks at chance: P(at least one right) = 1 − 0.75² = 0.4375.
    assert chance_p_value([task(4, True), task(4, False)]) == pytest.approx(0.4375)
    assert chance_p_value([task(4, True), task(4, True)]) == pytest.approx(0.0625)
    assert chance_p_value([task(4, False)]) == 1.0


def test_a_lucky_random_answerer_is_flagged_by_the_chance_test_and_a_good_player_is_not():
    limits = QualityThresholds(min_median_seconds_per_move=0, chance_test_alpha=0.05)
    # 2 of 10 (five Easy, five Hard): what random answering often gives.
    lucky = [task(4, i < 2) for i in range(5)] + [task(12, False) for _ in range(5)]
    reasons = quality_problems(lucky, limits)
    assert len(reasons) == 1 and "no better than answering at random" in reasons[0]
    good = [task(4, True) for _ in range(5)] + [task(12, i < 3) for i in range(5)]
    assert quality_problems(good, limits) == []
    assert quality_problems(lucky, QualityThresholds(min_median_seconds_per_move=0)) == []


def test_pastes_time_away_and_attention_rules_and_their_off_switch():
    pasting = [task(4, True, [StudyMove("action", 9000, {"pastes": 2, "hidden_ms": 70_000})])] * 3
    limits = QualityThresholds(
        min_median_seconds_per_move=0,
        max_pastes=2,
        max_away_seconds=120,
        max_failed_attention_checks=1,
    )
    reasons = quality_problems(pasting, limits, [{"check": "x", "passed": False}])
    assert any("pasted 6 times" in r for r in reasons)
    assert any("hidden or out of focus for 210 s" in r for r in reasons)
    assert any("failed 1 of 1 attention check" in r for r in reasons)
    careful = [task(4, True, [StudyMove("action", 9000, {"pastes": 0, "blur_ms": 2000})])] * 3
    assert quality_problems(careful, limits, [{"check": "x", "passed": True}]) == []
    assert quality_problems(pasting, QualityThresholds(min_median_seconds_per_move=0)) == []


def test_the_participants_list_says_passes_or_flagged_in_words(study, admin_client):
    first, second = Participant.objects.order_by("pk")[:2]
    Participant.objects.filter(pk=first.pk).update(
        flagged=True, flag_reasons=["<script>x</script> too fast"], completed_at=timezone.now()
    )
    Participant.objects.filter(pk=second.pk).update(completed_at=timezone.now())
    page = admin_client.get("/admin/humanstudy/participant/").content.decode()
    assert "flagged: &lt;script&gt;x&lt;/script&gt; too fast" in page and "passes" in page
    assert "not judged yet" in page
    # No boolean icon for the verdict (a green tick read as "good" for a flagged one).
    rows = page.split("<tbody>")[1].split("</tbody>")[0]
    assert rows.count("icon-yes.svg") == 0
    detail = admin_client.get(f"/admin/humanstudy/participant/{first.pk}/change/")
    assert f"/study/p/{first.link_key}/" in detail.content.decode()


def test_the_live_monitor_shows_who_is_where_in_constant_queries(
    study, admin_client, django_assert_max_num_queries
):
    from tests.humanstudy.conftest import log_in

    # One participant mid-set, one who declined, one who never came back after consent.
    active = log_in(study[0]["id"], study[0]["password"])
    active.post("/study/tasks/3/")
    declined = log_in(study[1]["id"], study[1]["password"], walk=False)
    declined.post("/study/consent/", {"choice": "decline"})
    gone = Participant.objects.get(user__username=study[2]["id"])
    Participant.objects.filter(pk=gone.pk).update(
        label="<b>pid</b>", created_at=timezone.now() - timezone.timedelta(hours=1)
    )
    with django_assert_max_num_queries(12):
        data = admin_client.get("/study/monitor.json").json()
    rows = {row["participant"]: row for row in data["participants"]}
    assert rows[study[0]["id"]]["current_task"] == 3 and rows[study[0]["id"]]["stage"] == "task set"
    assert rows[study[1]["id"]]["stage"] == "declined consent"
    assert not rows[study[1]["id"]]["dropped_out"]
    assert rows[study[2]["id"]]["dropped_out"] and rows[study[2]["id"]]["idle_seconds"] > 3000
    assert rows[study[0]["id"]]["moves"] == rows[study[0]["id"]]["moves_unreported"] == 0
    assert data["summary"] == {
        "participants": 3,
        "active": 1,
        "completed": 0,
        "declined": 1,
        "dropped_out": 1,
        "flagged": 0,
    }
    # More participants, the same number of queries.
    from django.core.management import call_command

    call_command("create_participants", "--count", "5", stdout=StringIO(), stderr=StringIO())
    with django_assert_max_num_queries(12):
        page = admin_client.get("/study/monitor/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "&lt;b&gt;pid&lt;/b&gt;" in html and "<b>pid</b>" not in html
    # Staff only.
    assert Client().get("/study/monitor.json").status_code == 302
    assert active.get("/study/monitor/").status_code == 302
