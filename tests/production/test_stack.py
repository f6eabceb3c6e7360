"""The production stack for real: PostgreSQL, the Redis channel layer, a Celery worker and
Celery beat as separate processes. Runs in the second pass of ./test.sh (DATABASE_URL and
REDIS_URL set); the embedded pass deselects it with -m "not production"."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from leaderboard import actions
from leaderboard.models import BoardRow, StaleGroup, Submission

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


def test_the_production_settings_are_in_force():
    assert connection.vendor == "postgresql"
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    assert backend == "benchmark.channel_layer.RedisChannelLayer"
    assert settings.CELERY_TASK_ALWAYS_EAGER is False


def child_env() -> dict:
    """The environment for worker processes: the same settings, the *test* database."""
    db = connection.settings_dict
    env = dict(os.environ)
    env["DATABASE_URL"] = (
        f"postgres://{db['USER'] or 'postgres'}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}"
        f":{db['PORT'] or 5432}/{db['NAME']}"
    )
    env["PYTHONPATH"] = str(ROOT)
    # Uploads go to a per-test folder (tests/conftest.py); the worker must read them there.
    env["MEDIA_ROOT"] = str(settings.MEDIA_ROOT)
    return env


@contextmanager
def celery(*args: str):
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "benchmark", *args, "--loglevel", "INFO"],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def stop_group(process: subprocess.Popen, grace: float = 20) -> None:
    """Stop a process started in a process group of its own, as systemd stops a unit:
    SIGTERM to the group, then SIGKILL if it has not exited within ``grace`` seconds. A
    process that has exited already (a test stopped or killed it) is left alone."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=grace)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_for(condition, what: str, limit: float = 90.0):
    """Poll a condition; the limit only bounds a hung run, it is not a performance check."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.fixture
def clean_broker():
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.flushdb()
    yield
    client.flushdb()


def native_file(orchard_instances) -> bytes:
    lines = []
    for instance in orchard_instances:
        for run in range(3):
            lines.append(
                {
                    "seed": instance.seed,
                    "run": run,
                    "actions": instance.actions[:1],
                    "answer": instance.valid_truths[0],
                }
            )
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_a_celery_worker_scores_a_background_submission(orchard, make_user, clean_broker):
    from engine.models import Instance

    instances = list(Instance.objects.filter(domain=orchard).order_by("seed"))
    accepted = actions.submit_results(
        make_user("researcher"),
        model="worker-model",
        domain="orchard",
        n_truths=5,
        n_actions=4,
        fmt="native",
        content=native_file(instances),
        background=True,
    )
    assert accepted.submission.status == Submission.Status.PENDING
    with celery("worker", "--pool", "solo", "--concurrency", "1") as worker:
        done = wait_for(
            lambda: Submission.objects.filter(pk=accepted.submission.pk, status="done").first(),
            "the worker to score the submission",
        )
        # The worker also ran the recompute queued after scoring.
        row = wait_for(
            lambda: BoardRow.objects.filter(model__name="worker-model", domain=None).first(),
            "the recompute",
        )
    assert done.trajectory_count == 9 and row.success_rate == 1.0
    assert worker.returncode is not None


def test_celery_beat_runs_the_recompute_schedule(orchard, make_user, clean_broker):
    from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

    from engine.models import Instance
    from leaderboard.schedule import RECOMPUTE_CHANGED, ensure_schedule

    instances = list(Instance.objects.filter(domain=orchard).order_by("seed"))
    # Score in-process without queueing a recompute, so only beat can clear the mark.
    submission = actions.submit_results(
        make_user("researcher"),
        model="beat-model",
        domain="orchard",
        n_truths=5,
        n_actions=4,
        fmt="native",
        content=native_file(instances),
        background=True,
    ).submission
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.flushdb()  # drop the queued scoring job: score here instead
    actions.process_submission(submission.pk)
    broker.flushdb()  # and drop the recompute it queued: only beat may clear the mark
    assert StaleGroup.objects.exists() and not BoardRow.objects.exists()

    # Transactional tests empty every table, so recreate what the migration installs.
    ensure_schedule(PeriodicTask, IntervalSchedule, CrontabSchedule)
    every_second, _ = IntervalSchedule.objects.get_or_create(every=1, period="seconds")
    task = PeriodicTask.objects.get(name=RECOMPUTE_CHANGED)
    task.interval = every_second
    task.save()
    with (
        celery("worker", "--pool", "solo", "--concurrency", "1"),
        celery(
            "beat",
            "--scheduler",
            "django_celery_beat.schedulers:DatabaseScheduler",
            "--schedule",
            str(ROOT / ".celerybeat-test"),
        ),
    ):
        wait_for(lambda: BoardRow.objects.filter(model__name="beat-model").exists(), "beat")
    assert not StaleGroup.objects.exists()


def test_commands_run_against_postgresql(small_domain_file, tmp_path):
    out = StringIO()
    call_command("import_domain", str(small_domain_file), stdout=out)
    path = tmp_path / "tasks.jsonl"
    call_command(
        "generate_tasks",
        "orchard",
        "--truths",
        "5",
        "--actions",
        "4",
        "--count",
        "3",
        "--out",
        str(path),
        stdout=out,
    )
    assert len(path.read_text().splitlines()) == 3
