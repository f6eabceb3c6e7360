"""Thin Celery tasks of the engine: take ids, call an action (``engine.authoring``)."""

from __future__ import annotations

from celery import shared_task

from engine import authoring
from engine.models import Instance, ProposalBrief


@shared_task(name="engine.propose_domains")
def propose_domains_task(brief_id: int) -> str:
    """Ask the authoring LLM for a brief's proposals; a failure is recorded on the brief."""
    brief = ProposalBrief.objects.filter(pk=brief_id).first()
    if brief is None:
        return f"brief {brief_id} no longer exists"
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
    """Beat, every minute: domain generations whose worker died are queued again."""
    return authoring.requeue_stalled_generations()


@shared_task(name="engine.write_llm_books")
def write_llm_books_task(instance_ids: list[int]) -> str:
    """Write LLM knowledge books for some instances; every version is stored."""
    instances = Instance.objects.filter(pk__in=instance_ids).select_related("domain")
    try:
        report = authoring.do_write_llm_books(instances.order_by("pk"))
    except authoring.AuthoringError as error:
        return str(error)
    return f"{report.passed} of {len(report.results)} book(s) passed {report.stopped}".strip()


@shared_task(name="engine.rerun_llm_calls")
def rerun_llm_calls_task(call_ids: list[int]) -> str:
    """Send recorded LLM calls again; each re-run is recorded as a new call."""
    failures = []
    for call_id in call_ids:
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
