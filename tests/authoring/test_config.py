"""Seed-config generation from the command line: final failures leave nothing half-made,
bad output is a recorded failure (not a crash), and a proposal is generated only once."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from benchmark.fake_llm import FakeResponse
from engine import authoring
from engine.models import Domain, DomainProposal, LLMCall
from tests.authoring.helpers import Router, big_domain_data, reply

pytestmark = pytest.mark.django_db


@pytest.fixture
def proposal() -> DomainProposal:
    return DomainProposal.objects.create(
        name="wild-fauna",
        title="Wild fauna",
        goal="Find which animal lives at the site.",
        truths="Animals of temperate wetlands and forests.",
        actions="Field surveys a ranger can carry out.",
        status=DomainProposal.Status.ACCEPTED,
    )


def generate(proposal_id: int, *args: str) -> str:
    out = StringIO()
    call_command("generate_domain_config", str(proposal_id), *args, stdout=out)
    return out.getvalue()


def test_the_command_stores_a_valid_config_first_time(llm, proposal):
    # The LLM names the domain differently: the proposal's name is the one stored.
    data = {**big_domain_data(), "name": "Something Else"}
    router = Router(config=[reply("Sure! " + json.dumps(data) + " Hope this helps.")])
    llm(router)
    assert generate(proposal.pk) == "stored: wild-fauna (50 truths, 30 actions)\n"
    proposal.refresh_from_db()
    assert proposal.status == DomainProposal.Status.GENERATED
    assert proposal.domain.source == Domain.Source.LLM and proposal.generated_at is not None


def test_a_config_that_never_validates_is_not_stored_and_the_proposal_says_why(
    llm, proposal, settings
):
    settings.AUTHORING_CONFIG_ROUNDS = 3
    small = big_domain_data()
    small["truths"] = small["truths"][:10]
    for action in small["actions"]:
        for state in action["states"]:
            state["rules_out"] = [t for t in state["rules_out"] if t in small["truths"]]
    router = Router(config=[reply(json.dumps(small))])
    llm(router)
    with pytest.raises(CommandError) as raised:
        generate(proposal.pk)
    assert "no usable config after 3 round(s)" in str(raised.value)
    assert "the truth pool has 10 truths; at least 50 are required" in str(raised.value)
    assert router.kinds == ["config"] * 3
    # Each regeneration request lists the problems of the attempt before it.
    for request in router.requests("config")[1:]:
        assert "at least 50 are required" in request.messages[-1]["content"]
    proposal.refresh_from_db()
    assert proposal.status == DomainProposal.Status.FAILED
    assert "at least 50 are required" in proposal.error
    assert not Domain.objects.exists() and proposal.domain is None
    calls = LLMCall.objects.filter(proposal=proposal)
    assert calls.count() == 3
    assert all("at least 50 are required" in " ".join(c.problems) for c in calls)


def test_garbage_replies_are_a_recorded_failure_not_a_crash(llm, proposal, settings):
    settings.AUTHORING_CONFIG_ROUNDS = 2
    router = Router(
        config=[
            reply("I'm sorry, I cannot write that many truths."),
            reply('{"format": "kumo-domain/1", "truths": ["A", "B",,]}'),
        ]
    )
    llm(router)
    with pytest.raises(CommandError) as raised:
        generate(proposal.pk)
    assert "no usable config after 2 round(s)" in str(raised.value)
    first, second = LLMCall.objects.filter(proposal=proposal).order_by("id")
    assert first.problems == [
        'the reply holds no JSON object; it starts "I\'m sorry, I cannot write that many truths."'
    ]
    assert len(second.problems) == 1 and "holds no complete JSON" in second.problems[0]
    assert "Expecting value" in second.problems[0]
    # The model is told what was wrong with its reply.
    assert "holds no JSON object" in router.requests("config")[1].messages[-1]["content"]
    proposal.refresh_from_db()
    assert proposal.status == DomainProposal.Status.FAILED and "complete JSON" in proposal.error
    assert not Domain.objects.exists()


def test_a_reply_cut_off_past_every_continuation_is_a_failed_round(llm, proposal, settings):
    settings.AUTHORING_CONFIG_ROUNDS = 1
    settings.AUTHORING_CONTINUATIONS = 3
    text = json.dumps(big_domain_data())
    router = Router(
        config=[reply(text[:100], finish_reason="length")],
        **{
            "continue": [
                reply(text[100 + 50 * i : 150 + 50 * i], finish_reason="length") for i in range(3)
            ]
        },
    )
    llm(router)
    with pytest.raises(CommandError) as raised:
        generate(proposal.pk)
    assert router.kinds == ["config", "continue", "continue", "continue"]
    assert "still cut off after the continuations" in str(raised.value)
    last = LLMCall.objects.filter(proposal=proposal).order_by("id").last()
    assert "still cut off at the length limit after 3 continuation(s)" in last.problems
    assert not Domain.objects.exists()


def test_an_http_failure_is_recorded_on_the_call_and_the_proposal(llm, proposal):
    llm(lambda request: FakeResponse(status=500, content="upstream exploded"))
    with pytest.raises(CommandError) as raised:
        generate(proposal.pk)
    assert "the LLM request failed: HTTP 500" in str(raised.value)
    call = LLMCall.objects.get(proposal=proposal)
    assert "HTTP 500" in call.error and "upstream exploded" in call.error
    assert call.reply == "" and call.prompt_tokens == 0
    proposal.refresh_from_db()
    assert proposal.status == DomainProposal.Status.FAILED and "HTTP 500" in proposal.error


def test_an_undecided_proposal_needs_accepting_first(llm, proposal):
    router = Router(config=[reply(json.dumps(big_domain_data()))])
    llm(router)
    DomainProposal.objects.filter(pk=proposal.pk).update(status=DomainProposal.Status.PROPOSED)
    with pytest.raises(CommandError, match="pass --accept"):
        generate(proposal.pk)
    assert router.seen == []
    assert "stored: wild-fauna" in generate(proposal.pk, "--accept")
    proposal.refresh_from_db()
    assert proposal.decided_at is not None and proposal.decided_by is None


def test_a_generated_proposal_is_not_generated_again(llm, proposal):
    router = Router(config=[reply(json.dumps(big_domain_data()))])
    llm(router)
    generate(proposal.pk)
    with pytest.raises(CommandError, match="only an accepted proposal"):
        generate(proposal.pk)
    with pytest.raises(authoring.AuthoringError, match="only an accepted proposal"):
        authoring.do_generate_domain_config(proposal.pk)
    assert len(router.seen) == 1 and Domain.objects.count() == 1


def test_a_name_already_taken_is_refused_before_asking(llm, proposal, small_domain_data):
    router = Router(config=[reply(json.dumps(big_domain_data()))])
    llm(router)
    Domain.objects.create(name="wild-fauna", data=small_domain_data)
    with pytest.raises(CommandError, match="a domain named 'wild-fauna' already exists"):
        generate(proposal.pk)
    assert router.seen == [] and not LLMCall.objects.exists()


def test_unknown_proposal(llm):
    with pytest.raises(CommandError, match="there is no proposal 999"):
        generate(999)


def test_a_running_generation_is_not_started_twice_unless_its_worker_died(llm, proposal):
    router = Router(config=[reply(json.dumps(big_domain_data()))])
    llm(router)
    started = timezone.now() - timedelta(minutes=5)
    DomainProposal.objects.filter(pk=proposal.pk).update(
        status=DomainProposal.Status.GENERATING,
        generation_started_at=started,
        lease_expires_at=timezone.now() + timedelta(minutes=1),  # its worker renews it
    )
    with pytest.raises(CommandError, match="is already being generated"):
        generate(proposal.pk)
    assert router.seen == []
    # The worker died: its lease lapses, and the generation may start again.
    DomainProposal.objects.filter(pk=proposal.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert "stored: wild-fauna" in generate(proposal.pk)
    proposal.refresh_from_db()
    assert proposal.attempts == 1 and proposal.lease_expires_at is None


def test_a_reply_cut_off_between_two_words_is_joined_with_its_space(llm, proposal):
    text = json.dumps(big_domain_data())
    cut = text.index('"Amber Heron"') + len('"Amber ')
    assert text[cut - 1] == " "
    router = Router(
        config=[reply(text[:cut], finish_reason="length")],
        **{"continue": [reply(text[cut:])]},
    )
    llm(router)
    assert "stored: wild-fauna (50 truths, 30 actions)" in generate(proposal.pk)
    assert router.kinds == ["config", "continue"]
    assert "Amber Heron" in Domain.objects.get().data["truths"]


def test_beat_takes_over_a_generation_whose_worker_died(llm, proposal, settings):
    router = Router(config=[reply(json.dumps(big_domain_data()))])
    llm(router)
    DomainProposal.objects.filter(pk=proposal.pk).update(
        status=DomainProposal.Status.GENERATING,
        attempts=1,
        generation_started_at=timezone.now() - timedelta(minutes=10),
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    # Queued again (jobs run in-process here): the second try stores the domain.
    assert authoring.requeue_stalled_generations() == [proposal.pk]
    proposal.refresh_from_db()
    assert proposal.status == DomainProposal.Status.GENERATED and proposal.attempts == 2
    assert authoring.requeue_stalled_generations() == []


def test_a_generation_that_keeps_losing_its_worker_fails_with_the_reason(llm, proposal, settings):
    settings.AUTHORING_MAX_ATTEMPTS = 2
    DomainProposal.objects.filter(pk=proposal.pk).update(
        status=DomainProposal.Status.GENERATING,
        attempts=2,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert authoring.requeue_stalled_generations() == []
    proposal.refresh_from_db()
    assert proposal.status == DomainProposal.Status.FAILED
    assert "its worker stopped 2 times" in proposal.error
