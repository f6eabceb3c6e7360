"""Authoring jobs without a row of their own (a brief's proposals, LLM books, re-runs) hold a
lease on an AuthoringJob (engine.authoring.run_authoring_job): a try whose worker died is
taken over by beat's sweep once the lease lapses, a lost message is queued again, a live
job is never run twice at once, and after the maximum attempts the job fails with the
reason, shown in the admin."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from engine import authoring
from engine.core.families.kumo.book import write_book
from engine.models import AuthoringJob, KnowledgeBook, LLMCall
from tests.authoring.helpers import Router, reply

pytestmark = pytest.mark.django_db


class WorkerKilled(BaseException):
    """Stands for SIGKILL: nothing of the job's own handles it, so the job is left running
    under the dead try's lease, as a killed worker leaves it."""


@pytest.fixture
def book_job(orchard, llm, django_capture_on_commit_callbacks):
    """A queued LLM-books job for orchard's instances (its message not yet taken), with a
    chat server that writes and approves their books."""
    instances = list(orchard.instances.order_by("seed"))

    def book_for(request):
        prompt = request.messages[1]["content"]
        instance = next(i for i in instances if all(t in prompt for t in i.truths))
        return reply(write_book(instance.domain.to_core(), instance.to_core()))

    llm(Router(book=[book_for], review=[reply('{"approve": true}')]))
    with django_capture_on_commit_callbacks():
        assert authoring.launch_llm_books([instance.pk for instance in instances]) == 1
    job = AuthoringJob.objects.get()
    assert job.status == "pending" and job.attempts == 0
    return job


def past_lease(job: AuthoringJob):
    return time_machine.travel(job.lease_expires_at + timedelta(seconds=1), tick=False)


def test_a_job_whose_worker_keeps_dying_fails_with_the_reason(
    book_job, monkeypatch, settings, admin_client
):
    settings.AUTHORING_MAX_ATTEMPTS = 2

    def killed(instances):
        raise WorkerKilled

    monkeypatch.setattr(authoring, "do_write_llm_books", killed)
    with pytest.raises(WorkerKilled):
        authoring.run_authoring_job(book_job.pk)
    book_job.refresh_from_db()
    assert book_job.status == "running" and book_job.attempts == 1
    assert authoring.requeue_stalled_authoring_jobs() == []  # the lease is still live
    with past_lease(book_job), pytest.raises(WorkerKilled):
        authoring.requeue_stalled_authoring_jobs()  # queued again, run in-process: dies
    book_job.refresh_from_db()
    assert book_job.status == "running" and book_job.attempts == 2
    with past_lease(book_job):
        assert authoring.requeue_stalled_authoring_jobs() == []  # failed, not queued
    book_job.refresh_from_db()
    reason = "its worker stopped 2 times without finishing; launch it again to retry"
    assert book_job.status == "failed" and book_job.outcome == reason
    assert book_job.lease_expires_at is None and book_job.finished_at is not None
    page = admin_client.get("/admin/engine/authoringjob/")
    assert page.status_code == 200 and reason in page.content.decode()
    # A late delivery of an old message claims nothing.
    assert "not pending" in authoring.run_authoring_job(book_job.pk)


def test_a_live_job_is_not_run_again_and_a_finished_one_is_not_swept(book_job):
    AuthoringJob.objects.filter(pk=book_job.pk).update(
        status="running", attempts=1, lease_expires_at=timezone.now() + timedelta(seconds=30)
    )
    assert "not pending" in authoring.run_authoring_job(book_job.pk)
    assert not LLMCall.objects.exists()
    book_job.refresh_from_db()
    assert book_job.status == "running" and book_job.attempts == 1
    with past_lease(book_job):
        assert authoring.requeue_stalled_authoring_jobs() == [book_job.pk]
    book_job.refresh_from_db()
    assert book_job.status == "done" and book_job.attempts == 2
    assert KnowledgeBook.objects.filter(author="llm", passed_check=True).count() == 3
    with time_machine.travel(timezone.now() + timedelta(hours=2), tick=False):
        assert authoring.requeue_stalled_authoring_jobs() == []
    book_job.refresh_from_db()
    assert book_job.status == "done" and book_job.attempts == 2


def test_a_pending_job_whose_message_was_lost_is_queued_again_after_the_grace(book_job, settings):
    settings.AUTHORING_PENDING_GRACE_SECONDS = 120
    with time_machine.travel(book_job.queued_at + timedelta(seconds=119), tick=False):
        assert authoring.requeue_stalled_authoring_jobs() == []
    with time_machine.travel(book_job.queued_at + timedelta(seconds=121), tick=False):
        assert authoring.requeue_stalled_authoring_jobs() == [book_job.pk]
    book_job.refresh_from_db()
    assert book_job.status == "done" and book_job.attempts == 1
    assert book_job.outcome.startswith("3 of 3 book(s) passed")


def test_a_try_that_lost_its_lease_records_nothing(book_job, monkeypatch):
    """The first try stalls past its lease; a second takes the job over and finishes it.
    The first one's late outcome is not recorded over the second's."""
    write = authoring.do_write_llm_books
    tries = []

    def stalling_first_try(instances):
        tries.append(True)
        if len(tries) == 1:
            AuthoringJob.objects.filter(pk=book_job.pk).update(
                lease_expires_at=timezone.now() - timedelta(seconds=1)
            )
            assert "3 of 3" in authoring.run_authoring_job(book_job.pk)
            return write(instances.none())
        return write(instances)

    monkeypatch.setattr(authoring, "do_write_llm_books", stalling_first_try)
    assert "0 of 0" in authoring.run_authoring_job(book_job.pk)
    book_job.refresh_from_db()
    assert book_job.status == "done" and book_job.attempts == 2
    assert book_job.outcome.startswith("3 of 3 book(s) passed")
