"""Practice on the task families: a task of the chosen (family, kind, level) for a player.

1. A stored task the player has not attempted yet is served first: no generation, nothing
   counted (``unseen_task``). Only tasks anyone may list are served this way: public ones
   (``FamilyTask.Origin.PUBLIC``) and those imported from a published benchmark (the only
   tasks of a family that is never generated, the Unpuzzles); never a round's, a ranked
   attempt's or a study's.
2. When none is left, a fresh task is generated. That costs the server seconds for some
   kinds, so it is asked for as a ``FamilyPracticeRequest`` and run in a background job
   (``engine.tasks.generate_family_practice_task``); the page waits on the request.
   Requests count toward the hourly limits of KUMO practice (``engine.practice``, one
   shared budget), and a player has at most one in flight per (family, kind, level): a
   repeated click gets the same request back.
3. The job claims the request with a conditional update (a second delivery does nothing),
   generates with a fresh random seed (practice tasks show their answer at the end anyway,
   so their seeds may be public), starts the player's attempt and records the outcome.

Operators' ``generate_family_tasks`` command is not limited: it calls
``engine.families.do_generate_family_tasks`` directly.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine import families, practice
from engine.core.families.base import FamilyError, SeedRefused, get_family
from engine.models import FamilyAttempt, FamilyPracticeRequest, FamilyTask

logger = logging.getLogger(__name__)

# A request still pending or running this long after it was made lost its job (a worker
# died, a message was dropped): it no longer blocks a new one and is reported as failed.
STALE_AFTER = timedelta(minutes=10)
SEED_BITS = 40
# Draws of a fresh seed before giving up, for generators that refuse some seeds
# (engine.core.families.base.SeedRefused).
SEED_DRAWS = 3
IN_FLIGHT = (FamilyPracticeRequest.Status.PENDING, FamilyPracticeRequest.Status.RUNNING)
SERVED_ORIGINS = (FamilyTask.Origin.PUBLIC, FamilyTask.Origin.IMPORTED)


class FamilyPracticeError(practice.PracticeError):
    """A bad choice of family, kind or level (400)."""


@dataclass(frozen=True)
class Wanted:
    family: str
    kind: str
    level: str
    ip_address: str | None
    # False for a family whose tasks are imported, never generated (Unpuzzles).
    generated: bool


@dataclass(frozen=True)
class Outcome:
    """What a player gets: an attempt at a stored task now, or a request being prepared."""

    attempt: FamilyAttempt | None = None
    request: FamilyPracticeRequest | None = None


def check_family_practice(
    family: str, kind: str, level: str, ip_address: str | None = None
) -> Wanted:
    """Validate the choice (the family, its kind and the kind's level); raises
    :class:`FamilyPracticeError` with a message for the player."""
    try:
        source = get_family(family)
        source.kind(kind).resolve(None, level or None)
    except FamilyError as error:
        raise FamilyPracticeError(str(error)) from None
    return Wanted(family, kind, level, ip_address, not getattr(source, "imported", False))


def unseen_task(player: User, wanted: Wanted) -> FamilyTask | None:
    """A stored public task of the choice that ``player`` has not attempted, if any."""
    from leaderboard.access import visible_family_tasks

    tried = FamilyAttempt.objects.filter(player=player).values("task_id")
    return (
        visible_family_tasks()
        .filter(
            origin__in=SERVED_ORIGINS,
            family=wanted.family,
            kind=wanted.kind,
            level=wanted.level,
        )
        .exclude(pk__in=tried)
        .order_by("?")
        .first()
    )


def do_request_family_practice(player: User, wanted: Wanted) -> Outcome:
    """An attempt at an unseen stored task, else the player's request for a fresh one
    (the one in flight, or a new one queued after commit). Raises
    :class:`engine.practice.TooManyGames` past the hourly limit."""
    task = unseen_task(player, wanted)
    if task is not None:
        attempt, _ = families.start_attempt(player, task)
        return Outcome(attempt=attempt)
    if not wanted.generated:
        raise FamilyPracticeError(
            f"you have tried every stored {wanted.family}/{wanted.kind} task; "
            "this family's tasks are imported, never generated"
        )
    mine = FamilyPracticeRequest.objects.filter(
        player=player, family=wanted.family, kind=wanted.kind, level=wanted.level
    )
    _fail_stale(mine)
    waiting = mine.filter(status__in=IN_FLIGHT).first()
    if waiting is not None:
        return Outcome(request=waiting)
    try:
        with transaction.atomic():
            # As for a KUMO practice game: serialise the address's and the player's
            # requests so that parallel ones cannot all pass the count.
            practice.lock_address(wanted.ip_address)
            User.objects.select_for_update().filter(pk=player.pk).first()
            practice.check_hourly_limit(player, wanted.ip_address)
            request = FamilyPracticeRequest.objects.create(
                player=player,
                family=wanted.family,
                kind=wanted.kind,
                level=wanted.level,
                ip_address=wanted.ip_address,
                created_at=timezone.now(),
            )
    except IntegrityError:  # a parallel click made it first
        return Outcome(request=mine.get(status__in=IN_FLIGHT))
    from engine.tasks import generate_family_practice_task

    request_id = request.pk
    transaction.on_commit(lambda: generate_family_practice_task.delay(request_id))
    return Outcome(request=request)


def _fail_stale(requests) -> None:
    requests.filter(status__in=IN_FLIGHT, created_at__lt=timezone.now() - STALE_AFTER).update(
        status=FamilyPracticeRequest.Status.FAILED,
        error="the task was not prepared in time; please ask again",
        finished_at=timezone.now(),
    )


def run_family_practice_request(request_id: int) -> str:
    """The job: generate the request's task and start the player's attempt at it. Only a
    pending request is claimed, so running the job twice does no harm."""
    claimed = FamilyPracticeRequest.objects.filter(
        pk=request_id, status=FamilyPracticeRequest.Status.PENDING
    ).update(status=FamilyPracticeRequest.Status.RUNNING)
    if not claimed:
        return f"request {request_id} is not pending: nothing to do"
    request = FamilyPracticeRequest.objects.select_related("player").get(pk=request_id)
    try:
        for draw in range(SEED_DRAWS):
            try:
                report = families.do_generate_family_tasks(
                    request.family,
                    request.kind,
                    count=1,
                    seed=secrets.randbits(SEED_BITS),
                    level=request.level or None,
                )
                break
            except SeedRefused:
                if draw == SEED_DRAWS - 1:
                    raise
    except FamilyError as error:
        return _finish(request, error=f"no task could be generated: {error}"[:500])
    except Exception:
        # A bug, not a bad request: logged for the operators, and the player is told
        # instead of waiting for the request to go stale.
        logger.exception("family practice request %s failed", request_id)
        return _finish(request, error="no task could be generated: an error on our side")
    task = report.tasks[0]
    families.start_attempt(request.player, task)
    return _finish(request, task=task)


def _finish(
    request: FamilyPracticeRequest, *, task: FamilyTask | None = None, error: str = ""
) -> str:
    request.task = task
    request.error = error
    request.status = (
        FamilyPracticeRequest.Status.FAILED if error else FamilyPracticeRequest.Status.DONE
    )
    request.finished_at = timezone.now()
    request.save(update_fields=["task", "error", "status", "finished_at"])
    return error or f"task {task.pk} prepared"


def request_state(request: FamilyPracticeRequest) -> dict:
    """The request as its status endpoint shows it: its status, the attempt to open once
    it is done, and the error if it failed."""
    if request.status in IN_FLIGHT and request.created_at < timezone.now() - STALE_AFTER:
        _fail_stale(FamilyPracticeRequest.objects.filter(pk=request.pk))
        request.refresh_from_db()
    attempt_id = None
    if request.status == FamilyPracticeRequest.Status.DONE and request.task_id is not None:
        attempt_id = (
            FamilyAttempt.objects.filter(
                player_id=request.player_id, task_id=request.task_id, model_name=""
            )
            .values_list("pk", flat=True)
            .first()
        )
    return {
        "id": request.pk,
        "family": request.family,
        "kind": request.kind,
        "level": request.level,
        "status": request.status,
        "attempt": attempt_id,
        "error": request.error,
    }
