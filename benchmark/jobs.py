"""Leases for background jobs, shared by every job that a dying worker must not strand.

A job row (a results file's scoring, an evaluation run, a round's preparation, a domain
proposal's generation) is claimed with a conditional update that sets its status, counts an
attempt and writes ``lease_expires_at``. While the job runs, a :class:`LeaseKeeper` thread
renews the lease every third of its length, whether or not the job makes progress meanwhile
(one LLM call or one large file can outlast a lease), so leases can be short (30 s by
default) however long a job is. A worker that dies stops renewing; beat's requeue sweep
(every ``REQUEUE_STALLED_SECONDS``) then finds the lease expired and queues the job again
(its steps are idempotent), or fails it for good with the reason after the maximum
attempts — as healthchecks' compare-and-set claims do.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import F, Q
from django.utils import timezone

logger = logging.getLogger(__name__)


def lease_until(seconds: float) -> datetime:
    return timezone.now() + timedelta(seconds=seconds)


class LeaseKeeper(threading.Thread):
    """Renews one job row's lease while its job runs; use as a context manager.

    ``running`` filters the rows that still hold the claim (e.g. ``status="preparing"``),
    so a job taken over by another worker is never renewed by this one.
    """

    def __init__(self, model, pk: int, seconds: float, **running) -> None:
        super().__init__(name=f"{model._meta.model_name}-{pk}-lease", daemon=True)
        self.model, self.pk, self.seconds, self.running = model, pk, seconds, running
        self.done = threading.Event()

    def run(self) -> None:
        try:
            while not self.done.wait(self.seconds / 3):
                try:
                    held = self.model.objects.filter(pk=self.pk, **self.running).update(
                        lease_expires_at=lease_until(self.seconds)
                    )
                except Exception:
                    # The database is away for a moment (a restart, a dropped connection):
                    # try again on a fresh connection at the next third. If it stays away
                    # past the lease, the job is taken over, which its steps allow.
                    logger.warning(
                        "%s %s: lease not renewed", self.model.__name__, self.pk, exc_info=True
                    )
                    connection.close()
                    continue
                if not held:  # taken over, or finished: nothing of ours to renew
                    return
        finally:
            connection.close()

    def stop(self) -> None:
        self.done.set()
        if self.is_alive():
            self.join(timeout=10)

    def __enter__(self) -> LeaseKeeper:
        # Inside a transaction the claim is not visible to anyone else until it commits, and
        # renewing it from another connection would wait on this one's row lock: nothing to do.
        if not connection.in_atomic_block:
            self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


def claim_with_lease(model, pk: int, seconds: float, *, running: str | None = None, **also) -> bool:
    """Claim a job row of ``model`` (a ``Status`` with PENDING and RUNNING, ``attempts`` and
    ``lease_expires_at``) with one conditional update: a pending row, or one running under a
    lapsed lease (its worker died). The claim counts an attempt, writes a lease of
    ``seconds`` and the fields in ``also``; ``running`` names the held status when it is
    not ``RUNNING``. Returns whether it was claimed: nothing is claimed when the row is
    done, failed or held by a live try, so a job delivered twice runs once. The try holds
    the row while its status is running with the attempt count it read after the claim."""
    running = model.Status.RUNNING if running is None else running
    claimable = Q(status=model.Status.PENDING) | Q(
        status=running, lease_expires_at__lt=timezone.now()
    )
    return bool(
        model.objects.filter(claimable, pk=pk).update(
            status=running,
            attempts=F("attempts") + 1,
            lease_expires_at=lease_until(seconds),
            **also,
        )
    )


def worker_stopped(tries: int, advice: str) -> str:
    """Why a job row failed after its worker stopped ``tries`` times, with what to do."""
    return f"its worker stopped {tries} times without finishing; {advice}"


def requeue_stalled(
    model,
    *,
    queued_field: str | None,
    grace_seconds: float,
    max_attempts: int,
    failed: Callable[[int], dict],
    queue: Callable[[int], object],
    pending: str | None = None,
    running: str | None = None,
    finished_field: str | None = "finished_at",
) -> list[int]:
    """The beat sweep over ``model``'s job rows (as :func:`claim_with_lease` claims them).
    ``pending`` and ``running`` name the statuses of a row waiting for its job and of one
    held by a try, when they are not ``PENDING`` and ``RUNNING``; ``finished_field``, set
    when a row fails, is None for a model that has none.

    A row running past its lease lost its worker: it goes back to pending and ``queue(pk)``
    queues it again, or after ``max_attempts`` tries it is failed with ``failed(attempts)``
    (the fields that say why). A row pending, unclaimed, ``grace_seconds`` after
    ``queued_field`` lost its message (a broker restart, a worker that died before starting
    it) or waits behind others: it is queued again (not swept when ``queued_field`` is
    None). Either way the row is queued at most
    once per grace period (its ``lease_expires_at`` says when next; the update that sets it
    is conditional, so two sweeps at once queue it once), as evaluation runs and rounds are:
    a sweep every few seconds does not pile messages up behind busy workers. Returns the ids
    queued."""
    pending = model.Status.PENDING if pending is None else pending
    running = model.Status.RUNNING if running is None else running
    now = timezone.now()
    grace = timedelta(seconds=grace_seconds)
    lapsed = Q(status=running, lease_expires_at__lt=now)
    stalled = lapsed
    if queued_field is not None:
        stalled |= Q(status=pending, **{f"{queued_field}__lt": now - grace}) & (
            Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
        )
    finished = {finished_field: now} if finished_field else {}
    name = model._meta.verbose_name
    queued = []
    for pk, attempts in model.objects.filter(stalled).values_list("pk", "attempts"):
        if attempts >= max_attempts:
            model.objects.filter(lapsed, pk=pk, attempts=attempts).update(
                status=model.Status.FAILED, lease_expires_at=None, **finished, **failed(attempts)
            )
            logger.warning("%s %s failed: its worker stopped", name, pk)
            continue
        if model.objects.filter(stalled, pk=pk).update(
            status=pending, lease_expires_at=now + grace
        ):
            logger.warning("%s %s stalled; queued again", name, pk)
            queue(pk)
            queued.append(pk)
    return queued
