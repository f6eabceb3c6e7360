"""LLM knowledge books: written from the rules only, checked, reviewed, revised a bounded
number of times; only a book that passes both is shown to players."""

from __future__ import annotations

import json
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from benchmark.fake_llm import FakeResponse
from engine.core import authoring as core
from engine.core.families.kumo.book import write_book
from engine.models import Instance, KnowledgeBook, LLMCall
from tests.authoring.helpers import Router, reply

pytestmark = pytest.mark.django_db

APPROVE = reply('{"approve": true}')


def books_command(*args: str) -> str:
    out = StringIO()
    call_command("write_llm_books", "orchard", "--truths", "5", "--actions", "4", *args, stdout=out)
    return out.getvalue()


def api_client() -> APIClient:
    out = StringIO()
    call_command("create_api_token", "reader", stdout=out, stderr=StringIO())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    return client


def deterministic_text(instance: Instance) -> str:
    return write_book(instance.domain.to_core(), instance.to_core())


def test_a_book_that_never_passes_keeps_the_deterministic_book(orchard, llm, settings):
    settings.AUTHORING_BOOK_REVISIONS = 2
    instance = orchard.instances.order_by("seed").first()
    deterministic = instance.current_book()
    router = Router(book=[reply("# A guidebook\n\nTake tests and think hard.")], review=[APPROVE])
    llm(router)
    output = books_command("--limit", "1")
    assert "no LLM book passed (3 version(s)" in output
    assert "0 of 1 LLM book(s) passed" in output
    # The checker failed every version, so no review was spent; each revision request
    # listed the checker's problems.
    assert router.kinds == ["book", "book", "book"]
    assert "is never named" in router.requests("book")[1].messages[-1]["content"]
    versions = list(KnowledgeBook.objects.filter(instance=instance, author="llm").order_by("id"))
    assert len(versions) == 3
    assert not any(book.passed_check for book in versions)
    assert all(any("is never named" in p for p in book.problems) for book in versions)
    assert [book.revision_of for book in versions] == [None, versions[0], versions[1]]
    assert instance.current_book() == deterministic
    assert deterministic.author == KnowledgeBook.Author.DETERMINISTIC
    # Players starting a session are shown the deterministic book.
    started = api_client().post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    assert started.status_code == 201
    assert started.json()["knowledge_book"] == deterministic.text


def test_the_prompts_carry_the_rules_but_never_the_answer_or_observations(orchard, llm):
    instance = orchard.instances.order_by("seed").first()
    text = deterministic_text(instance)
    router = Router(
        book=[reply(text)],
        review=[reply('{"approve": false, "problems": ["Say more."]}'), APPROVE],
    )
    llm(router)
    books_command("--limit", "1")
    assert router.kinds == ["book", "review", "book", "review"]

    # The book prompt is built from the public rules alone (domain, truths, actions): the
    # builder is never given the answer or the observations.
    first = router.requests("book")[0].messages
    rules = core.TaskRules.of(orchard.to_core(), instance.truths, instance.actions)
    assert first == core.book_messages(rules)
    assert all(truth in first[1]["content"] for truth in instance.truths)
    assert all(action in first[1]["content"] for action in instance.actions)
    for _kind, request in router.seen:
        sent = json.dumps(request.messages)
        for observation in instance.observations.values():
            if isinstance(observation, float):
                assert repr(observation) not in sent and f"{observation:g}" not in sent
        assert "valid truth" not in sent.lower() and "observ" not in sent.lower()
    # Truths are listed alphabetically, never in the instance's (generation) order.
    listed = [
        line[2:]
        for line in first[1]["content"].split("The 5 pests:\n", 1)[1].split("\n\n")[0].splitlines()
    ]
    assert listed == sorted(instance.truths, key=str.casefold)


def test_identical_rules_give_identical_prompts_whatever_the_answer(orchard, llm):
    """Two stored tasks that differ only in their answer and observations are sent the
    very same requests."""
    instance = orchard.instances.order_by("seed").first()
    valid = instance.valid_truths[0]
    other = next(t for t in instance.truths if t != valid)
    twin = Instance.objects.create(
        domain=orchard,
        n_truths=instance.n_truths,
        n_actions=instance.n_actions,
        seed=10_000,
        truths=list(reversed(instance.truths)),
        actions=list(reversed(instance.actions)),
        observations={action: "made-up" for action in instance.actions},
        valid_truths=[other],
    )
    router = Router(book=[reply("# Book\n\nToo short.")])
    llm(router)
    from engine import authoring

    authoring.do_write_llm_book(instance)
    first_requests = [r.messages for _k, r in router.seen]
    router.seen.clear()
    authoring.do_write_llm_book(twin)
    assert [r.messages for _k, r in router.seen] == first_requests


def test_an_unreadable_review_is_asked_again_then_counts_as_not_approved(orchard, llm):
    instance = orchard.instances.order_by("seed").first()
    router = Router(
        book=[reply(deterministic_text(instance))],
        review=[reply("Looks fine to me!"), reply("Yes, approved, really.")],
    )
    llm(router)
    output = books_command("--limit", "1")
    assert router.kinds == ["book", "review", "review"]
    assert core.REVIEW_FORMAT_REMINDER == router.requests("review")[1].messages[-1]["content"]
    assert "no LLM book passed (1 version(s)" in output
    book = KnowledgeBook.objects.get(instance=instance, author="llm")
    assert not book.passed_check and book.problems == []
    assert book.review == "Yes, approved, really."
    assert book.review_problems[0].startswith("the review could not be read")
    assert instance.current_book().author == KnowledgeBook.Author.DETERMINISTIC


def test_a_book_in_a_code_fence_cut_off_and_continued_passes(orchard, llm):
    instance = orchard.instances.order_by("seed").first()
    text = "```markdown\n" + deterministic_text(instance) + "\n```"
    cut = text.index("## How to reason")
    router = Router(
        book=[reply(text[:cut], finish_reason="length")],
        review=[APPROVE],
        **{"continue": [reply(text[cut:])]},
    )
    llm(router)
    assert "passed (1 version(s))" in books_command("--limit", "1")
    book = instance.current_book()
    assert book.author == KnowledgeBook.Author.LLM
    assert book.text == deterministic_text(instance).strip()
    assert book.llm_calls.count() == 3
    started = api_client().post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    assert started.json()["knowledge_book"] == book.text


def test_the_command_writes_books_for_a_setting_and_skips_those_already_done(orchard, llm):
    instances = list(orchard.instances.order_by("seed"))
    # The truth lists tell the tasks apart.
    assert len({frozenset(i.truths) for i in instances}) == len(instances)

    def book_for(request):
        prompt = request.messages[1]["content"]
        instance = next(i for i in instances if all(t in prompt for t in i.truths))
        return reply(deterministic_text(instance))

    llm(Router(book=[book_for], review=[APPROVE]))
    output = books_command("--limit", "2")
    assert output.count("passed (1 version(s))") == 2
    output = books_command()
    assert output.count("passed (1 version(s))") == 1  # only the third was left
    with pytest.raises(CommandError, match="need a book"):
        books_command()
    for instance in instances:
        assert instance.current_book().author == KnowledgeBook.Author.LLM


def test_a_failing_llm_stops_the_batch_with_a_clear_error(orchard, llm, monkeypatch, settings):
    llm(lambda request: FakeResponse(status=401, content="Incorrect API key provided"))
    with pytest.raises(CommandError) as raised:
        books_command()
    assert "got no book because the LLM request failed" in str(raised.value)
    assert "stopped after" in str(raised.value) and "HTTP 401" in str(raised.value)
    # The batch stopped at the first task: one failed call recorded, no book stored.
    call = LLMCall.objects.get()
    assert call.kind == "book" and "HTTP 401" in call.error
    assert not KnowledgeBook.objects.filter(author="llm").exists()


def test_command_arguments_are_checked(orchard, llm):
    llm(Router())
    with pytest.raises(CommandError, match="unknown domain 'nope'"):
        call_command("write_llm_books", "nope", "--truths", "5", "--actions", "4")
    with pytest.raises(CommandError, match="--limit must be at least 1"):
        books_command("--limit", "0")
    with pytest.raises(CommandError, match="no stored 9-truth / 4-action tasks"):
        call_command("write_llm_books", "orchard", "--truths", "9", "--actions", "4")


def test_a_book_job_taken_over_writes_only_what_is_left(
    orchard, llm, django_capture_on_commit_callbacks
):
    """A book job holds a lease (engine.authoring.run_authoring_job): a try whose worker
    died is taken over by beat's sweep, and the new try skips the instances given a passing
    book since the job was queued."""
    from datetime import timedelta

    from django.utils import timezone

    from engine import authoring
    from engine.models import AuthoringJob

    instances = list(orchard.instances.order_by("seed"))

    def book_for(request):
        prompt = request.messages[1]["content"]
        instance = next(i for i in instances if all(t in prompt for t in i.truths))
        return reply(deterministic_text(instance))

    router = Router(book=[book_for], review=[APPROVE])
    llm(router)
    ids = [instance.pk for instance in instances]
    with django_capture_on_commit_callbacks():  # queued, not yet taken by a worker
        assert authoring.launch_llm_books(ids) == 1
    job = AuthoringJob.objects.get()
    assert job.kind == "books" and job.ids == ids and job.status == "pending"
    # The first try wrote the first instance's book, then its worker died.
    AuthoringJob.objects.filter(pk=job.pk).update(
        status="running", attempts=1, lease_expires_at=timezone.now() + timedelta(seconds=30)
    )
    authoring.do_write_llm_books(Instance.objects.filter(pk=ids[0]))
    calls = LLMCall.objects.count()
    assert authoring.requeue_stalled_authoring_jobs() == []  # its lease is still live
    with time_machine.travel(timezone.now() + timedelta(seconds=31), tick=False):
        # Queued again; without a broker the job runs in-process at once.
        assert authoring.requeue_stalled_authoring_jobs() == [job.pk]
    job.refresh_from_db()
    assert job.status == "done" and job.attempts == 2 and job.lease_expires_at is None
    assert f"{len(ids) - 1} of {len(ids) - 1} book(s) passed" in job.outcome
    assert KnowledgeBook.objects.filter(instance_id=ids[0], author="llm").count() == 1
    assert LLMCall.objects.count() == calls + 2 * (len(ids) - 1)  # a book and a review each
    # Delivered again: the job is done, nothing is claimed and no LLM call is made.
    assert "not pending" in authoring.run_authoring_job(job.pk)
    assert LLMCall.objects.count() == calls + 2 * (len(ids) - 1)
    job.refresh_from_db()
    assert job.attempts == 2
