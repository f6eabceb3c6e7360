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

# One worker serving the default queue and the practice queue, as the recipe's two do.
BOTH_QUEUES = ("--pool", "solo", "--concurrency", "1", "--queues", "celery,practice")


def test_the_embedded_site_is_healthy_without_redis_or_workers(settings):
    settings.REDIS_URL = ""
    response = Client().get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["checks"]["database"]["ok"] is True
    assert "not used" in body["checks"]["worker"]["detail"]
    assert "not used" in body["checks"]["practice_worker"]["detail"]
    assert Client().post("/health/").status_code == 405


@pytest.fixture
def no_heartbeat():
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(health.HEARTBEAT_KEY, health.PRACTICE_HEARTBEAT_KEY)
    yield client
    client.delete(health.HEARTBEAT_KEY, health.PRACTICE_HEARTBEAT_KEY)


def heartbeats() -> None:
    """Both workers' heartbeats, as the recipe's main and practice workers record them."""
    health.record_heartbeat()
    health.record_heartbeat("practice")


@pytest.fixture
def long_running(monkeypatch):
    """This web process has been up far longer than the heartbeat's grace."""
    monkeypatch.setattr(health, "STARTED_AT", time.time() - 3600)


@pytest.mark.production
def test_the_check_fails_on_a_missing_or_stale_heartbeat_and_an_unreachable_redis(
    no_heartbeat, long_running, settings
):
    missing = Client().get("/health/")
    assert missing.status_code == 503 and missing.json()["status"] == "failing"
    assert "no worker heartbeat recorded yet" in missing.json()["checks"]["worker"]["error"]
    health.record_heartbeat()
    # The main worker alone is not enough: without the practice worker every Play waits.
    practice = Client().get("/health/")
    assert practice.status_code == 503 and practice.json()["checks"]["worker"]["ok"] is True
    assert (
        "is beat running, and the practice worker?"
        in (practice.json()["checks"]["practice_worker"]["error"])
    )
    health.record_heartbeat("practice")
    assert Client().get("/health/").status_code == 200
    assert Client().get("/health/").json()["status"] == "ok"
    # Once it arrived, a heartbeat that stops is a fault, however recently the web started.
    health.STARTED_AT = time.time()
    no_heartbeat.set(health.HEARTBEAT_KEY, repr(time.time() - 600))
    stale = Client().get("/health/")
    assert stale.status_code == 503 and stale.json()["status"] == "failing"
    assert "600 s old" in stale.json()["checks"]["worker"]["error"]
    health.record_heartbeat()
    no_heartbeat.set(health.PRACTICE_HEARTBEAT_KEY, repr(time.time() - 600))
    stale = Client().get("/health/").json()
    assert stale["status"] == "failing" and stale["checks"]["worker"]["ok"] is True
    assert (
        "600 s old: beat or the practice worker is down"
        in (stale["checks"]["practice_worker"]["error"])
    )
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    down = Client().get("/health/")
    assert down.status_code == 503 and down.json()["checks"]["redis"]["ok"] is False
    assert down.json()["status"] == "failing" and down.json()["checks"]["database"]["ok"]


@pytest.mark.production
def test_a_fresh_site_says_starting_until_the_first_heartbeat_then_failing_if_none_comes(
    no_heartbeat, monkeypatch
):
    monkeypatch.setattr(health, "STARTED_AT", time.time())
    starting = Client().get("/health/")
    # The site serves (200) and says it is starting, naming what it waits for.
    assert starting.status_code == 200 and starting.json()["status"] == "starting"
    worker = starting.json()["checks"]["worker"]
    assert worker["starting"] is True and "no worker heartbeat yet" in worker["detail"]
    assert starting.json()["checks"]["database"]["ok"] is True
    heartbeats()
    assert Client().get("/health/").json()["status"] == "ok"
    # No heartbeat for the whole grace since the process started: broken, not starting.
    no_heartbeat.delete(health.HEARTBEAT_KEY)
    monkeypatch.setattr(health, "STARTED_AT", time.time() - settings.HEARTBEAT_STALE_SECONDS - 1)
    broken = Client().get("/health/")
    assert broken.status_code == 503 and broken.json()["status"] == "failing"
    assert "starting" not in broken.json()["checks"]["worker"]


@pytest.mark.production
def test_pending_migrations_say_starting_with_503_and_retry_after(no_heartbeat, monkeypatch):
    from django.db.migrations.recorder import MigrationRecorder

    heartbeats()
    monkeypatch.setattr(health, "_migrated", False)
    recorder = MigrationRecorder(connection)
    app, name = max(key for key in recorder.applied_migrations() if key[0] == "leaderboard")
    recorder.record_unapplied(app, name)  # as if the release step had not run it yet
    try:
        response = Client().get("/health/")
        assert response.status_code == 503 and response["Retry-After"] == "5"
        body = response.json()
        assert body["status"] == "starting" and body["checks"]["migrations"]["starting"]
        assert "1 migrations not applied yet" in body["checks"]["migrations"]["detail"]
    finally:
        recorder.record_applied(app, name)
    done = Client().get("/health/")
    assert done.status_code == 200 and done.json()["status"] == "ok"
    assert done.json()["checks"]["migrations"]["ok"] is True


@pytest.mark.production
def test_beat_sends_a_heartbeat_as_it_starts(no_heartbeat, monkeypatch):
    """With the scheduled heartbeat an hour away, only beat's start-up one can arrive."""
    monkeypatch.setenv("HEARTBEAT_SECONDS", "3600")
    with (
        celery("worker", *BOTH_QUEUES),
        celery("beat", "--schedule", str(ROOT / ".celerybeat-health-test")),
    ):
        wait_for(lambda: heartbeat_age(no_heartbeat) is not None, "beat's first heartbeat")
        wait_for(
            lambda: heartbeat_age(no_heartbeat, health.PRACTICE_HEARTBEAT_KEY) is not None,
            "beat's first heartbeat on the practice queue",
        )
    assert Client().get("/health/").json()["status"] == "ok"


def heartbeat_age(client, key: str = health.HEARTBEAT_KEY) -> float | None:
    value = client.get(key)
    return None if value is None else time.time() - float(value)


@pytest.mark.production
def test_beat_and_a_worker_keep_the_heartbeat_and_beat_outlives_a_database_hiccup(
    no_heartbeat, monkeypatch
):
    monkeypatch.setenv("HEARTBEAT_SECONDS", "1")
    with (
        celery("worker", *BOTH_QUEUES),
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
        no_heartbeat.delete(health.HEARTBEAT_KEY, health.PRACTICE_HEARTBEAT_KEY)
        # Beat is still running and still sending: new heartbeats arrive.
        wait_for(lambda: heartbeat_age(no_heartbeat) is not None, "a heartbeat after the cut")
        wait_for(
            lambda: heartbeat_age(no_heartbeat, health.PRACTICE_HEARTBEAT_KEY) is not None,
            "a practice queue heartbeat after the cut",
        )
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
