"""Thin Celery tasks of the engine: take ids, call an action (``engine.authoring``).

The authoring jobs without a lease of their own (a brief's proposals, LLM books, re-runs of
recorded calls) are acknowledged late: a worker that dies while running one leaves its
message to be delivered again. Each is given the time it was queued and, delivered again,
skips what was already done since then (an answer recorded on the brief, a book stored for
an instance, a re-run recorded for a call), so a second delivery does the rest only.
"""

from __future__ import annotations

from datetime import datetime

from celery import shared_task

from engine import authoring
from engine.models import Instance, KnowledgeBook, LLMCall, ProposalBrief

# A dying worker's message goes back to the queue instead of being lost with it.
REDELIVERED = {"acks_late": True, "reject_on_worker_lost": True}


def _since(queued_at: str | None) -> datetime | None:
    return datetime.fromisoformat(queued_at) if queued_at else None


@shared_task(name="engine.propose_domains", **REDELIVERED)
def propose_domains_task(brief_id: int, queued_at: str | None = None) -> str:
    """Ask the authoring LLM for a brief's proposals; a failure is recorded on the brief."""
    brief = ProposalBrief.objects.filter(pk=brief_id).first()
    if brief is None:
        return f"brief {brief_id} no longer exists"
    since = _since(queued_at)
    if since and brief.last_asked_at and brief.last_asked_at >= since:
        return f"brief {brief_id} was answered after this job was queued: nothing to do"
    try:
        proposals = authoring.do_propose_domains(brief)
    except authoring.AuthoringError as error:
        return str(error)
    return f"{len(proposals)} proposal(s) stored"


@shared_task(name="engine.generate_domain_config")
def generate_domain_config_task(proposal_id: int) -> str:
    """Generate an accepted proposal's seed config. A proposal already claimed (the job
    delivered twice) is left alone; a failure is recorded on the proposal."""
    try:
        proposal = authoring.do_generate_domain_config(proposal_id)
    except authoring.AuthoringError as error:
        return str(error)
    return f"domain {proposal.name} stored"


@shared_task(name="engine.requeue_stalled_generations", ignore_result=True)
def requeue_stalled_generations_task() -> list[int]:
    """Beat, every 10 s: domain generations whose worker died are queued again."""
    return authoring.requeue_stalled_generations()


@shared_task(name="engine.write_llm_books", **REDELIVERED)
def write_llm_books_task(instance_ids: list[int], queued_at: str | None = None) -> str:
    """Write LLM knowledge books for some instances; every version is stored."""
    instances = Instance.objects.filter(pk__in=instance_ids).select_related("domain")
    since = _since(queued_at)
    if since:  # delivered again: instances given a passing book since it was queued are done
        written = KnowledgeBook.objects.filter(
            author=KnowledgeBook.Author.LLM,
            passed_check=True,
            created_at__gte=since,
            instance_id__in=instance_ids,
        ).values("instance_id")
        instances = instances.exclude(pk__in=written)
    try:
        report = authoring.do_write_llm_books(instances.order_by("pk"))
    except authoring.AuthoringError as error:
        return str(error)
    return f"{report.passed} of {len(report.results)} book(s) passed {report.stopped}".strip()


@shared_task(name="engine.rerun_llm_calls", **REDELIVERED)
def rerun_llm_calls_task(call_ids: list[int], queued_at: str | None = None) -> str:
    """Send recorded LLM calls again; each re-run is recorded as a new call."""
    failures = []
    since = _since(queued_at)
    done = (
        set(
            LLMCall.objects.filter(rerun_of_id__in=call_ids, started_at__gte=since).values_list(
                "rerun_of_id", flat=True
            )
        )
        if since
        else set()
    )
    for call_id in call_ids:
        if call_id in done:
            continue
        try:
            authoring.do_rerun_call(call_id)
        except authoring.AuthoringError as error:
            failures.append(str(error))
    return "; ".join(failures) or f"{len(call_ids)} call(s) re-run"


@shared_task(name="engine.purge_practice", ignore_result=True)
def purge_practice_task() -> dict:
    """Beat, daily: old practice games, their instances and idle guest accounts go."""
    from engine.practice import purge_practice

    return purge_practice()


@shared_task(name="engine.generate_family_practice")
def generate_family_practice_task(request_id: int) -> str:
    """Generate a player's fresh family practice task; claimed with a lease (a second
    delivery finds the request held or finished), a failure recorded on the request."""
    from engine.family_practice import run_family_practice_request

    return run_family_practice_request(request_id)


@shared_task(name="engine.requeue_stalled_practice_requests", ignore_result=True)
def requeue_stalled_practice_requests_task() -> list[int]:
    """Beat, every 10 s: family practice requests whose worker died (or whose message was
    lost) are queued again, or failed after the maximum attempts."""
    from engine.family_practice import requeue_stalled_practice_requests

    return requeue_stalled_practice_requests()
