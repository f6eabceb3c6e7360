"""Django's PostgreSQL backend; its psycopg pool checks a connection only after idleness.

With ``CONN_HEALTH_CHECKS`` Django has the pool check every connection before lending it
out: a round trip to the server on every request. Under load (benchmarks/production_load.py,
500 players on two cores) that extra wait, for the server and then for the GIL, took the
median move from 78 ms to about 500 ms. Here the pool checks a connection only when it sat
unused for ``DATABASE_POOL_CHECK_IDLE`` seconds, or when the server sent it something
while it sat in the pool (a terminated backend or a shutting-down server says so and hangs
up; seeing that costs no round trip): one the server dropped is replaced instead of
failing a request.
"""

from __future__ import annotations

import select
import threading
import time

from django.conf import settings
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

_checking = threading.local()


def check_every_connection_next() -> None:
    """Have the pool check each connection this thread takes next, however recently used:
    after one connection was found dead (``benchmark.retry``), its pooled siblings may have
    died with it a moment ago, before the server's goodbye reached their sockets."""
    _checking.all = True


def check_if_idle(connection) -> None:
    now = time.monotonic()
    last = getattr(connection, "_kumo_lent_at", None)
    connection._kumo_lent_at = now
    forced = getattr(_checking, "all", False)
    if (
        forced
        or last is None
        or now - last >= settings.DATABASE_POOL_CHECK_IDLE
        or _server_spoke(connection)
    ):
        ConnectionPool.check_connection(connection)  # a dead one is discarded: next one
        _checking.all = False


def _server_spoke(connection) -> bool:
    """Whether the server sent anything to this idle connection (no round trip): a backend
    that is terminated or shut down says so and hangs up, which makes the socket readable."""
    try:
        return bool(select.select([connection.fileno()], [], [], 0)[0])
    except (OSError, ValueError):
        return True


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        # Django builds the pool with ``check=ConnectionPool.check_connection`` when
        # CONN_HEALTH_CHECKS is on, and offers no other way to give it a check.
        if pool is not None and pool._check is not check_if_idle:
            pool._check = check_if_idle
        return pool
