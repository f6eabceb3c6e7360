"""Bounded generation of family practice tasks (engine.family_practice): stored unseen
tasks first, fresh ones generated in a background job and counted against the hourly
limits shared with KUMO practice, one request in flight per player and choice."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from engine.core.families.base import FamilyError, get_family
from engine.families import do_generate_family_tasks
from engine.models import FamilyAttempt, FamilyPracticeRequest, FamilyTask, Visitor
from engine.tasks import generate_family_practice_task

pytestmark = pytest.mark.django_db

MATH = {"family": "simple", "kind": "math", "level": "easy"}
ADDRESS = "203.0.113.9"


def jobs(callbacks: list) -> list:
    """The work queued on commit, without the request retry's own bookkeeping hooks
    (``benchmark.retry.CommitWatch`` learns from one that a transaction committed)."""
    from benchmark.retry import CommitWatch

    return [
        callback
        for callback in callbacks
        if not isinstance(getattr(getattr(callback, "func", None), "__self__", None), CommitWatch)
    ]


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def guest(name: str) -> User:
    """A guest account, as the KUMO Play entry makes for an anonymous visitor."""
    user = User(username=f"visitor-{name}")
    user.set_unusable_password()
    user.save()
    Visitor.objects.create(user=user)
    return user


def ask(client: Client, ip: str = ADDRESS, **choice):
    return client.post("/families/play/", {**MATH, **choice}, REMOTE_ADDR=ip)


def attempt_of(location: str) -> FamilyAttempt:
    match = re.fullmatch(r"/families/attempts/(\d+)/", location)
    assert match, location
    return FamilyAttempt.objects.select_related("task").get(pk=int(match[1]))


def request_of(location: str) -> FamilyPracticeRequest:
    match = re.fullmatch(r"/families/practice/(\d+)/", location)
    assert match, location
    return FamilyPracticeRequest.objects.get(pk=int(match[1]))


def test_unseen_stored_public_tasks_are_served_first_and_never_hidden_ones(make_user, play_family):
    call_command(
        "generate_family_tasks", "--kind", "math", "--level", "easy", "--count", "2",
        stdout=StringIO(),
    )  # fmt: skip
    public = set(FamilyTask.objects.values_list("pk", flat=True))
    hidden = set()
    for offset, origin in enumerate(("round", "ranked", "study")):
        report = do_generate_family_tasks(
            "simple", "math", count=1, seed=1000 + offset, level="easy", origin=origin
        )
        hidden.add(report.tasks[0].pk)
    player = make_user("learner")
    client = signed_in(player)

    served = {attempt_of(play_family(client, **MATH)).task_id for _ in range(2)}
    assert served == public, "each stored public task once, before anything is generated"
    assert not FamilyPracticeRequest.objects.exists()
    assert FamilyTask.objects.count() == 5

    fresh = attempt_of(play_family(client, **MATH)).task
    assert fresh.pk not in public | hidden and fresh.origin == FamilyTask.Origin.PUBLIC
    assert FamilyPracticeRequest.objects.get().task == fresh
    assert not FamilyAttempt.objects.filter(task_id__in=hidden).exists()

    # Another player is served the task generated for the first one before a fresh one.
    other = signed_in(make_user("second"))
    assert {attempt_of(play_family(other, **MATH)).task_id for _ in range(3)} == public | {fresh.pk}
    assert FamilyPracticeRequest.objects.count() == 1


def test_generation_runs_in_the_job_and_the_page_waits_on_the_status_endpoint(
    make_user, django_capture_on_commit_callbacks
):
    player = make_user("waiter")
    client = signed_in(player)
    with django_capture_on_commit_callbacks() as queued:
        response = ask(client)
    assert response.status_code == 302
    location = response["Location"]
    request = request_of(location)
    assert request.status == "pending" and request.ip_address == ADDRESS
    assert not FamilyTask.objects.exists(), "nothing is generated inside the web request"
    queued = jobs(queued)
    assert len(queued) == 1

    page = client.get(location)
    assert page.status_code == 200
    body = page.content.decode()
    assert "Preparing your task" in body and "js/family_practice.js" in body
    assert '<noscript><meta http-equiv="refresh"' in body
    status_url = f"/families/practice/{request.pk}/status/"
    assert f'data-url="{status_url}"' in body
    assert client.get(status_url).json() | {"id": 0} == {
        "id": 0,
        **MATH,
        "status": "pending",
        "attempt": None,
        "session": None,
        "error": "",
        "url": None,
    }
    stranger = signed_in(make_user("stranger"))
    assert stranger.get(location).status_code == 404
    assert stranger.get(status_url).status_code == 404

    queued[0]()  # the job, run in-process as the default settings do (no broker)
    request.refresh_from_db()
    attempt = FamilyAttempt.objects.get(player=player)
    assert request.status == "done" and request.task == attempt.task
    state = client.get(status_url).json()
    assert state["status"] == "done" and state["url"] == f"/families/attempts/{attempt.pk}/"
    forward = client.get(location)
    assert forward.status_code == 302 and forward["Location"] == state["url"]

    # Delivered again, the job finds the request claimed and does nothing.
    assert "not pending" in generate_family_practice_task.delay(request.pk).get()
    assert FamilyTask.objects.count() == 1
    assert Client().get("/families/play/").status_code == 405
    assert client.get("/families/play/").status_code == 405


def test_a_pending_request_is_not_queued_twice(make_user, django_capture_on_commit_callbacks):
    client = signed_in(make_user("impatient"))
    with django_capture_on_commit_callbacks() as queued:
        first = ask(client)
        again = ask(client)
        other_level = ask(client, level="hard")
    assert first["Location"] == again["Location"] != other_level["Location"]
    assert FamilyPracticeRequest.objects.count() == 2 and len(jobs(queued)) == 2


def test_a_player_is_limited_per_hour_and_stored_tasks_do_not_count(
    make_user, play_family, settings
):
    settings.VISITOR_GAMES_PER_HOUR = 2
    player = make_user("eager")
    client = signed_in(player)
    play_family(client, **MATH)
    play_family(client, "simple", "logic", "easy", REMOTE_ADDR="198.51.100.1")
    tasks = FamilyTask.objects.count()

    refused = ask(client, kind="counting")
    assert refused.status_code == 429
    text = refused.content.decode()
    assert 'id="family-refused"' in text
    assert "You have started 2 practice games in the last hour" in text
    assert "You can start another in about 60 minutes" in text
    assert FamilyPracticeRequest.objects.count() == 2 and FamilyTask.objects.count() == tasks

    # Past the limit a stored task the player has not tried is still served, uncounted.
    call_command(
        "generate_family_tasks", "--kind", "counting", "--level", "easy", "--seed", "7",
        "--count", "1", stdout=StringIO(),
    )  # fmt: skip
    served = ask(client, kind="counting")
    assert served.status_code == 302 and attempt_of(served["Location"]).task.seed == 7
    assert FamilyPracticeRequest.objects.count() == 2
    assert ask(client, kind="counting").status_code == 429

    # An hour after the oldest request it no longer counts.
    oldest = FamilyPracticeRequest.objects.order_by("created_at").first()
    with time_machine.travel(oldest.created_at + timedelta(hours=1, seconds=1)):
        play_family(client, "simple", "counting", "easy")


def test_kumo_practice_games_and_family_tasks_share_one_budget(
    orchard, make_user, play_family, settings
):
    settings.VISITOR_GAMES_PER_HOUR = 2
    client = signed_in(make_user("both"))
    assert client.post("/play/", {"level": "easy"}, REMOTE_ADDR=ADDRESS).status_code == 302
    play_family(client, **MATH)
    assert ask(client, kind="logic").status_code == 429
    refused = client.post("/play/", {"level": "easy"}, REMOTE_ADDR=ADDRESS)
    assert refused.status_code == 429
    assert "freshly generated family tasks count together" in refused.content.decode()


def test_a_guest_account_is_limited_the_same_way(play_family, settings):
    settings.VISITOR_GAMES_PER_HOUR = 1
    client = signed_in(guest("a"))
    play_family(client, **MATH)
    refused = ask(client, ip="198.51.100.7", kind="logic")
    assert refused.status_code == 429
    assert "You have started 1 practice games in the last hour" in refused.content.decode()


def test_guests_of_one_address_are_limited_together(make_user, play_family, settings):
    settings.VISITOR_GAMES_PER_HOUR_PER_IP = 2
    # Each guest asks for another kind, so that none is served a task stored for another.
    play_family(signed_in(guest("a")), "simple", "math", REMOTE_ADDR=ADDRESS)
    play_family(signed_in(guest("b")), "simple", "logic", REMOTE_ADDR=ADDRESS)
    third = signed_in(guest("c"))
    refused = ask(third, kind="counting")
    assert refused.status_code == 429
    assert "Visitors from your address have started 2 practice games" in refused.content.decode()
    play_family(third, "simple", "counting", REMOTE_ADDR="192.0.2.55")
    # A signed-in account is counted by itself, not by the address it shares.
    play_family(signed_in(make_user("lab-member")), "simple", "travel", REMOTE_ADDR=ADDRESS)
    assert FamilyPracticeRequest.objects.count() == 4


def test_a_failed_generation_shows_its_error_and_a_stale_request_does_not_block(
    make_user, monkeypatch, django_capture_on_commit_callbacks
):
    def broken(kind, params, seed):
        raise FamilyError("the generator is out of ideas")

    monkeypatch.setattr(get_family("simple"), "_generate", broken)
    client = signed_in(make_user("unlucky"))
    with django_capture_on_commit_callbacks(execute=True):
        location = ask(client)["Location"]
    request = request_of(location)
    assert request.status == "failed" and "out of ideas" in request.error
    page = client.get(location)
    assert page.status_code == 200 and not FamilyAttempt.objects.exists()
    assert "no task could be generated: the generator is out of ideas" in page.content.decode()
    assert client.get(f"/families/practice/{request.pk}/status/").json()["status"] == "failed"
    monkeypatch.undo()

    # A request whose job was lost is reported failed after a while, and a new one is made.
    lost = ask(client, kind="logic")
    lost_request = request_of(lost["Location"])
    with time_machine.travel(lost_request.created_at + timedelta(minutes=11)):
        assert "not prepared in time" in client.get(lost["Location"]).content.decode()
        retried = ask(client, kind="logic")
    assert retried["Location"] != lost["Location"]


def test_an_unknown_kind_or_level_is_refused_before_any_request(make_user):
    client = signed_in(make_user("typo"))
    for choice in ({"kind": "poems"}, {"level": "legendary"}, {"family": "nope"}):
        response = ask(client, **choice)
        assert response.status_code == 302 and response["Location"] == "/families/"
    assert not FamilyPracticeRequest.objects.exists()
    page = client.get("/families/").content.decode()
    assert "no level &#x27;legendary&#x27;" in page or "no level 'legendary'" in page
