"""Thin Celery tasks of the benchmark runner: take ids, call ``benchmark.actions``."""

from __future__ import annotations

from celery import shared_task

from benchmark import actions, health


@shared_task(name="benchmark.run_evaluation")
def run_evaluation_task(run_id: int) -> str:
    """Play a queued evaluation run. A run already claimed (the job delivered twice, or the
    run started elsewhere) is left alone."""
    run = actions.do_run_evaluation(run_id)
    return run.status if run is not None else "already claimed"


@shared_task(name="benchmark.requeue_stalled_runs", ignore_result=True)
def requeue_stalled_runs_task() -> list[int]:
    """Beat sends it every REQUEUE_STALLED_SECONDS: runs whose worker died play on."""
    return actions.requeue_stalled_runs()


@shared_task(name="benchmark.heartbeat", ignore_result=True)
def heartbeat_task(worker: str = "worker") -> float:
    """Beat sends it every HEARTBEAT_SECONDS, on the default queue and (``"practice"``) on
    the practice queue; /health/ checks that a worker of each ran it lately."""
    return health.record_heartbeat(worker)
