"""A worker killed while generating a player's family practice task loses nothing: with the
shipped defaults, beat's sweep finds the dead try's lapsed lease and a new worker finishes
the request within a minute and a half of the kill, and the player has one attempt. The
workers are the recipe's practice worker (deploy/Procfile), which alone serves the queue
of players' practice generation; it opens a KUMO practice game too."""

from __future__ import annotations

import os
import re
import signal

import pytest
from django.db import connection, transaction

from engine import practice
from engine.family_practice import (
    check_family_practice,
    do_request_family_practice,
    kumo_wanted,
)
from engine.models import FamilyAttempt, FamilyPracticeRequest, FamilyTask, Instance
from tests.production.test_stack import ROOT, clean_broker, wait_for  # noqa: F401
from tests.production.test_worker_loss import recipe_process


def practice_worker() -> list[str]:
    """The Procfile's practice process as ``recipe_process`` runs it: its arguments after
    ``celery -A benchmark``, its variables at their defaults, the log level left to it."""
    line = next(
        line.removeprefix("practice: ")
        for line in (ROOT / "deploy" / "Procfile").read_text().splitlines()
        if line.startswith("practice: ")
    )
    words = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", line).split()
    assert words[:3] == ["celery", "-A", "benchmark"], line
    words = words[3:]
    at = words.index("--loglevel")
    return words[:at] + words[at + 2 :]


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
            with recipe_process(*practice_worker(), log=tmp_path / "first.log") as worker:
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

        # The recipe's main worker runs beat's sweep (which queues the request again on
        # the practice queue), a new practice worker the generation.
        with (
            recipe_process("worker", log=tmp_path / "main.log"),
            recipe_process(*practice_worker(), log=tmp_path / "second.log"),
        ):
            done = wait_for(
                lambda: FamilyPracticeRequest.objects.filter(pk=request.pk, status="done").first(),
                "a new worker to finish the request within 90 s of the kill",
                limit=90,
            )
    assert done.attempts == 2 and done.error == "" and done.lease_expires_at is None
    attempt = FamilyAttempt.objects.get(player=player)
    assert attempt.task == done.task


def test_the_practice_worker_opens_a_kumo_practice_game(
    orchard,
    make_user,
    clean_broker,  # noqa: F811
    tmp_path,
):
    player = make_user("visitor-like")
    checked = practice.check_practice_request(player, domain="orchard", level="easy")
    request = do_request_family_practice(player, kumo_wanted(checked)).request
    assert request.status == FamilyPracticeRequest.Status.PENDING and request.session is None
    with recipe_process(*practice_worker(), log=tmp_path / "practice.log"):
        done = wait_for(
            lambda: FamilyPracticeRequest.objects.filter(pk=request.pk, status="done").first(),
            "the practice worker to generate the game",
            limit=60,
        )
    session = done.session
    assert session.player == player and session.instance.source == Instance.Source.PRACTICE
    assert (session.instance.n_truths, session.instance.n_actions) == (4, 6)
    assert session.practice_game is not None
