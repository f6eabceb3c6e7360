"""A family practice request's job holds a lease (engine.family_practice, benchmark.jobs):
a request whose worker died is taken over by beat's sweep once the lease lapses, a lost
message is queued again, and after the maximum attempts the request fails with the reason
the waiting page shows. However often the job runs, the player gets one attempt."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from engine import families
from engine.family_practice import requeue_stalled_practice_requests
from engine.models import FamilyAttempt, FamilyPracticeRequest, FamilyTask
from engine.tasks import generate_family_practice_task
from tests.families.test_practice_generation import ask, jobs, request_of, signed_in

pytestmark = pytest.mark.django_db


class WorkerKilled(BaseException):
    """Stands for SIGKILL: nothing of the job's own handles it, so the request is left
    running under the dead try's lease, as a killed worker leaves it."""


@pytest.fixture
def dying_generation(monkeypatch):
    """The next ``count`` generations store their task, then their worker dies before the
    player's attempt is started (the latest point a death can strand a request)."""
    generate = families.do_generate_family_tasks

    def arm(count: int = 1) -> None:
        left = [count]

        def generate_then_die(*args, **kwargs):
            report = generate(*args, **kwargs)
            if left[0]:
                left[0] -= 1
                raise WorkerKilled
            return report

        monkeypatch.setattr(families, "do_generate_family_tasks", generate_then_die)

    return arm


def queued_request(client: Client) -> FamilyPracticeRequest:
    """A request made on the families page whose job has not run yet (its message was
    taken, or lost)."""
    response = ask(client)
    assert response.status_code == 302
    request = request_of(response["Location"])
    assert request.status == "pending" and request.attempts == 0
    return request


def run_dying(request: FamilyPracticeRequest) -> None:
    with pytest.raises(WorkerKilled):
        generate_family_practice_task.delay(request.pk)
    request.refresh_from_db()


def past_lease(request: FamilyPracticeRequest):
    return time_machine.travel(request.lease_expires_at + timedelta(seconds=1), tick=False)


def test_a_request_whose_worker_died_is_taken_over_once_its_lease_lapses(
    make_user, dying_generation, django_capture_on_commit_callbacks
):
    player = make_user("waiting")
    client = signed_in(player)
    with django_capture_on_commit_callbacks() as queued:
        request = queued_request(client)
    assert len(jobs(queued)) == 1
    dying_generation(1)
    run_dying(request)
    assert request.status == "running" and request.attempts == 1
    assert request.lease_expires_at > timezone.now()
    assert FamilyTask.objects.count() == 1  # stored before the worker died
    assert not FamilyAttempt.objects.exists()

    # While the lease is live the try is presumed alive: neither swept nor claimed again.
    assert requeue_stalled_practice_requests() == []
    assert "not pending" in generate_family_practice_task.delay(request.pk).get()
    request.refresh_from_db()
    assert request.status == "running" and request.attempts == 1

    with past_lease(request):
        # The sweep queues it again; without a broker the job runs in-process at once.
        assert requeue_stalled_practice_requests() == [request.pk]
    request.refresh_from_db()
    assert request.status == "done" and request.attempts == 2 and request.error == ""
    assert request.lease_expires_at is None
    attempt = FamilyAttempt.objects.get(player=player)
    assert attempt.task == request.task
    state = client.get(f"/families/practice/{request.pk}/status/").json()
    assert state["status"] == "done" and state["url"] == f"/families/attempts/{attempt.pk}/"

    # Delivered again afterwards, the job finds the request finished and does nothing.
    assert "not pending" in generate_family_practice_task.delay(request.pk).get()
    request.refresh_from_db()
    assert request.attempts == 2 and FamilyAttempt.objects.filter(player=player).count() == 1


def test_finished_requests_are_never_swept(make_user, django_capture_on_commit_callbacks):
    client = signed_in(make_user("finished"))
    with django_capture_on_commit_callbacks(execute=True):  # the job runs in-process
        done = queued_request(client)
    done.refresh_from_db()
    assert done.status == "done"
    with django_capture_on_commit_callbacks():
        failed = request_of(ask(client, kind="logic")["Location"])
    FamilyPracticeRequest.objects.filter(pk=failed.pk).update(
        status="failed", error="no task could be generated: test", attempts=1
    )
    with time_machine.travel(timezone.now() + timedelta(hours=2), tick=False):
        assert requeue_stalled_practice_requests() == []
    assert [(r.status, r.attempts) for r in FamilyPracticeRequest.objects.order_by("pk")] == [
        ("done", 1),
        ("failed", 1),
    ]


def test_after_the_maximum_attempts_the_request_fails_with_the_reason_shown(
    make_user, dying_generation, settings, django_capture_on_commit_callbacks
):
    settings.FAMILY_PRACTICE_MAX_ATTEMPTS = 2
    player = make_user("unlucky")
    client = signed_in(player)
    with django_capture_on_commit_callbacks():
        request = queued_request(client)
    dying_generation(2)
    run_dying(request)
    with past_lease(request), pytest.raises(WorkerKilled):
        requeue_stalled_practice_requests()  # the second try dies too
    request.refresh_from_db()
    assert request.status == "running" and request.attempts == 2

    with past_lease(request):
        assert requeue_stalled_practice_requests() == []  # no third try: failed instead
    request.refresh_from_db()
    assert request.status == "failed" and request.lease_expires_at is None
    reason = "the server stopped 2 times while generating it; please ask again"
    assert reason in request.error
    assert not FamilyAttempt.objects.filter(player=player).exists()
    page = client.get(f"/families/practice/{request.pk}/")
    assert page.status_code == 200
    assert 'id="family-practice-error"' in page.content.decode()
    assert reason in page.content.decode()

    # A late delivery of an old message finds nothing to claim; the player may ask again.
    assert "not pending" in generate_family_practice_task.delay(request.pk).get()
    again = ask(client)
    assert again.status_code == 302 and again["Location"] != f"/families/practice/{request.pk}/"


def test_a_claim_past_the_maximum_attempts_fails_the_request(
    make_user, settings, django_capture_on_commit_callbacks
):
    """A try that finds the attempts used up (queued before the sweep failed the request)
    fails it instead of generating."""
    settings.FAMILY_PRACTICE_MAX_ATTEMPTS = 1
    client = signed_in(make_user("late"))
    with django_capture_on_commit_callbacks(execute=True):
        request = queued_request(client)
    request.refresh_from_db()
    assert request.status == "done" and request.attempts == 1
    FamilyPracticeRequest.objects.filter(pk=request.pk).update(
        status="running", lease_expires_at=timezone.now() - timedelta(seconds=1), task=None
    )
    tasks = FamilyTask.objects.count()
    outcome = generate_family_practice_task.delay(request.pk).get()
    assert "stopped 1 times" in outcome
    request.refresh_from_db()
    assert request.status == "failed" and request.attempts == 2
    assert FamilyTask.objects.count() == tasks


def test_a_pending_request_whose_message_was_lost_is_queued_again_after_the_grace(
    make_user, settings, django_capture_on_commit_callbacks
):
    settings.FAMILY_PRACTICE_PENDING_GRACE_SECONDS = 60
    player = make_user("forgotten")
    client = signed_in(player)
    with django_capture_on_commit_callbacks():  # the message never reaches a worker
        request = queued_request(client)
    with time_machine.travel(request.created_at + timedelta(seconds=59), tick=False):
        assert requeue_stalled_practice_requests() == []
    with time_machine.travel(request.created_at + timedelta(seconds=61), tick=False):
        assert requeue_stalled_practice_requests() == [request.pk]
    request.refresh_from_db()
    assert request.status == "done" and request.attempts == 1
    assert FamilyAttempt.objects.filter(player=player).count() == 1


def test_a_try_that_lost_its_lease_records_nothing_and_the_player_gets_one_attempt(
    make_user, monkeypatch, django_capture_on_commit_callbacks
):
    """Two live tries: the first stalls past its lease (its database away, say) and a
    second takes the request over. When the first one comes back, whether the second is
    still running or has finished, it stores its task but neither finishes the request nor
    starts an attempt: the player gets exactly one."""
    from engine.family_practice import run_family_practice_request

    player = make_user("twice")
    client = signed_in(player)
    with django_capture_on_commit_callbacks():
        request = queued_request(client)
    generate = families.do_generate_family_tasks
    tries = []

    def lapse_lease() -> None:
        FamilyPracticeRequest.objects.filter(pk=request.pk).update(
            lease_expires_at=timezone.now() - timedelta(seconds=1)
        )

    def stalling_tries(*args, **kwargs):
        report = generate(*args, **kwargs)
        tries.append(report)
        if len(tries) == 1:  # the first try stalls; a second takes over and dies mid-way
            lapse_lease()
            with pytest.raises(WorkerKilled):
                run_family_practice_request(request.pk)
        elif len(tries) == 2:
            raise WorkerKilled
        return report

    monkeypatch.setattr(families, "do_generate_family_tasks", stalling_tries)
    assert "taken over" in run_family_practice_request(request.pk)
    request.refresh_from_db()
    assert request.status == "running" and request.attempts == 2  # the second try's claim
    assert not FamilyAttempt.objects.filter(player=player).exists()

    # The dead second try's lease lapses: the sweep queues a third try, which finishes.
    with past_lease(request):
        assert requeue_stalled_practice_requests() == [request.pk]
    request.refresh_from_db()
    assert request.status == "done" and request.attempts == 3
    assert FamilyTask.objects.count() == 3  # each try stored what it generated
    attempt = FamilyAttempt.objects.get(player=player)
    assert attempt.task == request.task == tries[2].tasks[0]
