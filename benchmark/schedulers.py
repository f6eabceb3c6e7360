"""Celery beat's scheduler: django-celery-beat's, made to outlive a database hiccup.

Beat reads its schedule from the database (editable in the admin). When PostgreSQL refuses
connections for a moment (a restart, ``max_connections`` reached), the stock scheduler can
raise out of ``tick`` and beat exits, so every scheduled job (recomputes, the rotation
check, the heartbeat) silently stops. Here a database error in a tick is logged, the
connections are dropped, and the tick is tried again a few seconds later.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError, close_old_connections, connections
from django_celery_beat.schedulers import DatabaseScheduler

logger = logging.getLogger(__name__)

RETRY_SECONDS = 5.0


class ResilientDatabaseScheduler(DatabaseScheduler):
    def tick(self, *args, **kwargs):
        try:
            return super().tick(*args, **kwargs)
        except (DatabaseError, InterfaceError) as error:
            logger.warning(
                "beat: the database failed (%s); trying again in %.0f s", error, RETRY_SECONDS
            )
            # A broken connection must not be reused: the next tick opens a fresh one.
            for connection in connections.all(initialized_only=True):
                connection.close_if_unusable_or_obsolete()
            close_old_connections()
            return RETRY_SECONDS
