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
when the round closes counts as failed (``FamilyAttempts.close_open``).

The flow (name, live round, quota, a fresh task, numbering, failure at the close) is
written once for every family in ``leaderboard.ranked`` (``start_ranked``,
``close_open_ranked``); this module is where another family's ranked attempts are stored
(``FamilyAttempts``), and ``do_start_ranked_family_attempt`` starts one through it.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from engine.core.families.base import FamilyError, SeedRefused
from engine.families import canonical_level, do_generate_family_tasks
from engine.models import FamilyAttempt, FamilyTask
from engine.seeds import fresh_seed
from leaderboard.models import ModelEntry, RankedFamilyAttempt, Round
from leaderboard.ranked import (
    GenerationFailed,
    RankedError,
    RankedPlays,
    start_ranked,
)

NOT_FINISHED = "not finished when the round closed"


class FamilyAttempts(RankedPlays):
    """Every other family's ranked attempts: a ``FamilyAttempt`` of the model on a task made
    for it alone (``origin=ranked``), answered or moved through ``engine.families``."""

    ranked_model = RankedFamilyAttempt
    play_field = "attempt"
    noun = "attempt"
    open_noun = "attempts"
    doing = "ranked attempts are made"

    def check(self, live: Round, spec: dict) -> dict:
        """The key: the family, kind and level, a level's former name read as the level it
        names (``engine.families.canonical_level``), on either side."""
        asked = [spec[name] for name in ("family", "kind", "level")]
        key = dict(zip(("family", "kind", "level"), asked, strict=True))
        key["level"] = canonical_level(*asked)
        declared = [(e["family"], e["kind"], e["level"]) for e in live.family_specs]
        if tuple(key.values()) not in [(f, k, canonical_level(f, k, lv)) for f, k, lv in declared]:
            listed = ", ".join("/".join(entry) for entry in declared) or "none"
            raise RankedError(
                f"round {live.name} has no tasks of {'/'.join(asked)} (its family tasks: {listed})"
            )
        return key

    def label(self, key: dict) -> str:
        return "/".join(key.values())

    def fresh(self, key: dict) -> FamilyTask:
        """A task with a fresh secret seed (another seed in the 2^-62 case that the drawn
        one is taken, or when a seed has no task)."""
        for _ in range(5):
            try:
                report = do_generate_family_tasks(
                    key["family"],
                    key["kind"],
                    seeds=[fresh_seed()],
                    level=key["level"],
                    origin=FamilyTask.Origin.RANKED,
                )
            except SeedRefused:
                continue  # a seed with no task (engine.core.families.base): draw another
            except FamilyError as error:
                raise GenerationFailed(f"could not generate a ranked task: {error}") from None
            if report.created:
                return report.tasks[0]
        raise GenerationFailed("could not store a fresh ranked task; try again")

    def open_play(self, user, entry, task) -> dict:
        attempt = FamilyAttempt.objects.create(player=user, task=task, model_name=entry.name)
        return {"task": task, "attempt": attempt}

    def close_open(self, target: Round) -> int:
        """Each unfinished attempt is ended under its row lock with a conditional update,
        so closing twice ends it once."""
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


FAMILY_ATTEMPTS = FamilyAttempts()


def do_start_ranked_family_attempt(
    user: User,
    *,
    model: str,
    family: str,
    kind: str,
    level: str,
    entry_kind: str = ModelEntry.Kind.MODEL,
) -> RankedFamilyAttempt:
    """Start the model's next ranked attempt of (family, kind, level) for ``user``
    (``leaderboard.ranked.start_ranked``, the flow of every family's ranked play)."""
    spec = {"family": family, "kind": kind, "level": level}
    return start_ranked(user, FAMILY_ATTEMPTS, model=model, spec=spec, kind=entry_kind)


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
