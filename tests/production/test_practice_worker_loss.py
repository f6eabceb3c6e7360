"""A worker killed while generating a player's family practice task loses nothing: with the
shipped defaults, beat's sweep finds the dead try's lapsed lease and a new worker finishes
the request within a minute and a half of the kill, and the player has one attempt."""

from __future__ import annotations

import os
import signal

import pytest
from django.db import connection, transaction

from engine.family_practice import check_family_practice, do_request_family_practice
from engine.models import FamilyAttempt, FamilyPracticeRequest, FamilyTask
from tests.production.test_stack import clean_broker, wait_for  # noqa: F401
from tests.production.test_worker_loss import recipe_process

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]


def waiting_on_a_lock(table: str) -> bool:
    """Whether another backend of the test database waits for a lock on ``table``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
            "WHERE c.relname = %s AND NOT l.granted AND l.pid <> pg_backend_pid()",
            [table],
        )
        return cursor.fetchone()[0] > 0


def test_a_worker_killed_while_generating_a_practice_task_is_taken_over_with_the_shipped_defaults(
    make_user,
    clean_broker,  # noqa: F811
    tmp_path,
):
    player = make_user("player")
    request = do_request_family_practice(
        player, check_family_practice("simple", "math", "easy")
    ).request
    assert request is not None and request.status == FamilyPracticeRequest.Status.PENDING
    table = FamilyTask._meta.db_table
    schedule = str(tmp_path / "celerybeat-schedule")
    with recipe_process("beat", "--schedule", schedule, log=tmp_path / "beat.log"):
        # simple/math generates in milliseconds, too quick to be killed mid-way (the slow
        # kinds take from a few to tens of seconds depending on the machine and the seed, a
        # race either way). So the test holds the task table: the worker generates, then
        # waits to store the task inside the job, its lease renewed meanwhile, until it is
        # killed. No product code is changed or mocked.
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
            with recipe_process("worker", log=tmp_path / "first.log") as worker:
                wait_for(
                    lambda: (
                        FamilyPracticeRequest.objects.filter(
                            pk=request.pk, status="running"
                        ).exists()
                        and waiting_on_a_lock(table)
                    ),
                    "the worker to generate the task and wait to store it",
                    limit=60,
                )
                # SIGKILL mid-generation, pool processes and all: no clean-up, and the
                # job's message was acknowledged when the job started.
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
        request.refresh_from_db()
        assert request.status == FamilyPracticeRequest.Status.RUNNING and request.attempts == 1
        assert not FamilyAttempt.objects.filter(player=player).exists()

        with recipe_process("worker", log=tmp_path / "second.log"):
            done = wait_for(
                lambda: FamilyPracticeRequest.objects.filter(pk=request.pk, status="done").first(),
                "a new worker to finish the request within 90 s of the kill",
                limit=90,
            )
    assert done.attempts == 2 and done.error == "" and done.lease_expires_at is None
    attempt = FamilyAttempt.objects.get(player=player)
    assert attempt.task == done.task
