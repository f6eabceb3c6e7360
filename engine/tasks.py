"""Thin Celery tasks of the engine: take ids, call an action (``engine.authoring``).

Every job here that a dying worker must not strand holds a lease (``benchmark.jobs``) and
is queued again by a beat sweep: a proposal's generation on its own row, the other
authoring jobs (a brief's proposals, LLM books, re-runs of recorded calls) on an
``AuthoringJob`` row each, a family practice request on its own row.
"""

from __future__ import annotations

from celery import shared_task

from engine import authoring


@shared_task(name="engine.run_authoring_job")
def run_authoring_job_task(job_id: int) -> str:
    """A brief's proposals, LLM books or re-runs (``engine.authoring.run_authoring_job``);
    claimed with a lease, so a second delivery of a live or finished job does nothing."""
    return authoring.run_authoring_job(job_id)


@shared_task(name="engine.requeue_stalled_authoring_jobs", ignore_result=True)
def requeue_stalled_authoring_jobs_task() -> list[int]:
    """Beat, every 10 s: authoring jobs whose worker died are queued again."""
    return authoring.requeue_stalled_authoring_jobs()


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
