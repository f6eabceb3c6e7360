"""The whole authoring pipeline through the admin, against a scripted local chat server:
brief → proposals → accepted → seed config (cut off, continued, invalid, regenerated) →
stored domain that generates tasks → LLM books revised after a review."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from engine.authoring import run_authoring_job
from engine.core import authoring as core
from engine.core.families.kumo.book import check_book, write_book
from engine.core.families.kumo.domain_io import domain_from_json
from engine.models import (
    AuthoringJob,
    Domain,
    DomainProposal,
    KnowledgeBook,
    LLMCall,
    ProposalBrief,
)
from tests.authoring.helpers import COST_PER_CALL, Router, big_domain_data, proposals_reply, reply

pytestmark = pytest.mark.django_db


def admin_action(client, model: str, action: str, ids: list[int]):
    return client.post(
        f"/admin/engine/{model}/",
        {"action": action, "_selected_action": [str(pk) for pk in ids]},
        follow=True,
    )


def invalid_config() -> dict:
    """The big domain with two mistakes the validator names: an unknown truth in a
    rule-out and two overlapping ranges."""
    data = big_domain_data()
    data["actions"][0]["states"][0]["rules_out"].append("Phantom Yak")
    data["actions"][1]["states"][1]["range"] = [5, 20]
    return data


def test_brief_to_domain_to_books_through_the_admin(
    admin_client, admin_user, llm, django_capture_on_commit_callbacks
):
    good = json.dumps(big_domain_data(), indent=1)
    bad = json.dumps(invalid_config(), indent=1)
    cut = len(bad) // 2
    router = Router(
        propose=[reply(proposals_reply("wild-fauna", "deep-sea-life"))],
        config=[reply(bad[:cut], finish_reason="length"), reply(f"```json\n{good}\n```")],
        **{"continue": [reply(bad[cut:])]},
    )
    llm(router)

    # 1. A brief entered in the admin, then "ask the LLM for proposals".
    response = admin_client.post(
        "/admin/engine/proposalbrief/add/",
        {
            "topics": "wildlife, oceans",
            "count": "2",
            "notes": "",
            "proposals-TOTAL_FORMS": "0",
            "proposals-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    brief = ProposalBrief.objects.get()
    assert brief.created_by == admin_user
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_action(admin_client, "proposalbrief", "ask_for_proposals", [brief.pk])
    assert response.status_code == 200
    assert "Asked the LLM for proposals on 1 brief(s)" in response.content.decode()
    proposals = {p.name: p for p in DomainProposal.objects.all()}
    assert set(proposals) == {"wild-fauna", "deep-sea-life"}
    job = AuthoringJob.objects.get()
    assert job.kind == "proposals" and job.status == "done" and job.attempts == 1
    assert job.outcome == "2 proposal(s) stored"
    # Taken over (its worker died after the answer was stored, its lease lapsed): the new
    # try finds the brief answered since the job was queued and does not ask again.
    AuthoringJob.objects.filter(pk=job.pk).update(
        status="running", lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    calls = LLMCall.objects.count()
    assert "nothing to do" in run_authoring_job(job.pk)
    assert LLMCall.objects.count() == calls and DomainProposal.objects.count() == 2
    job.refresh_from_db()
    assert job.status == "done" and job.attempts == 2
    fauna = proposals["wild-fauna"]
    assert fauna.title == "Wild Fauna" and fauna.goal == "Find which wild-fauna is at work."
    assert fauna.truth_noun == "animal" and fauna.brief == brief
    assert fauna.status == DomainProposal.Status.PROPOSED
    propose_request = router.requests("propose")[0]
    assert "wildlife, oceans" in propose_request.messages[1]["content"]

    # 2. Accepted through the admin, with who and when.
    response = admin_action(admin_client, "domainproposal", "accept", [fauna.pk])
    assert "1 proposal(s) accepted." in response.content.decode()
    fauna.refresh_from_db()
    assert fauna.status == DomainProposal.Status.ACCEPTED
    assert fauna.decided_by == admin_user and fauna.decided_at is not None

    # 3. The seed config: cut off, continued, invalid, sent back with its problems, valid.
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_action(admin_client, "domainproposal", "generate_config", [fauna.pk])
    assert "Generating the seed config of wild-fauna" in response.content.decode()
    assert router.kinds == ["propose", "config", "continue", "config"]
    first, continuation, regeneration = (request for _k, request in router.seen[1:])
    assert "At least 50 truths and at least 30 actions" in first.messages[1]["content"]
    assert '"type": "float"' in first.messages[1]["content"]  # the format example
    # The continuation sends the partial reply back as the assistant's message.
    assert continuation.messages[-2] == {"role": "assistant", "content": bad[:cut]}
    assert continuation.messages[-1]["content"] == core.CONTINUE_PROMPT
    # The regeneration request holds the joined (invalid) config and its validation errors.
    assert regeneration.messages[-2]["content"] == bad
    errors = regeneration.messages[-1]["content"]
    assert "'Phantom Yak'" in errors and "overlap" in errors
    fauna.refresh_from_db()
    assert fauna.status == DomainProposal.Status.GENERATED and fauna.error == ""
    domain = fauna.domain
    assert domain.name == "wild-fauna" and domain.source == Domain.Source.LLM
    assert (domain.truth_count, domain.action_count) == (50, 30)
    assert domain.to_core() == domain_from_json(big_domain_data())
    config_calls = LLMCall.objects.filter(proposal=fauna).order_by("started_at", "id")
    assert [c.kind for c in config_calls] == ["config", "continue", "config"]
    assert config_calls[0].finish_reason == "length"
    assert config_calls[0].problems == ["cut off at the length limit; asked to continue"]
    assert any("Phantom Yak" in problem for problem in config_calls[1].problems)
    assert config_calls[2].problems == []

    # The stored domain generates tasks (Easy here) with deterministic books.
    call_command(
        "generate_tasks",
        "wild-fauna",
        "--truths",
        "4",
        "--actions",
        "6",
        "--count",
        "2",
        stdout=StringIO(),
    )
    instance = domain.instances.order_by("seed").first()
    deterministic = instance.current_book()
    assert deterministic.author == KnowledgeBook.Author.DETERMINISTIC

    # 4. An LLM book: the review asks for a revision, the revised book is approved.
    core_domain, core_instance = domain.to_core(), instance.to_core()
    first_book = write_book(core_domain, core_instance)
    revised_book = first_book + "\nRead the section on each field survey before you act.\n"
    assert check_book(core_domain, core_instance, revised_book) == []
    vague = "The part on the first field survey uses vague wording."
    router.queues.update(
        book=[reply(first_book), reply(revised_book)],
        review=[
            reply(json.dumps({"approve": False, "problems": [vague]})),
            reply('{"approve": true}'),
        ],
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_action(admin_client, "instance", "write_llm_books", [instance.pk])
    assert "Writing LLM books for 1 instance(s)" in response.content.decode()
    assert router.kinds[-4:] == ["book", "review", "book", "review"]
    revision_request = router.requests("book")[1]
    assert revision_request.messages[-2] == {"role": "assistant", "content": first_book.strip()}
    assert vague in revision_request.messages[-1]["content"]

    v1, v2 = KnowledgeBook.objects.filter(instance=instance, author="llm").order_by("id")
    assert not v1.passed_check and v1.problems == [] and v1.review_problems == [vague]
    assert v2.passed_check and v2.revision_of == v1 and v2.review_problems == []
    assert v2.text == revised_book.strip()
    assert instance.current_book() == v2
    assert set(v2.llm_calls.values_list("kind", flat=True)) == {"book", "review"}

    # Every call is recorded with its messages, reply, tokens and estimated cost.
    calls = LLMCall.objects.all()
    assert calls.count() == 8
    for call in calls:
        assert call.messages and call.reply and call.error == ""
        assert (call.prompt_tokens, call.completion_tokens) == (1200, 300)
        assert call.cost == COST_PER_CALL
        assert call.model == "fake-author" and call.finished_at >= call.started_at
