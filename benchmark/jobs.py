"""Leases for background jobs, shared by every job that a dying worker must not strand.

A job row (an evaluation run, a round's preparation, a domain proposal's generation; a
results file's scoring has its own take-over rule in ``leaderboard.actions``) is claimed
with a conditional update that sets its status, counts an attempt and writes
``lease_expires_at``. While the job runs, a :class:`LeaseKeeper` thread renews the lease
every third of its length, whether or not the job makes progress meanwhile (one LLM call
can outlast a lease). A worker that dies stops renewing; beat's requeue task then finds the
lease expired and queues the job again (its steps are idempotent), or fails it for good
with the reason after the maximum attempts — as healthchecks' compare-and-set claims do.
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
                self.model.objects.filter(pk=self.pk, **self.running).update(
                    lease_expires_at=lease_until(self.seconds)
                )
        except Exception:  # the database is away: the lease lapses and the job is taken over
            logger.warning("%s %s: lease not renewed", self.model.__name__, self.pk, exc_info=True)
        finally:
            connection.close()

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=10)

    def __enter__(self) -> LeaseKeeper:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()
