"""Preparing a round (admin form, command, job), its failures and refusals, and the
status command."""

from __future__ import annotations

import html
from datetime import date

import pytest
from django.core.management import CommandError
from django.utils.html import strip_tags

from engine.models import Instance, KnowledgeBook
from leaderboard import rounds
from leaderboard.models import Round, RoundInstance
from leaderboard.rounds import RoundError, RoundSpec
from leaderboard.tasks import prepare_round_task
from tests.rounds.helpers import prepare, run

pytestmark = pytest.mark.django_db(transaction=True)


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def text(response) -> str:
    return " ".join(strip_tags(response.content.decode()).split())


def form(grove, **overrides) -> dict:
    data = {
        "domains": [grove.pk],
        "task_settings": "4x6, 5x4",
        "instances": "2",
        "seed": "40",
        "starts_on": "",
        "ends_on": "",
        "name": "",
    }
    return {**data, **overrides}


def test_the_admin_form_queues_a_preparation_that_stores_and_pins_the_instances(
    clock, grove, staff
):
    page = staff.get("/admin/leaderboard/round/prepare/")
    assert page.status_code == 200
    assert 'value="4x6,12x16"' in page.content.decode()  # Easy and Hard by default
    response = staff.post("/admin/leaderboard/round/prepare/", form(grove), follow=True)
    assert response.status_code == 200
    target = Round.objects.get()
    assert messages_of(response) == [
        "Round 2025-01: preparing 4 instances in the background; this page shows the progress."
    ]
    assert (target.name, target.status, target.prepared_instances) == ("2025-01", "prepared", 4)
    assert target.setting_pairs == [(4, 6), (5, 4)]
    assert (target.starts_on, target.ends_on) == (date(2025, 1, 1), date(2025, 3, 1))
    assert target.created_by.username == "boss"
    pinned = Instance.objects.filter(rounds=target)
    assert sorted(pinned.values_list("n_truths", flat=True)) == [4, 4, 5, 5]
    assert KnowledgeBook.objects.filter(instance__in=pinned, passed_check=True).count() == 4
    # Secret seeds: a keyed hash of the round's seed, never the seeds 40, 41 anyone could
    # give the engine's own command to regenerate them.
    assert not pinned.filter(seed__in=[40, 41]).exists()
    out = run(
        "generate_tasks", "grove", "--truths", "4", "--actions", "6", "--count", "2", "--seed", "40"
    )
    assert "2 new, 0 already stored" in out
    changelist = text(staff.get("/admin/leaderboard/round/"))
    assert "Round 2025-01 is prepared (4 instances, 2025-01-01 to 2025-03-01)." in changelist


def test_the_admin_form_reports_bad_input_and_stores_nothing(clock, grove, staff):
    url = "/admin/leaderboard/round/prepare/"
    cases = [
        (form(grove, task_settings="4-6"), "'4-6' is not a setting: write TRUTHSxACTIONS"),
        (form(grove, task_settings="9x6"), "setting 9x6 does not fit domain grove (8 truths"),
        (form(grove, domains=[]), "This field is required."),
        (form(grove, instances="0"), "Ensure this value is greater than or equal to 1."),
        (
            form(grove, starts_on="2025-02-01", ends_on="2025-01-15"),
            "the round must end after it starts (2025-02-01), got 2025-01-15",
        ),
    ]
    for data, error in cases:
        response = staff.post(url, data)
        assert response.status_code == 200
        assert error in html.unescape(response.content.decode()), error
    assert not Round.objects.exists()


def test_a_preparation_delivered_twice_runs_once(clock, grove):
    target, created = rounds.do_create_round(
        RoundSpec(domains=["grove"], settings=[(4, 6)], instances=2, seed=7)
    )
    assert created and target.status == Round.Status.DRAFT
    assert prepare_round_task.delay(target.pk).get() == "prepared"
    assert prepare_round_task.delay(target.pk).get() == "already claimed"
    assert RoundInstance.objects.filter(round=target).count() == 2
    assert Instance.objects.filter(domain=grove).count() == 2


def test_preparing_twice_with_the_same_arguments_does_nothing_new(clock, grove):
    first = prepare("spring", "grove", "4x6", 2, 7)
    second = prepare("spring", "grove", "4x6", 2, 7)
    assert "round spring is prepared" in first
    assert second == (
        "round spring already exists with these settings (prepared, 2/2 instances); nothing to do\n"
    )
    assert Round.objects.count() == 1 and RoundInstance.objects.count() == 2


def test_only_one_next_round_at_a_time_and_a_name_or_seed_is_never_reused(clock, grove, staff):
    prepare("spring", "grove", "4x6", 2, 7)
    with pytest.raises(CommandError, match="round spring is already the next round"):
        prepare("summer", "grove", "4x6", 2, 70)
    response = staff.post("/admin/leaderboard/round/prepare/", form(grove, seed="70"))
    assert "round spring is already the next round (prepared)" in response.content.decode()
    with pytest.raises(CommandError, match="a round named spring already exists"):
        prepare("spring", "grove", "4x6", 3, 7)
    run("rotate_round")
    # spring's instances follow from its seed: the seed may never come back in another round.
    with pytest.raises(CommandError, match="seed 7 is already the seed of round spring"):
        prepare("summer", "grove", "4x6", 2, 7)
    assert prepare("summer", "grove", "4x6", 2, 8).endswith("when automatic rotation is on)\n")


def test_the_command_checks_its_arguments(clock, grove):
    cases = [
        (("x", "grove", "4by6", 2, 1), "'4by6' is not a setting"),
        (("x", "nowhere,grove", "4x6", 2, 1), "unknown domain(s): nowhere (known domains: grove"),
        (("x", "grove", "4x6,4x6", 2, 1), "a setting is listed twice"),
        (("x", "grove", "4x6", 0, 1), "instances per setting must be between 1 and 10000"),
        (("x", "grove", "4x6", 2, -1), "the seed must be between 0"),
        (("Bad Name", "grove", "4x6", 2, 1), "may use only letters, digits and hyphens"),
    ]
    for arguments, error in cases:
        with pytest.raises(CommandError, match=error.replace("(", r"\(").replace(")", r"\)")):
            prepare(*arguments)
    with pytest.raises(CommandError, match="'2025-13-01' is not a date: write YYYY-MM-DD"):
        prepare("x", "grove", "4x6", 2, 1, "--start", "2025-13-01")
    assert not Round.objects.exists()


def test_the_default_end_is_two_calendar_months_on(clock, grove):
    prepare("winter", "grove", "4x6", 1, 1, "--start", "2024-12-31")
    assert Round.objects.get().ends_on == date(2025, 2, 28)


def test_a_failed_preparation_is_reported_refused_for_rotation_and_retried(clock, grove, staff):
    # 8 truths with a single action: no instance can rule out seven truths.
    with pytest.raises(CommandError, match="round broken failed: could not generate an instance"):
        prepare("broken", "grove", "8x1", 1, 1)
    broken = Round.objects.get()
    assert broken.status == Round.Status.FAILED and "after 200 attempts" in broken.error
    response = staff.post("/admin/leaderboard/round/rotate/", follow=True)
    assert messages_of(response)[0].startswith(
        "Nothing to rotate in: No next round is prepared (round broken failed: could not "
        "generate an instance"
    )
    assert Round.objects.get().status == Round.Status.FAILED
    retry = {"action": "prepare_again", "_selected_action": [broken.pk]}
    response = staff.post("/admin/leaderboard/round/", retry, follow=True)
    assert messages_of(response) == ["Round broken queued again."]
    # It ran again and failed again, for the same reason.
    assert Round.objects.get().status == Round.Status.FAILED
    # Deleting a failed round is allowed; a new round may then be prepared.
    assert (
        staff.post(f"/admin/leaderboard/round/{broken.pk}/delete/", {"post": "yes"}).status_code
        == 302
    )
    assert "round fixed is prepared" in prepare("fixed", "grove", "4x6", 1, 1)


def test_an_unprepared_round_cannot_be_rotated_in(clock, grove, staff):
    target, _ = rounds.do_create_round(
        RoundSpec(domains=["grove"], settings=[(4, 6)], instances=2, seed=7, name="queued")
    )
    action = {"action": "rotate_in", "_selected_action": [target.pk]}
    response = staff.post("/admin/leaderboard/round/", action, follow=True)
    assert messages_of(response) == [
        "round queued is draft (preparation queued), not prepared: only a prepared round can "
        "be rotated in"
    ]
    response = staff.post("/admin/leaderboard/round/rotate/", follow=True)
    assert messages_of(response) == [
        "Nothing to rotate in: Round queued is draft (preparation queued) (0/2 instances), "
        "not prepared yet."
    ]
    with pytest.raises(CommandError, match="Round queued is draft"):
        run("rotate_round")
    with pytest.raises(RoundError, match="not prepared"):
        rounds.do_rotate(target=target)
    assert Round.objects.get().status == Round.Status.DRAFT
    # A live or past round cannot be deleted from the admin; a draft can.
    assert staff.get(f"/admin/leaderboard/round/{target.pk}/delete/").status_code == 200


def test_a_live_round_keeps_its_history(clock, grove, staff):
    prepare("spring", "grove", "4x6", 1, 1)
    run("rotate_round")
    live = Round.objects.get()
    assert staff.get(f"/admin/leaderboard/round/{live.pk}/delete/").status_code == 403
    page = staff.get(f"/admin/leaderboard/round/{live.pk}/change/")
    assert page.status_code == 200
    # Only the end date (the next rotation) may be moved while it is live.
    response = staff.post(
        f"/admin/leaderboard/round/{live.pk}/change/", {"ends_on": "2025-03-15"}, follow=True
    )
    assert response.status_code == 200
    live.refresh_from_db()
    assert live.ends_on == date(2025, 3, 15) and live.status == Round.Status.ACTIVE


def test_round_status_describes_the_rotation(clock, grove):
    assert "current round: none" in run("round_status")
    prepare("spring", "grove", "4x6", 2, 1)
    run("rotate_round")
    prepare("summer", "grove", "4x6", 2, 50)
    out = run("round_status")
    assert "current round: spring (2025-01-01 to 2025-03-01; domains grove; settings 4/6; 2 " in out
    assert "next rotation: 2025-03-01 (in 59 days)" in out
    assert "next round: Round summer is prepared (2 instances, 2025-03-01 to 2025-05-01)." in out
    clock(2025, 3, 4)
    assert "next rotation: 2025-03-01 (overdue by 3 days)" in run("round_status")


def test_a_preparation_whose_worker_died_is_taken_over_and_finishes(clock, grove, settings):
    from django.utils import timezone

    target, _ = rounds.do_create_round(
        RoundSpec(domains=["grove"], settings=[(4, 6)], instances=2, seed=7, name="orphan")
    )
    # A worker claimed it, stored one instance of two, and died: its lease runs out.
    Round.objects.filter(pk=target.pk).update(
        status=Round.Status.PREPARING,
        attempts=1,
        lease_expires_at=timezone.now() + timezone.timedelta(seconds=30),
    )
    assert rounds.requeue_stalled_preparations() == []  # still leased: nobody takes it
    Round.objects.filter(pk=target.pk).update(
        lease_expires_at=timezone.now() - timezone.timedelta(seconds=1)
    )
    # Beat queues it again; jobs run in-process here, so it is prepared at once.
    assert rounds.requeue_stalled_preparations() == [target.pk]
    target.refresh_from_db()
    assert target.status == Round.Status.PREPARED and target.attempts == 2
    assert target.lease_expires_at is None and target.pins.count() == 2
    assert rounds.requeue_stalled_preparations() == []


def test_a_preparation_that_keeps_losing_its_worker_fails_with_the_reason_and_can_be_retried(
    clock, grove, settings
):
    from django.utils import timezone

    settings.ROUND_MAX_ATTEMPTS = 3
    target, _ = rounds.do_create_round(
        RoundSpec(domains=["grove"], settings=[(4, 6)], instances=2, seed=7, name="cursed")
    )
    Round.objects.filter(pk=target.pk).update(
        status=Round.Status.PREPARING,
        attempts=3,
        lease_expires_at=timezone.now() - timezone.timedelta(seconds=1),
    )
    assert rounds.requeue_stalled_preparations() == []
    target.refresh_from_db()
    assert target.status == Round.Status.FAILED
    assert "its worker stopped 3 times" in target.error and target.lease_expires_at is None
    assert rounds.do_retry_preparation(target)
    target.refresh_from_db()
    assert target.status == Round.Status.PREPARED and target.attempts == 1


def test_a_draft_whose_queued_job_was_lost_is_queued_again(clock, grove):
    target, _ = rounds.do_create_round(
        RoundSpec(domains=["grove"], settings=[(4, 6)], instances=2, seed=7, name="lost")
    )
    assert rounds.requeue_stalled_preparations() == []  # just created: its job may be queued
    clock(2025, 1, 2)  # a day later, still a draft: the broker lost the job
    assert rounds.requeue_stalled_preparations() == [target.pk]
    target.refresh_from_db()
    assert target.status == Round.Status.PREPARED


def test_a_waiting_draft_is_queued_again_once_per_grace_not_on_every_sweep(
    clock, grove, monkeypatch
):
    target, _ = rounds.do_create_round(
        RoundSpec(domains=["grove"], settings=[(4, 6)], instances=2, seed=7, name="waiting")
    )
    queued = []
    # Queued only, not run (in-process jobs would prepare it at once): the broker's view.
    monkeypatch.setattr(prepare_round_task, "delay", queued.append)
    clock(2025, 1, 2)  # a day later, still a draft
    assert rounds.requeue_stalled_preparations() == [target.pk]
    # The sweep runs every few seconds; the job just queued is not queued again at once.
    assert rounds.requeue_stalled_preparations() == []
    clock(2025, 1, 3)  # past the grace again, still waiting: queued once more
    assert rounds.requeue_stalled_preparations() == [target.pk]
    assert queued == [target.pk, target.pk]
