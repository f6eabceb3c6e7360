"""A worker killed in the middle of an authoring job (LLM books) loses nothing: with the
shipped defaults, beat's sweep finds the dead try's lapsed lease on its AuthoringJob and a
new worker finishes the job within a minute and a half of the kill, writing each book once.
Before the job had a lease, its unacknowledged message came back only after the Redis
transport's visibility timeout (an hour)."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from benchmark.fake_llm import FakeChatServer
from engine import authoring
from engine.core.families.kumo.book import write_book
from engine.models import AuthoringJob, Instance, KnowledgeBook
from tests.authoring.helpers import Router, reply
from tests.production.test_stack import clean_broker, wait_for  # noqa: F401
from tests.production.test_worker_loss import recipe_process

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]


def test_a_worker_killed_while_writing_books_is_taken_over_with_the_shipped_defaults(
    orchard,
    clean_broker,  # noqa: F811
    tmp_path,
    settings,
    monkeypatch,
):
    instances = list(Instance.objects.filter(domain=orchard).order_by("seed"))
    released = threading.Event()

    def book_for(request):
        prompt = request.messages[1]["content"]
        instance = next(i for i in instances if all(t in prompt for t in i.truths))
        return reply(write_book(instance.domain.to_core(), instance.to_core()))

    def held_book(request):
        # The first book request is held until the test lets go: its worker is mid-call
        # (mid-job) when it is killed. The server is the LLM's stand-in; no product code
        # is changed.
        released.wait(120)
        return book_for(request)

    router = Router(book=[held_book, book_for], review=[reply('{"approve": true}')])
    with FakeChatServer(router) as server:
        for name, value in (
            ("AUTHORING_LLM_BASE_URL", server.base_url),
            ("AUTHORING_LLM_MODEL", "fake-author"),
            ("AUTHORING_LLM_API_KEY_ENV", ""),
        ):
            monkeypatch.setenv(name, value)  # the workers' environment (child_env)
            setattr(settings, name, value)  # this process's, to launch the job
        assert authoring.launch_llm_books([instance.pk for instance in instances]) == 1
        job = AuthoringJob.objects.get()
        schedule = str(tmp_path / "celerybeat-schedule")
        with recipe_process("beat", "--schedule", schedule, log=tmp_path / "beat.log"):
            with recipe_process("worker", log=tmp_path / "first.log") as worker:
                wait_for(
                    lambda: (
                        router.requests("book")
                        and AuthoringJob.objects.filter(pk=job.pk, status="running").exists()
                    ),
                    "the worker to start the job and ask for the first book",
                    limit=60,
                )
                os.killpg(worker.pid, signal.SIGKILL)  # mid-job: no clean-up
                worker.wait()
            released.set()
            job.refresh_from_db()
            assert job.status == AuthoringJob.Status.RUNNING and job.attempts == 1
            assert not KnowledgeBook.objects.filter(author="llm").exists()

            with recipe_process("worker", log=tmp_path / "second.log"):
                done = wait_for(
                    lambda: AuthoringJob.objects.filter(pk=job.pk, status="done").first(),
                    "a new worker to finish the job within 90 s of the kill",
                    limit=90,
                )
    assert done.attempts == 2 and done.outcome.startswith("3 of 3 book(s) passed")
    books = KnowledgeBook.objects.filter(author="llm", passed_check=True)
    assert sorted(books.values_list("instance_id", flat=True)) == sorted(i.pk for i in instances)
