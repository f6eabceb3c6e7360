"""A worker killed while scoring loses nothing: with the shipped defaults (no lease or sweep
made shorter for the test), beat's sweep finds the dead try's lapsed lease and a new worker
finishes the submission within a minute and a half of the kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from contextlib import contextmanager

import pytest

from engine.models import Instance
from leaderboard import actions
from leaderboard.models import Submission
from tests.production.test_stack import (  # noqa: F401
    ROOT,
    child_env,
    clean_broker,
    stop_group,
    wait_for,
)

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]

RUNS = 10_000  # per instance: 30,000 trajectories (a background job), seconds of scoring

# Settings that would make the take-over quicker than what an administrator gets.
SHIPPED = (
    "SUBMISSION_LEASE_SECONDS",
    "REQUEUE_STALLED_SECONDS",
    "SUBMISSION_PENDING_GRACE_SECONDS",
    "SUBMISSION_MAX_ATTEMPTS",
    "FAMILY_PRACTICE_LEASE_SECONDS",
    "FAMILY_PRACTICE_PENDING_GRACE_SECONDS",
    "FAMILY_PRACTICE_MAX_ATTEMPTS",
)


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


@contextmanager
def recipe_process(*args: str, log):
    """A Celery process as the recipe runs it (deploy/Procfile: a prefork worker with its
    default concurrency, or beat), in a process group of its own so that a kill takes its
    pool processes too, as ``systemctl kill -s KILL`` does; the shipped defaults only."""
    env = {key: value for key, value in child_env().items() if key not in SHIPPED}
    output = open(log, "w")  # a file nobody must drain, read when the test fails
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "benchmark", *args, "--loglevel", "INFO"],
        cwd=ROOT,
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        stop_group(process)
        output.close()


def test_a_worker_killed_while_scoring_is_taken_over_with_the_shipped_defaults(
    orchard,
    make_user,
    clean_broker,  # noqa: F811
    tmp_path,
):
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
    schedule = str(tmp_path / "celerybeat-schedule")
    with recipe_process("beat", "--schedule", schedule, log=tmp_path / "beat.log"):
        with recipe_process("worker", log=tmp_path / "first.log") as worker:
            wait_for(
                lambda: Submission.objects.filter(pk=submission.pk, status="processing").exists(),
                "the worker to start scoring",
                limit=60,
            )
            # SIGKILL mid-scoring, pool processes and all: no clean-up, and the job's message
            # was taken when the job started.
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        submission.refresh_from_db()
        assert submission.status == Submission.Status.PROCESSING and submission.attempts == 1
        assert not submission.trajectories.exists()

        with recipe_process("worker", log=tmp_path / "second.log"):
            # Beat's sweep queues it again once the dead try's lease lapses; the bound is
            # the promise to an administrator, counted from the kill.
            done = wait_for(
                lambda: Submission.objects.filter(pk=submission.pk, status="done").first(),
                "a new worker to finish the submission within 90 s of the kill",
                limit=90,
            )
    assert done.attempts == 2 and done.trajectory_count == 3 * RUNS
    assert done.trajectories.count() == 3 * RUNS
    assert done.trajectories.filter(correct=True).count() == 3 * RUNS * 3 // 4
