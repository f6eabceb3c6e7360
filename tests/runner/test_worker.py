"""A real Celery worker plays a run started from the API (production pass of ./test.sh:
PostgreSQL, Redis, a worker process on the test database)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from benchmark.models import EvaluationGame, EvaluationRun
from benchmark.tasks import run_evaluation_task
from leaderboard.models import Submission
from tests.production.test_stack import celery, clean_broker, wait_for  # noqa: F401 - fixture

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]


@pytest.mark.usefixtures("clean_broker")
def test_a_worker_plays_a_run_started_from_the_api_once(orchard, fake_server, oracle_script):
    from django.contrib.auth.models import User

    out = StringIO()
    call_command("create_api_token", "lab", stdout=out, stderr=StringIO())
    User.objects.filter(username="lab").update(is_staff=True)
    staff = APIClient()
    staff.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    server = fake_server(oracle_script)

    response = staff.post(
        "/api/v1/runs/",
        {
            "model": "worker-model",
            "base_url": server.base_url,
            "domains": ["orchard"],
            "n_truths": 5,
            "n_actions": 4,
            "runs": 2,
            "concurrency": 4,
        },
        format="json",
    )
    assert response.status_code == 201 and response.json()["status"] == "queued"
    run_id = response.json()["id"]
    run_evaluation_task.delay(run_id)  # delivered twice: the second claim must do nothing

    with celery("worker", "--pool", "solo", "--concurrency", "1"):
        run = wait_for(
            lambda: EvaluationRun.objects.filter(pk=run_id, status__in=["done", "failed"]).first(),
            "the worker to play the run",
        )
    assert (run.status, run.finished_games, run.correct_games) == ("done", 6, 6), run.error
    assert EvaluationGame.objects.filter(run=run).count() == 6
    assert Submission.objects.get(model__name="worker-model").trajectory_count == 6
    assert staff.get(f"/api/v1/runs/{run_id}/").json()["progress"] == 1.0


@pytest.mark.usefixtures("clean_broker")
def test_a_run_whose_worker_is_killed_is_taken_over_and_finished(
    orchard, fake_server, oracle_script, monkeypatch
):
    from dataclasses import replace

    from django.contrib.auth.models import User

    from benchmark import actions

    monkeypatch.setenv("RUN_LEASE_SECONDS", "3")
    # A slow model (0.3 s a reply), one game at a time: the run is mid-way when the worker dies.
    server = fake_server(lambda request: replace(oracle_script(request), delay=0.3))
    lab = User.objects.create_user("lab", is_staff=True)
    staff = APIClient()
    staff.force_authenticate(lab)
    response = staff.post(
        "/api/v1/runs/",
        {
            "model": "killed-model",
            "base_url": server.base_url,
            "domains": ["orchard"],
            "n_truths": 5,
            "n_actions": 4,
            "runs": 4,
            "concurrency": 1,
        },
        format="json",
    )
    assert response.status_code == 201
    run_id = response.json()["id"]
    with celery("worker", "--pool", "solo", "--concurrency", "1") as worker:
        wait_for(
            lambda: EvaluationGame.objects.filter(run_id=run_id).exists(),
            "the worker to store a game",
        )
        worker.kill()  # SIGKILL: no clean-up; the run stays "running" with its lease
        worker.wait()
    run = EvaluationRun.objects.get(pk=run_id)
    assert (run.status, run.attempts) == ("running", 1)
    stored = EvaluationGame.objects.filter(run=run).count()
    assert 0 < stored < 12

    with celery("worker", "--pool", "solo", "--concurrency", "1"):
        # Beat's sweep (run here by hand) queues it again once the dead try's lease expires.
        wait_for(actions.requeue_stalled_runs, "the lease to expire", limit=60)
        run = wait_for(
            lambda: EvaluationRun.objects.filter(pk=run_id, status__in=["done", "failed"]).first(),
            "the second worker to finish the run",
            limit=120,
        )
    assert (run.status, run.attempts) == ("done", 2), run.error
    assert (run.finished_games, run.correct_games) == (12, 12)
    assert EvaluationGame.objects.filter(run=run).count() == 12  # each game once
    assert response.json()["lease_expires_at"] is None  # the API shows the job's lease
    assert staff.get(f"/api/v1/runs/{run_id}/").json()["attempts"] == 2


def test_a_run_that_keeps_losing_its_worker_fails_with_the_reason(orchard, settings):
    from django.utils import timezone

    from benchmark import actions

    settings.RUN_MAX_ATTEMPTS = 2
    run = EvaluationRun.objects.create(
        model="oracle",
        status=EvaluationRun.Status.RUNNING,
        attempts=2,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert actions.requeue_stalled_runs() == []
    run.refresh_from_db()
    assert run.status == "failed" and "stopped 2 times" in run.error
    assert run.lease_expires_at is None
    # Resumed by hand, it gets fresh tries.
    assert actions.do_requeue_run(run, launch=False)
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("queued", 0)
