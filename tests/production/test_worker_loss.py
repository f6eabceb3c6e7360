"""A worker killed while scoring loses nothing: the submission is taken over and finishes."""

from __future__ import annotations

import json
import time

import pytest

from engine.models import Instance
from leaderboard import actions
from leaderboard.models import Submission
from tests.production.test_stack import celery, clean_broker, wait_for  # noqa: F401

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]

RUNS = 20_000  # per instance: 60,000 trajectories, a few seconds of scoring


def big_file(instances) -> bytes:
    out = []
    for instance in instances:
        wrong = sorted(t for t in instance.truths if t not in instance.valid_truths)[0]
        for run in range(RUNS):
            answer = instance.valid_truths[0] if run % 4 else wrong
            out.append(
                json.dumps({"seed": instance.seed, "run": run, "actions": [], "answer": answer})
            )
    return ("\n".join(out) + "\n").encode()


def test_a_worker_killed_while_scoring_loses_nothing(orchard, make_user, clean_broker, monkeypatch):  # noqa: F811
    monkeypatch.setenv("SUBMISSION_LEASE_SECONDS", "4")
    instances = list(Instance.objects.filter(domain=orchard).order_by("seed"))
    submission = actions.submit_results(
        make_user("researcher"),
        model="big-model",
        domain="orchard",
        n_truths=5,
        n_actions=4,
        fmt="native",
        content=big_file(instances),
    ).submission
    assert submission.status == Submission.Status.PENDING  # large: a background job
    with celery("worker", "--pool", "solo", "--concurrency", "1") as worker:
        wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="processing").exists(),
            "the worker to start scoring",
            limit=60,
        )
        worker.kill()  # SIGKILL mid-scoring: no clean-up, the job message is already taken
        worker.wait()
    submission.refresh_from_db()
    assert submission.status == Submission.Status.PROCESSING and submission.attempts == 1
    assert not submission.trajectories.exists()

    with celery("worker", "--pool", "solo", "--concurrency", "1"):
        # Beat's sweep (run here by hand) queues it again once the dead try's lease expires.
        deadline = time.monotonic() + 60
        while not actions.requeue_stalled_submissions():
            assert time.monotonic() < deadline, "the lease never expired"
            time.sleep(0.5)
        done = wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="done").first(),
            "the second worker to finish the submission",
            limit=180,
        )
    assert done.attempts == 2 and done.trajectory_count == 3 * RUNS
    assert done.trajectories.count() == 3 * RUNS
    assert done.trajectories.filter(correct=True).count() == 3 * RUNS * 3 // 4
