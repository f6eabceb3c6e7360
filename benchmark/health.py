"""The health check (``GET /health/``) and the worker heartbeat behind it.

A process supervisor, load balancer or uptime monitor probes ``/health/``. It tells a site
that is still starting from one that is broken:

- ``ok`` (200): every part answers.
- ``starting`` (200): the site serves, but no worker heartbeat has arrived yet and this
  web process started less than ``HEARTBEAT_STALE_SECONDS`` ago (a fresh install, or beat
  and the workers starting alongside the web). Beat sends a first heartbeat as it starts.
- ``starting`` (503, ``Retry-After``): the database has migrations not applied yet, so
  pages would fail; the release step (``migrate``) is still running.
- ``failing`` (503): a real fault, naming the part: the database or Redis does not answer,
  or the heartbeat is older than ``HEARTBEAT_STALE_SECONDS`` (it stopped after once
  arriving), or none arrived in that long since this process started.

The parts:

- ``database``: a ``SELECT 1``; then ``migrations``: none left to apply (checked until
  none are, then no more in this process);
- ``redis``: a ``PING`` to ``REDIS_URL`` (channel layer and broker; skipped when embedded);
- ``worker``: the heartbeat. Beat sends ``benchmark.heartbeat`` when it starts and every
  ``HEARTBEAT_SECONDS``; a worker runs it and stores the time in Redis. A heartbeat older
  than ``HEARTBEAT_STALE_SECONDS`` means beat or every worker is down: scheduled
  recomputes, rotations and queued jobs are not running. Embedded, jobs run in-process,
  so there is nothing to check.
- ``practice_worker``: the same, sent on the practice queue, which only the recipe's
  practice worker serves (players' practice games and tasks, ``deploy/Procfile``): without
  it every Play click would wait until its request went stale.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

HEARTBEAT_KEY = "kumo:worker-heartbeat"
PRACTICE_HEARTBEAT_KEY = "kumo:practice-heartbeat"
# The heartbeat a worker records, by the queue it came on (benchmark.heartbeat's argument).
HEARTBEAT_KEYS = {"worker": HEARTBEAT_KEY, "practice": PRACTICE_HEARTBEAT_KEY}
# How the check names each heartbeat, and who records it.
HEARTBEAT_WORDS = {
    "worker": ("worker", "a worker"),
    "practice": ("practice worker", "the practice worker"),
}
# When this process started (benchmark.apps imports this module at start-up): until a
# first heartbeat arrives, the site is "starting" for HEARTBEAT_STALE_SECONDS from here.
STARTED_AT = time.time()
# Seconds a monitor is asked to wait before probing again while migrations are pending.
RETRY_AFTER_SECONDS = 5
_migrated = False


class Starting(Exception):
    """A part that is not ready yet but not broken either (the site is starting)."""


def _redis():
    import redis

    return redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2, decode_responses=True
    )


def record_heartbeat(worker: str = "worker") -> float:
    """Record that a worker is alive (the ``benchmark.heartbeat`` job, sent by beat on the
    default queue, and as ``"practice"`` on the practice queue)."""
    now = time.time()
    if settings.REDIS_URL:
        _redis().set(HEARTBEAT_KEYS[worker], repr(now), ex=24 * 3600)
    return now


def _timed(check) -> dict:
    started = time.monotonic()
    try:
        detail = check()
    except Starting as waiting:
        return {"ok": False, "starting": True, "detail": str(waiting)}
    except Exception as error:  # any failure of a dependency is a failed check
        return {"ok": False, "error": f"{error.__class__.__name__}: {error}"[:300]}
    result = {"ok": True, "ms": round((time.monotonic() - started) * 1000, 1)}
    if detail:
        result.update(detail)
    return result


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _migrations() -> None:
    global _migrated
    if _migrated:
        return
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        raise Starting(f"{len(pending)} migrations not applied yet (manage.py migrate)")
    _migrated = True  # migrations are never unapplied under a running site


def _redis_ping() -> None:
    _redis().ping()


def _heartbeat(worker: str) -> dict:
    """The check of one worker's heartbeat (``HEARTBEAT_KEYS``): ``worker`` or ``practice``."""
    name, who = HEARTBEAT_WORDS[worker]
    value = _redis().get(HEARTBEAT_KEYS[worker])
    if value is None:
        waited = time.time() - STARTED_AT
        if waited < settings.HEARTBEAT_STALE_SECONDS:
            raise Starting(
                f"no {name} heartbeat yet ({waited:.0f} s since this process started; beat "
                f"sends one as it starts, {who} records it)"
            )
        raise RuntimeError(f"no {name} heartbeat recorded yet: is beat running, and {who}?")
    age = time.time() - float(value)
    if age > settings.HEARTBEAT_STALE_SECONDS:
        raise RuntimeError(f"the last {name} heartbeat is {age:.0f} s old: beat or {who} is down")
    return {"heartbeat_age_seconds": round(age, 1)}


@never_cache
@require_safe
def health(request):
    checks = {"database": _timed(_database)}
    if checks["database"]["ok"]:
        checks["migrations"] = _timed(_migrations)
    if settings.REDIS_URL:
        checks["redis"] = _timed(_redis_ping)
        for name, worker in (("worker", "worker"), ("practice_worker", "practice")):
            if checks["redis"]["ok"]:
                checks[name] = _timed(lambda worker=worker: _heartbeat(worker))
            else:
                checks[name] = {"ok": False, "error": "not checked: Redis does not answer"}
    else:
        checks["redis"] = {"ok": True, "detail": "not used (in-memory channel layer)"}
        for name in ("worker", "practice_worker"):
            checks[name] = {"ok": True, "detail": "not used (jobs run in-process)"}
    broken = [name for name, check in checks.items() if not check["ok"] and "starting" not in check]
    waiting = [name for name, check in checks.items() if check.get("starting")]
    if broken:
        return JsonResponse({"status": "failing", "checks": checks}, status=503)
    if waiting:
        serves = "migrations" not in waiting
        response = JsonResponse(
            {"status": "starting", "checks": checks}, status=200 if serves else 503
        )
        if not serves:
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    return JsonResponse({"status": "ok", "checks": checks})
