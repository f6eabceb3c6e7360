"""The health check, the worker heartbeat, and beat outliving a database hiccup."""

from __future__ import annotations

import time
from contextlib import contextmanager

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test import Client

from benchmark import health
from tests.production.test_stack import ROOT, celery, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_embedded_site_is_healthy_without_redis_or_workers(settings):
    settings.REDIS_URL = ""
    response = Client().get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["checks"]["database"]["ok"] is True
    assert "not used" in body["checks"]["worker"]["detail"]
    assert Client().post("/health/").status_code == 405


@pytest.fixture
def no_heartbeat():
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(health.HEARTBEAT_KEY)
    yield client
    client.delete(health.HEARTBEAT_KEY)


@pytest.mark.production
def test_the_check_fails_on_a_missing_or_stale_heartbeat_and_an_unreachable_redis(
    no_heartbeat, settings
):
    missing = Client().get("/health/")
    assert missing.status_code == 503
    assert "no heartbeat recorded yet" in missing.json()["checks"]["worker"]["error"]
    health.record_heartbeat()
    assert Client().get("/health/").status_code == 200
    no_heartbeat.set(health.HEARTBEAT_KEY, repr(time.time() - 600))
    stale = Client().get("/health/").json()
    assert stale["status"] == "failing" and "600 s old" in stale["checks"]["worker"]["error"]
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    down = Client().get("/health/")
    assert down.status_code == 503 and down.json()["checks"]["redis"]["ok"] is False
    assert down.json()["checks"]["database"]["ok"] is True


def heartbeat_age(client) -> float | None:
    value = client.get(health.HEARTBEAT_KEY)
    return None if value is None else time.time() - float(value)


@pytest.mark.production
def test_beat_and_a_worker_keep_the_heartbeat_and_beat_outlives_a_database_hiccup(
    no_heartbeat, monkeypatch
):
    monkeypatch.setenv("HEARTBEAT_SECONDS", "1")
    with (
        celery("worker", "--pool", "solo", "--concurrency", "1"),
        celery("beat", "--schedule", str(ROOT / ".celerybeat-health-test")) as beat,
    ):
        wait_for(lambda: Client().get("/health/").status_code == 200, "a first heartbeat")
        # Every other connection to the database is cut, beat's included, as a PostgreSQL
        # restart would; beat's next tick fails on it.
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        no_heartbeat.delete(health.HEARTBEAT_KEY)
        # Beat is still running and still sending: a new heartbeat arrives.
        wait_for(lambda: heartbeat_age(no_heartbeat) is not None, "a heartbeat after the cut")
        assert beat.poll() is None, "beat exited after the database hiccup"
        assert Client().get("/health/").status_code == 200


@contextmanager
def database_down():
    """The test database refuses every connection (as while PostgreSQL restarts): new ones
    are refused and existing ones are cut; it comes back when the block ends."""
    import psycopg

    db = connection.settings_dict
    server = {
        "host": db["HOST"] or "127.0.0.1",
        "port": db["PORT"] or 5432,
        "user": db["USER"] or "postgres",
        "dbname": "postgres",
        "autocommit": True,
    }
    name = psycopg.sql.Identifier(db["NAME"])
    with psycopg.connect(**server) as admin:
        admin.execute(psycopg.sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(name))
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            [db["NAME"]],
        )
        try:
            yield
        finally:
            admin.execute(psycopg.sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(name))


@pytest.mark.production
def test_a_beat_tick_outlives_the_database_going_away():
    """The stock DatabaseScheduler raises out of this tick (OperationalError), and beat
    exits; the resilient one waits and goes on."""
    from datetime import datetime, timedelta

    from benchmark.celery import app
    from benchmark.schedulers import RETRY_SECONDS, ResilientDatabaseScheduler

    scheduler = ResilientDatabaseScheduler(app=app)
    scheduler.tick()
    # The next tick reads the whole schedule again, as it does every five minutes.
    scheduler._last_full_sync = datetime.now() - timedelta(minutes=10)
    with database_down():
        assert scheduler.tick() == RETRY_SECONDS
    # Once the database is back, the next tick reconnects and goes on.
    assert isinstance(scheduler.tick(), int | float)


@pytest.mark.production
@pytest.mark.django_db(transaction=True)
def test_pooled_connections_the_server_dropped_are_replaced_not_lent(settings):
    from benchmark.postgresql.base import check_if_idle

    settings.DATABASE_POOL_CHECK_IDLE = 60  # used moments ago: no idle check due
    pool = connection.pool
    assert pool._check is check_if_idle  # Django's per-request check replaced by ours
    client = Client()
    for _ in range(3):  # a few connections lent and returned
        assert client.get("/api/v1/leaderboard/").status_code == 200
    connection.close()  # this thread's connection back to the pool too
    with connection._nodb_cursor() as cursor:  # outside the pool
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [connection.settings_dict["NAME"]],
        )
    try:
        time.sleep(0.3)  # the terminated backends said so and hung up: each is checked
        for _ in range(3):
            assert client.get("/api/v1/leaderboard/").status_code == 200
    finally:
        # Leave no dropped connection in the pool for the tests that follow (they run with
        # the default idle time, and would be lent one).
        connection.close()
        pool.check()
