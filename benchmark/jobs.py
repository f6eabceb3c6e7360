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
from datetime import datetime, timedelta

from django.db import connection
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
