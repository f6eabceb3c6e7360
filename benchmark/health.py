"""The health check (``GET /health/``) and the worker heartbeat behind it.

A process supervisor, load balancer or uptime monitor probes ``/health/``: 200 when every
part answers, 503 naming the part that does not. The parts:

- ``database``: a ``SELECT 1``;
- ``redis``: a ``PING`` to ``REDIS_URL`` (channel layer and broker; skipped when embedded);
- ``worker``: the heartbeat. Beat sends ``benchmark.heartbeat`` every
  ``HEARTBEAT_SECONDS``; a worker runs it and stores the time in Redis. A heartbeat older
  than ``HEARTBEAT_STALE_SECONDS`` means beat or every worker is down: scheduled
  recomputes, rotations and queued jobs are not running. Embedded, jobs run in-process,
  so there is nothing to check.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

HEARTBEAT_KEY = "kumo:worker-heartbeat"


def _redis():
    import redis

    return redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2, decode_responses=True
    )


def record_heartbeat() -> float:
    """Record that a worker is alive (the ``benchmark.heartbeat`` job, sent by beat)."""
    now = time.time()
    if settings.REDIS_URL:
        _redis().set(HEARTBEAT_KEY, repr(now), ex=24 * 3600)
    return now


def _timed(check) -> dict:
    started = time.monotonic()
    try:
        detail = check()
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


def _redis_ping() -> None:
    _redis().ping()


def _worker() -> dict:
    value = _redis().get(HEARTBEAT_KEY)
    if value is None:
        raise RuntimeError("no heartbeat recorded yet: is beat running, and a worker?")
    age = time.time() - float(value)
    if age > settings.HEARTBEAT_STALE_SECONDS:
        raise RuntimeError(f"the last heartbeat is {age:.0f} s old: beat or the workers are down")
    return {"heartbeat_age_seconds": round(age, 1)}


@never_cache
@require_safe
def health(request):
    checks = {"database": _timed(_database)}
    if settings.REDIS_URL:
        checks["redis"] = _timed(_redis_ping)
        checks["worker"] = _timed(_worker)
    else:
        checks["redis"] = {"ok": True, "detail": "not used (in-memory channel layer)"}
        checks["worker"] = {"ok": True, "detail": "not used (jobs run in-process)"}
    ok = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if ok else "failing", "checks": checks}, status=200 if ok else 503
    )
