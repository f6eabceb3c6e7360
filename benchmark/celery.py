"""The Celery application.

With no ``REDIS_URL`` (or ``CELERY_BROKER_URL``) set, settings make every task run
in-process (``task_always_eager``), so the embedded default needs no worker.
"""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import beat_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmark.settings")

app = Celery("benchmark")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
logger = logging.getLogger(__name__)


@beat_init.connect
def _first_heartbeat(sender=None, **kwargs) -> None:
    """Send a heartbeat as beat starts, not only HEARTBEAT_SECONDS later: a fresh install's
    /health/ says "ok" as soon as beat and a worker are up (benchmark.health)."""
    from django.conf import settings

    try:
        app.send_task("benchmark.heartbeat")
        app.send_task("benchmark.heartbeat", args=["practice"], queue=settings.PRACTICE_QUEUE)
    except Exception:  # the broker is not up yet: the schedule sends the next one
        logger.warning("beat: the first heartbeat could not be sent", exc_info=True)
