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
3. The job claims the request with a conditional update and a lease (``benchmark.jobs``;
   a second delivery does nothing), generates with a fresh random seed (practice tasks show
   their answer at the end anyway, so their seeds may be public) while a ``LeaseKeeper``
   renews the lease, then starts the player's attempt and records the outcome in one
   transaction, only if it still holds the claim.
4. A worker that dies mid-generation stops renewing: beat's sweep
   (``requeue_stalled_practice_requests``, every ``REQUEUE_STALLED_SECONDS``) queues the
   request again once its lease lapses, and after ``FAMILY_PRACTICE_MAX_ATTEMPTS`` tries
   fails it with the reason, which the waiting page shows.

KUMO's practice games (the Play entry, and ``family=kumo`` on the families' form) take the
same path from step 2, with their own check (``engine.practice.check_practice_request``):
each game is on an instance generated for it alone with a secret seed, so no stored one is
served; the job generates the instance (``engine.practice.fresh_instance``, a Hard game of
a large domain takes seconds) and opens the player's session on it
(``engine.practice.open_practice_game``), which the waiting page then opens.

Operators' ``generate_family_tasks`` command is not limited: it calls
``engine.families.do_generate_family_tasks`` directly.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from benchmark.jobs import LeaseKeeper, claim_with_lease, requeue_stalled
from engine import families, practice
from engine.core.families.base import FamilyError, SeedRefused, get_family
from engine.models import Domain, FamilyAttempt, FamilyPracticeRequest, FamilyTask, Instance

logger = logging.getLogger(__name__)

# The last resort when beat's sweep is not running (the embedded default has no beat): a
# request still in flight this long after it was made, with no live lease, lost its job; it
# no longer blocks a new one and is reported as failed. With beat, the sweep takes over
# (or fails) a request whose worker died long before this.
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
    level = families.canonical_level(family, kind, level)  # a former name: its level
    return Wanted(family, kind, level, ip_address, not getattr(source, "imported", False))


def kumo_wanted(checked: practice.PracticeRequest) -> Wanted:
    """A KUMO practice game checked by ``engine.practice.check_practice_request`` (its
    domain chosen, at random when none was named), as a request of the family ``kumo``."""
    return Wanted(families.KUMO, checked.domain.name, checked.level, checked.ip_address, True)


def unseen_task(player: User, wanted: Wanted) -> FamilyTask | None:
    """A stored public task of the choice that ``player`` has not attempted, if any (never
    for KUMO's games: each is generated for its player alone)."""
    from leaderboard.access import visible_family_tasks

    if wanted.family == families.KUMO:
        return None

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
    now = timezone.now()
    requests.filter(
        Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now),
        status__in=IN_FLIGHT,
        created_at__lt=now - STALE_AFTER,
    ).update(
        status=FamilyPracticeRequest.Status.FAILED,
        error="the task was not prepared in time; please ask again",
        finished_at=now,
        lease_expires_at=None,
    )


def _worker_stopped(attempts: int) -> str:
    return (
        f"the task could not be prepared: the server stopped {attempts} times while "
        "generating it; please ask again"
    )


def run_family_practice_request(request_id: int) -> str:
    """The job: generate the request's task and start the player's attempt at it.

    1. Claim the request with a conditional update: a pending one, or one running under a
       lapsed lease (its worker died). The claim counts an attempt and writes a lease of
       ``FAMILY_PRACTICE_LEASE_SECONDS``; a job delivered twice finds nothing to claim.
    2. Past ``FAMILY_PRACTICE_MAX_ATTEMPTS`` tries the request fails for good, saying why.
    3. Generate with a fresh seed while a ``LeaseKeeper`` renews this try's lease.
    4. Start the player's attempt and mark the request done in one transaction, only if
       this try still holds the claim: a try that lost its lease and was taken over starts
       nothing, so one request never gives the player two attempts.
    """
    if not claim_with_lease(
        FamilyPracticeRequest, request_id, settings.FAMILY_PRACTICE_LEASE_SECONDS
    ):
        return f"request {request_id} is not pending (done, failed or held by a live try)"
    request = FamilyPracticeRequest.objects.select_related("player").get(pk=request_id)
    held = {"status": FamilyPracticeRequest.Status.RUNNING, "attempts": request.attempts}
    if request.attempts > settings.FAMILY_PRACTICE_MAX_ATTEMPTS:
        return _finish(request, held, error=_worker_stopped(request.attempts - 1))
    keeper = LeaseKeeper(
        FamilyPracticeRequest, request.pk, settings.FAMILY_PRACTICE_LEASE_SECONDS, **held
    )
    try:
        with keeper:
            if request.family == families.KUMO:
                instance = _kumo_instance(request)
            else:
                task = _generate(request).tasks[0]
    except FamilyError as error:
        return _finish(request, held, error=f"no task could be generated: {error}"[:500])
    except practice.GenerationFailed as error:
        return _finish(request, held, error=str(error)[:500])
    except Exception:
        # A bug, not a bad request: logged for the operators, and the player is told
        # instead of waiting for the request to go stale.
        logger.exception("family practice request %s failed", request_id)
        return _finish(request, held, error="no task could be generated: an error on our side")
    if request.family == families.KUMO:
        return _finish(request, held, instance=instance)
    return _finish(request, held, task=task)


def _kumo_instance(request: FamilyPracticeRequest) -> Instance:
    domain = Domain.objects.filter(name=request.kind).first()
    if domain is None:
        raise FamilyError(f"the domain {request.kind} is no longer stored")
    return practice.fresh_instance(domain, request.level)


def _generate(request: FamilyPracticeRequest) -> families.GenerationReport:
    draws = SEED_DRAWS
    while True:
        try:
            return families.do_generate_family_tasks(
                request.family,
                request.kind,
                count=1,
                seed=secrets.randbits(SEED_BITS),
                level=request.level or None,
            )
        except SeedRefused:
            draws -= 1
            if not draws:
                raise


def _finish(
    request: FamilyPracticeRequest,
    held: dict,
    *,
    task: FamilyTask | None = None,
    instance: Instance | None = None,
    error: str = "",
) -> str:
    """Record this try's outcome (and start the player's attempt at its task, or open their
    KUMO game on its instance) if it still holds the request as ``held`` says; a try taken
    over meanwhile records nothing (and its fresh instance, played by no one, goes)."""
    with transaction.atomic():
        # The update locks the row: a sweep or a new try waits for this to commit, then
        # finds the request finished.
        recorded = FamilyPracticeRequest.objects.filter(pk=request.pk, **held).update(
            task=task,
            error=error,
            status=(
                FamilyPracticeRequest.Status.FAILED if error else FamilyPracticeRequest.Status.DONE
            ),
            finished_at=timezone.now(),
            lease_expires_at=None,
        )
        if not recorded:
            logger.warning("family practice request %s: this try was taken over", request.pk)
            if instance is not None:
                instance.delete()
            return f"request {request.pk} was taken over by another try: nothing recorded"
        if task is not None:
            families.start_attempt(request.player, task)
        if instance is not None:
            session = practice.open_practice_game(request.player, instance, request.ip_address)
            FamilyPracticeRequest.objects.filter(pk=request.pk).update(session=session)
            return f"game {session.pk} prepared"
    return error or f"task {task.pk} prepared"


def requeue_stalled_practice_requests() -> list[int]:
    """Beat, every ``REQUEUE_STALLED_SECONDS``: queue again the requests whose job was lost.

    A request running past its lease lost its worker: it is queued again, or after
    ``FAMILY_PRACTICE_MAX_ATTEMPTS`` tries fails with the reason. One pending, unclaimed,
    for longer than ``FAMILY_PRACTICE_PENDING_GRACE_SECONDS`` lost its message (a broker
    restart), or waits behind others: it is queued again at most once per grace period (its
    ``lease_expires_at`` says when next). Queueing twice is harmless: only one try can claim
    a request. Returns the ids queued.
    """
    from engine.tasks import generate_family_practice_task

    return requeue_stalled(
        FamilyPracticeRequest,
        queued_field="created_at",
        grace_seconds=settings.FAMILY_PRACTICE_PENDING_GRACE_SECONDS,
        max_attempts=settings.FAMILY_PRACTICE_MAX_ATTEMPTS,
        failed=lambda attempts: {"error": _worker_stopped(attempts)},
        queue=generate_family_practice_task.delay,
    )


def request_state(request: FamilyPracticeRequest) -> dict:
    """The request as its status endpoint shows it: its status, the attempt (or, for a
    KUMO game, the session) to open once it is done, and the error if it failed."""
    if request.status in IN_FLIGHT and request.created_at < timezone.now() - STALE_AFTER:
        # Failed only without a live lease (see STALE_AFTER).
        _fail_stale(FamilyPracticeRequest.objects.filter(pk=request.pk))
        request.refresh_from_db()
    attempt_id = None
    session_id = request.session_id if request.status == FamilyPracticeRequest.Status.DONE else None
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
        "session": session_id,
        "error": request.error,
    }
