"""Django's PostgreSQL backend; its psycopg pool checks a connection only after idleness.

With ``CONN_HEALTH_CHECKS`` Django has the pool check every connection before lending it
out: a round trip to the server on every request. Under load (benchmarks/production_load.py,
500 players on two cores) that extra wait, for the server and then for the GIL, took the
median move from 78 ms to about 500 ms. Here the pool checks a connection only when it sat
unused for ``DATABASE_POOL_CHECK_IDLE`` seconds: one the server dropped while idle (a
restart, a terminated backend) is still replaced instead of failing a request, and one
dropped while in use fails that request, is discarded on return and replaced.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool


def check_if_idle(connection) -> None:
    now = time.monotonic()
    last = getattr(connection, "_kumo_lent_at", None)
    connection._kumo_lent_at = now
    if last is None or now - last >= settings.DATABASE_POOL_CHECK_IDLE:
        ConnectionPool.check_connection(connection)


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        # Django builds the pool with ``check=ConnectionPool.check_connection`` when
        # CONN_HEALTH_CHECKS is on, and offers no other way to give it a check.
        if pool is not None and pool._check is not check_if_idle:
            pool._check = check_if_idle
        return pool
