"""Ranked attempts of every other family: verified evaluation on fresh tasks during a live
round, as KUMO's ranked games (``leaderboard.ranked``) work.

A model is ranked on the live round by playing ``round.ranked_games`` attempts per
(family, kind, level) the round declares (``Round.family_specs``). Each attempt is made on a
task generated for it alone, with a seed from the operating system's secure random source
(``engine.seeds.fresh_seed``, stored with ``origin=ranked``): no one can have seen the task,
and its seed is never served before the round closes (``leaderboard.access``). The attempt
is a ``FamilyAttempt`` of the model (``model_name``) filed under the account that plays it
(``player``), answered or moved through the ordinary service (``engine.families``). Until
the round closes its player learns right or wrong and the score, never the reference answer
nor the score's details. Numbers 1 … N are each used once, and an attempt left unfinished
when the round closes counts as failed (``do_close_open_family_attempts``).

Every write goes through here: ``check_ranked_family_request`` validates,
``do_start_ranked_family_attempt`` writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from engine.core.families.base import FamilyError, SeedRefused
from engine.families import do_generate_family_tasks
from engine.models import FamilyAttempt, FamilyTask
from engine.seeds import fresh_seed
from leaderboard.actions import SubmissionError, get_or_create_model
from leaderboard.models import ModelEntry, RankedFamilyAttempt, Round
from leaderboard.ranked import (
    GenerationFailed,
    NotYours,
    RankedError,
    check_model_owner,
    check_quota,
    live_round,
)

NOT_FINISHED = "not finished when the round closed"


@dataclass(frozen=True)
class RankedFamilyRequest:
    round: Round
    model_name: str
    family: str
    kind: str
    level: str


def check_ranked_family_request(
    user: User, *, model: str, family: str, kind: str, level: str
) -> RankedFamilyRequest:
    """Validate a request for the next ranked attempt; raises :class:`RankedError`."""
    name = check_model_owner(user, model)
    live = live_round("ranked attempts are made")
    declared = [(e["family"], e["kind"], e["level"]) for e in live.family_specs]
    if (family, kind, level) not in declared:
        listed = ", ".join("/".join(entry) for entry in declared) or "none"
        raise RankedError(
            f"round {live.name} has no tasks of {family}/{kind}/{level} (its family tasks: "
            f"{listed})"
        )
    return RankedFamilyRequest(live, name, family, kind, level)


def _attempts(request: RankedFamilyRequest, entry: ModelEntry):
    return RankedFamilyAttempt.objects.filter(
        round=request.round,
        model=entry,
        family=request.family,
        kind=request.kind,
        level=request.level,
    )


def _check_room(request: RankedFamilyRequest, entry: ModelEntry) -> None:
    attempts = _attempts(request, entry)
    check_quota(
        entry,
        request.round,
        played=attempts.count(),
        open_ids=list(
            attempts.filter(attempt__finished_at__isnull=True).values_list("attempt_id", flat=True)
        ),
        what=f"{request.family}/{request.kind}/{request.level}",
        noun="attempt",
        open_noun="attempts",
    )


def _fresh_task(request: RankedFamilyRequest) -> FamilyTask:
    """Generate and store one task with a fresh secret seed (another seed in the 2^-62
    case that the drawn one is taken)."""
    for _ in range(5):
        try:
            report = do_generate_family_tasks(
                request.family,
                request.kind,
                seeds=[fresh_seed()],
                level=request.level,
                origin=FamilyTask.Origin.RANKED,
            )
        except SeedRefused:
            continue  # a seed with no task (engine.core.families.base): draw another
        except FamilyError as error:
            raise GenerationFailed(f"could not generate a ranked task: {error}") from None
        if report.created:
            return report.tasks[0]
    raise GenerationFailed("could not store a fresh ranked task; try again")


def do_start_ranked_family_attempt(
    user: User,
    *,
    model: str,
    family: str,
    kind: str,
    level: str,
    entry_kind: str = ModelEntry.Kind.MODEL,
) -> RankedFamilyAttempt:
    """Start the model's next ranked attempt of (family, kind, level) for ``user``.

    1. Check the request, and that the model has an attempt left and not too many open.
    2. Generate a fresh task with a secret seed (outside any lock: some kinds take seconds).
    3. Lock the model's row, check again, number the attempt and open it. If the attempts
       ran out meanwhile (a parallel request), the fresh task is deleted unused.
    """
    request = check_ranked_family_request(user, model=model, family=family, kind=kind, level=level)
    try:
        entry = get_or_create_model(request.model_name, user=user, kind=entry_kind)
    except SubmissionError as error:
        raise NotYours(str(error)) from None
    _check_room(request, entry)
    task = _fresh_task(request)
    try:
        with transaction.atomic():
            ModelEntry.objects.select_for_update().filter(pk=entry.pk).first()
            _check_room(request, entry)
            number = (_attempts(request, entry).aggregate(last=Max("number"))["last"] or 0) + 1
            attempt = FamilyAttempt.objects.create(player=user, task=task, model_name=entry.name)
            return RankedFamilyAttempt.objects.create(
                round=request.round,
                model=entry,
                family=request.family,
                kind=request.kind,
                level=request.level,
                number=number,
                task=task,
                attempt=attempt,
            )
    except (RankedError, IntegrityError):
        task.delete()
        raise


def do_close_open_family_attempts(target: Round) -> int:
    """End every unfinished ranked attempt of ``target`` as failed (the round has closed:
    an abandoned attempt counts, so dropping the hard ones cannot help). Each is ended
    under its row lock with a conditional update, so closing twice ends it once. Returns
    how many were ended."""
    now = timezone.now()
    open_ids = list(
        RankedFamilyAttempt.objects.filter(
            round=target, attempt__finished_at__isnull=True
        ).values_list("attempt_id", flat=True)
    )
    ended = 0
    with transaction.atomic():
        unfinished = FamilyAttempt.objects.select_for_update().filter(
            pk__in=open_ids, finished_at__isnull=True
        )
        for attempt in unfinished:
            ended += FamilyAttempt.objects.filter(pk=attempt.pk).update(
                answer="\n".join(attempt.played_moves()),
                correct=False,
                value=0.0,
                details={"error": NOT_FINISHED, "invalid_moves": attempt.invalid_moves},
                finished_at=now,
                # No time to report: it was never finished (and weeks overflow the column).
                elapsed_ms=None,
            )
    return ended


def ranked_attempt_view(ranked: RankedFamilyAttempt) -> dict:
    """A ranked attempt as its player sees it: which one it is, and the attempt's state
    (``engine.families.attempt_state``, which keeps the reference while the round is live)."""
    from engine.families import attempt_state

    return {
        "number": ranked.number,
        "of": ranked.round.ranked_games,
        "round": ranked.round.name,
        "model": ranked.model.name,
        "attempt": attempt_state(ranked.attempt),
    }
